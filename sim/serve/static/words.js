// Words as a GM says them on the page of `sim serve`: plurals, and `code` in text. Loaded before serve.js, whose functions it
// shares (classic scripts share one scope).
"use strict";

// Plurals the rules below get wrong; a name's last word is looked up (wolf -> wolves).
const IRREGULAR = { man: "men", woman: "women", child: "children", mouse: "mice", ox: "oxen",
                    goose: "geese", tooth: "teeth", foot: "feet", sheep: "sheep", deer: "deer",
                    fish: "fish", spawn: "spawn", draugr: "draugar", thief: "thieves",
                    knife: "knives", wife: "wives", chief: "chiefs", human: "humans",
                    shaman: "shamans", talisman: "talismans" };

function pluralWord(word) {
  const lower = word.toLowerCase();
  const known = Object.keys(IRREGULAR).find((w) => lower === w || (lower.endsWith(w) && w === "man"));
  if (known) return word.slice(0, word.length - known.length) + IRREGULAR[known];
  if (/[^aeiou]y$/i.test(word)) return word.slice(0, -1) + "ies";
  if (/(s|x|z|ch|sh)$/i.test(word)) return word + "es";
  if (/[lr]f$/i.test(word)) return word.slice(0, -1) + "ves";
  return word + "s";
}

// "wolf" -> "wolves", "man-at-arms" -> "men-at-arms", "warhorse of Sir Bors" -> "warhorses of
// Sir Bors": the head noun takes the plural.
function plural(name) {
  const split = name.match(/^(.*?)((?:-at-| of ).*)?$/);
  const head = split[1];
  const last = head.lastIndexOf(" ") + 1;
  return head.slice(0, last) + pluralWord(head.slice(last)) + (split[2] || "");
}

function counted(n, name) { return n === 1 ? `1 ${name}` : `${n} ${plural(name)}`; }

// Text where `backticks` mark YAML, shown as code (never as HTML: the names are GMs' data).
function withCode(tag, text, cls) {
  const node = el(tag, undefined, cls);
  String(text).split(/`([^`]*)`/).forEach((part, k) => {
    if (part) node.append(k % 2 ? el("code", part) : document.createTextNode(part));
  });
  return node;
}
function points(x) { return (x >= 0 ? "+" : "") + (100 * x).toFixed(1); }
