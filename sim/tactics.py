"""Target and weapon choice policies: random, weakest, strongest, focus."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sim.model import MELEE_REACH_M

if TYPE_CHECKING:
    from sim.engine import Battle
    from sim.model import Weapon
    from sim.state import Fighter


def choose_target(battle: Battle, fighter: Fighter) -> Fighter | None:
    """Pick an able enemy, preferring those already within the fighter's reach.

    - ``random``: uniform among the candidates (no draw when there is one).
    - ``weakest`` / ``strongest``: lowest / highest current HP, ties in listed order.
    - ``focus``: the whole side keeps one shared target while it stays able,
      then shares the weakest candidate as the next one.
    """
    enemies = battle.able_enemies(fighter)
    if not enemies:
        return None
    if battle.spread:
        reach, x = fighter.reach, fighter.x
        pool = [e for e in enemies if abs(e.x - x) <= reach] or enemies
    else:
        pool = enemies  # everyone stands together, within reach of everyone
    policy = fighter.policy  # the member's own tactics, else its side's
    if policy == "random":
        # roll_die(rng, len(pool)) - 1, inlined: this runs on every attack.
        return pool[0] if len(pool) == 1 else pool[int(battle.rng.random() * len(pool))]
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
    return fighter.reach
