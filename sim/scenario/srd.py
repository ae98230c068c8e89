"""``sim import``: monsters of the open SRD JSON shapes GMs already have (5e-database's and
Open5e's) as d20 bestiary entries, by the conversions of ``sim.scenario.convert``, each
with what its figures leave out (spells, legendary actions, saving-throw abilities...).

A file holds one monster, a list of them, or an API page ``{"results": [...]}``. A monster
that cannot be read (no name, no armor class or hit points) is a ``Problem``; one with
nothing this d20 plays (no attack roll at all) is skipped, saying so.
"""

from __future__ import annotations

import re
from typing import Any

import attrs
import yaml

from sim.errors import Problem
from sim.scenario import convert
from sim.scenario.limits import MAX_NAME
from sim.scenario.srd_actions import Attack, printable, read_actions, summed

DESCRIPTION_LIMIT = 2000  # what a stat block's description holds
_LEFT_OUT_LISTS = (("special_abilities", "special ability"), ("legendary_actions", "legendary action"),
                   ("reactions", "reaction"), ("bonus_actions", "bonus action"))
_IMMUNITIES = ("damage_resistances", "damage_immunities", "damage_vulnerabilities",
               "condition_immunities")


@attrs.frozen
class Imported:
    """One monster as a d20 bestiary entry."""

    stem: str  # the file's name, without .yaml
    name: str  # the entry's: what `use:` finds
    block: dict[str, Any]  # the stat block, as YAML data
    book: str  # the book's figures, for the GM's line
    left_out: tuple[str, ...]


@attrs.frozen
class Skipped:
    """A monster with nothing this d20 plays: its name and why."""

    name: str
    why: str


def monsters(data: object) -> tuple[str, list[object]]:
    """The monsters of a file and the path prefix of each: ``results``, a list, or one."""
    if isinstance(data, dict) and isinstance(data.get("results"), list):
        return "results", list(data["results"])
    if isinstance(data, list):
        return "", data
    return "", [data]


def shape_of(raw: dict[str, Any]) -> str:
    """Which JSON shape a monster is written in, for its description."""
    if "hit_points_roll" in raw or isinstance(raw.get("armor_class"), list) or "index" in raw:
        return "5e-database"
    return "Open5e" if "slug" in raw or "hit_dice" in raw else "an SRD stat block"


def read_monster(raw: object, file: str, path: str) -> Imported | Skipped | Problem:
    """One monster, read; ``path`` names it in a problem (``results[3]``)."""
    if not isinstance(raw, dict):
        return Problem(file, 0, 0, path, "must be a monster: a JSON object with name,"
                                         " armor_class, hit_points and actions")
    name = raw.get("name")
    if not isinstance(name, str) or not printable(name):
        return Problem(file, 0, 0, _at(path, "name"), "a monster needs a name (a string)")
    name = printable(name)[:MAX_NAME].casefold()
    ac = convert.first_number(raw.get("armor_class"))
    if ac is None:
        return Problem(file, 0, 0, _at(path, "armor_class"), f"{name}: no armor class (a number,"
                                                             " or [{type, value}])")
    hit_points = raw.get("hit_points")
    hit_points = hit_points if isinstance(hit_points, int) and not isinstance(hit_points, bool) else None
    rolled = raw.get("hit_points_roll") or raw.get("hit_dice")
    hp = convert.hp_of(hit_points, rolled if isinstance(rolled, str) else None)
    if hp is None or (isinstance(hp, int) and hp < 1):
        return Problem(file, 0, 0, _at(path, "hit_points"), f"{name}: no hit points (a number"
                                                            " of 1 or more, or hit dice)")
    actions = read_actions(raw.get("actions"))
    if not actions.attacks:
        return Skipped(name, "no attack with an attack bonus in its actions, nothing a d20 turn"
                             " here plays")
    return _entry(raw, name, ac, hp, actions)


def _at(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _entry(raw: dict[str, Any], name: str, ac: int, hp: str | int, actions: Any) -> Imported:
    left_out = list(actions.left_out)
    cr = convert.challenge(raw.get("challenge_rating", raw.get("cr")))
    level = 1 if cr is None else convert.level_of(cr)
    weapons = _weapons(actions, left_out)
    main = weapons[0]
    block: dict[str, Any] = {
        "level": level, "hp": hp,
        "attack_threshold": convert.attack_threshold(main.bonus),
        "defense_threshold": convert.defense_threshold(ac),
    }
    movement = _movement(raw.get("speed"), left_out)
    if movement is not None:
        block["movement"] = movement
    block["weapons"] = [_weapon(w, level) for w in weapons]
    left_out += _lists_left_out(raw)
    given = raw.get("hit_points")
    hp_text = f"{given} HP ({hp})" if isinstance(given, int) and given != hp else f"{hp} HP"
    book = (f"AC {ac}, {hp_text}"
            + ("" if cr is None else f", CR {convert.cr_text(cr)}") + f", {main.bonus:+d} to hit")
    block["description"] = _description(shape_of(raw), book, left_out)
    stem = _stem(raw, name)
    return Imported(stem, name, block, book, tuple(left_out))


def _weapons(actions: Any, left_out: list[str]) -> list[Attack]:
    """One melee weapon (a d20 fighter in reach swings its first melee weapon only): the
    multiattack summed, else the melee attack of the most damage; then every ranged one."""
    attacks: list[Attack] = list(actions.attacks)
    melee = [a for a in attacks if a.range is None or a.thrown]
    first: list[Attack] = []
    whole = summed(actions.multiattack) if actions.multiattack else None
    if whole is not None:
        first = [whole]
    elif melee:
        first = [max(melee, key=lambda a: a.mean)]
    ranged = [a for a in attacks if a.range is not None and a not in first]
    for attack in melee:
        if attack not in first and attack.range is None:
            used = attack.name in {a.name for a, _ in actions.multiattack}
            if not used:
                left_out.append(f"{attack.name}: a second melee attack (a d20 turn here is one)")
    weapons = first + [a for a in ranged if a.name not in {w.name for w in first}]
    return weapons or attacks[:1]


def _weapon(attack: Attack, level: int) -> dict[str, Any]:
    weapon: dict[str, Any] = {"name": attack.name, "damage": attack.damage}
    bonus = convert.weapon_bonus(attack.bonus, level)
    if bonus:
        weapon["bonus"] = bonus  # its attacks on non-party foes: 1d20 + level + bonus
    if attack.range is not None:
        weapon["range"] = attack.range  # thrown or shot alike: d20 reads no `thrown`
    return weapon


def _movement(speed: object, left_out: list[str]) -> int | None:
    """``movement`` in metres from the walking speed; the other speeds are left out."""
    feet = convert.first_number(speed)
    if isinstance(speed, dict):
        others = [f"{mode} {value}" for mode, value in speed.items()
                  if mode not in ("walk", "hover") and isinstance(value, str | int)]
        if others:
            left_out.append("speeds other than walking: " + ", ".join(map(str, others)))
    return None if feet is None or feet <= 0 else convert.metres(feet)


def _lists_left_out(raw: dict[str, Any]) -> list[str]:
    """Special abilities, spells, legendary actions, reactions, resistances and immunities."""
    out: list[str] = []
    for key, kind in _LEFT_OUT_LISTS:
        listed = raw.get(key)
        for item in listed if isinstance(listed, list) else ():
            name = item.get("name") if isinstance(item, dict) else None
            if isinstance(name, str) and name.strip():
                spells = "spellcasting" in name.casefold()
                out.append(f"{name.strip()}: {'spells' if spells else kind}")
    saves = _saves(raw)
    if saves:
        out.append(f"saving throw bonuses: {saves}")
    spells = raw.get("spell_list")
    if isinstance(spells, list) and spells:
        out.append(f"spells: {len(spells)}")
    for key in _IMMUNITIES:
        value = raw.get(key)
        names = [v.get("name") if isinstance(v, dict) else v for v in value] \
            if isinstance(value, list) else [value]
        shown = ", ".join(str(n) for n in names if isinstance(n, str) and n.strip())
        if shown:
            out.append(f"{key.replace('_', ' ')}: {shown}")
    return out


def _saves(raw: dict[str, Any]) -> str:
    """The saving throw bonuses: 5e-database's proficiencies, Open5e's ``dexterity_save``."""
    found: list[str] = []
    listed = raw.get("proficiencies")
    for item in listed if isinstance(listed, list) else ():
        what = item.get("proficiency") if isinstance(item, dict) else None
        name = what.get("name") if isinstance(what, dict) else None
        if isinstance(name, str) and name.startswith("Saving Throw:") \
                and isinstance(item.get("value"), int):
            found.append(f"{printable(name.removeprefix('Saving Throw:'))} {item.get('value')}")
    for key, value in raw.items():
        if isinstance(key, str) and key.endswith("_save") and isinstance(value, int):
            found.append(f"{key.removesuffix('_save')[:3].upper()} {value}")
    return ", ".join(found)


def _description(shape: str, book: str, left_out: list[str]) -> str:
    text = f"Imported by sim import from {shape}: {book}."
    if left_out:
        text += " Not carried: " + "; ".join(item.rstrip(".") for item in left_out) + "."
    return text if len(text) <= DESCRIPTION_LIMIT else text[:DESCRIPTION_LIMIT - 3] + "..."


def _stem(raw: dict[str, Any], name: str) -> str:
    """The file's name: the book's index or slug, else the name, in letters, digits and -."""
    given = raw.get("index") or raw.get("slug")
    text = given if isinstance(given, str) and given.strip() else name
    return re.sub(r"[^a-z0-9]+", "-", text.casefold()).strip("-")[:60] or "monster"


def file_text(entry: Imported, source: str) -> str:
    """A d20 bestiary file of one entry, in the shape of the shipped ones."""
    data = {"rules": "d20",
            "description": f"Imported by sim import from {source}; edit it freely.",
            "creatures": {entry.name: entry.block}}
    head = (f"# {entry.name}: {entry.book}, converted by sim import (the conversions:"
            " docs/guide/stat-blocks.md).\n")
    return head + yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=88,
                                 default_flow_style=None)
