// The "How much does it hang on play?" box of `sim serve`'s page (sim/serve/spreads.py on
// the server): once a batch has finished (serve.js says so with "sim:batch-done"), it plays
// the encounter under each tactics preset of each side and the corners on the same seeds,
// as `sim spread` does, and shows the sentence and the range as each step finishes. An edit
// ("sim:edited") stops it. It uses serve.js's api, el, pct and $; names are set as text.
"use strict";

const SPREAD_FIGURES = [["any_death", "someone dies"], ["any_down", "someone goes down"],
                        ["tpk", "total party kill"], ["win", "the party wins"]];
const SPREAD_WAIT_MS = 1000;  // a batch done while the GM is still editing starts nothing
const spreadState = { job: null, run: 0, timer: null };

function stopSpread() {
  clearTimeout(spreadState.timer);
  spreadState.run += 1;
  if (spreadState.job) {
    api("DELETE", `/api/jobs/${spreadState.job}`).catch(() => {});
    spreadState.job = null;
  }
}

async function startSpread() {
  stopSpread();
  const run = spreadState.run;
  const current = () => run === spreadState.run;
  $("spread-box").hidden = false;
  $("spread-text").textContent = "Playing each side's ways of fighting on the same battle seeds...";
  $("spread-note").textContent = "";
  $("spread-table").tBodies[0].replaceChildren();
  try {
    const job = await api("POST", "/api/jobs", { kind: "spread", scenario: $("yaml").value,
                                                seed: Math.max(0, parseInt($("seed").value, 10) || 0) });
    if (!current()) {
      api("DELETE", `/api/jobs/${job.id}`).catch(() => {});
      return;
    }
    spreadState.job = job.id;
    watch(job.id, showSpread, current);
  } catch (error) {
    if (current()) $("spread-text").textContent = error.message;
  }
}

function showSpread(job) {
  if (job.status === "failed") {
    $("spread-text").textContent = job.problems.map((p) => p.message).join("; ");
    return;
  }
  const box = job.result || job.partial;
  if (!box) {
    $("spread-text").textContent = `Playing each side's ways of fighting... ${job.done} of ${job.total} battles`;
    return;
  }
  $("spread-text").textContent = box.sentence;
  $("spread-table").tBodies[0].replaceChildren(...SPREAD_FIGURES.map(([key, label]) => {
    const span = box.range[`party.${key}`];
    const tr = el("tr");
    const range = el("td", `${pct(span.lo)} to ${pct(span.hi)}`);
    range.title = `lowest: ${span.lo_preset}; highest: ${span.hi_preset}`;
    tr.append(el("th", label), range, el("td", pct(box.as_written[`party.${key}`])));
    return tr;
  }));
  // "As written" here is played anew on this box's own battles: say so when the table above
  // played another number, as "What if?" does, lest the two figures seem to disagree.
  const table = state.figures ? state.figures.battles : box.battles;
  const other = table === box.battles ? "" : ` (the table above: ${table} battles, so its figures differ by chance)`;
  $("spread-note").textContent = job.status === "done"
    ? `${box.battles} battles a play, the same seeds for every play, corners included${other}: final figures.`
    : `${box.battles} battles a play so far${other}; the corners come last. The figures firm up as more finish.`;
}

document.addEventListener("sim:batch-done", () => {
  stopSpread();
  spreadState.timer = setTimeout(startSpread, SPREAD_WAIT_MS);
});
document.addEventListener("sim:edited", () => {
  stopSpread();
  $("spread-box").hidden = true;
});
// A closed page leaves nothing running (as serve.js does for its batch).
window.addEventListener("pagehide", () => {
  if (spreadState.job) {
    fetch(`/api/jobs/${spreadState.job}`, { method: "DELETE", keepalive: true, credentials: "same-origin" });
  }
});
