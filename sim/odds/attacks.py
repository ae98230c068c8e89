"""The per-attack table: for every attacker, its weapon and every enemy, the chance one attack
hits, how hard, how often critically, and how many attacks put the enemy down.

Exact, for any encounter (no fight is solved): one attack of a fresh fighter (its heroism
pool full, no morale reroll, no fatigue), with the attacker's first weapon of its order.
"""

from __future__ import annotations

import math
from collections import defaultdict

import attrs

from sim.model import Scenario, Weapon
from sim.odds import rolls
from sim.odds.morale import MoraleRules
from sim.odds.roster import NO_TOKENS, Local, Profile, attack_skill, d100_score, profiles
from sim.odds.strikes import Rules, open_base, quality_score, strike

BANDS = (("exploit", rolls.CRIT), ("success", rolls.SUCCESS), ("failure", rolls.FAIL),
         ("disaster", rolls.CRIT_FAIL))


@attrs.frozen
class AttackOdds:
    """One row of the table."""

    attacker: str
    weapon: str
    target: str
    roll: str  # what is rolled, and by whom
    hit: float  # the attack lands (damage may still be 0 after armor)
    critical: float
    damage_mean: float  # on a hit, after armor
    damage_min: int
    damage_max: int
    attacks_to_down: float | None  # expected attacks to bring the target to 0 HP (None: never)
    rolls: dict[str, float] = attrs.field(factory=dict)  # each roll's own chance; 2d10's bands

    def as_json(self) -> dict[str, object]:
        return attrs.asdict(self)


def attack_table(scenario: Scenario) -> list[AttackOdds]:
    """Every attacker against every enemy, in listed order; the members of one entry
    (``count: 6``) are one row, named ``goblin 1 .. goblin 6``."""
    fighters = profiles(scenario)
    rules = Rules(scenario.rules, scenario.options, MoraleRules(False))
    groups = _kinds(fighters)
    rows = []
    for attackers in groups:
        a = attackers[0]
        if not a.weapons:
            continue
        for targets in groups:
            if targets[0].side != a.side:
                row = _row(scenario, rules, a, targets[0])
                rows.append(attrs.evolve(row, attacker=_names(attackers), target=_names(targets)))
    return rows


def _kinds(fighters: tuple[Profile, ...]) -> list[list[Profile]]:
    """The fighters by scenario entry: the bodies of one ``count:`` share their stat block."""
    groups: dict[str, list[Profile]] = {}
    for f in fighters:
        groups.setdefault(f.spec.kind or f.name, []).append(f)
    return list(groups.values())


def _names(group: list[Profile]) -> str:
    return group[0].name if len(group) == 1 else f"{group[0].name} .. {group[-1].name}"


def _fresh(p: Profile) -> Local:
    hp = p.spec.hp.max
    return (hp, hp, NO_TOKENS, 0, p.spec.heroism, 0, 0, 0, 0, 0)


def _row(scenario: Scenario, rules: Rules, a: Profile, t: Profile) -> AttackOdds:
    weapon = a.weapons[0]
    hit = crit = 0.0
    damage: dict[int, float] = defaultdict(float)
    for p, _al, _tl, dmg, _ends, landed, critical in strike(rules, a, t, weapon, _fresh(a), _fresh(t),
                                                            False, False):
        damage[dmg] += p
        hit += p * landed
        crit += p * critical
    hits_only = _hit_damage(damage, hit)
    mean = sum(d * p for d, p in hits_only.items()) / hit if hit else 0.0
    low, high = min(hits_only, default=0), max(hits_only, default=0)
    roll, chances = _describe(scenario, a, t, weapon)
    return AttackOdds(a.name, weapon.name, t.name, roll, hit, crit, mean, low, high,
                      _attacks_to_down(damage, t), chances)


def _hit_damage(damage: dict[int, float], hit: float) -> dict[int, float]:
    """The damage of the hits alone: a miss is damage 0 with the misses' weight taken out."""
    out = dict(damage)
    out[0] = out.get(0, 0.0) - (1.0 - hit)
    return {d: p for d, p in out.items() if p > 1e-15}


def _attacks_to_down(damage: dict[int, float], t: Profile) -> float | None:
    """E[attacks] for the damage to add up to the target's HP (its HP law, rolled per battle)."""
    still = damage.get(0, 0.0)
    if still >= 1.0 - 1e-12:
        return None
    top = t.spec.hp.max
    need = [0.0] * (top + 1)
    for h in range(1, top + 1):
        rest = sum(p * need[max(0, h - d)] for d, p in damage.items() if d > 0)
        need[h] = (1.0 + rest) / (1.0 - still)
    return sum(p * need[max(0, hp)] for hp, p in rolls.dice_dist(t.spec.hp))


def _describe(scenario: Scenario, a: Profile, t: Profile, weapon: Weapon) -> tuple[str, dict[str, float]]:
    """What is rolled (the roll and its chance, before heroism): each system's own words."""
    system = scenario.rules
    if system == "d20":
        if a.party or not t.party:
            mod, target = a.spec.level + weapon.bonus, t.spec.effective_defense_threshold
            chance = _success(rolls.d20(mod, target, 0))
            return f"{a.name} rolls d20{mod:+d} > {target}", {"attack_roll": chance}
        mod, target = t.spec.armor, a.spec.effective_attack_threshold
        chance = _success(rolls.d20(mod, target, 0))
        return f"{t.name} defends d20{mod:+d} > {target}", {"defense_roll": chance}
    if system == "d100":
        score = d100_score(a.spec, attack_skill(weapon))
        defense = d100_score(t.spec, "defense")
        chances = {"attack_roll": _success(rolls.d100(score, 0)),
                   "defense_roll": _success(rolls.d100(defense, 0))}
        return f"d100 <= {score}, parry or dodge d100 <= {defense}", chances
    if system == "2d10":
        score = quality_score(a, t, weapon)
        law = rolls.quality(score, 0)
        return f"2d10 against SR {score}", {band: sum(p for p, r in law if r.degree == degree)
                                           for band, degree in BANDS}
    base = open_base(a, weapon)
    law = rolls.open_d10(base, t.spec.defense, 0, scenario.options.tie_succeeds)
    return f"open d10{base:+d} against {t.spec.defense}", {"attack_roll": _success(law)}


def _success(law: rolls.Dist) -> float:
    return math.fsum(p for p, r in law if r.success)
