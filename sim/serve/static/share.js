// What leaves the page of `sim serve` with the scenario: the link to share, and the
// note a saved file opens with. Loaded before serve.js, whose functions it
// shares (classic scripts share one scope).
"use strict";

// The scenario rides in the address's fragment (#scenario=...), which a browser never sends
// to a server; the address is the page's own without its query, so the token stays out.
const SHARED = "#scenario=";

function toBase64Url(text) {
  const bytes = new TextEncoder().encode(text);
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function fromBase64Url(text) {
  const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
  return new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}

function share() {
  const link = `${location.origin}${location.pathname}${SHARED}${toBase64Url($("yaml").value)}`;
  $("share-link").value = link;
  $("share-box").hidden = false;
  $("share-link").select();
  if (navigator.clipboard) navigator.clipboard.writeText(link).catch(() => {});
}

function sharedScenario() {
  if (!location.hash.startsWith(SHARED)) return null;
  try {
    return fromBase64Url(location.hash.slice(SHARED.length));
  } catch (error) {
    showProblems([{ line: 0, message: "the link's scenario cannot be read (cut short?)", severity: "error" }]);
    return null;
  }
}

// The comment a saved file opens with: the battles and seed behind the page's figures, and
// the command that gives the same figures. A file saved again gets a fresh one.
const FIGURES_NOTE = "# The page's figures: ";
const COMMAND_NOTE = "# The same figures: ";

function withFigures(text, file) {
  const kept = text.split("\n");
  while (kept.length && (kept[0].startsWith(FIGURES_NOTE) || kept[0].startsWith(COMMAND_NOTE))) kept.shift();
  const f = state.figures;
  if (!f) return kept.join("\n");
  return `${FIGURES_NOTE}${f.battles} battles, seed ${f.seed}: the party wins ${pct(f.party.win.p)},`
    + ` someone dies ${pct(f.party.any_death.p)}.\n`
    + `${COMMAND_NOTE}sim batch ${file} -n ${f.battles} --seed ${f.seed}\n${kept.join("\n")}`;
}
