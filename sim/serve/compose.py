"""The page's form and the scenario YAML, each made from the other.

The form holds what most encounters need: the rules, the party (bestiary
entries, each with a name), the opposition (bestiary entries with counts),
the distance and four options. ``to_yaml`` writes that as the scenario file
the CLI reads, with comments saying what each key does; ``from_yaml`` reads a
scenario back into the form when it has that shape, and otherwise says why
the form cannot show it (the YAML editor then is the way to edit it).
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from sim.errors import ScenarioError
from sim.yamlsrc import load_yaml_text

SYSTEMS = ("d20", "d100", "2d10", "d10")
OPTION_KEYS = ("morale", "destiny_points", "spirit", "flee_at")
FLEE_AT = (0.5, 0.25)  # the page's choices: a side flees when half, or three in four, are down
MEMBER_KEYS = frozenset({"use", "name", "count"})
ENCOUNTER_KEYS = frozenset({"name", "rules", "description", "distance", "surprise", "options", "sides"})
SURPRISE = ("", "party", "foes")  # nobody, the party, the opposition
MAX_NAME = 200  # characters of a name in the form
MAX_DESTINY = 100
# Characters YAML reads as a line break inside a quoted scalar (U+0085, U+2028/9: a space
# once folded), or refuses in a file (other C1 controls, U+FFFE/F): written as escapes.
_ESCAPED = re.compile("[\x80-\x9f\u2028\u2029\ufffe\uffff]")


class NotAForm(ValueError):
    """A scenario the form cannot show: the message says what it holds that the form lacks."""


def _scalar(value: Any) -> str:
    """A YAML scalar on one line: JSON's quoting is YAML's, so any name stays one string."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    quoted = json.dumps(str(value), ensure_ascii=False)
    return _ESCAPED.sub(lambda m: f"\\u{ord(m.group()):04x}", quoted)


def _member(entry: dict[str, Any]) -> str:
    parts = [f"use: {_scalar(entry['use'])}"]
    if entry.get("name"):
        parts.append(f"name: {_scalar(entry['name'])}")
    if int(entry.get("count", 1)) != 1:
        parts.append(f"count: {int(entry['count'])}")
    return "      - {" + ", ".join(parts) + "}"


def to_yaml(form: dict[str, Any]) -> str:
    """The scenario file of a form (already checked by ``check_form``)."""
    options = form.get("options", {})
    spirit_line = (f"  spirit: {_scalar(bool(options.get('spirit', False)))}  # terror attacks spirit"
                   " points; at 0 spirit a mind breaks")
    lines = [
        "# An encounter built with sim serve; sim batch, sim run and sim validate read it as it is.",
        f"name: {_scalar(form.get('name') or 'Encounter')}",
        f"rules: {form['rules']}  # the rule system: d20, d100, 2d10 or d10",
        f"distance: {int(form.get('distance', 0))}  # metres between the party and the opposition at"
        " the start (0: in melee)",
        *_surprise(form),
        "options:",
        f"  morale: {_scalar(bool(options.get('morale', form['rules'] == '2d10')))}  # 2d6 morale tokens"
        " each: a reroll after a failed check (on by default in 2d10)",
        f"  destiny_points: {int(options.get('destiny_points', 0))}  # the party's points: a member at"
        " 0 HP dies unless the party spends one (0: off)",
        *([spirit_line] if form["rules"] == "d20" else []),
        *_flee(options),
        "sides:",
        f"  - name: {_scalar(form.get('party_name') or 'party')}",
        "    party: true  # the player characters: group initiative, player-facing rolls, the"
        " headline's figures",
        "    members:  # bestiary entries (use:), each with its own name",
        *(_member(m) for m in form["party"]),
        f"  - name: {_scalar(form.get('foes_name') or 'opposition')}",
        "    members:  # bestiary entries; count: N makes N of them, named 'wolf 1', 'wolf 2'...",
        *(_member(m) for m in form["foes"]),
    ]
    return "\n".join(lines) + "\n"


def _flee(options: dict[str, Any]) -> list[str]:
    flee_at = options.get("flee_at")
    if flee_at is None:
        return []  # no rout: every side fights to the last
    return [f"  flee_at: {flee_at:g}  # rout: a side with fewer than this share of its members still"
            " able flees; its fallen are left behind alive"]


def _surprise(form: dict[str, Any]) -> list[str]:
    side = form.get("surprise", "")
    if not side:
        return []
    name = form.get("party_name") or "party" if side == "party" else form.get("foes_name") or "opposition"
    return [f"surprise: {_scalar(name)}  # this side gets a surprise round: only it acts in round 1"]


def check_form(form: object) -> dict[str, Any]:
    """The form as the page posts it, or ValueError saying what is wrong with it."""
    if not isinstance(form, dict):
        raise ValueError("the form must be a JSON object")
    if not isinstance(form.get("rules"), str) or form["rules"] not in SYSTEMS:
        raise ValueError(f"rules must be one of {', '.join(SYSTEMS)}")
    for key in ("name", "party_name", "foes_name"):
        _text(form.get(key, ""), key)
    for side in ("party", "foes"):
        members = form.get(side)
        if not isinstance(members, list) or not members:
            raise ValueError(f"{side}: needs at least one member")
        for member in members:
            if not isinstance(member, dict) or not isinstance(member.get("use"), str) or not member["use"]:
                raise ValueError(f"{side}: each member needs a bestiary name (use)")
            _text(member["use"], f"{side}: use")
            _text(member.get("name", ""), f"{side}: name")
            count = member.get("count", 1)
            if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= 100:
                raise ValueError(f"{side}: count must be a whole number from 1 to 100")
    if not isinstance(form.get("surprise", ""), str) or form.get("surprise", "") not in SURPRISE:
        raise ValueError("surprise must be '', 'party' or 'foes'")
    _check_options(form.get("options", {}))
    distance = form.get("distance", 0)
    if (not isinstance(distance, int | float) or isinstance(distance, bool) or not math.isfinite(distance)
            or not 0 <= distance <= 1000):
        raise ValueError("distance must be a number of metres from 0 to 1000")
    return form


def _check_options(options: object) -> None:
    if not isinstance(options, dict):
        raise ValueError("options must be a JSON object (morale, destiny_points, spirit, flee_at)")
    for key in ("morale", "spirit"):
        if not isinstance(options.get(key, False), bool):
            raise ValueError(f"options.{key} must be true or false")
    destiny = options.get("destiny_points", 0)
    if not isinstance(destiny, int) or isinstance(destiny, bool) or not 0 <= destiny <= MAX_DESTINY:
        raise ValueError(f"options.destiny_points must be a whole number from 0 to {MAX_DESTINY}")
    flee_at = options.get("flee_at")
    if flee_at is not None and (isinstance(flee_at, bool) or flee_at not in FLEE_AT):
        raise ValueError(f"options.flee_at must be one of {', '.join(map(str, FLEE_AT))}, or left out")


def _text(value: object, key: str) -> None:
    """A name of the form: text the YAML can hold (no lone surrogate), of a sensible length."""
    if not isinstance(value, str) or len(value) > MAX_NAME:
        raise ValueError(f"{key} must be text of at most {MAX_NAME} characters")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"{key} holds a character that is no text (a lone surrogate)") from None


def from_yaml(text: str) -> dict[str, Any]:
    """The form of a scenario text, or NotAForm saying what the form cannot show."""
    try:  # the loader that refuses alias bombs, deep nesting and too much text
        data = load_yaml_text(text, "encounter.yaml").data
    except ScenarioError as exc:
        raise NotAForm("the YAML does not read; the editor shows where") from exc
    if not isinstance(data, dict):
        raise NotAForm("not a scenario (a mapping of keys)")
    if "steps" in data:
        raise NotAForm("a day (steps of encounters and rests): edit it in the YAML editor")
    extra = sorted(map(str, set(data) - ENCOUNTER_KEYS))
    if extra:
        raise NotAForm(f"holds {', '.join(map(str, extra))}, which the form does not show")
    sides = data.get("sides")
    if not isinstance(sides, list) or len(sides) != 2 or not all(isinstance(s, dict) for s in sides):
        raise NotAForm("the form shows two sides: the party and one opposition")
    party = [s for s in sides if s.get("party") is True]
    if len(party) != 1:
        raise NotAForm("the form needs one side with party: true")
    foes = next(s for s in sides if s is not party[0])
    names = [side.get("name") for side in (party[0], foes)]
    if not all(isinstance(name, str) for name in [*names, data.get("surprise", "")]):
        raise NotAForm("a side's name, and surprise, are text in the form")
    surprise = {None: "", names[0]: "party", names[1]: "foes"}.get(data.get("surprise"))
    if surprise is None:
        raise NotAForm("surprise names no side")
    options = data.get("options") or {}
    if not isinstance(options, dict) or set(options) - set(OPTION_KEYS):
        raise NotAForm("options other than morale, destiny_points, spirit and flee_at")
    if "flee_at" in options and options["flee_at"] not in FLEE_AT:
        raise NotAForm(f"flee_at {options['flee_at']!s}: the form offers 0.5 and 0.25")
    form = {
        "name": data.get("name", ""), "rules": data.get("rules"), "distance": data.get("distance", 0),
        "surprise": surprise, "foes_index": sides.index(foes),
        "options": {k: options[k] for k in OPTION_KEYS if k in options},
        "party_name": party[0].get("name", ""), "foes_name": foes.get("name", ""),
        "party": _members(party[0]), "foes": _members(foes),
    }
    try:  # what the form could not hold (a list as a name, morale as a mapping...)
        return check_form(form)
    except ValueError as exc:
        raise NotAForm(f"{exc} in the form; the YAML editor shows this scenario") from None


def _members(side: dict[str, Any]) -> list[dict[str, Any]]:
    if set(side) - {"name", "party", "members"}:
        raise NotAForm(f"side {side.get('name')!s}: keys the form does not show (tactics...)")
    members = side.get("members")
    if not isinstance(members, list):
        raise NotAForm("a side without a list of members")
    out = []
    for member in members:
        if not isinstance(member, dict) or "use" not in member or set(member) - MEMBER_KEYS:
            raise NotAForm("a member written out in full (not a bestiary entry with a name or count)")
        out.append({"use": member["use"], "name": member.get("name", ""), "count": member.get("count", 1)})
    return out
