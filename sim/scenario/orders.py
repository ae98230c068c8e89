"""Weapon orders that change nothing: a ``tactics.weapons`` its fighters would follow anyway.

A fighter's order of preference is its member's ``tactics.weapons``, else its bestiary
entry's, else its side's, completed by the default order (``sim.engine.tactics.weapon_order``).
A written order does nothing (a warning) when taking it out leaves every fighter it reaches
with the same full order: a copy of what it overrides, a partial order the default completes into
the same one, or an order of a single weapon. An order equal to the default still counts
when it overrides a different one (a member's [sword, bow] under its side's [bow, sword]).
"""

from __future__ import annotations

from typing import Any

import attrs

from sim.engine.tactics import weapon_order
from sim.model import Tactics, Weapon
from sim.scenario.checker import INVALID, Checker
from sim.yamlsrc import Path, shorten


@attrs.frozen
class WrittenOrder:
    """A member's (or its mount's) ``tactics.weapons`` written in the scenario, checked once
    its side's order is known."""

    path: Path  # the list's
    weapons: tuple[Weapon, ...]  # of the stat block, after `use:`
    order: tuple[str, ...]
    entry: str | None = None  # the bestiary entry whose order it overrides, if it gives one
    entry_order: tuple[str, ...] | None = None


def written_order(given: dict[str, Any], merged: dict[str, Any], path: Path,
                  entry_tactics: Tactics | None) -> WrittenOrder | None:
    """The ``tactics.weapons`` written in ``given`` (a member or a mount as written in the
    scenario), with the order its bestiary entry gives instead; None when none is written or
    it names a weapon the block lacks (refused as such already)."""
    own = given.get("tactics")
    if own is None or own.weapons is None:
        return None
    weapons = merged.get("weapons", ())
    if not set(own.weapons) <= {w.name for w in weapons}:
        return None
    if entry_tactics is None or entry_tactics.weapons is None:
        return WrittenOrder((*path, "tactics", "weapons"), weapons, own.weapons)
    return WrittenOrder((*path, "tactics", "weapons"), weapons, own.weapons, given["use"],
                        entry_tactics.weapons)


def check_written_orders(c: Checker, side: Tactics | None, orders: list[WrittenOrder]) -> int:
    """Refuse each member's order that leaves its fighters' order as it is without it;
    returns how many were told."""
    side_order = None if side is None else side.weapons
    refused = 0
    for o in orders:
        if o.entry_order is not None:
            base, where = o.entry_order, f"from bestiary entry {shorten(o.entry)}"
        elif side_order is not None:
            base, where = side_order, "from its side's tactics.weapons"
        else:
            base, where = None, "by default"
        full = weapon_order(o.weapons, o.order)
        if full == weapon_order(o.weapons, base):
            c.warn(o.path, _idle(full, f"it is the order this fighter already uses {where}"))
            refused += 1
    return refused


def check_side_order(c: Checker, side: Tactics | None, blocks: list[dict[str, Any]],
                     path: Path) -> None:
    """A side's ``tactics.weapons`` that leaves the order of each of its fighters (``blocks``:
    the resolved stat blocks of its members and mounts) as it is without it."""
    if side is None or side.weapons is None:
        return
    heirs = [b.get("weapons", ()) for b in blocks if _own_order(b) is None]
    if not heirs:
        c.warn(path, "does nothing: every member of this side sets its own tactics.weapons"
                     " (here or in its bestiary entry); remove it")
    elif all(weapon_order(w, side.weapons) == weapon_order(w, None) for w in heirs):
        c.warn(path, "does nothing: the members of this side without their own"
                     " tactics.weapons already use this order by default; remove it")


def check_entry_order(c: Checker, fields: dict[str, Any], path: Path) -> None:
    """A bestiary entry's ``tactics.weapons`` is kept, as it overrides whatever order a
    scenario's side gives, unless its block has one weapon and so a single order."""
    tactics, weapons = fields.get("tactics"), fields.get("weapons", ())
    if (tactics is not None and tactics.weapons is not None and len(weapons) == 1
            and tactics.weapons == (weapons[0].name,)):  # else refused as naming another
        c.warn((*path, "tactics", "weapons"), _idle(weapons, ""))


def _idle(full: tuple[Weapon, ...], why: str) -> str:
    if len(full) == 1:
        return f"does nothing: {shorten(full[0].name)} is this stat block's only weapon; remove it"
    return f"does nothing: {why} ({', '.join(w.name for w in full)}); remove it"


def _own_order(block: dict[str, Any]) -> tuple[str, ...] | None:
    """The order a resolved stat block sets itself (written or from its bestiary entry)."""
    tactics = block.get("tactics")
    return None if tactics is None or tactics is INVALID else tactics.weapons
