"""The sides: their members read and expanded, names unique, the combatant cap, one party.

``read_sides`` fills a ``Roster`` (each member entry with its side, and the names of
members that failed validation) for the checks that need the whole scenario.
"""

from __future__ import annotations

import unicodedata
from typing import Any

import attrs

from sim.model import Side, Tactics
from sim.scenario.bestiary import Entry
from sim.scenario.blocks import check_weapon_names, read_tactics
from sim.scenario.checker import INVALID, Checker, plain_name
from sim.scenario.limits import MAX_COMBATANTS, MAX_COUNT
from sim.scenario.members import Failed, Member, expand, read_member
from sim.scenario.orders import check_side_order, check_written_orders
from sim.yamlsrc import Path, format_path, shorten

# Said by validate and by the headline: without a party there is no difficulty to judge.
NO_PARTY = ("no side has `party: true`, so there is no party: the figures give each side's wins,"
            " with no difficulty and no 'someone dies'; mark the players' side with `party: true`")


@attrs.define
class Roster:
    """What the sides held, for the checks that need the whole scenario: each valid member
    entry with its side, and the names of the members that failed validation."""

    members: list[tuple[Member, Side]] = attrs.Factory(list)
    failed_names: set[str] = attrs.Factory(set)
    complete: bool = True  # every side was read and every failed member's name is known

    def note_failed(self, raw: object) -> None:
        """Remember the names a member that failed validation would have had."""
        if isinstance(raw, dict) and raw.get("use") is None and raw.get("count") is None:
            name = plain_name(raw.get("name"))
            if name is not None:
                self.failed_names.add(name)
                return
        if isinstance(raw, dict):
            name = plain_name(raw.get("name", raw.get("use")))
            count = raw.get("count", 1)
            if name is not None and type(count) is int and 1 <= count <= MAX_COUNT:
                self.failed_names.update([name] if count == 1 else
                                         [f"{name} {i}" for i in range(1, count + 1)])
                return
        self.complete = False


def read_sides(c: Checker, value: object, bestiary: dict[str, Entry] | None, roster: Roster) -> Any:
    """The sides, their members expanded into specs; ``roster`` gets each member entry
    with its side (for the checks that need the whole scenario)."""
    items = c.sequence(value, ("sides",), min_len=2)
    if items is INVALID:
        roster.complete = False
        return INVALID
    sides: list[Side] = []
    seen_names: dict[str, Path] = {}
    looks: dict[str, tuple[str, Path]] = {}  # each name as it looks -> (the name, where)
    side_names: set[str] = set()
    side_looks: dict[str, str] = {}
    total = 0  # combatants so far, counted before any is built
    for i, raw in enumerate(items):
        path: Path = ("sides", i)
        members: list[Member] = []
        failed: list[Member] = []
        lost: list[object] = []  # every member entry that failed validation

        def members_field(v: object, p: Path, members: list[Member] = members,
                          failed: list[Member] = failed, lost: list[object] = lost) -> Any:
            listed = c.sequence(v, p, min_len=1)
            if listed is INVALID:
                return INVALID
            for j, item in enumerate(listed):
                member = read_member(c, item, (*p, j), bestiary)
                if member is INVALID or isinstance(member, Failed):
                    roster.note_failed(item)
                    lost.append(item)
                    if isinstance(member, Failed):
                        failed.append(member.member)
                else:
                    members.append(member)
            return members

        # A side is built from its valid members even next to a bad one, so that the
        # checks of the whole scenario still run (a bad member is reported on its own).
        fields: dict[str, Any] = {}
        c.mapping(raw, path, {
            "name": c.text, "party": c.boolean,
            "tactics": lambda v, p: read_tactics(c, v, p),
            "members": members_field,
            "description": lambda v, p: c.text(v, p, 2000),
        }, required=("name", "members"), partial=fields)
        if INVALID in (fields.get("name", INVALID), fields.get("party"), fields.get("members")):
            roster.complete = False
            continue
        name = fields["name"]
        if fields.get("tactics") is INVALID:
            del fields["tactics"]  # reported where it was written
        else:
            _check_orders(c, fields.get("tactics"), members, lost, path)
        side_weapons = tuple(w for m in (*members, *failed) for w in m.fields.get("weapons", ()))
        check_weapon_names(c, fields.get("tactics"), side_weapons,
                           (*path, "tactics", "weapons"), "any member of this side")
        side_tactics = fields.get("tactics")
        if side_tactics is not None and side_tactics.potion_at is not None:
            carriers = [m for m in (*members, *failed) if m.fields.get("items")]
            if not carriers:
                c.warn((*path, "tactics", "potion_at"), "does nothing: no member of this side "
                                                        "carries items")
            elif not any(_own_potion_at(m) is None for m in carriers):
                c.warn((*path, "tactics", "potion_at"), "does nothing: every member of this "
                                                        "side with items sets its own potion_at")
        if not lost and not failed and isinstance(raw, dict):
            _check_lone_potions(c, members, side_tactics, raw, path)
        if side_tactics is not None and side_tactics.target is not None and not lost and all(
                _own_target(block) is not None for m in members for block in (m.fields, m.mount)
                if block is not None):
            c.warn((*path, "tactics", "target"), "does nothing: every member of this side (and "
                                                 "mount) sets its own target, here or in its "
                                                 "bestiary entry")
        if name in side_names:
            c.fail((*path, "name"), f"duplicate side name '{name}'")
            roster.complete = False
            continue
        twin = side_looks.setdefault(looks_as(name), name)
        if twin != name:
            c.fail((*path, "name"), f"side name {_shown(name)} looks the same as {_shown(twin)}"
                                    " (they differ only in invisible or look-alike characters)")
        side_names.add(name)
        total += sum(m.count * (2 if m.mount is not None else 1) for m in members)
        if total > MAX_COMBATANTS:
            roster.complete = False
            continue  # reported below; never build more than the cap allows
        specs = expand(members, name)
        for spec, member_path in specs:
            twin, where = looks.setdefault(looks_as(spec.name), (spec.name, member_path))
            if twin != spec.name:
                c.fail(member_path, f"combatant name {_shown(spec.name)} looks the same as"
                                    f" {_shown(twin)} (at {format_path(where)}; they differ only"
                                    " in invisible or look-alike characters)")
            if spec.name in seen_names:
                first = format_path(seen_names[spec.name])
                c.fail(member_path, f"duplicate combatant name '{spec.name}' (first at {first})")
            seen_names.setdefault(spec.name, member_path)
        side = Side(
            name=name, party=fields.get("party") or False,
            tactics=fields.get("tactics", Tactics()),
            members=tuple(s for s, _ in specs),
        )
        sides.append(side)
        roster.members += [(m, side) for m in (*members, *failed)]
    if total > MAX_COMBATANTS:
        c.fail(("sides",), f"at most {MAX_COMBATANTS} combatants in all, mounts included"
                           f" (got {total})")
    party_paths = [("sides", i, "party") for i, raw in enumerate(items)
                   if isinstance(raw, dict) and raw.get("party") is True]
    for extra in party_paths[1:]:
        roster.complete = False  # who is the party is unknown: no check that depends on it
        c.fail(extra, f"only one side can be the party (the first is at {format_path(party_paths[0][:2])})")
    return sides


def _check_orders(c: Checker, tactics: Tactics | None, members: list[Member],
                  lost: list[object], path: Path) -> None:
    """The weapon orders of the side and its members that change nothing (sim.scenario.orders).
    A side's order naming a weapon no valid member has is not compared with (it may be a typo,
    refused as such). The side's is judged only when its every member is known and none of
    their orders was refused: removing both a side's order and a member's copy of it would
    change the fight."""
    known = {w.name for m in members for w in m.fields.get("weapons", ())}
    sure = tactics is None or set(tactics.weapons or ()) <= known
    orders = [o for m in members for o in m.orders if sure or o.entry_order is not None]
    if check_written_orders(c, tactics, orders) or lost or tactics is None or not sure:
        return
    blocks = [b for m in members for b in (m.fields, m.mount) if b is not None]
    check_side_order(c, tactics, blocks, (*path, "tactics", "weapons"))


def _check_lone_potions(c: Checker, members: list[Member], side_tactics: Tactics | None,
                        raw: dict, path: Path) -> None:
    """Items of a side's only fighter with ``potion_at: 0`` do nothing: it never drinks while
    standing, and no ally could be given one (its mount is given none). Reported where the
    0 or the items were written; both from its bestiary entry, kept quietly as all it gives."""
    if sum(m.count for m in members) != 1 or not members[0].fields.get("items"):
        return
    member = members[0]
    own = _own_potion_at(member)
    side = None if side_tactics is None else side_tactics.potion_at
    if (own if own is not None else side) != 0:
        return  # None: the default 0.33
    message = ("does nothing: with potion_at 0 it never drinks while standing, and no ally on its"
               " side could be given a potion (a mount is given none)")
    written = raw.get("members", [None])[0]
    tactics = written.get("tactics") if isinstance(written, dict) else None
    if isinstance(tactics, dict) and "potion_at" in tactics:
        c.warn((*member.path, "tactics", "potion_at"), message)
    elif own is None:  # the side's 0
        c.warn((*path, "tactics", "potion_at"), message)
    elif "items" in member.written:  # under its bestiary entry's 0
        c.warn((*member.path, "items"), message)


def _own_potion_at(member: Any) -> float | None:
    """The member's own ``tactics.potion_at`` (which overrides its side's), if it sets one."""
    own = member.fields.get("tactics")
    return None if own is None or own is INVALID else own.potion_at


def _own_target(block: dict[str, Any]) -> str | None:
    """The ``tactics.target`` a stat block (a member's, with its bestiary entry's, or a
    mount's) sets itself, overriding its side's."""
    own = block.get("tactics")
    return None if own is None or own is INVALID else own.target


def looks_as(name: str) -> str:
    """``name`` as it reads on a terminal: Unicode compatibility forms folded (NFKC: an
    accent composed or not, a no-break space), invisible format characters (a zero-width
    space, a bidi mark) dropped. Two names that look alike are refused, not told apart by
    bytes a reader cannot see."""
    folded = unicodedata.normalize("NFKC", name)
    return "".join(ch for ch in folded if unicodedata.category(ch) != "Cf")


def _shown(name: str) -> str:
    """``name`` quoted for a message, what a reader cannot see written as ``\\uXXXX``: the
    invisible characters and accents apart, and spaces other than the plain one."""
    return "".join(f"\\u{ord(ch):04x}" if unicodedata.category(ch) in ("Cf", "Mn", "Zs")
                   and ch != " " else ch for ch in shorten(name))
