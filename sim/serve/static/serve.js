// The encounter builder of `sim serve`. Every figure comes from the server's JSON API
// (/api/...): this script only builds the form, keeps it and the YAML in step, starts
// jobs and shows what they answer. Names come from GMs' files: they are set with
// textContent, never as HTML.
"use strict";

const HEADLINE = [["win", "the party wins"], ["any_down", "someone goes down"],
                  ["any_death", "someone dies"], ["tpk", "total party kill"],
                  ["left_behind", "someone is left behind"]];
const POLL_MS = 250;
const EDIT_WAIT_MS = 500;

// figures: the battles, seed and party figures of the last finished batch (what the page shows).
const state = { form: null, entries: [], job: null, runs: 0, composes: 0, composed: Promise.resolve(),
                editTimer: null, figures: null };
const $ = (id) => document.getElementById(id);

function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (cls) node.className = cls;
  return node;
}

function pct(x) { return (100 * x).toFixed(1) + "%"; }

async function api(method, path, body) {
  const init = { method, headers: {}, credentials: "same-origin" };
  if (body !== undefined) {
    init.headers["content-type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const data = await response.json();
  if (!response.ok) {
    const error = new Error(data.error || response.statusText);
    error.problems = data.problems || [];
    throw error;
  }
  return data;
}

// -- the form --------------------------------------------------------------------------

// The form a rule system starts with: the classic party of four and a pack of wolves where
// the bestiary has them (a medium fight in d20), else its first heroes and first monster.
const STARTING_PARTY = ["fighter", "priest", "rogue", "ranger"];
const STARTING_FOE = "wolf";

function defaultForm(rules) {
  const heroes = state.entries.filter((e) => e.group === "heroes");
  const named = STARTING_PARTY.filter((name) => heroes.some((e) => e.name === name));
  const party = named.length === STARTING_PARTY.length ? named : heroes.slice(0, 4).map((e) => e.name);
  const others = state.entries.filter((e) => e.group !== "heroes");
  const foe = others.some((e) => e.name === STARTING_FOE) ? STARTING_FOE : (others[0] || {}).name;
  return {
    rules, name: "Encounter", distance: 0, surprise: "", party_name: "party", foes_name: "opposition",
    foes_index: 1, options: { morale: rules === "2d10", destiny_points: 0, spirit: false },
    party: party.map((use) => ({ use, name: "", count: 1 })),
    foes: foe ? [{ use: foe, name: "", count: 4 }] : [],
  };
}

function describe(use) {
  const entry = state.entries.find((e) => e.name === use);
  return entry ? (entry.description || entry.line) : "not in this bestiary";
}

function memberRow(side, member, k) {
  const li = el("li");
  li.append(el("span", member.use, "who"));
  if (side === "party") {
    const name = el("input");
    name.type = "text";
    name.placeholder = "name";
    name.value = member.name || "";
    name.maxLength = 60;
    name.setAttribute("aria-label", `name of ${member.use}`);
    name.addEventListener("change", () => { member.name = name.value.trim(); formChanged(); });
    li.append(name);
  } else {
    const count = el("input");
    count.type = "number";
    count.min = "1";
    count.max = "100";
    count.value = String(member.count);
    count.setAttribute("aria-label", `how many ${member.use}`);
    count.addEventListener("change", () => {
      member.count = Math.max(1, Math.min(100, parseInt(count.value, 10) || 1));
      formChanged();
    });
    const whatif = el("button", "one more / one fewer?");
    whatif.type = "button";
    whatif.addEventListener("click", () => whatIf(k));
    li.append(count, whatif);
  }
  const remove = el("button", "remove");
  remove.type = "button";
  remove.addEventListener("click", () => { state.form[side].splice(k, 1); formChanged(); });
  li.append(remove, withCode("span", describe(member.use), "desc"));
  return li;
}

function renderForm() {
  const form = state.form;
  $("name").value = form.name || "";
  $("distance").value = String(form.distance || 0);
  $("destiny").value = String(form.options.destiny_points || 0);
  $("surprise").value = form.surprise || "";
  $("morale").checked = !!form.options.morale;
  $("flee").value = form.options.flee_at ? String(form.options.flee_at) : "";
  $("spirit").checked = !!form.options.spirit;
  $("spirit-box").hidden = form.rules !== "d20";
  for (const side of ["party", "foes"]) {
    $(side).replaceChildren(...form[side].map((m, k) => memberRow(side, m, k)));
  }
  const tuned = $("tune-member");
  tuned.replaceChildren(...form.foes.map((m, k) => {
    const option = el("option", m.use);
    option.value = String(k);
    return option;
  }));
}

function readOptions() {
  const form = state.form;
  form.name = $("name").value.trim() || "Encounter";
  form.distance = Math.max(0, Math.min(1000, parseInt($("distance").value, 10) || 0));
  form.surprise = $("surprise").value;
  form.options = { morale: $("morale").checked,
                   destiny_points: Math.max(0, parseInt($("destiny").value, 10) || 0),
                   spirit: form.rules === "d20" && $("spirit").checked };
  if ($("flee").value) form.options.flee_at = parseFloat($("flee").value);
}

// Each change of the form composes its YAML anew; ``state.composed`` is the last compose.
function formChanged() {
  state.composed = composeForm();
  return state.composed;
}

// The YAML of the form as it stands: a what-if or a count to tune names a foe by its place in
// the form, so it waits for the compose of the form's last change (a GM may click "one more"
// right after adding the foe, before the server has answered).
async function composedYaml() {
  let pending;
  while (pending !== state.composed) {
    pending = state.composed;
    await pending;
  }
  return $("yaml").value;
}

// An API error as one line: its message, then its problems' (what a GM can fix).
function errorText(error) {
  const problems = (error.problems || []).map((p) => p.message);
  return problems.length ? `${error.message}: ${problems.join("; ")}` : error.message;
}

async function composeForm() {
  readOptions();
  renderForm();
  if (!state.form.party.length || !state.form.foes.length) {
    showProblems([{ line: 0, message: "add at least one party member and one monster", severity: "error" }]);
    return;
  }
  // The last change of the form wins: answers to two quick changes may come back swapped.
  const composing = ++state.composes;
  try {
    const { yaml } = await api("POST", "/api/compose", { form: state.form });
    if (composing !== state.composes) return;
    setYaml(yaml);
    await sourceChanged(false);
  } catch (error) {
    showProblems([{ line: 0, message: error.message, severity: "error" }]);
  }
}

function addFrom(input, side) {
  const use = input.value.trim();
  if (!use) return;
  const entry = state.entries.find((e) => e.name === use);
  if (!entry) {
    searchHint(use);
    return;
  }
  input.value = "";
  $("search-hint").textContent = "";
  state.form[side].push({ use, name: "", count: 1 });
  formChanged();
}

async function searchHint(text) {
  const rules = state.form.rules;
  const found = await api("GET", `/api/bestiary?rules=${encodeURIComponent(rules)}&q=${encodeURIComponent(text)}`);
  const names = found.entries.slice(0, 8).map((e) => e.name);
  $("search-hint").textContent = names.length
    ? `No entry named "${text}". Close: ${names.join(", ")}.`
    : `No ${rules} entry matches "${text}" (searched: ${found.searched.join(", ") || "no folder"}).`;
}

async function loadBestiary(rules) {
  const found = await api("GET", `/api/bestiary?rules=${encodeURIComponent(rules)}`);
  state.entries = found.entries;
  const options = (list) => list.map((e) => {
    const option = el("option");
    option.value = e.name;
    option.label = (e.description ? `${e.name}: ${e.description}` : e.line).replaceAll("`", "");
    return option;
  });
  const heroes = found.entries.filter((e) => e.group === "heroes");
  $("party-names").replaceChildren(...options(heroes.length ? heroes : found.entries));
  $("foe-names").replaceChildren(...options(found.entries));
}

// -- the YAML editor ---------------------------------------------------------------------

function setYaml(text) {
  $("yaml").value = text;
  drawGutter([]);
}

function drawGutter(problems) {
  const marked = new Map(problems.filter((p) => p.line > 0).map((p) => [p.line, p.severity]));
  const lines = $("yaml").value.split("\n").length;
  const gutter = $("gutter");
  gutter.replaceChildren();
  // One block a line, each as tall as a line of the editor: a marked line is no taller than
  // another, so every number stays beside its line.
  for (let line = 1; line <= lines; line += 1) {
    const mark = marked.get(line);
    gutter.append(el("div", String(line), mark === "warning" ? "warn" : mark ? "bad" : undefined));
  }
  gutter.scrollTop = $("yaml").scrollTop;
}

function showProblems(problems) {
  const list = $("problems");
  list.replaceChildren(...problems.map((p) => {
    const where = p.line > 0 ? `line ${p.line}: ` : "";
    const path = p.path ? `${p.path}: ` : "";
    return el("li", `${where}${path}${p.message}`, p.severity || "error");
  }));
  drawGutter(problems);
}

function editorInput() {
  clearTimeout(state.editTimer);
  drawGutter([]);
  state.editTimer = setTimeout(() => sourceChanged(true), EDIT_WAIT_MS);
}

async function sourceChanged(fromEditor) {
  // The last change wins: a check or batch begun for an older text stops at its next step.
  const run = ++state.runs;
  const current = () => run === state.runs;
  const text = $("yaml").value;
  state.figures = null;
  cancelJob();
  document.dispatchEvent(new CustomEvent("sim:edited"));  // spread.js: its box is stale
  if (fromEditor) {
    const parsed = await api("POST", "/api/parse", { scenario: text });
    if (!current()) return;
    $("form").disabled = parsed.form === null;
    $("form-note").hidden = parsed.form !== null;
    $("form-note").textContent = parsed.form === null ? `The form cannot show this scenario: ${parsed.why}.` : "";
    if (parsed.form !== null) {
      if (parsed.form.rules !== state.form.rules && ["d20", "d100", "2d10", "d10"].includes(parsed.form.rules)) {
        $("rules").value = parsed.form.rules;
        await loadBestiary(parsed.form.rules);
      }
      state.form = parsed.form;
      renderForm();
    }
  }
  const checked = await api("POST", "/api/validate", { scenario: text });
  if (!current()) return;
  const problems = (checked.problems || []).map((p) => ({ ...p, severity: "error" }))
    .concat((checked.warnings || []).map((p) => ({ ...p, severity: "warning" })));
  showProblems(problems);
  $("day").hidden = checked.kind !== "day";
  if (checked.ok) startBatch(text, current);
  else showWaiting("Fix the problems in the YAML to see the odds.");
}

// -- the batch and its headline ------------------------------------------------------------

// The bar that stays at the top of the screen while a GM edits: the difficulty word, the
// party wins, someone goes down, someone dies (empty figures while there are none).
function showSummary(first, figures) {
  $("summary-difficulty").textContent = first;
  const [win, down, death] = figures || ["", "", ""];
  $("summary-win").textContent = win;
  $("summary-down").textContent = down;
  $("summary-death").textContent = death;
}

function showWaiting(text) {
  state.figures = null;
  showSummary(text);
  $("difficulty").textContent = text;
  $("headline").tBodies[0].replaceChildren();
  $("progress").value = 0;
  $("battles").textContent = "";
  $("report").hidden = true;
}

function cancelJob() {
  if (state.job) {
    api("DELETE", `/api/jobs/${state.job}`).catch(() => {});
    state.job = null;
  }
}

function battlesAsked() { return Math.max(100, Math.min(100000, parseInt($("n").value, 10) || 4000)); }

async function startBatch(text, current) {
  const n = battlesAsked();
  const seed = Math.max(0, parseInt($("seed").value, 10) || 0);
  try {
    const job = await api("POST", "/api/jobs", { kind: "batch", scenario: text, n, seed });
    if (!current()) {  // edited again meanwhile
      api("DELETE", `/api/jobs/${job.id}`).catch(() => {});
      return;
    }
    state.job = job.id;
    $("difficulty").textContent = "Playing the first battles...";
    showSummary("Playing the first battles...");
    watch(job.id, showBatch, current);
  } catch (error) {
    if (current()) showWaiting(error.message);
  }
}

async function watch(id, show, current) {
  while (current()) {
    const job = await api("GET", `/api/jobs/${id}`);
    if (!current()) return;
    show(job);
    if (job.status !== "running") return;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

function showBatch(job) {
  const summary = job.result || job.partial;
  $("progress").value = job.total ? job.done / job.total : 0;
  if (job.status === "failed") {
    showProblems(job.problems);
    showWaiting("The batch stopped: see the problems under the YAML.");
    return;
  }
  if (!summary || !summary.party) {
    if (summary && summary.battles !== undefined && !summary.party) {
      const none = "No side has party: true, so there is no party and no difficulty: mark the"
        + " players' side with party: true in the YAML.";
      $("difficulty").textContent = none;
      showSummary(none);
    }
    return;
  }
  const party = summary.party;
  const range = party.difficulty_range;
  const spread = range && range.lo !== range.hi ? ` (between ${range.lo} and ${range.hi})` : "";
  $("difficulty").textContent = `Difficulty: ${party.difficulty}${spread}`;
  state.figures = job.status === "done" ? { battles: summary.battles, seed: summary.seed, party } : null;
  showSummary(`${party.difficulty[0].toUpperCase()}${party.difficulty.slice(1)}${spread}:`,
              [`the party wins ${pct(party.win.p)},`, `someone goes down ${pct(party.any_down.p)},`,
               `someone dies ${pct(party.any_death.p)}`]);
  $("battles").textContent = job.status === "done"
    ? `${summary.battles} battles, seed ${summary.seed}: final figures.`
    : `${summary.battles} of ${job.total} battles so far; the intervals narrow as more finish.`;
  // "Left behind" only where it happened, as the terminal's headline says it.
  const shown = ([key]) => party[key] && (key !== "left_behind" || party[key].p > 0);
  const rows = HEADLINE.filter(shown).map(([key, label]) => {
    const tr = el("tr");
    const figure = party[key];
    tr.append(el("th", label), el("td", pct(figure.p)), el("td", `${pct(figure.lo)} to ${pct(figure.hi)}`));
    return tr;
  });
  $("headline").tBodies[0].replaceChildren(...rows);
  markExact(job, HEADLINE.filter(shown).map(([key]) => key));
  showDay(summary.steps);
  if (job.status === "done") document.dispatchEvent(new CustomEvent("sim:batch-done"));  // spread.js
  const report = $("report");
  report.hidden = !job.report;
  report.href = `/jobs/${job.id}/report`;
}

// A fight small enough to solve (sim odds) gets its exact figure beside each estimate.
function markExact(job, keys) {
  if (!job.exact) return;
  [...$("headline").tBodies[0].rows].forEach((tr, i) => {
    if (job.exact[keys[i]] !== undefined) tr.append(el("td", `exact ${pct(job.exact[keys[i]])}`, "exact"));
  });
}

function showDay(steps) {
  $("day").hidden = !steps;
  if (!steps) return;
  $("day-table").tBodies[0].replaceChildren(...steps.map((step) => {
    const tr = el("tr");
    tr.append(el("td", `${step.step + 1}. ${step.name}`), el("td", pct(step.reached.p)),
              el("td", step.won ? pct(step.won.p) : "rest"), el("td", step.any_death ? pct(step.any_death.p) : ""));
    return tr;
  }));
}

// -- what if? and how many? -----------------------------------------------------------------

function foePath(k) { return `sides[${state.form.foes_index}].members[${k}].count`; }

// The what-if plays as many battles as the table above it (up to the server's cap), on the
// same seeds, so its "as written" is the table's figure.
const MAX_PAIRED = 20000;

async function whatIf(k) {
  const foe = state.form.foes[k];
  const n = Math.min(MAX_PAIRED, state.figures ? state.figures.battles : battlesAsked());
  const variants = [{ name: `as written (${counted(foe.count, foe.use)})`, set: [] },
                    { name: `one more ${foe.use}`, set: [`${foePath(k)}=${foe.count + 1}`] }];
  if (foe.count > 1) variants.push({ name: `one fewer ${foe.use}`, set: [`${foePath(k)}=${foe.count - 1}`] });
  $("whatif").hidden = false;
  $("whatif-text").textContent = `Playing each variant on the same battle seeds...`;
  $("whatif-table").tBodies[0].replaceChildren();
  try {
    const scenario = await composedYaml();
    const job = await api("POST", "/api/jobs", { kind: "compare", scenario, variants,
                                                n, seed: parseInt($("seed").value, 10) || 0 });
    watch(job.id, showCompare, () => true);
  } catch (error) {
    $("whatif-text").textContent = errorText(error);
  }
}

function showCompare(job) {
  if (job.status === "failed") {
    $("whatif-text").textContent = job.problems.map((p) => p.message).join("; ");
    return;
  }
  if (job.status !== "done") {
    $("whatif-text").textContent = `Playing each variant on the same battle seeds... ${job.done} of ${job.total}`;
    return;
  }
  const result = job.result;
  const deaths = result.metrics["party.any_death"];
  // Members left behind alive by a party that fled (rules §5): said where a variant has any.
  const behind = result.metrics["party.left_behind"];
  const leaves = behind && behind.values.some((v) => v.p > 0);
  const sentences = [];
  const rows = result.variants.map((name, k) => {
    const tr = el("tr");
    const value = deaths.values[k];
    let diff = "";
    if (k > 0) {
      const d = deaths.diffs[k - 1];
      diff = `${points(d.d)} points [${points(d.lo)}, ${points(d.hi)}]`;
      const left = leaves ? `; someone is left behind ${pct(behind.values[0].p)} -> ${pct(behind.values[k].p)}` : "";
      sentences.push(`${name}: someone dies ${pct(deaths.values[0].p)} -> ${pct(value.p)}, ${diff}${left}.`);
    }
    tr.append(el("td", name), el("td", pct(value.p)), el("td", diff));
    return tr;
  });
  $("whatif-table").tBodies[0].replaceChildren(...rows);
  const table = state.figures ? state.figures.battles : null;
  const same = table === result.battles ? ", as the table above" : table ? `; the table above has ${table}` : "";
  $("whatif-text").textContent = `${sentences.join(" ")} (${result.battles} battles each${same}, on the`
    + " same seeds.)";
}

async function tuneCount() {
  const k = parseInt($("tune-member").value, 10);
  if (Number.isNaN(k)) return;
  const foe = state.form.foes[k];
  const max = Math.max(1, Math.min(20, parseInt($("tune-max").value, 10) || 8));
  const limit = Math.max(1, Math.min(99, parseInt($("tune-limit").value, 10) || 20)) / 100;
  $("tune-text").textContent = `Trying 1 to ${counted(max, foe.use)}...`;
  $("tune-table").hidden = true;
  try {
    const scenario = await composedYaml();
    const job = await api("POST", "/api/jobs", { kind: "tune", scenario,
                                                vary: `${foePath(k)}=1..${max}`,
                                                target: `party.any_death<=${limit}`,
                                                seed: parseInt($("seed").value, 10) || 0 });
    watch(job.id, (j) => showTune(j, foe.use, limit), () => true);
  } catch (error) {
    $("tune-text").textContent = errorText(error);
  }
}

function showTune(job, use, limit) {
  if (job.status === "failed") {
    $("tune-text").textContent = job.problems.map((p) => p.message).join("; ");
    return;
  }
  if (job.status !== "done") {
    $("tune-text").textContent = `Trying counts of ${plural(use)}... ${job.done} battles`;
    return;
  }
  const result = job.result;
  $("tune-text").textContent = result.largest_ok === null
    ? `Even one ${use} kills someone more than ${pct(limit)} of the time.`
    : `At most ${counted(result.largest_ok, use)} ${result.largest_ok === 1 ? "keeps" : "keep"}`
      + ` "someone dies" at or under ${pct(limit)}.`;
  $("tune-table").hidden = false;
  $("tune-table").tBodies[0].replaceChildren(...result.points.map((point) => {
    const tr = el("tr");
    const verdict = point.straddles ? "too close to call" : point.meets ? "within the limit" : "over the limit";
    tr.append(el("td", String(point.value)), el("td", pct(point.metric.p)), el("td", verdict));
    return tr;
  }));
}

// -- files ---------------------------------------------------------------------------------

function save() {
  const stem = (state.form && state.form.name ? state.form.name : "encounter").replace(/[^\w-]+/g, "_");
  const file = `${stem.toLowerCase() || "encounter"}.yaml`;
  const blob = new Blob([withFigures($("yaml").value, file)], { type: "text/yaml" });
  const link = el("a");
  link.href = URL.createObjectURL(blob);
  link.download = file;
  document.body.append(link);
  link.click();
  link.remove();
  URL.revokeObjectURL(link.href);
}

function load(event) {
  const file = event.target.files[0];
  if (!file) return;
  file.text().then((text) => { setYaml(text); sourceChanged(true); });
  event.target.value = "";
}

async function changeRules() {
  const rules = $("rules").value;
  await loadBestiary(rules);
  state.form = defaultForm(rules);
  $("form").disabled = false;
  $("form-note").hidden = true;
  formChanged();
}

async function start() {
  $("rules").addEventListener("change", changeRules);
  for (const id of ["name", "distance", "surprise", "destiny", "flee", "morale", "spirit"]) {
    $(id).addEventListener("change", formChanged);
  }
  $("party-search").addEventListener("change", (e) => addFrom(e.target, "party"));
  $("foe-search").addEventListener("change", (e) => addFrom(e.target, "foes"));
  $("yaml").addEventListener("input", editorInput);
  $("yaml").addEventListener("scroll", () => { $("gutter").scrollTop = $("yaml").scrollTop; });
  $("n").addEventListener("change", () => sourceChanged(false));
  $("seed").addEventListener("change", () => sourceChanged(false));
  $("tune-go").addEventListener("click", tuneCount);
  $("save").addEventListener("click", save);
  $("share").addEventListener("click", share);
  $("load").addEventListener("change", load);
  // A closed page leaves nothing running: its batch is cancelled as it goes.
  window.addEventListener("pagehide", () => {
    if (state.job) fetch(`/api/jobs/${state.job}`, { method: "DELETE", keepalive: true, credentials: "same-origin" });
  });
  const shared = sharedScenario();
  if (shared === null) {
    await changeRules();
    return;
  }
  await loadBestiary($("rules").value);
  state.form = defaultForm($("rules").value);
  setYaml(shared);
  await sourceChanged(true);
}

document.addEventListener("DOMContentLoaded", start);
