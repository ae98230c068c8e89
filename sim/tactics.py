"""Target and weapon choice policies: random, weakest, strongest, focus."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sim.dice import roll_die
from sim.model import MELEE_REACH_M

if TYPE_CHECKING:
    from sim.engine import Battle
    from sim.model import Weapon
    from sim.state import Fighter


def policy_of(fighter: Fighter) -> str:
    """The target policy in force: the member's own, else its side's."""
    own = fighter.spec.tactics
    return (own or fighter.side_spec.tactics).target


def reach_of(fighter: Fighter) -> float:
    """The farthest any of the fighter's weapons strikes (0 without weapons)."""
    return max((w.reach for w in fighter.spec.weapons), default=0.0)


def choose_target(battle: Battle, fighter: Fighter) -> Fighter | None:
    """Pick an able enemy, preferring those already within the fighter's reach.

    - ``random``: uniform among the candidates (no draw when there is one).
    - ``weakest`` / ``strongest``: lowest / highest current HP, ties in listed order.
    - ``focus``: the whole side keeps one shared target while it stays able,
      then shares the weakest candidate as the next one.
    """
    enemies = [e for e in battle.fighters if e.able and e.side != fighter.side]
    if not enemies:
        return None
    reach = reach_of(fighter)
    near = [e for e in enemies if abs(e.x - fighter.x) <= reach]
    pool = near or enemies
    policy = policy_of(fighter)
    if policy == "random":
        return pool[0] if len(pool) == 1 else pool[roll_die(battle.rng, len(pool)) - 1]
    if policy == "strongest":
        return min(pool, key=lambda e: (-e.hp, e.index))
    if policy == "focus":
        shared = battle.focus.get(fighter.side)
        if shared is None or not shared.able:
            shared = min(pool, key=lambda e: (e.hp, e.index))
            battle.focus[fighter.side] = shared
        return shared
    return min(pool, key=lambda e: (e.hp, e.index))


def choose_weapon(fighter: Fighter, gap: float) -> Weapon | None:
    """The weapon to use at this gap: the first melee one in reach, else the first ranged one."""
    weapons = fighter.spec.weapons
    if gap <= MELEE_REACH_M:
        for weapon in weapons:
            if weapon.range is None:
                return weapon
    for weapon in weapons:
        if weapon.range is not None and gap <= weapon.range:
            return weapon
    return None


def approach_gap(fighter: Fighter) -> float:
    """The gap a fighter closes to: 0 with a melee weapon, else its longest range."""
    if any(w.range is None for w in fighter.spec.weapons):
        return 0.0
    return reach_of(fighter)
