"""The 2d10 quality system of seed 000, one test (or class) per rule of rules §1 and §3."""

from __future__ import annotations

import math
from collections import Counter

import attrs
import icepool
import pytest

from sim import dice
from sim.model import Scenario, Weapon
from sim.rules import CRITICAL_FAILURE, CRITICAL_SUCCESS, FAILURE, SUCCESS
from sim.rules.quality import Quality
from sim.rules.systems import system_for
from tests.builders import battle, events, fighter, scenario, side

QUALITY = Quality()
N = 20_000
BANDS = (CRITICAL_FAILURE, FAILURE, SUCCESS, CRITICAL_SUCCESS)
DIE_FOR = {0: 10, 1: 8, -1: 12}  # rules §1: 2d10, 2d8 with advantage, 2d12 with disadvantage


class TestCheck:
    """Q = SR - R with R = 2d10: success iff Q >= 0, margin = Q (rules §1, 2d10)."""

    def test_system_is_registered(self) -> None:
        """`rules: 2d10` names the quality system."""
        assert system_for("2d10").name == "2d10"

    def test_quality_zero_succeeds(self, scripted) -> None:
        """2d10 check: Q = 0 (R equal to SR) is a success, with margin 0."""
        b = battle(duel2d10(hero={"characteristics": {"physique": 11}}))
        rng = scripted(b, (5, 10), (6, 10))
        result = QUALITY.check(b.table, b.fighters[0], "physique")
        assert (result.kept, result.target, result.margin) == (11, 11, 0)
        assert (result.success, result.degree) == (True, SUCCESS)
        assert rng.unused == 0

    @pytest.mark.parametrize(
        ("faces", "quality", "success", "degree"),
        [
            ((10, 9), -8, False, CRITICAL_FAILURE),  # Q < -7: disaster
            ((9, 9), -7, False, FAILURE),  # -7 <= Q < 0: failure
            ((6, 6), -1, False, FAILURE),
            ((5, 6), 0, True, SUCCESS),  # 0 <= Q <= 7: success
            ((2, 2), 7, True, SUCCESS),
            ((1, 2), 8, True, CRITICAL_SUCCESS),  # Q > 7: exploit
        ],
    )
    def test_band_boundaries(self, scripted, faces: tuple[int, int], quality: int, success: bool,
                             degree: str) -> None:
        """2d10 degrees: Q < -7 disaster, -7..-1 failure, 0..7 success, Q > 7 exploit."""
        b = battle(duel2d10(hero={"characteristics": {"physique": 11}}))
        scripted(b, *((f, 10) for f in faces))
        result = QUALITY.check(b.table, b.fighters[0], "physique")
        assert (result.dice, result.margin, result.success, result.degree) == (
            faces, quality, success, degree)

    @pytest.mark.parametrize(("advantage", "sides"), [(1, 8), (-1, 12), (0, 10)])
    def test_advantage_changes_the_dice(self, scripted, advantage: int, sides: int) -> None:
        """2d10 check: advantage rolls 2d8, disadvantage 2d12 (the top face shows only on that die)."""
        b = battle(duel2d10(hero={"characteristics": {"physique": 11}}))
        rng = scripted(b, (sides, sides), (sides, sides))
        result = QUALITY.check(b.table, b.fighters[0], "physique", advantage=advantage)
        assert result.dice == (sides, sides)
        assert (result.kept, result.margin) == (2 * sides, 11 - 2 * sides)
        assert b.log[-1]["advantage"] == advantage and rng.unused == 0

    def test_sr_is_characteristic_plus_skill_plus_difficulty(self, scripted) -> None:
        """SR = characteristic + skill + difficulty, the percent modifier scaled by p / 5."""
        b = battle(duel2d10(hero={"characteristics": {"physique": 6}, "skills": {"climbing": 3}}))
        scripted(b, (4, 10), (3, 10))
        result = QUALITY.check(b.table, b.fighters[0], "climbing", -10)  # -10% is laborious, -2
        assert (result.target, result.modifier, result.margin) == (6 + 3 - 2, -2, 0)
        assert result.success

    def test_characteristic_alone(self, scripted) -> None:
        """A check on a characteristic uses it alone as SR (no skill)."""
        b = battle(duel2d10(hero={"characteristics": {"physique": 6, "mental": 9}}))
        scripted(b, (1, 10), (1, 10))
        assert QUALITY.check(b.table, b.fighters[0], "mental").target == 9

    def test_scale_is_p_over_5_toward_zero(self) -> None:
        """2d10: scale(p) = p / 5, rounded toward zero."""
        percents = (-50, -30, -12, -10, -9, -4, 0, 4, 9, 10, 12, 30)
        assert [QUALITY.scale(p) for p in percents] == [-10, -6, -2, -2, -1, 0, 0, 0, 1, 2, 2, 6]

    @pytest.mark.parametrize(
        ("percent", "step"),
        [(-50, -10), (-40, -8), (-30, -6), (-20, -4), (-10, -2), (0, 0), (10, 2), (20, 4)],
    )
    def test_difficulty_ladder(self, scripted, percent: int, step: int) -> None:
        """Difficulty ladder (impossible -10 .. obvious +4): a check at the seeds' matching
        percent moves SR by that ladder step."""
        b = battle(duel2d10(hero={"characteristics": {"physique": 15}}))
        scripted(b, (1, 10), (1, 10))
        result = QUALITY.check(b.table, b.fighters[0], "physique", percent)
        assert (result.modifier, result.target, result.margin) == (step, 15 + step, 13 + step)

    def test_check_rolled_event(self, scripted) -> None:
        """check_rolled (docs/reference/log.md, roll-under): total = R, target = SR, margin = Q."""
        b = battle(duel2d10(hero={"characteristics": {"physique": 7}, "skills": {"riding": 2}}))
        scripted(b, (3, 10), (8, 10))
        QUALITY.check(b.table, b.fighters[0], "riding", 20)
        event = b.log[-1]
        expected = {"event": "check_rolled", "actor": "Hero", "purpose": "riding",
                    "system": "2d10", "dice": [3, 8], "modifier": 4, "total": 11,
                    "target": 13, "success": True, "degree": SUCCESS, "margin": 2}
        assert {k: event[k] for k in expected} == expected


class TestCheckDistribution:
    """Exact band probabilities of 2d10, 2d8 and 2d12 against sampled checks (rules §1)."""

    @pytest.mark.parametrize("advantage", [0, 1, -1])
    @pytest.mark.parametrize("sr", [5, 11, 15])
    def test_band_probabilities(self, sr: int, advantage: int) -> None:
        """2d10 check: P(disaster), P(failure), P(success), P(exploit) match icepool exactly."""
        exact = exact_bands(sr, DIE_FOR[advantage])
        assert sum(exact.values()) == pytest.approx(1.0)
        b = battle(duel2d10(hero={"characteristics": {"physique": sr}}),
                   seed=100 * sr + advantage, log=False)
        hero = b.fighters[0]
        degrees = Counter(
            QUALITY.check(b.table, hero, "physique", advantage=advantage).degree for _ in range(N))
        for degree in BANDS:
            assert within(degrees[degree], N, exact[degree]), (degree, degrees[degree] / N)

    def test_enumeration_agrees_with_icepool(self) -> None:
        """The exact bands by brute enumeration of 2d10 equal icepool's (SR 11)."""
        faces = [(a, b) for a in range(1, 11) for b in range(1, 11)]
        counts = Counter(band_of(11 - a - b) for a, b in faces)
        assert {k: counts[k] / 100 for k in BANDS} == pytest.approx(exact_bands(11, 10))
        assert counts[CRITICAL_FAILURE] == 1 + 2  # R = 20 (10,10) and R = 19 (10,9), (9,10)


class TestAttack:
    """Attack SR = combat + weapon skill - target defense; hit iff Q >= 0 (rules §3, 2d10)."""

    def test_attack_sr(self, scripted) -> None:
        """2d10 attack: SR = combat + weapon skill - target defense; Q = 0 hits."""
        b = battle(duel2d10(hero={"characteristics": {"combat": 7}, "skills": {"sword": 3}},
                            foe={"defense": 4, "hp": 30}))
        hero, foe = b.fighters
        rng = scripted(b, (2, 10), (4, 10), (5, 8))
        b.attack(hero, foe, hero.spec.weapons[0])
        check = events(b.log, "check_rolled")[0]
        assert (check["purpose"], check["target"], check["modifier"], check["margin"]) == (
            "attack", 6, -4, 0)
        assert events(b.log, "attack_resolved")[0]["hit"] is True
        assert events(b.log, "damage_dealt")[0]["amount"] == 5 and rng.unused == 0

    def test_attack_misses_below_zero(self, scripted) -> None:
        """2d10 attack: Q = -1 misses and rolls no damage."""
        b = battle(duel2d10(hero={"characteristics": {"combat": 7}, "skills": {"sword": 3}},
                            foe={"defense": 4}))
        hero, foe = b.fighters
        rng = scripted(b, (3, 10), (4, 10))
        b.attack(hero, foe, hero.spec.weapons[0])
        assert events(b.log, "attack_resolved")[0]["hit"] is False
        assert events(b.log, "damage_dealt") == [] and rng.unused == 0

    def test_weapon_skill_named_by_weapon(self, scripted) -> None:
        """2d10 attack: the weapon's `skill` names the skill added to combat."""
        blade = Weapon(name="longsword", damage=dice.parse("1d8"), skill="blades")
        b = battle(duel2d10(hero={"characteristics": {"combat": 5},
                                  "skills": {"blades": 4, "longsword": 9}, "weapons": (blade,)}))
        hero, foe = b.fighters
        scripted(b, (10, 10), (10, 10))
        b.attack(hero, foe, blade)
        assert events(b.log, "check_rolled")[0]["target"] == 9

    def test_exploit_adds_a_weapon_die(self, scripted) -> None:
        """2d10 damage: an exploit (Q > 7) adds one more weapon die."""
        b = battle(duel2d10(hero={"characteristics": {"combat": 12}, "skills": {"sword": 8}},
                            foe={"hp": 40}))
        hero, foe = b.fighters
        rng = scripted(b, (1, 10), (1, 10), (5, 8), (7, 8))
        b.attack(hero, foe, hero.spec.weapons[0])
        assert events(b.log, "check_rolled")[0]["degree"] == CRITICAL_SUCCESS
        damage = events(b.log, "damage_dealt")[0]
        assert (damage["amount"], damage["dice"]) == (12, [5, 7]) and rng.unused == 0

    @staticmethod
    def _hits(scripted, damage: str, *faces: tuple[int, int], attacks: int = 1) -> list[dict]:
        """The damage events of ``attacks`` attacks with a weapon of ``damage`` by a combat-20
        hero (1, 1 on the 2d10 is an exploit), all of ``faces`` used."""
        weapon = Weapon(name="weapon", damage=dice.parse(damage))
        b = battle(duel2d10(hero={"characteristics": {"combat": 20}, "weapons": (weapon,)},
                            foe={"hp": 40}))
        hero, foe = b.fighters
        rng = scripted(b, *faces)
        for _ in range(attacks):
            b.attack(hero, foe, weapon)
        assert rng.unused == 0
        return events(b.log, "damage_dealt")

    def test_exploit_die_matches_the_weapon(self, scripted) -> None:
        """2d10 damage: with 2d6+1 an exploit adds one more d6 (not the bonus again)."""
        damage = self._hits(scripted, "2d6+1", (1, 10), (1, 10), (3, 6), (4, 6), (6, 6))[0]
        assert (damage["amount"], damage["dice"]) == (3 + 4 + 1 + 6, [3, 4, 6])

    def test_exploit_constant_damage_adds_the_constant_again(self, scripted) -> None:
        """2d10 damage (rules §3): an exploit with constant damage (``damage: 4``) adds that
        constant again; a plain hit deals it once."""
        hits = self._hits(scripted, "4", (1, 10), (1, 10), (6, 10), (7, 10), attacks=2)  # Q 7: a hit
        assert [d["amount"] for d in hits] == [8, 4]

    def test_exploit_adds_the_largest_weapon_die(self, scripted) -> None:
        """2d10 damage (rules §3): an exploit adds the largest die of the damage, 1d8 for 1d4+1d8."""
        damage = self._hits(scripted, "1d4+1d8", (1, 10), (1, 10), (2, 4), (3, 8), (7, 8))[0]
        assert (damage["amount"], damage["dice"]) == (12, [2, 3, 7])

    def test_plain_hit_rolls_weapon_dice_only(self, scripted) -> None:
        """2d10 damage: a plain success (0 <= Q <= 7) rolls the weapon dice, no extra die."""
        b = battle(duel2d10(hero={"characteristics": {"combat": 12}}, foe={"hp": 40}))
        hero, foe = b.fighters
        rng = scripted(b, (3, 10), (2, 10), (6, 8))  # Q = 7
        b.attack(hero, foe, hero.spec.weapons[0])
        assert events(b.log, "damage_dealt")[0]["amount"] == 6 and rng.unused == 0

    def test_disaster_costs_the_next_turn(self, scripted) -> None:
        """2d10 attack: a disaster (Q < -7) misses and costs the attacker its next turn."""
        b = battle(duel2d10(hero={"characteristics": {"combat": 2}}, foe={"hp": 40}))
        hero, _foe = b.fighters
        rng = scripted(b, (5, 10), (5, 10))  # SR 2, R 10: Q = -8
        b._take_turn(hero)
        assert events(b.log, "check_rolled")[0]["degree"] == CRITICAL_FAILURE
        assert events(b.log, "attack_resolved")[0]["hit"] is False
        assert rng.unused == 0
        b._take_turn(hero)  # lost: no die is rolled
        assert events(b.log, "turn_skipped") == [
            {"event": "turn_skipped", "round": 0, "t": 0.0, "actor": "Hero"}]
        assert len(events(b.log, "check_rolled")) == 1
        scripted(b, (1, 10), (1, 10), (3, 8))  # the turn after acts again (and hits)
        b._take_turn(hero)
        assert len(events(b.log, "check_rolled")) == 2

    def test_every_disaster_costs_a_turn(self, scripted) -> None:
        """2d10 attack: a second disaster, after the turn lost to the first, costs the next turn
        again: disaster, lost turn, disaster, lost turn."""
        b = battle(duel2d10(hero={"characteristics": {"combat": 2}}, foe={"hp": 40}))
        hero = b.fighters[0]
        for _ in range(2):
            rng = scripted(b, (5, 10), (5, 10))  # SR 2, R 10: Q = -8
            b._take_turn(hero)
            b._take_turn(hero)  # lost: no die is rolled
            assert rng.unused == 0
        assert len(events(b.log, "turn_skipped")) == 2
        assert [e["degree"] for e in events(b.log, "check_rolled")] == [CRITICAL_FAILURE] * 2

    def test_failure_costs_no_turn(self, scripted) -> None:
        """2d10 attack: a plain failure (Q = -7) costs nothing more than the miss."""
        b = battle(duel2d10(hero={"characteristics": {"combat": 2}}))
        hero = b.fighters[0]
        scripted(b, (5, 10), (4, 10))
        b._take_turn(hero)
        assert hero.skip_turns == 0

    def test_one_action_per_turn(self, scripted) -> None:
        """2d10: one action per turn, so a fighter in reach attacks once."""
        b = battle(duel2d10(hero={"characteristics": {"combat": 12}}))
        rng = scripted(b, (5, 10), (5, 10), (1, 8))
        b._take_turn(b.fighters[0])
        assert len(events(b.log, "attack_resolved")) == 1 and rng.unused == 0

    @pytest.mark.parametrize(("move_and_attack", "attacks"), [(False, 0), (True, 1)])
    def test_move_and_attack_option(self, scripted, move_and_attack: bool, attacks: int) -> None:
        """move_and_attack: true: a fighter 6 m away moves, then attacks in the same turn (as
        d20, the reading rules §2's Convention set aside); by default the move is its turn."""
        b = battle(duel2d10(hero={"characteristics": {"combat": 12}}, foe={"hp": 40},
                            distance=6, move_and_attack=move_and_attack))
        rng = scripted(b, *([(5, 10), (5, 10), (1, 8)] if attacks else []))
        b._take_turn(b.fighters[0])
        assert len(events(b.log, "moved")) == 1
        assert len(events(b.log, "attack_resolved")) == attacks and rng.unused == 0

    def test_move_and_attack_never_attacks_then_moves(self, scripted) -> None:
        """move_and_attack: true: one move and one attack at most, never two attacks."""
        b = battle(duel2d10(hero={"characteristics": {"combat": 12}}, foe={"hp": 40},
                            move_and_attack=True))
        rng = scripted(b, (5, 10), (5, 10), (1, 8))
        b._take_turn(b.fighters[0])
        assert len(events(b.log, "attack_resolved")) == 1 and rng.unused == 0


class TestArmor:
    """Armor absorbs `armor` points of damage (rules §3, 2d10)."""

    @pytest.mark.parametrize(("face", "armor", "amount"), [(6, 0, 6), (6, 2, 4), (3, 3, 0), (2, 5, 0)])
    def test_armor_absorbs(self, scripted, face: int, armor: int, amount: int) -> None:
        """2d10 damage: armor absorbs its points, never below 0."""
        b = battle(duel2d10(hero={"characteristics": {"combat": 12}}, foe={"armor": armor, "hp": 40}))
        hero, foe = b.fighters
        scripted(b, (5, 10), (5, 10), (face, 8))
        b.attack(hero, foe, hero.spec.weapons[0])
        assert events(b.log, "damage_dealt")[0]["amount"] == amount
        assert foe.hp == 40 - amount

    def test_absorb_helper(self) -> None:
        """2d10: absorb() takes armor off any damage (an explosion), never below 0."""
        b = battle(duel2d10(foe={"armor": 3}))
        foe = b.fighters[1]
        assert [QUALITY.absorb(foe, k) for k in (0, 2, 3, 4, 10)] == [0, 0, 0, 1, 7]

    def test_armor_piercing_ignores_armor(self, scripted) -> None:
        """Armor-piercing damage is not absorbed."""
        pick = Weapon(name="pick", damage=dice.parse("1d8"), armor_piercing=True)
        b = battle(duel2d10(hero={"characteristics": {"combat": 12}, "weapons": (pick,)},
                            foe={"armor": 5, "hp": 40}))
        hero, foe = b.fighters
        scripted(b, (5, 10), (5, 10), (4, 8))
        b.attack(hero, foe, pick)
        assert events(b.log, "damage_dealt")[0]["amount"] == 4


# -- helpers ------------------------------------------------------------------------------------


def quality(*sides, **kwargs) -> Scenario:
    """A 2d10 scenario built in code, morale off unless asked (morale has its own tests)."""
    kwargs.setdefault("morale_on", False)
    return attrs.evolve(scenario(*sides, **kwargs), rules="2d10")


class TestScores:
    """2d10 SR (rules §1): a characteristic alone, or a skill on physique."""

    @pytest.mark.parametrize(("what", "sr"), [
        ("physique", 8), ("force", 8), ("mental", 5), ("social", 5), ("combat", 5),
        ("climbing", 8 + 3), ("swimming", 8)])
    def test_score_of_each_check(self, scripted, what: str, sr: int) -> None:
        """A characteristic (5 when left out; force reads physique) or physique + skill."""
        b = battle(duel2d10(hero={"characteristics": {"physique": 8}, "skills": {"climbing": 3}},
                            morale_on=False))
        scripted(b, (1, 10), (1, 10))
        result = QUALITY.check(b.table, b.fighters[0], what)
        assert (result.target, result.total, result.margin) == (sr, 2, sr - 2)
        event = b.log[-1]
        assert (event["score"], event["skill"], event["target"]) == (sr, what, sr)


class TestMountBonus:
    """Mounted combat in 2d10 (rules §6): riding adds floor(mount force / 10)."""

    @pytest.mark.parametrize(("characteristics", "bonus"), [
        ({"force": 9, "physique": 14}, 0), ({"force": 12, "physique": 4}, 1), ({"physique": 13}, 1), ({}, 0),
        ({"physique": 10}, 1), ({"force": 21, "physique": 4}, 2)])
    def test_a_tenth_of_the_mount_force_else_physique(self, characteristics: dict, bonus: int) -> None:
        """The riding bonus is force // 10, or physique // 10 for a mount without force."""
        b = battle(duel2d10(foe={"characteristics": characteristics}))
        assert QUALITY.mount_bonus(b.fighters[1]) == bonus


def duel2d10(hero: dict | None = None, foe: dict | None = None, **kwargs) -> Scenario:
    """Hero (the party) against Monster, under 2d10."""
    return quality(side("heroes", fighter("Hero", **(hero or {})), party=True),
                   side("monsters", fighter("Monster", **(foe or {}))), **kwargs)


def band_of(q: int) -> str:
    """rules §1 2d10 degrees, stated independently of sim.rules.quality."""
    if q < -7:
        return CRITICAL_FAILURE
    if q < 0:
        return FAILURE
    return SUCCESS if q <= 7 else CRITICAL_SUCCESS


def exact_bands(sr: int, sides: int) -> dict[str, float]:
    """Exact band probabilities of Q = SR - 2dN, from icepool."""
    bands = (sr - 2 @ icepool.d(sides)).map(band_of)
    return {degree: float(bands.probability(degree)) for degree in BANDS}


def within(observed: int, n: int, p: float, sigmas: float = 4.0) -> bool:
    """Whether a count is within ``sigmas`` standard errors of n * p (exact 0 or 1 must match)."""
    se = math.sqrt(p * (1 - p) / n)
    return abs(observed / n - p) <= sigmas * se + 1e-12
