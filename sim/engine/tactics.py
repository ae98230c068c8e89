"""Target and weapon choice policies: random, weakest, strongest, focus; weapon preferences."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sim.rules.actors import Arm
from sim.rules.d100 import attack_score

if TYPE_CHECKING:
    from collections.abc import Callable

    from sim.engine.state import Fighter
    from sim.model import Combatant, Weapon
    from sim.rules import ActionEconomy


def _by_hp(enemy: Fighter) -> tuple[int, int]:
    return enemy.hp, enemy.index


def _by_strength(enemy: Fighter) -> tuple[int, int]:
    return -enemy.hp, enemy.index


def choose_target(fighter: Fighter, enemies: list[Fighter], spread: bool, draw: Callable[[], float],
                  focus: dict[str, Fighter]) -> Fighter | None:
    """Pick one of the able ``enemies``, preferring those already within the fighter's reach
    (``spread``: False while everyone stands at one spot, all within reach).

    - ``random``: uniform among the candidates (no draw when there is one).
    - ``weakest`` / ``strongest``: lowest / highest current HP, ties in listed order.
    - ``focus``: the whole side keeps one shared target while it stays able,
      then shares the weakest candidate as the next one (``focus``: side -> shared
      target, the battle's). A fighter with an enemy in reach keeps to it (the weakest
      in reach) rather than walk off after the shared target.
    """
    if not enemies:
        return None
    if spread:
        reach, x = reach_now(fighter), fighter.x
        pool = [e for e in enemies if abs(e.x - x) <= reach] or enemies
    else:
        pool = enemies  # everyone stands together, within reach of everyone
    policy = fighter.policy  # the member's own tactics, else its side's
    if policy == "random":
        # roll_die(rng, len(pool)) - 1, inlined: this runs on every attack.
        n = len(pool)
        return pool[0] if n == 1 else pool[int(draw() * n)]
    if policy == "strongest":
        return min(pool, key=_by_strength)
    if policy == "focus":
        shared = focus.get(fighter.side)
        if shared is None or not shared.able:
            shared = min(pool, key=_by_hp)
            focus[fighter.side] = shared
        elif pool is not enemies and abs(shared.x - fighter.x) > reach:
            return min(pool, key=_by_hp)  # an enemy in reach comes first: keep contact
        return shared
    return min(pool, key=_by_hp)


# -- weapons -------------------------------------------------------------------------


def default_rank(weapon: Weapon) -> tuple[int, int]:
    """The default preference: spells (casters cast while they can afford it), then melee
    weapons, then thrown ones, then bows and crossbows (an archer in contact draws steel);
    within a kind, a weapon carrying poison or fire before a plain one (a wyvern's venom
    sting before its bite)."""
    if weapon.psy:
        kind = 0
    elif weapon.range is None:
        kind = 1
    else:
        kind = 3 if weapon.bow else 2
    return kind, 0 if weapon.poison or weapon.fire else 1


def weapon_order(weapons: tuple[Weapon, ...], preferred: tuple[str, ...] | None
                 ) -> tuple[Weapon, ...]:
    """A stat block's weapons in order of preference: those named in ``tactics.weapons``
    first, in that order; then the others by ``default_rank``, ties in listed order (names
    it does not carry, which a side's order may give, are passed over)."""
    named = preferred or ()
    first = [w for name in named for w in weapons if w.name == name]
    rest = sorted((w for w in weapons if w.name not in named), key=default_rank)
    return (*first, *rest)


Armed = tuple[tuple[tuple["Weapon", int, Arm], ...], "Weapon | None", int, "Arm | None", bool, bool]


def arm(fighter: Fighter, economy: ActionEconomy, fatigue: bool) -> None:
    """Give the fighter its weapons in order of preference with their cost in half-actions,
    read by the turn loop on every attack. Worked out once per stat block, tactics and
    economy (memoized on the spec), not once per battle.

    ``fatigue``: whether the system tires fighters (d100), so a shot can become hopeless.
    """
    armory = fighter.spec.armory
    last = armory.get("armed")  # the last arming, as (economy, fatigue, prefers, armed)
    if last is not None and last[0] is economy and last[1] is fatigue and last[2] is fighter.prefers:
        armed = last[3]  # the same objects as the last battle's: no key to build and hash
    else:
        key = (fighter.prefers, fatigue, economy.attack_cost, economy.two_handed_cost,
               economy.ranged_cost, economy.spell_cost)
        armed = armory.get(key)
        if armed is None:
            armed = armory[key] = _armed(fighter.spec, fighter.prefers, economy, fatigue)
        armory["armed"] = (economy, fatigue, fighter.prefers, armed)
    (fighter.arsenal, fighter.weapon_at_hand, fighter.cost_at_hand, fighter.arm_at_hand,
     fighter.fixed_at_hand, fighter.fixed_reach) = armed
    fighter.fatigues = fatigue


def _armed(spec: Combatant, prefers: tuple[str, ...] | None, economy: ActionEconomy,
           fatigue: bool) -> Armed:
    """(arsenal: (weapon, cost, Arm) in order of preference; the weapon at hand, its cost and
    Arm; whether it never changes while all stand together; whether its reach never changes)."""
    arsenal = tuple((w, economy.cost_of(w), Arm(w)) for w in weapon_order(spec.weapons, prefers))
    if not arsenal:
        return arsenal, None, 0, None, True, True
    weapon, cost, at_hand = arsenal[0]

    def fixed(w: Weapon) -> bool:  # a spell (PSY and HP run out), a shot fatigue can make hopeless
        return not w.psy and not (fatigue and w.range is not None)

    # While everyone stands together the first weapon is always the choice, unless it may
    # become unusable; and the fighter's reach is its stat block's unless one weapon may.
    return arsenal, weapon, cost, at_hand, fixed(weapon), all(fixed(w) for w, _, _ in arsenal)


def reach_now(fighter: Fighter) -> float:
    """How far the fighter strikes now: its longest reach among the weapons it can use. A
    spell it cannot afford or a hopeless shot reaches nobody, so an enemy only they reach is
    not "in reach" (the fighter would walk away from one its sword reaches)."""
    if fighter.fixed_reach:
        return fighter.reach
    return max((w.reach for w, _, _ in fighter.arsenal if usable(fighter, w)), default=0.0)


def affordable(fighter: Fighter, weapon: Weapon) -> bool:
    """A spell is cast on PSY, or on HP while what it leaves the caster stays above twice the
    cost: nobody burns themselves out on purpose (rules §3)."""
    cost = weapon.psy
    return not cost or fighter.psy >= cost or fighter.hp - (cost - fighter.psy) > 2 * cost


def hopeless(fighter: Fighter, weapon: Weapon) -> bool:
    """A shot (a ranged weapon, not a spell) when fatigue and weakness leave no score to roll
    under (d100): only the 01-05 critical could still hit, so the archer stops shooting."""
    if not fighter.fatigues or weapon.range is None or weapon.psy:
        return False
    return (fighter.fatigue > 0 or fighter.weakened) and attack_score(fighter, weapon) <= 0


def usable(fighter: Fighter, weapon: Weapon) -> bool:
    """Affordable (a spell) and not hopeless (a shot), whatever the gap."""
    return affordable(fighter, weapon) and not hopeless(fighter, weapon)


def choose_weapon(fighter: Fighter, gap: float) -> tuple[Weapon, int, Arm] | None:
    """The first weapon in the fighter's order of preference that strikes this far and that it
    can use; with its cost in half-actions and its Arm. None: nothing it can use at this gap."""
    for entry in fighter.arsenal:
        held = entry[2]
        if gap <= held.reach and usable(fighter, held.weapon):
            return entry
    return None


def approach_gap(fighter: Fighter) -> float | None:
    """The gap a fighter closes to: its longest reach among the weapons it can still use (a
    ranged fighter stops at its range and shoots, a melee fighter closes to contact,
    rules §2). None when it can use none at any distance: it stays out of reach."""
    best = None
    for weapon, _, _ in fighter.arsenal:
        gap = 0.0 if weapon.range is None else weapon.range  # melee: close to contact
        if usable(fighter, weapon) and (best is None or gap > best):
            best = gap
    return best
