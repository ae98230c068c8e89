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
    enemies = battle.enemies_cache.get(fighter.side) or battle.able_enemies(fighter)
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


def affordable(fighter: Fighter, weapon: Weapon) -> bool:
    """A spell is cast on PSY, or on HP while it leaves the caster more than twice its cost:
    nobody burns themselves out on purpose."""
    return not weapon.psy or fighter.psy >= weapon.psy or fighter.hp > 2 * weapon.psy


def choose_weapon(fighter: Fighter, gap: float) -> Weapon | None:
    """The weapon to use at this gap: the first melee one in reach, else the first ranged one
    (spells included) in range that the fighter can afford."""
    weapons = fighter.spec.weapons
    if gap <= MELEE_REACH_M:
        for weapon in weapons:
            if weapon.range is None and affordable(fighter, weapon):
                return weapon
    for weapon in weapons:
        if weapon.range is not None and gap <= weapon.range and affordable(fighter, weapon):
            return weapon
    return None


def approach_gap(fighter: Fighter) -> float:
    """The gap a fighter closes to: a ranged fighter stops at its longest range and shoots,
    a melee fighter closes to contact (RULES.md §2); a spell it can no longer afford
    does not hold it back."""
    ranges = [w.range for w in fighter.spec.weapons
              if w.range is not None and affordable(fighter, w)]
    return max(ranges) if ranges else 0.0
