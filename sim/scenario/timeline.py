"""What happens during the battle: surprise, hazards and timeline entries.

Also the checks that what they name exists: combatants, sides, and rounds the
battle reaches before ``max_rounds``.
"""

from __future__ import annotations

from typing import Any

from sim.engine.effects import FALL_DIE_M
from sim.model import ESCAPES, HAZARD_KINDS, TIMELINE_ACTIONS, Hazard, Scripted, Side, Surprise
from sim.scenario import ignored
from sim.scenario.checker import INVALID, Checker, did_you_mean, plain_name
from sim.scenario.limits import MAX_COMBATANT_ROUNDS, MAX_DAMAGE, MAX_ROUNDS
from sim.yamlsrc import Path, shorten


def read_surprise(c: Checker, value: object, path: Path) -> Any:
    """``surprise: SIDE`` or ``surprise: {side, group_check}``."""
    if not isinstance(value, dict):
        side = c.text(value, path)
        return INVALID if side is INVALID else Surprise(side=side)
    fields = c.mapping(value, path, {"side": c.text, "group_check": c.text}, required=("side",))
    return INVALID if fields is INVALID else Surprise(**fields)


def check_surprise(c: Checker, data: dict, surprise: Surprise) -> None:
    """The surprising side must exist (reported at the side's name where it was written)."""
    raw_sides = data.get("sides")
    if not isinstance(raw_sides, list):
        return  # the sides themselves are reported
    names = tuple(s["name"].strip() for s in raw_sides
                  if isinstance(s, dict) and isinstance(s.get("name"), str))
    if surprise.side in names:
        return
    path: Path = ("surprise", "side") if isinstance(data.get("surprise"), dict) else ("surprise",)
    hint = did_you_mean(surprise.side, names)
    c.fail(path, f"no side named {shorten(surprise.side)}{hint}")


def read_hazards(c: Checker, value: object, path: Path) -> Any:
    """``hazards: [{kind, zone, members, escape}]``; the names are checked in ``check_names``."""

    def hazard(item: object, where: Path) -> Any:
        fields = c.mapping(item, where, {
            "kind": lambda v, p: c.choice(v, p, HAZARD_KINDS),
            "zone": c.text,
            "members": lambda v, p: c.names(v, p, min_len=1),  # none: the hazard harms nobody
            "escape": lambda v, p: c.choice(v, p, ESCAPES),
        }, required=("kind", "members"))
        return INVALID if fields is INVALID else Hazard(**fields)

    return c.each(value, path, hazard)


def read_timeline(c: Checker, value: object, path: Path) -> Any:
    """``timeline: [{round, do, targets | side, ...}]``, each entry's idle keys warned about."""
    return c.each(value, path, lambda item, where: _timeline_entry(c, item, where))


def _timeline_entry(c: Checker, item: object, where: Path) -> Any:
    fields = c.mapping(item, where, {
        "round": lambda v, p: c.integer(v, p, 1, 10_000),
        "do": lambda v, p: c.choice(v, p, TIMELINE_ACTIONS),
        "targets": lambda v, p: c.names(v, p, min_len=1),  # none: the entry does nothing
        "side": c.text,
        "damage": lambda v, p: c.dice(v, p, lo=0, hi=MAX_DAMAGE),
        "height": lambda v, p: c.number(v, p, 0, 10_000),
        "kind": lambda v, p: c.choice(v, p, ("water", "smoke")),
        "escape": lambda v, p: c.choice(v, p, ESCAPES),
    }, required=("round", "do"))
    if fields is not INVALID and ("targets" in fields) == ("side" in fields):
        fields = c.fail(where, "needs either 'targets' (a list of names) or 'side'")
    if fields is not INVALID and fields["do"] == "fall" and "height" not in fields:
        fields = c.fail(where, "a fall needs a 'height' in metres")
    if fields is not INVALID:
        fields = _harmless(c, fields, where)
    if fields is not INVALID:
        for unused in ignored.unused_in_timeline(fields["do"], fields):
            c.warn((*where, *unused.path), unused.message)
    return INVALID if fields is INVALID else Scripted(**fields)


def _harmless(c: Checker, fields: dict[str, Any], where: Path) -> Any:
    """A fall too short to deal a die, or an explosion whose dice can only roll 0, would
    do nothing at all (neither rolls a check first): a warning at its key."""
    height, damage = fields.get("height"), fields.get("damage")
    if fields["do"] == "fall" and height is not None and height < FALL_DIE_M:
        c.warn((*where, "height"), f"a fall deals 1d6 per full {FALL_DIE_M} m (rules §6), so"
                                   f" {height:g} m deals none")
    if fields["do"] == "explode" and damage is not None and damage.max < 1:
        c.warn((*where, "damage"), f"it deals at most {damage.max}, and an explosion hurts"
                                   " only with 1 HP or more (default 3d6+4)")
    return fields


def check_names(c: Checker, data: dict, sides: list[Side], failed: set[str]) -> None:
    """Names in hazards and the timeline must be combatants (and sides) of the scenario.

    Read from the raw entries, so an entry's other problems (a bad ``do:``) do not hide
    an unknown name in it: every problem is reported at once."""
    names = tuple(m.name for side in sides for m in side.members)
    side_names = tuple(side.name for side in sides)
    known = set(names) | failed  # a member that failed validation is not also "unknown"
    for key, field in (("hazards", "members"), ("timeline", "targets")):
        entries = data.get(key)
        for i, entry in enumerate(entries if isinstance(entries, list) else ()):
            if not isinstance(entry, dict):
                continue
            listed = entry.get(field)
            for j, raw in enumerate(listed if isinstance(listed, list) else ()):
                name = plain_name(raw)
                if name is not None and name not in known:
                    c.fail((key, i, field, j), f"no combatant named {shorten(name)}"
                           f"{did_you_mean(name, names)}")
            side = plain_name(entry.get("side")) if key == "timeline" else None
            if side is not None and side not in side_names:
                c.fail((key, i, "side"), f"no side named {shorten(side)}{did_you_mean(side, side_names)}")


def check_rounds(c: Checker, data: dict, max_rounds: int) -> None:
    """A timeline entry after the last round never happens (a warning: a --set max_rounds or a
    compare variant may cut the battle short of it)."""
    timeline = data.get("timeline")
    for i, entry in enumerate(timeline if isinstance(timeline, list) else ()):
        at = entry.get("round") if isinstance(entry, dict) else None
        if isinstance(at, int) and not isinstance(at, bool) and max_rounds < at <= MAX_ROUNDS:
            c.warn(("timeline", i, "round"), f"round {at} never comes: the battle stops after"
                   f" max_rounds {max_rounds}; raise max_rounds for it to happen", at_key=False)


def check_length(c: Checker, data: dict, max_rounds: int, combatants: int) -> None:
    """The longest the battle may run, ``max_rounds`` rounds of every combatant, is bounded."""
    if max_rounds * combatants > MAX_COMBATANT_ROUNDS:
        where = ("max_rounds",) if "max_rounds" in data else ("sides",)
        c.fail(where, f"{max_rounds} rounds of {combatants} combatants may take"
               f" {max_rounds * combatants:,} turns; a battle may take at most"
               f" {MAX_COMBATANT_ROUNDS:,}: at most {MAX_COMBATANT_ROUNDS // combatants} rounds"
               f" with {combatants} combatants")


def check_hazard_overlap(c: Checker, data: dict) -> None:
    """A fighter is in one water or smoke zone at a time, and in one fire: a second hazard of
    the same family placing it again would do nothing (the first holds it)."""
    hazards = data.get("hazards")
    placed: dict[tuple[str, str], int] = {}  # (name, family) -> the hazard that placed it
    for i, entry in enumerate(hazards if isinstance(hazards, list) else ()):
        kind = entry.get("kind") if isinstance(entry, dict) else None
        listed = entry.get("members") if isinstance(entry, dict) else None
        if kind not in HAZARD_KINDS or not isinstance(listed, list):
            continue  # reported where it was written
        family = "fire" if kind == "fire" else "water or smoke"
        for j, raw in enumerate(listed):
            name = plain_name(raw)
            if name is None:
                continue
            first = placed.setdefault((name, family), i)
            if first != i:
                c.fail(("hazards", i, "members", j),
                       f"{shorten(name)} is already in hazards[{first}]: a fighter is in one"
                       f" {family} zone at a time, so this one would do nothing")
