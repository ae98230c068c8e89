(() => {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const load = (id) => { const el = $(id); return el ? JSON.parse(el.textContent) : null; };
  const make = (tag, cls, text) => {
    const el = document.createElement(tag);
    if (cls) el.className = cls;
    if (text !== undefined) el.textContent = text;
    return el;
  };
  const pick = $("pick");
  if (!pick) return;
  const battles = {};
  for (const option of pick.options) {
    const key = option.value;
    battles[key] = {events: load("battle-" + key), lines: load("narration-" + key),
                    states: load("state-" + key)};
  }
  let battle = null, k = 0, rows = new Map(), items = [];

  // The state after event `upto`: the changes Python computed (sim.replay_state), applied in order.
  // Who is present (a day's later fight brings its own cast) and where (the step of a day).
  function stateAt(states, upto) {
    const cast = new Map(states[0].cast);
    let shared = states[0].shared, present = states[0].present, scene = states[0].scene;
    for (let i = 1; i <= upto; i++) {
      for (const [name, shown] of states[i].cast) cast.set(name, shown);
      if (states[i].shared) shared = states[i].shared;
      if (states[i].present) present = states[i].present;
      if (states[i].scene !== undefined) scene = states[i].scene;
    }
    return {cast, shared, present: new Set(present), scene};
  }

  function build() {
    battle = battles[pick.value];
    // The picker says the outcome in a few words; the whole of it (and what is cut) here.
    $("pick-note").textContent = pick.selectedOptions[0].title;
    const roster = $("roster"), log = $("log"), sides = new Map();
    roster.replaceChildren();
    rows = new Map();
    // The roster of state 0: a battle's cast, or everyone who fights in a day.
    for (const [name, side] of battle.states[0].roster) {
      if (!sides.has(side)) {
        const box = make("div", "side");
        box.append(make("h3", "", side));
        sides.set(side, box);
        roster.append(box);
      }
      const row = make("div", "fighter"), hp = make("div", "hp");
      const fill = make("span", "fill"), text = make("span", "hp-text"), tags = make("div", "tags");
      hp.dataset.name = name;
      hp.append(fill, text);
      row.append(make("span", "name", name), hp, tags);
      sides.get(side).append(row);
      rows.set(name, {row, hp, fill, text, tags, box: sides.get(side)});
    }
    items = battle.lines.map((line) => make("li", "", line));
    log.replaceChildren(...items);
    k = 0;
    render();
  }

  function render() {
    const events = battle.events, {cast, shared, present, scene} = stateAt(battle.states, k);
    const shownSides = new Set();
    for (const [name, c] of cast) {
      const r = rows.get(name), share = c.max > 0 ? Math.max(0, Math.min(1, c.hp / c.max)) : 0;
      r.row.hidden = present.size > 0 && !present.has(name);
      if (!r.row.hidden) shownSides.add(r.box);
      r.hp.dataset.hp = String(c.hp);
      r.hp.dataset.level = share > 0.5 ? "high" : share > 0.25 ? "mid" : "low";
      r.fill.style.width = (share * 100).toFixed(1) + "%";
      r.text.textContent = c.hp + " / " + c.max + " HP";
      r.row.dataset.status = c.status;
      const tags = [c.status === "active" ? "" : c.status, ...c.details];
      r.tags.textContent = tags.filter(Boolean).join(" · ");
    }
    for (const r of rows.values()) r.box.hidden = !shownSides.has(r.box);
    const pools = Object.entries(shared).map(([pool, left]) => " · " + pool + " " + left).join("");
    const where = scene ? scene + " · " : "";
    $("step").textContent = `${where}event ${k + 1} of ${events.length}, round ${events[k].round}${pools}`;
    $("event-text").textContent = battle.lines[k];
    items.forEach((li, i) => { li.className = i > k ? "future" : i === k ? "current" : ""; });
    const log = $("log");
    log.scrollTop = Math.max(0, items[k].offsetTop - log.clientHeight + items[k].offsetHeight + 8);
    $("first").disabled = $("prev").disabled = k === 0;
    $("last").disabled = $("next").disabled = k === events.length - 1;
  }

  function go(to) {
    k = Math.max(0, Math.min(battle.events.length - 1, to));
    render();
  }
  $("first").addEventListener("click", () => go(0));
  $("prev").addEventListener("click", () => go(k - 1));
  $("next").addEventListener("click", () => go(k + 1));
  $("last").addEventListener("click", () => go(battle.events.length - 1));
  pick.addEventListener("change", build);
  document.addEventListener("keydown", (event) => {
    const tag = event.target && event.target.tagName;
    if (tag === "SELECT" || tag === "INPUT" || tag === "TEXTAREA" || event.altKey || event.ctrlKey) return;
    const to = {ArrowRight: k + 1, ArrowLeft: k - 1, Home: 0, End: battle.events.length - 1}[event.key];
    if (to !== undefined) { go(to); event.preventDefault(); }
  });
  build();
})();
