"""Stat blocks: the field tables of a creature, its weapons, items, tactics and mount.

A stat block is a bestiary entry or a scenario member; its keys depend on the rule
system (``stat_fields``), and keys another system reads are warned about, saying why.
Also the checks inside one block: weapon names in ``tactics``, skills some roll
reads, ``potion_at`` with items to drink.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sim.model import (
    INITIATIVE_GIFT,
    REROLL_POLICIES,
    REVIVE_POLICIES,
    TARGET_POLICIES,
    Item,
    Tactics,
    Weapon,
)
from sim.scenario import foreign, ignored, unread
from sim.scenario.checker import INVALID, Checker, did_you_mean
from sim.scenario.limits import MAX_DAMAGE, MAX_HP, MAX_TOKENS
from sim.yamlsrc import Path, shorten

QUALITY_DEFENSE = 10  # 2d10 defense reads on the ladder: 10 is "impossible" (-10)


def system_only(c: Checker, table: dict[str, Callable[[object, Path], Any]],
                systems: dict[str, tuple[str, ...]], why: dict[str, str]
                ) -> dict[str, Callable[[object, Path], Any]]:
    """``table`` with the keys other systems read warned about, saying why (not 'unknown
    key'); their values still checked where ``table`` knows how."""
    for key in systems:
        message = ignored.system_refusal(key, c.rules, systems, why)
        if message is not None:
            table[key] = c.idle(message, table.get(key))
    return table


def weapon_fields(c: Checker) -> dict[str, Callable[[object, Path], Any]]:
    """The keys of a weapon of ``c.rules``."""
    return system_only(c, {
        "name": c.text,
        "damage": lambda v, p: c.dice(v, p, lo=0, hi=MAX_DAMAGE),
        "bonus": lambda v, p: c.integer(v, p, -50, 50),
        "skill": c.text,
        "attribute": c.text,
        "hands": lambda v, p: c.integer(v, p, 1, 2),
        "range": lambda v, p: c.number(v, p, 0.5, 10_000),
        "armor_piercing": c.boolean,
        "fire": c.boolean,
        "poison": c.boolean,
        "area": c.boolean,
        "psy": lambda v, p: c.integer(v, p, 0, 100),
        "thrown": c.boolean,
        "suited": lambda v, p: c.names(v, p, min_len=1),
        "description": lambda v, p: c.text(v, p, 2000),
    }, ignored.SYSTEM_WEAPON_KEYS, ignored.WEAPON_KEY_WHY)


def _weapon(c: Checker, value: object, path: Path) -> Any:
    """A Weapon; with a problem in it, still the weapon its valid keys make (so the checks
    that read weapons, such as skills, run too: the problem itself is already recorded)."""
    fields: dict[str, Any] = {}
    c.mapping(value, path, weapon_fields(c), required=("name", "damage"), partial=fields,
              foreign=foreign.weapon_key if c.rules == "d20" else None)
    if fields.get("name", INVALID) is INVALID or fields.get("damage", INVALID) is INVALID:
        return INVALID
    return Weapon(**{k: v for k, v in fields.items() if k != "description" and v is not INVALID})


def read_tactics(c: Checker, value: object, path: Path) -> Any:
    """``tactics: {target, weapons, potion_at, reroll_hp, revive}``; weapon names are checked against the stat
    block (or the side's members) once they are known (``check_weapon_names``)."""
    fields = c.mapping(value, path, {
        "target": lambda v, p: c.choice(v, p, TARGET_POLICIES),
        "weapons": lambda v, p: c.names(v, p, min_len=1),
        "potion_at": lambda v, p: c.number(v, p, 0, 1),
        "reroll_hp": lambda v, p: c.choice(v, p, REROLL_POLICIES),
        "revive": lambda v, p: c.choice(v, p, REVIVE_POLICIES),
    })
    if fields is INVALID:
        return INVALID
    for j, name in enumerate(fields.get("weapons", ())):
        if name in fields["weapons"][:j]:
            return c.fail((*path, "weapons", j), f"weapon {shorten(name)} is listed twice")
    return Tactics(**fields)


def check_weapon_names(c: Checker, tactics: Tactics | None, weapons: tuple[Weapon, ...],
                       path: Path, whose: str = "this stat block") -> None:
    """Every name in ``tactics.weapons`` must be one of ``weapons``; ``path`` is the list's."""
    if tactics is None or not tactics.weapons:
        return
    known = tuple(dict.fromkeys(w.name for w in weapons))
    for j, name in enumerate(tactics.weapons):
        if name not in known:
            listed = ", ".join(known) if known else "none"
            c.fail((*path, j), f"no weapon named {shorten(name)} in {whose} (its weapons: "
                               f"{listed}){did_you_mean(name, known)}")


def _heal(c: Checker, value: object, path: Path) -> Any:
    """A potion's healing dice: never below 0, and able to heal at least 1 HP (a potion that
    can never heal would cost an action for nothing)."""
    heal = c.dice(value, path, lo=0)
    if heal is not INVALID and heal.max < 1:
        return c.fail(path, f"heals nothing (at most {heal.max}): a potion must heal 1 HP or more")
    return heal


def _items(c: Checker, value: object, path: Path) -> Any:
    """``items: [{name, heal: DICE, count}]`` (rules §8); names are unique in a block."""
    listed = c.sequence(value, path)
    if listed is INVALID:
        return INVALID
    out: list[Any] = []
    for i, raw in enumerate(listed):
        fields = c.mapping(raw, (*path, i), {
            "name": c.text,
            "heal": lambda v, p: _heal(c, v, p),
            "count": lambda v, p: c.integer(v, p, 1, 100),
            "description": lambda v, p: c.text(v, p, 2000),
        }, required=("heal",))
        if fields is INVALID:
            out.append(INVALID)
            continue
        fields.pop("description", None)
        item = Item(**fields)
        if any(isinstance(o, Item) and o.name == item.name for o in out):
            out.append(c.fail((*path, i, "name"), f"item {shorten(item.name)} is listed twice "
                                                  "(give one entry a count instead)"))
            continue
        out.append(item)
    return INVALID if INVALID in out else tuple(out)


D100_CHARACTERISTICS = ("physique", "mental", "social", "force")


def _scores(c: Checker, value: object, path: Path, names: tuple[str, ...] | None,
            top: int = 100) -> Any:
    """A mapping of name -> score on 0..``top`` (``names``: the only keys allowed, if given)."""
    if not isinstance(value, dict):
        return c.fail(path, f"must be a mapping of name: score (got {shorten(value)})")
    if not value:
        # Missing scores count the default, and beside use: scores override the entry's one
        # by one: an empty mapping sets nothing anywhere.
        c.warn(path, "it sets no score (missing ones count the default; beside use:, write null"
                     " to drop the entry's)")
        return {}
    out: dict[str, int] = {}
    for key, score in value.items():
        if not isinstance(key, str) or (names is not None and key not in names):
            hint = did_you_mean(key, names or ())
            c.fail((*path, key), f"unknown key {shorten(key)}{hint}", at_key=True)
            continue
        checked = c.integer(score, (*path, key), 0, top)
        if checked is not INVALID:
            out[key] = checked
    return out if len(out) == len(value) else INVALID


def stat_fields(c: Checker, mount: bool = True) -> dict[str, Callable[[object, Path], Any]]:
    """The keys of a stat block (bestiary entry or scenario member) of ``c.rules``."""

    def weapons(value: object, path: Path) -> Any:
        return c.each(value, path, lambda item, where: _weapon(c, item, where))

    common: dict[str, Callable[[object, Path], Any]] = {
        "name": c.text,
        "level": lambda v, p: c.integer(v, p, 0, 30),  # d20 rolls it; rests of a day, all
        "hp": lambda v, p: c.dice(v, p, lo=1, hi=MAX_HP),
        "armor": lambda v, p: c.integer(v, p, 0, 30),
        "weapons": weapons,
        "movement": lambda v, p: c.number(v, p, 0, 1000),
        "tactics": lambda v, p: read_tactics(c, v, p),
        "items": lambda v, p: _items(c, v, p),
        "morale": lambda v, p: c.dice(v, p, lo=0, hi=MAX_TOKENS),
        "description": lambda v, p: c.text(v, p, 2000),
    }
    if c.rules in ("2d10", "d10"):
        scores = "characteristics" if c.rules == "2d10" else "attributes"
        seeds: dict[str, Callable[[object, Path], Any]] = {
            scores: lambda v, p: _scores(c, v, p, None, 30),
            "skills": lambda v, p: _scores(c, v, p, None, 30),
            # 2d10: "defense 0..10 read on the difficulty ladder" (rules §3); d10: a difficulty.
            "defense": lambda v, p: c.integer(v, p, 0, QUALITY_DEFENSE if c.rules == "2d10"
                                              else 40),
        }
        table = {**common, **seeds}
    elif c.rules == "d100":
        d100: dict[str, Callable[[object, Path], Any]] = {
            "characteristics": lambda v, p: _scores(c, v, p, D100_CHARACTERISTICS),
            "skills": lambda v, p: _scores(c, v, p, None),
            "psy": lambda v, p: c.integer(v, p, 0, 1000),
            "load": lambda v, p: c.number(v, p, 0, 1000),
        }
        table = {**common, **d100}
    else:
        table = {
            **common,
            "attack_threshold": lambda v, p: c.integer(v, p, 0, 60),
            "defense_threshold": lambda v, p: c.integer(v, p, 0, 60),
            "heroism": lambda v, p: c.integer(v, p, 0, 50),
            "aspects": c.names,
            "gifts": lambda v, p: _gifts(c, v, p),
            "terror": lambda v, p: c.dice(v, p, lo=0, hi=MAX_DAMAGE),
            "spirit": lambda v, p: c.dice(v, p, lo=1, hi=MAX_HP),
            "kind": lambda v, p: _kind(c, v, p),
        }
    table = system_only(c, table, ignored.SYSTEM_STAT_KEYS, ignored.STAT_KEY_WHY)
    if mount and "mount" not in table:
        table["mount"] = lambda v, p: _mount(c, v, p)
    elif not mount:
        table.pop("mount", None)  # a mount rides nothing: 'mount' is an unknown key there
    return table


def _kind(c: Checker, value: object, path: Path) -> Any:
    """d20 ``kind: undead`` or ``kind: [undead, beast]``: what a weapon's ``suited:`` may
    name a creature by, besides its bestiary entry."""
    if isinstance(value, str):
        value = [value]
    names = c.names(value, path, min_len=1)
    return names if names is INVALID else tuple(names)


def stat_hints(c: Checker) -> Callable[[object, object], foreign.Told | None] | None:
    """What tells a stat block's keys of other d20 games (``sim.scenario.foreign``)."""
    return foreign.stat_key if c.rules == "d20" else None


def _gifts(c: Checker, value: object, path: Path) -> Any:
    """d20 gifts: the engine reads one, ``initiative``; any other name would do nothing."""
    names = c.names(value, path)
    if names is INVALID:
        return INVALID
    for i, name in enumerate(names):
        if name != INITIATIVE_GIFT:
            c.fail((*path, i), f"unknown gift {shorten(name)}: the only gift the engine reads is"
                               f" '{INITIATIVE_GIFT}' (1d8 for initiative and group ties)")
    return names if all(n == INITIATIVE_GIFT for n in names) else INVALID


def check_skills(c: Checker, fields: dict[str, Any], path: Path, group_checks: tuple[str, ...] = ()
                 ) -> None:
    """Each skill must be rolled by a weapon of the block, a rule of the system or a group check,
    and each d20 aspect concern one of those rolls (not checked while the skills, aspects or
    weapons themselves are invalid)."""
    skills, weapons = fields.get("skills", {}), fields.get("weapons", ())
    aspects = fields.get("aspects")
    if weapons is INVALID:
        return
    if skills is not INVALID:
        for unused in unread.unread_skills(c.rules, skills, weapons, group_checks):
            c.warn((*path, "skills", *unused.path), unused.message)
    if aspects is not None and aspects is not INVALID:
        for unused in unread.unread_aspects(aspects, weapons, group_checks):
            c.warn((*path, "aspects", *unused.path), unused.message)


def _mount(c: Checker, value: object, path: Path) -> Any:
    """``mount: {use: warhorse, ...overrides}`` or an inline stat block (a mount rides nothing).
    Beside ``use:``, ``KEY: null`` drops what the entry gives, as on a member: kept as None
    here, dropped once the entry is merged (sim.scenario.members)."""
    table = {**stat_fields(c, mount=False), "use": c.text}
    dropped: tuple[str, ...] = ()
    if isinstance(value, dict) and "use" in value:
        dropped = tuple(k for k, v in value.items()
                        if v is None and k in table and k not in ("use", "name", "hp"))
        value = {k: v for k, v in value.items() if k not in dropped}
    fields = c.mapping(value, path, table, foreign=stat_hints(c))
    return fields if fields is INVALID else {**fields, **dict.fromkeys(dropped)}


def check_potion_at(c: Checker, tactics: Tactics | None, block: dict[str, Any], path: Path
                    ) -> None:
    """``potion_at`` written on a stat block that carries no items would do nothing."""
    if tactics is not None and tactics.potion_at is not None and not block.get("items"):
        c.warn((*path, "tactics", "potion_at"), "it carries no items to drink (give this stat"
                                                " block `items: [{heal: 2d4+2}]`)")
