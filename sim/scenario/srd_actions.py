"""A stat block's actions in the open SRD JSON shapes (``sim import``): the attacks become
d20 weapons, a multiattack one weapon of their summed damage (a d20 turn is one attack,
``sim.scenario.convert``), and what is no attack is named as left out.

5e-database writes an attack's damage as ``damage: [{damage_dice: "1d6+2", ...}]`` and its
multiattack as ``actions: [{action_name, count}]``; Open5e as ``damage_dice`` and
``damage_bonus``, its multiattack in words only ("makes two attacks: one with its beak and
one with its claws"), read here as a GM would.
"""

from __future__ import annotations

import re
from typing import Any

import attrs

from sim import dice
from sim.errors import DiceError
from sim.scenario import convert
from sim.scenario.limits import MAX_NAME

NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
           "eight": 8, "twice": 2, "thrice": 3}
CONDITIONS = ("blinded", "charmed", "deafened", "frightened", "grappled", "incapacitated",
              "paralyzed", "petrified", "poisoned", "prone", "restrained", "stunned",
              "unconscious")
MAX_COUNT = 10  # attacks of one kind in a multiattack: no book gives more
_COUNT = r"(\d+|" + "|".join(NUMBERS) + r")"


@attrs.frozen
class Attack:
    """One attack of the book's: its name, attack bonus, damage dice and range in metres."""

    name: str
    bonus: int
    damage: str
    range: int | None = None
    thrown: bool = False

    @property
    def mean(self) -> float:
        return dice.parse(self.damage).mean


@attrs.frozen
class Actions:
    """What the actions give: the attacks, the multiattack (attacks and their counts) and
    what was left out, in words."""

    attacks: tuple[Attack, ...]
    multiattack: tuple[tuple[Attack, int], ...]
    left_out: tuple[str, ...]


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _damage(action: dict[str, Any], left_out: list[str]) -> str | None:
    """The damage of one hit: 5e-database's list (a choice: its first option; a rider a
    saving throw decides: left out), or Open5e's dice and bonus."""
    parts: list[str] = []
    name = _text(action.get("name")) or "an attack"
    listed = action.get("damage")
    for entry in listed if isinstance(listed, list) else ():
        if not isinstance(entry, dict):
            continue
        options = entry.get("from", {}).get("options") if isinstance(entry.get("from"), dict) else None
        if isinstance(options, list) and options and isinstance(options[0], dict):
            entry = options[0]  # versatile and the like: the first way of the book's
        if "dc" in entry:
            left_out.append(f"{name}: damage a saving throw decides")
        elif isinstance(entry.get("damage_dice"), str):
            parts.append(entry["damage_dice"])
    if not parts and isinstance(action.get("damage_dice"), str):
        parts.append(action["damage_dice"])
    bonus = action.get("damage_bonus")
    if parts and isinstance(bonus, int) and not isinstance(bonus, bool) and bonus:
        parts.append(str(bonus))
    try:
        return convert.sum_dice(parts) if parts else None
    except DiceError:
        return None


def _attack(action: dict[str, Any], left_out: list[str]) -> Attack | None:
    bonus, name = action.get("attack_bonus"), printable(_text(action.get("name")))
    if not isinstance(bonus, int) or isinstance(bonus, bool) or not name:
        return None
    bonus = max(-100, min(100, bonus))  # past any book: kept within what the keys take
    damage = _damage(action, left_out)
    if damage is None or dice.parse(damage).min < 0:
        return None
    desc = _text(action.get("desc"))
    feet = convert.feet_in(desc) if "ranged" in desc.casefold() else None
    thrown = "melee or ranged" in desc.casefold()
    if "saving throw" in desc.casefold() and not any(name in o for o in left_out):
        left_out.append(f"{name}: the saving throw its hit forces")
    imposed = [c for c in CONDITIONS if re.search(rf"\b{c}\b", desc.casefold())]
    if imposed:
        left_out.append(f"{name}: the conditions it imposes ({', '.join(imposed)})")
    return Attack(name[:MAX_NAME].casefold(), bonus, damage,
                  None if feet is None else convert.metres(feet), thrown and feet is not None)


def printable(text: str) -> str:
    """``text`` on one line of printable characters, its spaces folded (it goes into a
    file's comment and a terminal line)."""
    return " ".join("".join(ch if ch.isprintable() else " " for ch in text).split())


def read_actions(raw: object) -> Actions:
    """The attacks, the multiattack and what is left out of a monster's ``actions``."""
    actions = [a for a in raw if isinstance(a, dict)] if isinstance(raw, list) else []
    attacks: list[Attack] = []
    left_out: list[str] = []
    multi: dict[str, Any] | None = None
    for action in actions:
        name = printable(_text(action.get("name")))
        if name.casefold() == "multiattack":
            multi = action
            continue
        attack = _attack(action, left_out)
        if attack is not None and all(a.name != attack.name for a in attacks):
            attacks.append(attack)
        elif attack is None and name:
            left_out.append(f"{name}: {_why_not(action)}")
    counts = () if multi is None else _multiattack(multi, attacks, left_out)
    return Actions(tuple(attacks), counts, tuple(left_out))


def _why_not(action: dict[str, Any]) -> str:
    dc = action.get("dc")
    if isinstance(dc, dict) or "saving throw" in _text(action.get("desc")).casefold():
        return "a saving-throw action"
    return "no attack roll"


def _multiattack(action: dict[str, Any], attacks: list[Attack], left_out: list[str]
                 ) -> tuple[tuple[Attack, int], ...]:
    """The attacks of one multiattack and how many of each: 5e-database's list when it
    gives one, else read from its words; left out when neither names an attack."""
    by_name = {a.name: a for a in attacks}
    found: dict[str, int] = {}
    listed = action.get("actions")
    for entry in listed if isinstance(listed, list) else ():
        if isinstance(entry, dict) and _text(entry.get("action_name")).casefold() in by_name:
            count = convert.first_number(entry.get("count"))
            found[_text(entry["action_name"]).casefold()] = min(MAX_COUNT, max(1, count or 1))
    if not found:
        found = _counts_in_words(_text(action.get("desc")).casefold(), attacks)
    parts = tuple((by_name[name], count) for name, count in found.items())
    if sum(found.values()) < 2 or summed(parts) is None:
        left_out.append("Multiattack: not read (one attack a turn)")
        return ()
    return parts


def _counts_in_words(desc: str, attacks: list[Attack]) -> dict[str, int]:
    """``makes two attacks: one with its bite and one with its claws`` -> bite 1, claws 1;
    ``makes three tentacle attacks`` -> tentacle 3; ``makes two attacks`` -> the first
    melee attack twice."""
    found: dict[str, int] = {}
    for attack in attacks:
        stem = re.escape(attack.name.removesuffix("s"))
        pattern = rf"\b{_COUNT}\b(?:\s+\w+){{0,3}}?\s+(?:with\s+\w+\s+)?{stem}s?\b"
        match = re.search(pattern, desc)
        if match is not None:
            word = match.group(1)
            found[attack.name] = min(MAX_COUNT, int(word) if word.isdigit() else NUMBERS[word])
    if not found:
        match = re.search(rf"\b{_COUNT}\b\s+(?:\w+\s+)?attacks", desc)
        melee = [a for a in attacks if a.range is None] or attacks
        if match is not None and melee:
            word = match.group(1)
            found[melee[0].name] = min(MAX_COUNT, int(word) if word.isdigit() else NUMBERS[word])
    return found


def summed(parts: tuple[tuple[Attack, int], ...]) -> Attack | None:
    """A multiattack as one attack: the damage summed, the attack bonus of the attacks
    weighted by their damage (most books give them all the same), a range only if all
    have one; None when the sum is past what dice notation holds."""
    try:
        damage = convert.sum_dice([a.damage for a, n in parts for _ in range(n)])
    except DiceError:
        return None
    weight = sum(a.mean * n for a, n in parts) or 1.0
    bonus = round(sum(a.bonus * a.mean * n for a, n in parts) / weight)
    name = " + ".join(a.name if n == 1 else f"{a.name} x{n}" for a, n in parts)[:MAX_NAME]
    ranges = [a.range for a, _ in parts]
    reach = None if None in ranges else min(r for r in ranges if r is not None)
    return Attack(name, bonus, damage, reach, reach is not None and all(a.thrown for a, _ in parts))
