"""One attack in each system (rules §3), as the law of what it does: written from the rules,
never from the engine (the solver is the engine's oracle).

``strike`` returns (probability, attacker's state, target's state, damage, turn ends, hit,
critical) with the damage already past armor. What a fall, a kill or a wound does next is ``fight``'s.
"""

from __future__ import annotations

import functools
from collections import defaultdict

import attrs

from sim.dice import Dice
from sim.model import Options, Weapon
from sim.odds import rolls
from sim.odds.morale import MoraleRules, checked, checked_saved, combine
from sim.odds.rolls import CRIT, CRIT_FAIL, Roll, dice_dist
from sim.odds.roster import (
    FAT,
    HERO,
    OPEN_ATTRIBUTE,
    QUALITY_CHARACTERISTIC,
    SKIP,
    WEAK,
    Local,
    Profile,
    attack_skill,
    characteristic,
    d100_score,
)

Outcome = tuple[float, Local, Local, int, bool, bool, bool]
D4 = ((1, 0.25), (2, 0.25), (3, 0.25), (4, 0.25))
D6 = tuple((k, 1 / 6) for k in range(1, 7))
HEROISM_REACH = 5  # rules §3: a d6 can still save a roll short by 5 or less


@attrs.frozen
class Rules:
    """What of the scenario a strike reads besides the two fighters."""

    system: str
    options: Options
    morale: MoraleRules


def strike(rules: Rules, a: Profile, t: Profile, weapon: Weapon, a_loc: Local, t_loc: Local,
           surprise: bool, outnumbered: bool) -> list[Outcome]:
    """The law of one attack of ``a`` on ``t`` with ``weapon``."""
    system = rules.system
    if system == "d20":
        raw = _d20(rules, a, t, weapon, a_loc, t_loc, surprise, outnumbered)
    elif system == "d100":
        raw = _d100(rules, a, t, weapon, a_loc, t_loc, surprise)
    elif system == "2d10":
        raw = _quality(rules, a, t, weapon, a_loc, t_loc, surprise)
    else:
        raw = _open(rules, a, t, weapon, a_loc, t_loc, surprise)
    merged: dict[tuple[Local, Local, int, bool, bool, bool], float] = defaultdict(float)
    for p, *rest in raw:
        merged[tuple(rest)] += p  # type: ignore[index]
    return [(p, *rest) for rest, p in merged.items()]  # type: ignore[misc]


def _add(*laws: tuple[tuple[int, float], ...]) -> tuple[tuple[int, float], ...]:
    return _sum_laws(tuple(laws))


@functools.cache
def _sum_laws(laws: tuple[tuple[tuple[int, float], ...], ...]) -> tuple[tuple[int, float], ...]:
    out: dict[int, float] = {0: 1.0}
    for law in laws:
        nxt: dict[int, float] = defaultdict(float)
        for a, p in out.items():
            for b, q in law:
                nxt[a + b] += p * q
        out = nxt
    return tuple(sorted(out.items()))


def _const(value: int) -> tuple[tuple[int, float], ...]:
    return ((value, 1.0),)


def _hurt(law: tuple[tuple[int, float], ...], armor: int) -> tuple[tuple[int, float], ...]:
    """Damage past ``armor``, never below 0."""
    out: dict[int, float] = defaultdict(float)
    for dmg, p in law:
        out[max(0, dmg - armor)] += p
    return tuple(out.items())


def concerns(a: Profile, purpose: str, weapon: Weapon | None) -> bool:
    """Whether a roll concerns one of the fighter's aspects (heroism; default: every roll)."""
    aspects = a.spec.aspects
    if aspects is None:
        return True
    names = {purpose} | ({weapon.name, weapon.skill} if weapon is not None else set())
    return bool(names & set(aspects))


def suited(weapon: Weapon, target: Profile) -> bool:
    """d20: a weapon particularly suited to its target (rules §3): one of its ``suited:``
    names is one the target answers to (its bestiary entry, its name as written, its kinds)."""
    return bool(set(weapon.suited) & set(target.spec.kinds))


def _heroism(roll: Roll, local: Local, allowed: bool) -> list[tuple[float, Roll, int, Local]]:
    """rules §3, d20: a failed roll short by 5 or less spends a die (if any) and adds 1d6;
    returns (p, roll, the d6 or 0, state)."""
    if roll.success or not allowed or local[HERO] <= 0 or roll.margin < -HEROISM_REACH:
        return [(1.0, roll, 0, local)]
    spent = (*local[:HERO], local[HERO] - 1, *local[HERO + 1:])
    out = []
    for d6, p in D6:
        margin = roll.margin + d6
        out.append((p, Roll(margin > 0, rolls.d20_degree(roll.natural, margin), margin, roll.natural),
                    d6, spent))
    return out


def _d20(rules: Rules, a: Profile, t: Profile, weapon: Weapon, a_loc: Local, t_loc: Local,
         surprise: bool, outnumbered: bool) -> list[Outcome]:
    out: list[Outcome] = []
    bonus_d4 = surprise or suited(weapon, t)
    if a.party or not t.party:  # the attacker rolls
        mod, target = a.spec.level + weapon.bonus, t.spec.effective_defense_threshold
        adv = combine(1 if surprise or outnumbered else 0)
        allowed = concerns(a, "attack", weapon)
        for p, final, al2, d6 in checked_saved(lambda x: rolls.d20(mod, target, x), adv, a_loc,
                                               rules.morale, lambda r, loc: _heroism(r, loc, allowed)):
            if not final.success:
                out.append((p, al2, t_loc, 0, False, False, False))
                continue
            crit = final.degree == CRIT
            law = _add(dice_dist(weapon.damage), _const(d6), D4 if bonus_d4 or crit else _const(0))
            out += [(p * r, al2, t_loc, dmg, False, True, crit) for dmg, r in law]
        return out
    mod, target = t.spec.armor, a.spec.effective_attack_threshold  # the party defender rolls
    adv = combine(-1 if surprise or outnumbered else 0)
    allowed = concerns(t, "defense", None)
    for p, final, tl2, _d6 in checked_saved(lambda x: rolls.d20(mod, target, x), adv, t_loc,
                                            rules.morale, lambda r, loc: _heroism(r, loc, allowed)):
        if final.success:
            out.append((p, a_loc, tl2, 0, False, False, False))
            continue
        crit = final.degree == CRIT_FAIL
        law = _add(dice_dist(weapon.damage), D4 if bonus_d4 or crit else _const(0))
        out += [(p * r, a_loc, tl2, dmg, False, True, crit) for dmg, r in law]
    return out


def d100_target(score: int, local: Local) -> int:
    """A d100 score less fatigue (-5 a point) and a serious wound's weakness (-20)."""
    return score - 5 * local[FAT] - 20 * local[WEAK]


def tires(weapon: Weapon) -> bool:
    """d100: a two-handed weapon or a bow adds 1 fatigue an attack (rules §3)."""
    return weapon.hands >= 2 or weapon.bow


def _d100(rules: Rules, a: Profile, t: Profile, weapon: Weapon, a_loc: Local, t_loc: Local,
          surprise: bool) -> list[Outcome]:
    opts = rules.options
    score = d100_target(d100_score(a.spec, attack_skill(weapon)), a_loc)
    defense = d100_target(d100_score(t.spec, "defense"), t_loc)
    out: list[Outcome] = []
    for p, roll, al in checked(lambda x: rolls.d100(score, x), 1 if surprise else 0, a_loc, rules.morale):
        if tires(weapon):
            al = (*al[:FAT], min(al[FAT] + 1, a.fatigue_cap), *al[FAT + 1:])
        ends = roll.degree == CRIT_FAIL and opts.fumble_ends_turn
        if not roll.success:
            out.append((p, al, t_loc, 0, ends, False, False))
            continue
        crit = roll.degree == CRIT
        pierce = weapon.armor_piercing or (crit and opts.critical_pierces)
        law = _hurt(_add(dice_dist(weapon.damage), _const(weapon.bonus)), 0 if pierce else t.spec.armor)
        if crit and opts.critical_ignores_defense:
            out += [(p * r, al, t_loc, dmg, ends, True, True) for dmg, r in law]
            continue
        for q, parry, tl in checked(lambda x: rolls.d100(defense, x), 0, t_loc, rules.morale):
            if parry.success:
                out.append((p * q, al, tl, 0, ends, False, False))
            else:
                out += [(p * q * r, al, tl, dmg, ends, True, crit) for dmg, r in law]
    return out


def quality_score(a: Profile, t: Profile, weapon: Weapon) -> int:
    """2d10: SR = combat + the weapon's skill - the target's defense (rules §3)."""
    skill = a.spec.skills.get(weapon.skill or weapon.name, 0)
    return characteristic(a.spec, "combat", QUALITY_CHARACTERISTIC) + skill - t.spec.defense


def exploit_die(damage: Dice) -> tuple[tuple[int, float], ...]:
    """2d10 exploit: one more die like the damage's largest (no explosion), or the constant again."""
    sides = damage.die_sides
    if sides is None:
        return _const(damage.min)
    return tuple((k, 1 / sides) for k in range(1, sides + 1))


def _quality(rules: Rules, a: Profile, t: Profile, weapon: Weapon, a_loc: Local, t_loc: Local,
             surprise: bool) -> list[Outcome]:
    score = quality_score(a, t, weapon)
    armor = 0 if weapon.armor_piercing else t.spec.armor
    out: list[Outcome] = []
    for p, roll, al in checked(lambda x: rolls.quality(score, x), 1 if surprise else 0, a_loc, rules.morale):
        if roll.degree == CRIT_FAIL:
            al = (*al[:SKIP], 1, *al[SKIP + 1:])
        if not roll.success:
            out.append((p, al, t_loc, 0, False, False, False))
            continue
        crit = roll.degree == CRIT
        extra = exploit_die(weapon.damage) if crit else _const(0)
        law = _hurt(_add(dice_dist(weapon.damage), extra, _const(weapon.bonus)), armor)
        out += [(p * r, al, t_loc, dmg, False, True, crit) for dmg, r in law]
    return out


def open_base(a: Profile, weapon: Weapon) -> int:
    """d10: the weapon's attribute (default agility) + its skill (melee or ranged)."""
    attribute = a.spec.attributes.get(weapon.attribute or "agility", OPEN_ATTRIBUTE)
    return attribute + a.spec.skills.get(attack_skill(weapon), 0)


def _open(rules: Rules, a: Profile, t: Profile, weapon: Weapon, a_loc: Local, t_loc: Local,
          surprise: bool) -> list[Outcome]:
    base, tie = open_base(a, weapon), rules.options.tie_succeeds
    armor = 0 if weapon.armor_piercing else t.spec.armor
    out: list[Outcome] = []
    for p, roll, al in checked(lambda x: rolls.open_d10(base, t.spec.defense, x, tie),
                               1 if surprise else 0, a_loc, rules.morale):
        if not roll.success:
            out.append((p, al, t_loc, 0, False, False, False))
            continue
        law = _hurt(_add(dice_dist(weapon.damage), _const(roll.margin // 5 + weapon.bonus)), armor)
        out += [(p * r, al, t_loc, dmg, False, True, roll.degree == CRIT) for dmg, r in law]
    return out
