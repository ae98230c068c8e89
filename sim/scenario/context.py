"""The ``Context`` of a stat block: what of the scenario decides whether its keys matter.

Built by ``unused`` for each block of a side, read by ``ignored``, ``idle_fights`` and
``show``; apart from them so that none needs another for the type alone.
"""

from __future__ import annotations

from typing import Any

import attrs


@attrs.frozen
class Context:
    """What of the scenario decides whether a stat block's keys matter."""

    rules: str
    options: Any  # sim.model.Options
    morale_on: bool
    party: bool  # the block's side is the party
    party_side: bool  # the scenario has a party side
    enemies_all_party: bool  # every other side is the party
    rolls_initiative: bool  # its side rolls initiative (the party, else the first side)
    group_check: str | None  # the surprise group check its side makes, if any
    rests: bool = False  # a day's party member: the day's rests heal by its level (rules §7)
    # Something may make it roll a check besides its attacks: a hazard or the timeline, its
    # side's surprise group check, an enemy's fire or poison weapon, a mount (riding).
    checked: bool = True
    mounted: bool = False  # it rides a mount (so it rolls riding from the saddle, rules §6)
    enemies: int = 2  # the combatants of the other sides, mounts included
    # Nobody ever moves: distance 0, no hazard, timeline or mount (every gap stays 0).
    still: bool = False
    side_order: tuple[str, ...] | None = None  # its side's tactics.weapons
    enemy_armor: bool = True  # an enemy (a mount included) has armor
    mount: bool = False  # the block is a rider's mount (rules §4: it holds no morale tokens)
