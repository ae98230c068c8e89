"""The open-ended d10 system of seed 001, one test (or class) per rule of rules §1 and §3."""

from __future__ import annotations

import math
import random
from collections import Counter, defaultdict
from fractions import Fraction

import attrs
import pytest

from sim import dice
from sim.model import Scenario, Weapon
from sim.rules import CRITICAL_FAILURE, CRITICAL_SUCCESS, FAILURE, SUCCESS
from sim.rules.open_d10 import MAX_CHAIN, OpenD10, open_d10
from sim.rules.systems import system_for
from tests.builders import ScriptedRandom, battle, events, fighter, scenario, side

D10 = OpenD10()
DEPTH = 6  # chains enumerated exactly up to this many dice
TAIL = Fraction(2, 10) ** DEPTH  # mass of the chains still open after DEPTH dice (1s and 10s)
N_OPEN = 200_000
N_CHECK = 20_000


class TestOpenD10:
    """open_d10(): add sign x die; 10 rolls again, 1 flips the sign and rolls again (rules §1)."""

    @pytest.mark.parametrize(
        ("faces", "total"),
        [
            ((7,), 7),  # the seed's examples
            ((10, 4), 14),
            ((1, 6), -5),
            ((1, 10, 3), -12),
            ((1, 1, 5), 5),
            ((2,), 2),
            ((9,), 9),
            ((10, 10, 2), 22),
            ((10, 1, 4), 10 + 1 - 4),
            ((1, 1, 1, 9), 1 - 1 + 1 - 9),
            ((1, 10, 1, 10, 8), 1 - 10 - 1 + 10 + 8),
        ],
    )
    def test_examples(self, faces: tuple[int, ...], total: int) -> None:
        """open_d10: the seed's examples 7 -> 7; 10,4 -> 14; 1,6 -> -5; 1,10,3 -> -12; 1,1,5 -> 5."""
        rng = ScriptedRandom((f, 10) for f in faces)
        assert open_d10(rng) == (total, faces)
        assert rng.unused == 0

    def test_stops_on_2_to_9(self) -> None:
        """open_d10: a 2..9 ends the chain, whatever is scripted after it."""
        for face in range(2, 10):
            rng = ScriptedRandom([(face, 10), (5, 10)])
            assert open_d10(rng) == (face, (face,))
            assert rng.unused == 1

    def test_chain_capped_at_100_dice(self) -> None:
        """open_d10: the chain stops after 100 dice (the safety limit), even on an endless run of 10s."""
        assert MAX_CHAIN == 100
        rng = ScriptedRandom([(10, 10)] * 150)
        total, chain = open_d10(rng)
        assert (total, len(chain), rng.unused) == (1000, 100, 50)

    def test_cap_with_alternating_signs(self) -> None:
        """open_d10: 100 ones alternate +1, -1 and stop at the cap with a sum of 0."""
        rng = ScriptedRandom([(1, 10)] * 120)
        total, chain = open_d10(rng)
        assert (total, chain, rng.unused) == (0, (1,) * 100, 20)


class TestOpenD10Distribution:
    """The exact open-ended d10 law, enumerated to depth 6, against sampling (rules §1)."""

    def test_enumeration_mass(self) -> None:
        """Enumeration: chains of at most 6 dice leave (2/10)^6 open and give the seed's examples."""
        table = exact_values()
        assert 1 - sum(table.values()) == TAIL
        assert len(chains()) == 8 * (2**DEPTH - 1)  # 8 endings after each of 2^(k-1) prefixes
        found = {chain: value for value, chain, _ in chains()}
        examples = {(7,): 7, (10, 4): 14, (1, 6): -5, (1, 10, 3): -12, (1, 1, 5): 5}
        assert {chain: found[chain] for chain in examples} == examples
        two = defaultdict(Fraction)
        for value, _, p in chains(2):
            two[value] += p
        assert (two[7], two[14], two[-5], two[10]) == (Fraction(1, 10), Fraction(1, 100),
                                                       Fraction(1, 100), 0)

    def test_value_probabilities(self) -> None:
        """open_d10: P(value) for every value in -20..30 matches the enumeration within 4 SE + tail."""
        table = exact_values()
        rng = random.Random(2024)
        counts = Counter(open_d10(rng)[0] for _ in range(N_OPEN))
        for value in range(-20, 31):
            low = float(table.get(value, 0))
            high = low + float(TAIL)
            p = min(max((low + high) / 2, 1e-9), 1 - 1e-9)
            se = math.sqrt(p * (1 - p) / N_OPEN)
            observed = counts[value] / N_OPEN
            assert low - 4 * se <= observed <= high + 4 * se, (value, observed, low)

    def test_chain_length(self) -> None:
        """open_d10: the chain has k dice with probability (2/10)^(k-1) x 8/10."""
        rng = random.Random(7)
        lengths = Counter(len(open_d10(rng)[1]) for _ in range(N_OPEN))
        for k in range(1, 6):
            p = 0.2 ** (k - 1) * 0.8
            assert within(lengths[k], N_OPEN, p), k

    @pytest.mark.parametrize("score", [0, 4, 8])
    def test_check_degrees(self, score: int) -> None:
        """d10 check: P(success), P(critical success), P(critical failure) against difficulty 10."""
        exact = exact_degrees(score, 10)
        b = battle(duel10(hero={"attributes": {"physique": score}}), seed=score + 3, log=False)
        hero = b.fighters[0]
        degrees = Counter(D10.check(b.table, hero, "physique").degree for _ in range(N_CHECK))
        for degree in (CRITICAL_FAILURE, FAILURE, SUCCESS, CRITICAL_SUCCESS):
            low, high = float(exact[degree]), float(exact[degree] + TAIL)
            p = min(max((low + high) / 2, 1e-9), 1 - 1e-9)
            se = math.sqrt(p * (1 - p) / N_CHECK)
            observed = degrees[degree] / N_CHECK
            assert low - 4 * se <= observed <= high + 4 * se, (degree, observed, low)


class TestCheck:
    """total = attribute + skill + open d10 against a difficulty; ties succeed (rules §1, d10)."""

    def test_system_is_registered(self) -> None:
        """`rules: d10` names the open-ended d10 system."""
        assert system_for("d10").name == "d10"

    @pytest.mark.parametrize(("face", "success", "margin"), [(6, True, 0), (5, False, -1), (9, True, 3)])
    def test_tie_succeeds(self, scripted, face: int, success: bool, margin: int) -> None:
        """Convention: a total equal to the difficulty succeeds (margin 0); lower fails."""
        b = battle(duel10(hero={"attributes": {"physique": 4}}))
        scripted(b, (face, 10))
        result = D10.check(b.table, b.fighters[0], "physique")
        assert (result.total, result.target) == (4 + face, 10)
        assert (result.success, result.margin) == (success, margin)

    def test_skill_adds_to_attribute(self, scripted) -> None:
        """d10 check: total = attribute + skill + open d10."""
        b = battle(duel10(hero={"attributes": {"physique": 4}, "skills": {"climbing": 3}}))
        scripted(b, (2, 10))
        assert D10.check(b.table, b.fighters[0], "climbing").total == 4 + 3 + 2

    def test_difficulty_option(self, scripted) -> None:
        """d10 check: the scenario's `difficulty` is the target a plain check must reach."""
        b = battle(duel10(hero={"attributes": {"physique": 4}}, difficulty=12))
        scripted(b, (7, 10))
        result = b.rules.check(b.table, b.fighters[0], "physique")
        assert (result.target, result.success, result.margin) == (12, False, -1)

    def test_scale_is_p_over_10_toward_zero(self) -> None:
        """d10: scale(p) = p / 10, rounded toward zero."""
        percents = (-50, -19, -15, -10, -9, -5, 0, 5, 9, 10, 15, 19, 50)
        assert [D10.scale(p) for p in percents] == [-5, -1, -1, -1, 0, 0, 0, 0, 0, 1, 1, 1, 5]

    @pytest.mark.parametrize(("percent", "margin"), [(-20, -2), (-15, -1), (0, 0), (30, 3)])
    def test_modifier_is_difficulty_of_opposite_sign(self, scripted, percent: int, margin: int) -> None:
        """d10: a percent modifier p moves the difficulty by -p / 10 (here: the margin by p / 10)."""
        b = battle(duel10(hero={"attributes": {"physique": 4}}))
        scripted(b, (6, 10))
        result = D10.check(b.table, b.fighters[0], "physique", percent)
        assert (result.margin, result.success) == (margin, margin >= 0)

    def test_dice_hold_the_whole_chain(self, scripted) -> None:
        """d10 check_rolled: `dice` holds every die of the chain in order; total = sum + modifier."""
        b = battle(duel10(hero={"attributes": {"physique": 4}}))
        scripted(b, (1, 10), (10, 10), (3, 10))
        result = D10.check(b.table, b.fighters[0], "physique")
        assert (result.dice, result.kept, result.total) == ((1, 10, 3), -12, -8)
        event = b.log[-1]
        expected = {"event": "check_rolled", "actor": "Hero", "purpose": "physique",
                    "system": "d10", "dice": [1, 10, 3], "modifier": 4, "total": -8,
                    "target": 10, "success": False, "degree": CRITICAL_FAILURE, "margin": -18}
        assert {k: event[k] for k in expected} == expected
        assert event["total"] == event["kept"] + event["modifier"]

    @pytest.mark.parametrize(
        ("faces", "score", "degree"),
        [
            ((10, 4), 0, CRITICAL_SUCCESS),  # held a 10 and succeeded
            ((10, 1, 2), 4, CRITICAL_SUCCESS),  # 10 + 1 - 2 = 9: held a 10 (and a 1) and succeeded
            ((7,), 3, SUCCESS),
            ((1, 6), 20, SUCCESS),  # held a 1 but succeeded
            ((1, 6), 4, CRITICAL_FAILURE),  # held a 1 and failed
            ((1, 10, 3), 4, CRITICAL_FAILURE),
            ((5,), 4, FAILURE),
            ((10, 3), -10, FAILURE),  # held a 10 but failed
        ],
    )
    def test_degrees(self, scripted, faces: tuple[int, ...], score: int, degree: str) -> None:
        """d10 degrees: critical success iff the chain held a 10 and succeeded; critical failure
        iff it held a 1 and failed."""
        b = battle(duel10(hero={"attributes": {"physique": score}}))
        rng = scripted(b, *((f, 10) for f in faces))
        assert D10.check(b.table, b.fighters[0], "physique").degree == degree
        assert rng.unused == 0

    @pytest.mark.parametrize(
        ("advantage", "faces", "kept", "degree"),
        [
            (1, (1, 6, 7), 7, SUCCESS),  # -5 or 7: keeps 7; its chain holds no 10
            (-1, (1, 1, 9, 3), 3, FAILURE),  # 9 or 3: keeps 3; its chain holds no 1
            (-1, (10, 4, 1, 6), -5, CRITICAL_FAILURE),  # 14 or -5: keeps -5, which held a 1
            (1, (4, 10, 2), 12, CRITICAL_SUCCESS),
        ],
    )
    def test_advantage_keeps_one_chain(self, scripted, advantage: int, faces: tuple[int, ...],
                                       kept: int, degree: str) -> None:
        """d10 advantage (a surprise, despair): two chains, the better (or worse) sum kept; `dice`
        holds both chains in order and the degree reads the kept chain."""
        b = battle(duel10(hero={"attributes": {"physique": 4}}))
        rng = scripted(b, *((f, 10) for f in faces))
        result = D10.check(b.table, b.fighters[0], "physique", advantage=advantage)
        assert (result.dice, result.kept, result.total, result.degree) == (faces, kept, kept + 4,
                                                                           degree)
        assert b.log[-1]["dice"] == list(faces) and rng.unused == 0


class TestAttack:
    """Attack: open d10 + attribute + weapon skill against the target's defense (rules §3, d10)."""

    def test_attack_total(self, scripted) -> None:
        """d10 attack: open d10 + attribute + weapon skill against target defense; a tie hits."""
        b = battle(duel10(hero={"attributes": {"agility": 5}, "skills": {"melee": 3}},
                          foe={"defense": 12, "hp": 30}))
        hero, foe = b.fighters
        rng = scripted(b, (4, 10), (6, 8))
        b.attack(hero, foe, hero.spec.weapons[0])
        check = events(b.log, "check_rolled")[0]
        assert (check["purpose"], check["total"], check["target"], check["margin"]) == (
            "attack", 12, 12, 0)
        assert events(b.log, "attack_resolved")[0]["hit"] is True
        assert events(b.log, "damage_dealt")[0]["amount"] == 6 and rng.unused == 0

    def test_attack_below_defense_misses(self, scripted) -> None:
        """d10 attack: a total below the target's defense misses and rolls no damage."""
        b = battle(duel10(hero={"attributes": {"agility": 5}, "skills": {"melee": 3}},
                          foe={"defense": 12}))
        hero, foe = b.fighters
        rng = scripted(b, (3, 10))
        b.attack(hero, foe, hero.spec.weapons[0])
        assert events(b.log, "attack_resolved")[0]["hit"] is False
        assert events(b.log, "damage_dealt") == [] and rng.unused == 0

    def test_weapon_attribute_and_skill(self, scripted) -> None:
        """d10 attack: the weapon's `attribute` and `skill` name what is added to the open d10."""
        axe = Weapon(name="axe", damage=dice.parse("1d8"), attribute="strength", skill="axes")
        b = battle(duel10(hero={"attributes": {"agility": 1, "strength": 6},
                                "skills": {"axes": 4, "melee": 0}, "weapons": (axe,)},
                          foe={"defense": 15, "hp": 30}))
        hero, foe = b.fighters
        scripted(b, (5, 10), (2, 8))
        b.attack(hero, foe, axe)
        assert events(b.log, "check_rolled")[0]["total"] == 6 + 4 + 5

    @pytest.mark.parametrize(
        ("faces", "margin", "face", "armor", "amount"),
        [
            ((4,), 0, 6, 0, 6),  # floor(0 / 5) = 0
            ((8,), 4, 6, 0, 6),  # floor(4 / 5) = 0
            ((9,), 5, 6, 0, 7),  # floor(5 / 5) = 1
            ((10, 3), 9, 6, 0, 7),
            ((10, 4), 10, 6, 0, 8),
            ((10, 10, 5), 21, 2, 0, 2 + 4),
            ((10, 4), 10, 6, 3, 6 + 2 - 3),  # armor comes off
            ((9,), 5, 2, 5, 0),  # 2 + 1 - 5 < 0: never below 0
        ],
    )
    def test_damage(self, scripted, faces: tuple[int, ...], margin: int, face: int, armor: int,
                    amount: int) -> None:
        """d10 damage: weapon dice + floor(margin / 5) - armor, never below 0."""
        b = battle(duel10(hero={"attributes": {"agility": 5}, "skills": {"melee": 3}},
                          foe={"defense": 12, "armor": armor, "hp": 50}))
        hero, foe = b.fighters
        rng = scripted(b, *((f, 10) for f in faces), (face, 8))
        b.attack(hero, foe, hero.spec.weapons[0])
        assert events(b.log, "check_rolled")[0]["margin"] == margin
        damage = events(b.log, "damage_dealt")[0]
        assert (damage["amount"], damage["dice"]) == (amount, [face])
        assert foe.hp == 50 - amount and rng.unused == 0

    def test_one_action_per_turn(self, scripted) -> None:
        """d10: one action per turn, so a fighter in reach attacks once."""
        b = battle(duel10(hero={"attributes": {"agility": 5}}, foe={"hp": 40}))
        rng = scripted(b, (9, 10), (1, 8))
        b._take_turn(b.fighters[0])
        assert len(events(b.log, "attack_resolved")) == 1 and rng.unused == 0


# -- helpers ------------------------------------------------------------------------------------


def d10(*sides, **kwargs) -> Scenario:
    """A d10 scenario built in code."""
    return attrs.evolve(scenario(*sides, **kwargs), rules="d10")


class TestScores:
    """d10 scores (rules §1): an attribute alone, or a skill on physique."""

    @pytest.mark.parametrize(("what", "score"), [
        ("physique", 7), ("strength", 9), ("force", 9), ("agility", 3), ("climbing", 7 + 2),
        ("swimming", 7)])
    def test_score_of_each_check(self, scripted, what: str, score: int) -> None:
        """An attribute (default 3 when left out; `force` is strength) or physique + skill."""
        b = battle(duel10(hero={"attributes": {"physique": 7, "strength": 9},
                                "skills": {"climbing": 2}}))
        scripted(b, (5, 10))
        result = D10.check(b.table, b.fighters[0], what)
        assert (result.total, result.modifier, result.kept) == (score + 5, score, 5)

    @pytest.mark.parametrize("what", ["strength", "force", "agility"])
    def test_attribute_left_out_is_three(self, scripted, what: str) -> None:
        """An attribute the stat block leaves out is 3 (Convention), not physique + skill."""
        b = battle(duel10(hero={"attributes": {"physique": 7}}))
        scripted(b, (5, 10))
        assert D10.check(b.table, b.fighters[0], what).total == 3 + 5


class TestAttackSkills:
    """d10 attack (rules §3): open d10 + attribute + weapon skill."""

    @pytest.mark.parametrize(("weapon", "skill", "score"), [
        (Weapon("bow", dice.parse("1d6"), range=30, hands=2), "ranged", 3 + 4),
        (Weapon("sword", dice.parse("1d8")), "melee", 3 + 5),
        (Weapon("whip", dice.parse("1d4"), skill="lash"), "lash", 3 + 0),
        (Weapon("maul", dice.parse("2d6"), attribute="force"), "melee", 8 + 5)])
    def test_skill_by_weapon(self, scripted, weapon: Weapon, skill: str, score: int) -> None:
        """A weapon's `skill`, else `ranged` for a ranged weapon, else `melee`; an unknown
        skill adds nothing; agility by default, or the weapon's `attribute` (force: strength)."""
        b = battle(duel10(hero={"weapons": (weapon,), "skills": {"ranged": 4, "melee": 5},
                                "attributes": {"strength": 8}},
                          foe={"defense": 30}))
        hero, foe = b.fighters
        scripted(b, (5, 10))
        b.attack(hero, foe, weapon)
        check = next(e for e in b.log if e["event"] == "check_rolled")
        assert (check["skill"], check["modifier"]) == (skill, score)

    def test_check_logs_its_skill(self, scripted) -> None:
        """A d10 check names the skill it rolled (the learning box it may tick)."""
        b = battle(duel10())
        scripted(b, (5, 10))
        D10.check(b.table, b.fighters[0], "climbing")
        assert [e["skill"] for e in b.log if e["event"] == "check_rolled"] == ["climbing"]

    def test_armor_piercing_ignores_armor(self, scripted) -> None:
        """Armor-piercing damage is not reduced by armor (d10 as every system)."""
        pick = Weapon("pick", dice.parse("1d6"), armor_piercing=True)
        b = battle(duel10(hero={"weapons": (pick,), "attributes": {"agility": 20}},
                          foe={"defense": 21, "armor": 5, "hp": 30}))
        hero, foe = b.fighters
        scripted(b, (5, 10), (4, 6))  # 25 against 21: margin 4, +0 damage
        b.attack(hero, foe, pick)
        assert foe.hp == 30 - 4


class TestMountBonus:
    """Mounted combat in d10 (rules §6): riding adds floor(mount force / 10), force being strength."""

    @pytest.mark.parametrize(("strength", "bonus"), [(9, 0), (12, 1), (20, 2), (1, 0)])
    def test_a_tenth_of_the_mount_strength(self, strength: int, bonus: int) -> None:
        """The riding bonus is strength // 10."""
        b = battle(duel10(foe={"attributes": {"strength": strength, "physique": 15}}))
        assert system_for("d10").mount_bonus(b.fighters[1]) == bonus


def duel10(hero: dict | None = None, foe: dict | None = None, **kwargs) -> Scenario:
    """Hero (the party) against Monster, under the open-ended d10."""
    return d10(side("heroes", fighter("Hero", **(hero or {})), party=True),
               side("monsters", fighter("Monster", **(foe or {}))), **kwargs)


def chains(depth: int = DEPTH) -> list[tuple[int, tuple[int, ...], Fraction]]:
    """Every finished chain of at most ``depth`` dice, as (value, dice, probability), built
    from rules §1 alone: add sign x die; 10 again, same sign; 1 flips the sign; else stop."""
    out: list[tuple[int, tuple[int, ...], Fraction]] = []

    def walk(prefix: tuple[int, ...], sign: int, total: int) -> None:
        if len(prefix) == depth:
            return
        for die in range(1, 11):
            value, chain = total + sign * die, (*prefix, die)
            if die == 1:
                walk(chain, -sign, value)
            elif die == 10:
                walk(chain, sign, value)
            else:
                out.append((value, chain, Fraction(1, 10 ** len(chain))))

    walk((), 1, 0)
    return out


def exact_values() -> dict[int, Fraction]:
    table: dict[int, Fraction] = defaultdict(Fraction)
    for value, _, p in chains():
        table[value] += p
    return dict(table)


def exact_degrees(score: int, difficulty: int) -> dict[str, Fraction]:
    """Degrees of a d10 check by enumeration (the open tail of mass TAIL left out)."""
    out = dict.fromkeys((CRITICAL_FAILURE, FAILURE, SUCCESS, CRITICAL_SUCCESS), Fraction(0))
    for value, chain, p in chains():
        if score + value >= difficulty:
            out[CRITICAL_SUCCESS if 10 in chain else SUCCESS] += p
        else:
            out[CRITICAL_FAILURE if 1 in chain else FAILURE] += p
    return out


def within(observed: int, n: int, p: float, sigmas: float = 4.0) -> bool:
    """Whether a count is within ``sigmas`` standard errors of n * p."""
    se = math.sqrt(p * (1 - p) / n)
    return abs(observed / n - p) <= sigmas * se + 1e-12


class TestConventionOptions:
    """The d10 Conventions a scenario may set aside: ties (rules §1) and one action (rules §2)."""

    @pytest.mark.parametrize(("face", "ties", "success"), [
        (6, True, True), (6, False, False), (7, False, True), (5, True, False)])
    def test_tie_succeeds_option(self, scripted, face: int, ties: bool, success: bool) -> None:
        """tie_succeeds: false: a total equal to the difficulty fails (the seed's "greater
        succeeds" read strictly); true, the default, lets it succeed; the margin is unchanged."""
        b = battle(duel10(hero={"attributes": {"physique": 4}}, tie_succeeds=ties))
        scripted(b, (face, 10))
        result = b.rules.check(b.table, b.fighters[0], "physique")
        assert (result.success, result.margin) == (success, 4 + face - 10)

    @pytest.mark.parametrize("score", [4, 8])
    def test_tie_fails_probability(self, score: int) -> None:
        """tie_succeeds: false: P(success) = P(score + open d10 > 10), by enumeration."""
        table = exact_values()
        low = float(sum(p for value, p in table.items() if score + value > 10))
        b = battle(duel10(hero={"attributes": {"physique": score}}, tie_succeeds=False),
                   seed=score + 11, log=False)
        hero = b.fighters[0]
        wins = sum(b.rules.check(b.table, hero, "physique").success for _ in range(N_CHECK))
        p = (low + low + float(TAIL)) / 2
        se = math.sqrt(p * (1 - p) / N_CHECK)
        assert low - 4 * se <= wins / N_CHECK <= low + float(TAIL) + 4 * se
        tie = float(table[10 - score])
        assert tie > 8 * se  # a tie is common enough for the two readings to part here

    @pytest.mark.parametrize(("move_and_attack", "attacks"), [(False, 0), (True, 1)])
    def test_move_and_attack_option(self, scripted, move_and_attack: bool, attacks: int) -> None:
        """move_and_attack: true: a fighter 6 m away moves, then attacks in the same turn (as
        d20); by default (one action a turn) the move is its turn."""
        b = battle(duel10(hero={"attributes": {"agility": 5}}, foe={"hp": 40}, distance=6,
                          move_and_attack=move_and_attack))
        rng = scripted(b, *([(9, 10), (1, 8)] if attacks else []))
        b._take_turn(b.fighters[0])
        assert len(events(b.log, "moved")) == 1
        assert len(events(b.log, "attack_resolved")) == attacks and rng.unused == 0
