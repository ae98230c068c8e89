"""The d100 system of seed 002, one test (or class) per rule of rules §1, §2, §3, §5 and §6 (mounts)."""

from __future__ import annotations

import math
from collections import Counter

import attrs
import icepool
import pytest

from sim import dice
from sim.engine import Battle
from sim.engine.state import Fighter
from sim.model import Scenario, Weapon
from sim.rules import CRITICAL_FAILURE, CRITICAL_SUCCESS, FAILURE, SUCCESS
from sim.rules.d100 import D100, characteristic
from sim.rules.systems import forget, system_for
from tests.builders import battle, d100, events, fighter, mounted, side, turn

D100_RULES = D100()
N = 20_000
GREATSWORD = Weapon(name="greatsword", damage=dice.parse("2d6"), hands=2)
BOW = Weapon(name="bow", damage=dice.parse("1d6"), range=30, hands=2)
CLAWS = Weapon(name="claws", damage=dice.parse("1d4"))


class TestCheck:
    """Roll-under d100 checks: target, success, margin and degree (rules §1, d100)."""

    def test_system_is_registered(self) -> None:
        """`rules: d100` names this system."""
        assert system_for("d100").name == "d100"

    @pytest.mark.parametrize(
        ("roll", "success", "degree"),
        [(40, True, SUCCESS), (41, False, FAILURE), (6, True, SUCCESS), (95, False, FAILURE)],
    )
    def test_success_iff_roll_at_most_target(self, scripted, roll: int, success: bool,
                                             degree: str) -> None:
        """d100 check: success iff roll <= target (a roll equal to the target succeeds)."""
        b = battle(duel100(hero={"characteristics": {"physique": 40}}))
        scripted(b, (roll, 100))
        result = D100_RULES.check(b.table, b.fighters[0], "physique")
        assert (result.kept, result.target, result.success, result.degree) == (
            roll, 40, success, degree)

    def test_margin_is_target_minus_roll(self, scripted) -> None:
        """d100 check: margin = target - roll, positive on a success, negative on a failure."""
        b = battle(duel100(hero={"characteristics": {"physique": 55}}))
        scripted(b, (30, 100), (70, 100))
        hero = b.fighters[0]
        assert D100_RULES.check(b.table, hero, "physique").margin == 25
        assert D100_RULES.check(b.table, hero, "physique").margin == -15

    @pytest.mark.parametrize("roll", [1, 3, 5])
    @pytest.mark.parametrize(("score", "modifier"), [(0, 0), (10, -30), (50, 0)])
    def test_low_rolls_always_critical_success(self, scripted, roll: int, score: int,
                                               modifier: int) -> None:
        """d100 check: 01-05 is always a critical success, even against a target of 0 or less."""
        b = battle(duel100(hero={"characteristics": {"physique": score}}))
        scripted(b, (roll, 100))
        result = D100_RULES.check(b.table, b.fighters[0], "physique", modifier)
        assert (result.success, result.degree) == (True, CRITICAL_SUCCESS)
        assert result.margin == score + modifier - roll

    @pytest.mark.parametrize("roll", [96, 98, 100])
    @pytest.mark.parametrize("score", [50, 100, 150])
    def test_high_rolls_always_critical_failure(self, scripted, roll: int, score: int) -> None:
        """d100 check: 96-100 is always a critical failure, even against a target of 150."""
        b = battle(duel100(hero={"characteristics": {"physique": score}}))
        scripted(b, (roll, 100))
        result = D100_RULES.check(b.table, b.fighters[0], "physique")
        assert (result.success, result.degree) == (False, CRITICAL_FAILURE)

    def test_just_outside_critical_ranges(self, scripted) -> None:
        """d100 check: 6 against a target of 0 is a plain failure, 95 against 150 a plain success."""
        b = battle(duel100(hero={"characteristics": {"physique": 0, "mental": 150}}))
        scripted(b, (6, 100), (95, 100))
        hero = b.fighters[0]
        assert D100_RULES.check(b.table, hero, "physique").degree == FAILURE
        assert D100_RULES.check(b.table, hero, "mental").degree == SUCCESS

    def test_scale_is_identity(self) -> None:
        """d100 check: scale(p) = p, the seeds' percent modifiers are used unchanged."""
        assert [D100_RULES.scale(p) for p in (-30, -20, -10, 0, 10, 20, 30, -7)] == [
            -30, -20, -10, 0, 10, 20, 30, -7]

    @pytest.mark.parametrize("modifier", [-30, -20, -10, 10, 20, 30])
    def test_circumstance_modifier_moves_target(self, scripted, modifier: int) -> None:
        """Circumstances (very hard -30 .. very easy +30) are added to the score as percent."""
        b = battle(duel100(hero={"characteristics": {"mental": 50}}))
        scripted(b, (50, 100))
        result = D100_RULES.check(b.table, b.fighters[0], "mental", modifier)
        assert (result.modifier, result.target) == (modifier, 50 + modifier)
        assert result.success is (modifier >= 0)

    @pytest.mark.parametrize(
        ("what", "score"),
        [
            ("climbing", 70 - 20),  # a physical skill falls back on physique
            ("melee", 70 - 20),
            ("magic", 60 - 20),  # mental
            ("persuasion", 40 - 20),  # social
            ("physique", 70),  # a characteristic is rolled as is
            ("mental", 60),
            ("social", 40),
        ],
    )
    def test_unskilled_is_characteristic_minus_20(self, scripted, what: str, score: int) -> None:
        """No skill: roll under the characteristic (physique, mental or social) minus 20."""
        b = battle(duel100(hero={"characteristics": {"physique": 70, "mental": 60, "social": 40}}))
        scripted(b, (1, 100))
        result = D100_RULES.check(b.table, b.fighters[0], what)
        assert result.target == score
        assert b.log[-1]["score"] == score

    def test_skill_replaces_characteristic(self, scripted) -> None:
        """A skill the fighter has is rolled under directly (no -20)."""
        b = battle(duel100(hero={"characteristics": {"physique": 70}, "skills": {"climbing": 35}}))
        scripted(b, (1, 100))
        assert D100_RULES.check(b.table, b.fighters[0], "climbing").target == 35

    @pytest.mark.parametrize(
        ("what", "penalty"),
        [("physique", 15), ("force", 15), ("melee", 15), ("climbing", 15), ("defense", 15),
         ("mental", 0), ("magic", 0), ("persuasion", 0), ("social", 0)],
    )
    def test_fatigue_on_physical_checks_only(self, scripted, what: str, penalty: int) -> None:
        """Fatigue: each point is -5 on physical checks, nothing on mental or social ones."""
        b = battle(duel100())
        hero = b.fighters[0]
        scripted(b, (50, 100))
        base = D100_RULES.check(b.table, hero, what).target
        hero.fatigue = 3
        scripted(b, (50, 100))
        result = D100_RULES.check(b.table, hero, what)
        assert (result.target, result.modifier) == (base - penalty, -penalty)

    @pytest.mark.parametrize("what", ["physique", "magic", "persuasion", "mental", "melee"])
    def test_weakened_costs_20_on_every_check(self, scripted, what: str) -> None:
        """Serious wound aftermath: `weakened` is -20 on every check, physical or not."""
        b = battle(duel100())
        hero = b.fighters[0]
        scripted(b, (50, 100))
        base = D100_RULES.check(b.table, hero, what).target
        hero.weakened = True
        scripted(b, (50, 100))
        assert D100_RULES.check(b.table, hero, what).target == base - 20

    def test_fatigue_and_weakened_stack(self, scripted) -> None:
        """Fatigue and weakened add up on a physical check: 2 points and weakened is -30."""
        b = battle(duel100(hero={"characteristics": {"physique": 60}}))
        hero = b.fighters[0]
        hero.fatigue, hero.weakened = 2, True
        scripted(b, (50, 100))
        result = D100_RULES.check(b.table, hero, "physique", -10)
        assert (result.modifier, result.target) == (-40, 20)

    def test_advantage_keeps_lower_roll(self, scripted) -> None:
        """Advantage: roll twice, keep the better (lower) roll; both dice are logged in order."""
        b = battle(duel100(hero={"characteristics": {"physique": 50}}))
        scripted(b, (70, 100), (20, 100))
        result = D100_RULES.check(b.table, b.fighters[0], "physique", advantage=1)
        assert (result.dice, result.kept, result.total, result.success) == ((70, 20), 20, 20, True)
        assert (b.log[-1]["dice"], b.log[-1]["total"]) == ([70, 20], 20)

    def test_disadvantage_keeps_higher_roll(self, scripted) -> None:
        """Disadvantage: roll twice, keep the worse (higher) roll."""
        b = battle(duel100(hero={"characteristics": {"physique": 50}}))
        scripted(b, (20, 100), (70, 100))
        result = D100_RULES.check(b.table, b.fighters[0], "physique", advantage=-1)
        assert (result.dice, result.kept, result.success) == ((20, 70), 70, False)

    def test_check_rolled_event(self, scripted) -> None:
        """check_rolled (docs/reference/log.md): system d100, total = the roll, target = score + modifier."""
        b = battle(duel100(hero={"skills": {"riding": 45}}))
        b.fighters[0].fatigue = 1
        scripted(b, (37, 100))
        result = D100_RULES.check(b.table, b.fighters[0], "riding", 10)
        event = b.log[-1]
        assert event["event"] == "check_rolled"
        expected = {"actor": "Hero", "purpose": "riding", "system": "d100", "dice": [37],
                    "modifier": 5, "total": 37, "target": 50, "success": True,
                    "degree": SUCCESS, "margin": 13}
        assert {k: event[k] for k in expected} == expected
        assert event["target"] == event["score"] + event["modifier"]
        assert (result.total, result.target, result.margin) == (37, 50, 13)


class TestCheckDistribution:
    """Exact probabilities of the d100 check, criticals included (rules §1, d100)."""

    @pytest.mark.parametrize("target", [0, 3, 40, 97, 120])
    def test_success_probability(self, target: int) -> None:
        """d100 check: P(success) = P(roll <= 5) + P(6 <= roll <= min(target, 95)), by enumeration."""
        exact = sum(1 for r in range(1, 101) if succeeds(r, target)) / 100
        b = battle(duel100(hero={"characteristics": {"physique": target}}), seed=target + 1,
                   log=False)
        hero = b.fighters[0]
        successes = sum(D100_RULES.check(b.table, hero, "physique").success for _ in range(N))
        assert within(successes, N, exact)

    @pytest.mark.parametrize("target", [0, 50, 150])
    def test_critical_rates_do_not_depend_on_target(self, target: int) -> None:
        """d100 check: critical success and critical failure each come 5% of the time, any target."""
        b = battle(duel100(hero={"characteristics": {"physique": target}}), seed=7, log=False)
        hero = b.fighters[0]
        degrees = Counter(D100_RULES.check(b.table, hero, "physique").degree for _ in range(N))
        assert within(degrees[CRITICAL_SUCCESS], N, 0.05)
        assert within(degrees[CRITICAL_FAILURE], N, 0.05)

    @pytest.mark.parametrize(("advantage", "die"),
                             [(1, icepool.d100.lowest(2, 1)), (-1, icepool.d100.highest(2, 1))])
    def test_advantage_probability(self, advantage: int, die: icepool.Die) -> None:
        """Advantage keeps the lower of 2d100 and disadvantage the higher (exact odds from icepool)."""
        target = 40
        exact = sum(float(die.probability(r)) for r in range(1, 101) if succeeds(r, target))
        b = battle(duel100(hero={"characteristics": {"physique": target}}), seed=3, log=False)
        hero = b.fighters[0]
        successes = sum(
            D100_RULES.check(b.table, hero, "physique", advantage=advantage).success for _ in range(N))
        assert within(successes, N, exact)


class TestActionEconomy:
    """One action or two half-actions per turn (rules §2, d100 action economy)."""

    def test_one_handed_in_reach_attacks_twice(self, scripted) -> None:
        """Action economy: a one-handed attack is a half-action, so a fighter in reach attacks twice."""
        b = battle(duel100(hero={"skills": {"melee": 50}}))
        hero = b.fighters[0]
        rng = scripted(b, (90, 100), (90, 100))
        b._take_turn(hero)
        assert [e["actor"] for e in events(b.log, "attack_resolved")] == ["Hero", "Hero"]
        assert rng.unused == 0

    def test_two_handed_is_a_full_action(self, scripted) -> None:
        """Action economy: an attack with a two-handed weapon is a full action (one attack)."""
        b = battle(duel100(hero={"weapons": (GREATSWORD,)}))
        rng = scripted(b, (90, 100))
        b._take_turn(b.fighters[0])
        assert len(events(b.log, "attack_resolved")) == 1 and rng.unused == 0

    @pytest.mark.parametrize("hands", [1, 2])
    def test_ranged_not_thrown_is_a_bow_whatever_its_hands(self, scripted, hands: int) -> None:
        """rules §2: a weapon with a range that is not thrown is a bow or crossbow, a full
        action with its fatigue, whatever ``hands`` says: ``{shortbow, range: 30}`` shoots
        once a turn and tires."""
        shortbow = Weapon(name="shortbow", damage=dice.parse("1d6"), range=30, hands=hands)
        b = battle(duel100(hero={"weapons": (shortbow,)}, distance=20))
        hero = b.fighters[0]
        rng = scripted(b, (90, 100))
        b._take_turn(hero)
        assert [e["weapon"] for e in events(b.log, "attack_resolved")] == ["shortbow"]
        assert rng.unused == 0 and hero.fatigue == 1
        assert [e["reason"] for e in events(b.log, "fatigue_gained")] == ["bow"]

    def test_bow_is_a_full_action(self, scripted) -> None:
        """Action economy: shooting a bow (a two-handed ranged weapon) is a full action; a
        one-handed thrown weapon is a half-action, like any one-handed attack."""
        b = battle(duel100(hero={"weapons": (BOW,)}, distance=20))
        rng = scripted(b, (90, 100))
        b._take_turn(b.fighters[0])
        assert [e["weapon"] for e in events(b.log, "attack_resolved")] == ["bow"]
        assert rng.unused == 0
        darts = Weapon(name="darts", damage=dice.parse("1d3"), range=10, thrown=True)
        b = battle(duel100(hero={"weapons": (darts,)}, distance=5))
        rng = scripted(b, (90, 100), (90, 100))
        b._take_turn(b.fighters[0])
        assert [e["weapon"] for e in events(b.log, "attack_resolved")] == ["darts", "darts"]

    def test_thrown_one_handed_weapons_are_half_actions(self, scripted) -> None:
        """Action economy (rules §2): a one-handed thrown weapon (the fire-raiser's firepot)
        is a half-action: two throws a turn from 10 m, like two one-handed blows."""
        firepot = Weapon(name="firepot", damage=dice.parse("1d4"), range=10, thrown=True, fire=True,
                         area=True)
        assert D100_RULES.economy.cost_of(firepot) == 1
        b = battle(duel100(hero={"weapons": (firepot,)}, distance=10))
        rng = scripted(b, (90, 100), (90, 100))
        b._take_turn(b.fighters[0])
        assert [e["weapon"] for e in events(b.log, "attack_resolved")] == ["firepot", "firepot"]
        assert rng.unused == 0

    def test_spell_is_a_full_action(self, scripted) -> None:
        """Action economy: casting a spell is a full action (one cast a turn)."""
        bolt = Weapon(name="bolt", damage=dice.parse("1d6"), skill="magic", psy=1)
        b = battle(duel100(hero={"weapons": (bolt,), "psy": 10}))
        rng = scripted(b, (90, 100))
        b._take_turn(b.fighters[0])
        assert len(events(b.log, "attack_resolved")) == 1 and rng.unused == 0
        assert len(events(b.log, "resource_spent")) == 1

    def test_attacks_per_turn_caps(self, scripted) -> None:
        """`attacks_per_turn: 1` caps a one-handed fighter at one attack a turn."""
        b = battle(duel100(attacks_per_turn=1))
        rng = scripted(b, (90, 100))
        b._take_turn(b.fighters[0])
        assert len(events(b.log, "attack_resolved")) == 1 and rng.unused == 0

    def test_move_then_attack(self, scripted) -> None:
        """Action economy: a move (8 m, a half-action) then a one-handed attack (the other half)."""
        b = battle(duel100(distance=8))
        rng = scripted(b, (90, 100))
        b._take_turn(b.fighters[0])
        assert [e["event"] for e in b.log if e["event"] in ("moved", "attack_resolved")] == [
            "moved", "attack_resolved"]
        moved = events(b.log, "moved")[0]
        assert (moved["x_before"], moved["x_after"], "run" in moved) == (0.0, 8.0, False)
        assert rng.unused == 0

    @pytest.mark.parametrize("distance", [9, 10])
    def test_no_run_when_one_move_reaches_melee(self, scripted, distance: int) -> None:
        """Distance: melee needs a gap of at most 2 m, so from 10 m one move (8 m, a half-action)
        brings the target in reach and the other half-action attacks; running would waste it."""
        b = battle(duel100(distance=distance))
        rng = scripted(b, (90, 100))
        b._take_turn(b.fighters[0])
        moved = events(b.log, "moved")
        assert len(moved) == 1 and "run" not in moved[0] and moved[0]["x_after"] == 8.0
        assert len(events(b.log, "attack_resolved")) == 1 and rng.unused == 0

    def test_two_handed_runs_when_one_move_leaves_no_half_action_to_strike(self, scripted) -> None:
        """Distance: a two-handed blow is a full action, so after a move it could not strike:
        from 10 m it runs to contact instead."""
        b = battle(duel100(hero={"weapons": (GREATSWORD,)}, distance=10))
        rng = scripted(b)
        b._take_turn(b.fighters[0])
        moved = events(b.log, "moved")
        assert len(moved) == 1 and moved[0]["run"] is True and moved[0]["x_after"] == 10.0
        assert events(b.log, "attack_resolved") == [] and rng.unused == 0

    @pytest.mark.parametrize(("distance", "reached"), [(12, 12.0), (30, 16.0)])
    def test_run_when_one_move_falls_short(self, scripted, distance: int, reached: float) -> None:
        """Running is a full action covering 2 x Movement (16 m), taken when one move does not reach."""
        b = battle(duel100(distance=distance))
        rng = scripted(b)
        b._take_turn(b.fighters[0])
        moved = events(b.log, "moved")
        assert len(moved) == 1 and moved[0]["run"] is True and moved[0]["x_after"] == reached
        assert events(b.log, "attack_resolved") == [] and rng.unused == 0


class TestDistance:
    """Positions on a line, melee reach, ranged weapons, riders (rules §2, distance)."""

    def test_melee_closes_to_reach(self, scripted) -> None:
        """Distance: a melee fighter moves toward its target until in reach (2 m), then attacks."""
        b = battle(duel100(distance=20))
        hero, foe = b.fighters
        scripted(b)
        b._take_turn(hero)  # runs 16 m
        assert hero.x == 16.0 and events(b.log, "attack_resolved") == []
        scripted(b, (90, 100))
        b._take_turn(hero)  # moves the last 4 m and attacks
        assert abs(foe.x - hero.x) <= 2
        assert len(events(b.log, "attack_resolved")) == 1

    def test_archer_shoots_without_moving(self, scripted) -> None:
        """Distance: a ranged fighter within range stays where it is and shoots."""
        b = battle(duel100(hero={"weapons": (BOW,)}, distance=25))
        scripted(b, (90, 100))
        b._take_turn(b.fighters[0])
        assert events(b.log, "moved") == [] and b.fighters[0].x == 0.0
        assert len(events(b.log, "attack_resolved")) == 1

    def test_rider_moves_at_mount_movement(self, scripted) -> None:
        """Distance: a rider uses its mount's Movement (16 m, no need to run) and the mount follows."""
        b = battle(mounted(distance=14))
        knight, horse, _ = b.fighters
        rng = scripted(b, (60, 100), (90, 100))  # riding (failed), then the attack (missed)
        b._take_turn(knight)
        moved = events(b.log, "moved")
        assert len(moved) == 1 and "run" not in moved[0] and moved[0]["x_after"] == 14.0
        assert horse.x == 14.0 and rng.unused == 0


class TestAttackAndDefense:
    """Attack under the weapon skill, one defense roll, criticals and fumbles (rules §3, d100)."""

    def test_hit_cancelled_by_defense(self, scripted) -> None:
        """Attack: a hit is cancelled by a successful defense roll under the target's defense skill."""
        b = battle(duel100(hero={"skills": {"melee": 60}}, foe={"skills": {"defense": 40}}))
        hero, foe = b.fighters
        rng = scripted(b, (30, 100), (20, 100))
        b.attack(hero, foe, hero.spec.weapons[0])
        resolved = events(b.log, "attack_resolved")[0]
        assert (resolved["hit"], resolved["defended"]) == (False, True)
        assert events(b.log, "damage_dealt") == [] and foe.hp == foe.max_hp
        assert rng.unused == 0

    def test_defense_rolled_once_per_attack(self, scripted) -> None:
        """Defense: the target rolls once per attack; a failed defense lets the hit through."""
        b = battle(duel100(hero={"skills": {"melee": 60}},
                           foe={"skills": {"defense": 40}, "hp": 40}))
        hero, foe = b.fighters
        rng = scripted(b, (30, 100), (41, 100), (5, 8))
        b.attack(hero, foe, hero.spec.weapons[0])
        assert [e["purpose"] for e in events(b.log, "check_rolled")] == ["attack", "defense"]
        assert events(b.log, "attack_resolved")[0]["hit"] is True
        assert events(b.log, "damage_dealt")[0]["amount"] == 5 and rng.unused == 0

    def test_miss_rolls_no_defense(self, scripted) -> None:
        """Attack: a missed attack roll needs no defense roll and deals nothing."""
        b = battle(duel100(hero={"skills": {"melee": 60}}))
        hero, foe = b.fighters
        rng = scripted(b, (61, 100))
        b.attack(hero, foe, hero.spec.weapons[0])
        assert [e["purpose"] for e in events(b.log, "check_rolled")] == ["attack"]
        assert events(b.log, "attack_resolved")[0]["hit"] is False and rng.unused == 0

    def test_critical_hit_undefendable_and_piercing(self, scripted) -> None:
        """Convention: a critical hit (01-05) cannot be defended and is armor-piercing."""
        b, hero, foe = _critical_duel()
        rng = scripted(b, (4, 100), (6, 8))  # no defense roll between attack and damage
        b.attack(hero, foe, hero.spec.weapons[0])
        damage = events(b.log, "damage_dealt")[0]
        assert (damage["amount"], damage["armor_piercing"]) == (6, True)
        assert [e["purpose"] for e in events(b.log, "check_rolled")] == ["attack"]
        assert rng.unused == 0

    def test_critical_pierces_option(self, scripted) -> None:
        """critical_pierces: false: a critical hit takes armor off like any hit (still
        undefended): the reading rules §3's Convention set aside."""
        b, hero, foe = _critical_duel(critical_pierces=False)
        rng = scripted(b, (4, 100), (6, 8))
        b.attack(hero, foe, hero.spec.weapons[0])
        damage = events(b.log, "damage_dealt")[0]
        assert (damage["amount"], damage["armor_piercing"]) == (2, False) and rng.unused == 0

    def test_critical_ignores_defense_option(self, scripted) -> None:
        """critical_ignores_defense: false: a critical hit may be parried like any hit."""
        b, hero, foe = _critical_duel(critical_ignores_defense=False)
        rng = scripted(b, (4, 100), (20, 100))
        b.attack(hero, foe, hero.spec.weapons[0])
        assert [e["purpose"] for e in events(b.log, "check_rolled")] == ["attack", "defense"]
        assert events(b.log, "attack_resolved")[0]["defended"] is True and rng.unused == 0

    @pytest.mark.parametrize(("undefended", "exact"), [
        (True, 0.05 + 0.55 * 0.60),  # 01-05 always hit; 06-60 hit unless defended (40%)
        (False, 0.60 * 0.60)])  # every hit may be defended
    def test_critical_ignores_defense_probability(self, undefended: bool, exact: float) -> None:
        """P(hit), melee 60 against defense 40: 0.05 + 0.55 x 0.6 by default; 0.6 x 0.6 when
        a critical may be parried."""
        b = battle(duel100(hero={"skills": {"melee": 60}}, foe={"skills": {"defense": 40}},
                           critical_ignores_defense=undefended), seed=7, log=False)
        hero, foe = b.fighters
        n = 20_000
        hits = sum(b.rules.attack(b.table, hero, foe, hero.spec.weapons[0], 0).hit
                   for _ in range(n))
        assert within(hits, n, exact)

    @pytest.mark.parametrize(("per", "exact"), [
        ("attack", 0.05 + 0.55 * 0.60),
        # the first attack used the round's defense iff it hit without a critical (0.55)
        ("round", 0.55 * 0.60 + 0.45 * (0.05 + 0.55 * 0.60))])
    def test_defense_per_round_probability(self, per: str, exact: float) -> None:
        """defense_per: round: one defense roll a round, so a second attack in the round hits
        more often; P(second attack hits), melee 60 against defense 40."""
        b = battle(duel100(hero={"skills": {"melee": 60}}, foe={"skills": {"defense": 40}},
                           defense_per=per), seed=8, log=False)
        hero, foe = b.fighters
        sword = hero.spec.weapons[0]
        n, hits = 20_000, 0
        for i in range(n):
            b.table.round = i + 1
            b.rules.attack(b.table, hero, foe, sword, 0)
            hits += b.rules.attack(b.table, hero, foe, sword, 0).hit
        assert within(hits, n, exact)

    def test_defense_per_round_option(self, scripted) -> None:
        """defense_per: round: the second attack of the round finds no defense roll left; the
        next round the target defends again."""
        b = battle(duel100(hero={"skills": {"melee": 60}},
                           foe={"skills": {"defense": 40}, "hp": 40}, defense_per="round"))
        hero, foe = b.fighters
        b.table.round = 1
        rng = scripted(b, (30, 100), (20, 100), (30, 100), (5, 8))
        b._take_turn(hero)
        assert [e["purpose"] for e in events(b.log, "check_rolled")] == [
            "attack", "defense", "attack"]
        assert foe.hp == 35 and rng.unused == 0
        b.table.round = 2
        rng = scripted(b, (30, 100), (20, 100), (30, 100), (5, 8))
        b._take_turn(hero)
        assert [e["purpose"] for e in events(b.log, "check_rolled")][3:] == [
            "attack", "defense", "attack"]

    @pytest.mark.parametrize(
        ("face", "bonus", "armor", "amount"), [(5, 2, 3, 4), (8, 0, 3, 5), (1, 0, 5, 0), (2, 1, 9, 0)]
    )
    def test_damage_minus_armor_never_negative(self, scripted, face: int, bonus: int, armor: int,
                                               amount: int) -> None:
        """Damage = weapon dice + bonus - target armor, never below 0."""
        sword = Weapon(name="sword", damage=dice.parse("1d8"), bonus=bonus)
        b = battle(duel100(hero={"skills": {"melee": 60}, "weapons": (sword,)},
                           foe={"armor": armor, "hp": 40}))
        hero, foe = b.fighters
        scripted(b, (30, 100), (99, 100), (face, 8))
        b.attack(hero, foe, sword)
        damage = events(b.log, "damage_dealt")[0]
        assert (damage["amount"], damage["armor_piercing"], damage["dice"]) == (amount, False, [face])
        assert foe.hp == 40 - amount

    def test_armor_piercing_weapon_ignores_armor(self, scripted) -> None:
        """Armor-piercing ("perce armure") damage ignores armor."""
        pick = Weapon(name="pick", damage=dice.parse("1d8"), armor_piercing=True)
        b = battle(duel100(hero={"skills": {"melee": 60}, "weapons": (pick,)},
                           foe={"armor": 6, "hp": 40}))
        hero, foe = b.fighters
        scripted(b, (30, 100), (99, 100), (3, 8))
        b.attack(hero, foe, pick)
        damage = events(b.log, "damage_dealt")[0]
        assert (damage["amount"], damage["armor_piercing"]) == (3, True)

    def test_fumble_ends_the_turn(self, scripted) -> None:
        """Convention: an attack roll of 96-100 (critical failure) ends the attacker's turn."""
        b = battle(duel100(hero={"skills": {"melee": 120}}))
        rng = scripted(b, (97, 100))  # a second attack would need another die
        b._take_turn(b.fighters[0])
        resolved = events(b.log, "attack_resolved")
        assert len(resolved) == 1 and resolved[0]["fumble"] is True and resolved[0]["hit"] is False
        assert rng.unused == 0

    def test_fumble_ends_turn_option(self, scripted) -> None:
        """fumble_ends_turn: false: a fumble is a plain miss, and the second half-action
        attacks again."""
        b = battle(duel100(hero={"skills": {"melee": 120}}, foe={"hp": 40},
                           fumble_ends_turn=False))
        rng = scripted(b, (97, 100), (99, 100))
        b._take_turn(b.fighters[0])
        resolved = events(b.log, "attack_resolved")
        assert [e["hit"] for e in resolved] == [False, False] and "fumble" not in resolved[0]
        assert rng.unused == 0

    def test_two_handed_attack_adds_fatigue(self, scripted) -> None:
        """Fatigue: each attack with a two-handed weapon adds 1 fatigue (`fatigue_gained`)."""
        b = battle(duel100(hero={"weapons": (GREATSWORD,)}))
        hero, foe = b.fighters
        scripted(b, (90, 100), (90, 100))
        b.attack(hero, foe, GREATSWORD)
        b.attack(hero, foe, GREATSWORD)
        gained = events(b.log, "fatigue_gained")
        assert [(e["actor"], e["amount"], e["fatigue"]) for e in gained] == [("Hero", 1, 1),
                                                                          ("Hero", 1, 2)]
        assert {e["reason"] for e in gained} == {"two-handed weapon"} and hero.fatigue == 2
        assert events(b.log, "check_rolled")[-1]["modifier"] == -5  # the first point counts

    def test_one_handed_attack_adds_no_fatigue(self, scripted) -> None:
        """Fatigue comes from two-handed weapons only: a one-handed attack adds none."""
        b = battle(duel100())
        hero, foe = b.fighters
        scripted(b, (90, 100))
        b.attack(hero, foe, hero.spec.weapons[0])
        assert events(b.log, "fatigue_gained") == [] and hero.fatigue == 0

    @pytest.mark.parametrize(("load", "fatigue"),
                             [(0, 0), (40, 0), (40.5, 1), (45, 1), (45.5, 2), (50, 2), (61, 5)])
    def test_encumbrance(self, load: float, fatigue: int) -> None:
        """Encumbrance: over force / 2 + 20 kg (40 kg at force 40), each started 5 kg is 1 fatigue."""
        b = battle(duel100(hero={"characteristics": {"force": 40}, "load": load}))
        assert b.fighters[0].fatigue == fatigue


class TestSeriousWound:
    """Serious wound: one instance of at least half max HP (rules §3, d100)."""

    def test_failure_knocks_out_then_weakens(self, scripted) -> None:
        """Serious wound: failed physique check, unconscious for 1d4 of its turns, then weakened."""
        b = battle(duel100(foe={"hp": 10, "characteristics": {"physique": 50}}))
        hero, foe = b.fighters
        scripted(b, (80, 100), (2, 4))  # physique fails, 1d4 = 2
        b.deal_damage(foe, 5, hero, "weapon")
        check = events(b.log, "check_rolled")[0]
        assert (check["actor"], check["purpose"], check["success"]) == ("Monster", "physique", False)
        started = events(b.log, "effect_started")[0]
        assert (started["target"], started["effect"], started["rounds"]) == ("Monster",
                                                                              "unconscious", 2)
        assert foe.status == "unconscious" and not foe.able and foe.hp == 5
        b.env.run()
        for _ in range(2):
            turn(b, foe)
            assert foe.status == "unconscious"
        turn(b, foe)
        assert foe.status == "active" and foe.able and foe.weakened
        ended = events(b.log, "effect_ended")[0]
        assert (ended["effect"], ended["reason"]) == ("unconscious", "woke up")
        assert events(b.log, "effect_started")[-1]["effect"] == "weakened"

    def test_success_changes_nothing(self, scripted) -> None:
        """Serious wound: a successful physique check leaves the target standing and unweakened."""
        b = battle(duel100(foe={"hp": 10}))
        hero, foe = b.fighters
        rng = scripted(b, (30, 100))
        b.deal_damage(foe, 6, hero, "weapon")
        assert foe.able and not foe.weakened and foe.effects == [] and rng.unused == 0
        assert events(b.log, "effect_started") == []

    @pytest.mark.parametrize(("max_hp", "amount", "checked"),
                             [(10, 4, False), (10, 5, True), (11, 5, False), (11, 6, True)])
    def test_threshold_is_half_max_hp(self, scripted, max_hp: int, amount: int,
                                      checked: bool) -> None:
        """Serious wound: only one damage instance of at least half the maximum HP calls for a check."""
        b = battle(duel100(foe={"hp": max_hp}))
        hero, foe = b.fighters
        rng = scripted(b, (30, 100))
        b.deal_damage(foe, amount, hero, "weapon")
        assert (rng.unused == 0) is checked
        assert len(events(b.log, "check_rolled")) == int(checked)

    def test_no_check_when_already_down(self, scripted) -> None:
        """Serious wound: only a conscious target rolls; one knocked to 0 HP or out already does not."""
        spec = d100(side("h", fighter("A", hp=10), fighter("B", hp=10), party=True),
                    side("m", fighter("M")))
        b = battle(spec)
        a, bee, _ = b.fighters
        scripted(b)
        b.deal_damage(a, 12, None, "weapon")  # to 0 HP: knocked out, no wound check
        b.set_unconscious(bee, "weapon")
        b.deal_damage(bee, 6, None, "weapon")
        assert events(b.log, "check_rolled") == []

    def test_weapon_hit_can_wound(self, scripted) -> None:
        """Serious wound: a weapon hit of at least half max HP triggers the physique check."""
        axe = Weapon(name="axe", damage=dice.parse("1d10"))
        b = battle(duel100(hero={"skills": {"melee": 60}, "weapons": (axe,)}, foe={"hp": 12}))
        hero, foe = b.fighters
        scripted(b, (30, 100), (99, 100), (7, 10), (90, 100), (4, 4))
        b.attack(hero, foe, axe)
        assert [e["purpose"] for e in events(b.log, "check_rolled")] == ["attack", "defense",
                                                                       "physique"]
        assert foe.status == "unconscious" and foe.hp == 5


class TestSpells:
    """Spells cost PSY, then HP that cannot be healed (rules §3, d100)."""

    def test_psy_paid_then_unhealable_hp(self, scripted) -> None:
        """Spells: PSY is spent first (`resource_spent` psy); what PSY cannot pay costs unhealable HP."""
        bolt = Weapon(name="bolt", damage=dice.parse("1d6"), skill="magic", psy=3)
        b = battle(duel100(hero={"weapons": (bolt,), "psy": 4, "hp": 20}))
        caster, foe = b.fighters
        scripted(b, (90, 100), (90, 100))
        b.attack(caster, foe, bolt)  # 3 PSY of 4
        b.attack(caster, foe, bolt)  # 1 PSY, then 2 HP
        spent = events(b.log, "resource_spent")
        assert [(e["actor"], e["resource"], e["amount"]) for e in spent] == [
            ("Hero", "psy", 3), ("Hero", "psy", 1)]
        paid = events(b.log, "damage_dealt")
        assert len(paid) == 1
        assert (paid[0]["target"], paid[0]["amount"], paid[0]["source"],
                paid[0]["armor_piercing"]) == ("Hero", 2, "Hero", True)
        # the price of casting, not a hit: the contract's kind spell, marked as a cost
        assert (paid[0]["kind"], paid[0]["cost"]) == ("spell", True)
        assert (caster.psy, caster.hp, caster.unhealable) == (0, 18, 2)

    def test_spell_roll_uses_magic(self, scripted) -> None:
        """Spells: the cast rolls under `magic` (unskilled: mental - 20)."""
        bolt = Weapon(name="bolt", damage=dice.parse("1d6"), skill="magic", psy=1)
        b = battle(duel100(hero={"weapons": (bolt,), "psy": 4,
                                 "characteristics": {"mental": 70, "physique": 10}}))
        caster, foe = b.fighters
        scripted(b, (90, 100))
        b.attack(caster, foe, bolt)
        check = events(b.log, "check_rolled")[0]
        assert (check["purpose"], check["skill"], check["target"]) == ("attack", "magic", 50)

    def test_caster_dropped_by_price_loses_the_spell(self, scripted) -> None:
        """Spells: a caster whom the HP price drops to 0 is out, and the spell is not cast."""
        bolt = Weapon(name="bolt", damage=dice.parse("1d6"), skill="magic", psy=5)
        spec = d100(side("h", fighter("Mage", weapons=(bolt,), hp=3), fighter("Ally"), party=True),
                    side("m", fighter("M")))
        b = battle(spec)
        mage, _, foe = b.fighters
        rng = scripted(b)
        assert b.attack(mage, foe, bolt) is True
        assert mage.hp == 0 and mage.status == "unconscious"
        assert events(b.log, "attack_resolved") == [] and rng.unused == 0


class TestUnconsciousAndDeath:
    """Unconsciousness and death under d100 (rules §5)."""

    def test_losing_side_unconscious_die(self) -> None:
        """Death: when every member of a side is unconscious, that side loses and they die."""
        b = battle(duel100())
        hero, foe = b.fighters
        b.deal_damage(hero, 99, foe, "weapon")
        assert hero.hp == 0 and events(b.log, "knocked_out")[0]["target"] == "Hero"
        assert b._decided() and b.winner == "monsters"
        assert hero.status == "dead" and b.log[-1]["dead"] == ["Hero"]

    def test_serious_wound_knockout_dies_with_its_side(self, scripted) -> None:
        """Death: a side whose last member is out from a serious wound (HP left) loses, and it dies."""
        b = battle(duel100(hero={"hp": 10}))
        hero, foe = b.fighters
        scripted(b, (90, 100), (3, 4))
        b.deal_damage(hero, 6, foe, "weapon")
        assert b._decided() and b.winner == "monsters" and hero.status == "dead"

    def test_winning_side_unconscious_survive(self) -> None:
        """Death: unconscious members of the winning side survive, reported as knocked out."""
        spec = d100(side("h", fighter("A"), fighter("B"), party=True), side("m", fighter("M")))
        b = battle(spec)
        a, bee, m = b.fighters
        b.deal_damage(a, 99, m, "weapon")
        b.deal_damage(m, 99, bee, "weapon")
        assert b._decided() and b.winner == "h"
        assert a.status == "unconscious" and b.log[-1]["knocked_out"] == ["A"]
        assert b.log[-1]["dead"] == ["M"]

    def test_destiny_points(self) -> None:
        """Destiny points: a party member at 0 HP dies outright unless the party spends a point
        to save the character; a monster follows the normal rule."""
        spec = d100(side("h", fighter("A"), fighter("B"), party=True), side("m", fighter("M")),
                    destiny_points=1)
        b = battle(spec)
        a, bee, m = b.fighters
        b.deal_damage(m, 99, a, "weapon")
        assert m.status == "unconscious"  # not party: the normal rule, no point spent
        assert b.destiny_left == 1
        b.deal_damage(a, 99, m, "weapon")
        spent = events(b.log, "resource_spent")
        assert [(e["actor"], e["resource"], e["amount"]) for e in spent] == [("A", "destiny", 1)]
        assert a.status == "unconscious" and b.destiny_left == 0
        b.deal_damage(bee, 99, m, "weapon")
        assert bee.status == "dead"


class TestMountedCombat:
    """Riding checks, saddle falls and mounts as combatants (rules §6, mounted combat)."""

    def test_riding_check_before_each_attack(self, scripted) -> None:
        """Mounted combat: a rider rolls riding before each attack from the saddle."""
        b = battle(mounted())
        knight = b.fighters[0]
        rng = scripted(b, (60, 100), (90, 100), (60, 100), (90, 100))
        b._take_turn(knight)
        purposes = [e["purpose"] for e in events(b.log, "check_rolled")]
        assert purposes == ["riding", "attack", "riding", "attack"]
        assert rng.unused == 0

    def test_riding_success_adds_mount_force(self, scripted) -> None:
        """Mounted combat: a riding success adds floor(mount force / 10) to the damage (45 -> +4)."""
        b = battle(mounted())
        knight, _, foe = b.fighters
        scripted(b, (20, 100), (30, 100), (99, 100), (3, 8))
        b.attack(knight, foe, knight.spec.weapons[0])
        assert events(b.log, "damage_dealt")[0]["amount"] == 3 + 4

    def test_riding_failure_adds_nothing(self, scripted) -> None:
        """Mounted combat: a failed riding check gives no bonus, and the attack goes on."""
        b = battle(mounted())
        knight, _, foe = b.fighters
        scripted(b, (60, 100), (30, 100), (99, 100), (3, 8))
        b.attack(knight, foe, knight.spec.weapons[0])
        assert events(b.log, "damage_dealt")[0]["amount"] == 3
        assert knight.mounted_on is not None

    def test_riding_fumble_throws_rider(self, scripted) -> None:
        """Mounted combat: a riding critical failure is a 1d10 armor-piercing fall, the rider is
        dismounted (`effect_ended` mounted) and the attack is lost."""
        b = battle(mounted(knight={"armor": 5}))
        knight, horse, _ = b.fighters
        rng = scripted(b, (97, 100), (4, 10))
        b._take_turn(knight)
        assert events(b.log, "attack_resolved") == [] and rng.unused == 0
        ended = events(b.log, "effect_ended")
        assert [(e["target"], e["effect"], e["reason"]) for e in ended] == [
            ("Knight", "mounted", "fell from the saddle")]
        fall = events(b.log, "damage_dealt")[0]
        assert (fall["target"], fall["amount"], fall["kind"], fall["armor_piercing"]) == (
            "Knight", 4, "fall", True)
        assert knight.mounted_on is None and horse.ridden_by is None

    def test_fall_loses_the_attack_not_the_turn(self, scripted) -> None:
        """Mounted combat: the fall loses the attack, not the turn: standing up is a half-action,
        spent with the turn's other half-action; the next turn has both attacks."""
        b = battle(mounted())
        knight = b.fighters[0]
        scripted(b, (97, 100), (4, 10))
        b._take_turn(knight)
        assert [e["actor"] for e in events(b.log, "stood_up")] == ["Knight"] and not knight.prone
        assert events(b.log, "attack_resolved") == []
        rng = scripted(b, (90, 100), (90, 100))  # no riding check any more: two attack rolls
        b._take_turn(knight)
        assert len(events(b.log, "attack_resolved")) == 2 and rng.unused == 0

    def test_fall_on_the_second_attack_stands_up_next_turn(self, scripted) -> None:
        """Mounted combat: a fall on the turn's second attack leaves no half-action to stand up
        with: the rider is still down, stands up as its next turn begins, then attacks once."""
        b = battle(mounted())
        knight = b.fighters[0]
        scripted(b, (60, 100), (90, 100), (97, 100), (4, 10))  # riding, a miss; then the fumble
        b._take_turn(knight)
        assert knight.prone and events(b.log, "stood_up") == []
        rng = scripted(b, (90, 100))
        b._take_turn(knight)
        assert [e["actor"] for e in events(b.log, "stood_up")] == ["Knight"]
        assert len(events(b.log, "attack_resolved")) == 2 and rng.unused == 0

    def test_mount_attacks_on_its_own_turn(self, scripted) -> None:
        """Mounted combat: the mount is a combatant that attacks on its own turn."""
        b = battle(mounted())
        _, horse, _ = b.fighters
        rng = scripted(b, (90, 100), (90, 100))
        b._take_turn(horse)
        resolved = events(b.log, "attack_resolved")
        assert {e["actor"] for e in resolved} == {"Horse"} and resolved[0]["weapon"] == "hooves"
        assert "riding" not in [e["purpose"] for e in events(b.log, "check_rolled")]
        assert rng.unused == 0

    def test_mount_down_throws_rider_on_failed_riding(self, scripted) -> None:
        """Mounted combat: a mount dropping to 0 HP throws its rider; failed riding: 1d10 piercing."""
        b = battle(mounted(knight={"armor": 5}))
        knight, horse, foe = b.fighters
        scripted(b, (80, 100), (6, 10))
        b.deal_damage(horse, 99, foe, "weapon")
        assert events(b.log, "check_rolled")[0]["purpose"] == "riding"
        ended = events(b.log, "effect_ended")[0]
        assert (ended["target"], ended["effect"], ended["reason"]) == ("Knight", "mounted",
                                                                       "mount fell")
        fall = [e for e in events(b.log, "damage_dealt") if e["target"] == "Knight"]
        assert [(e["amount"], e["kind"], e["armor_piercing"]) for e in fall] == [(6, "fall", True)]
        assert knight.mounted_on is None and knight.hp == knight.max_hp - 6

    def test_mount_down_riding_success_no_damage(self, scripted) -> None:
        """Mounted combat: a rider whose fallen mount throws it takes nothing on a riding success."""
        b = battle(mounted())
        knight, horse, foe = b.fighters
        rng = scripted(b, (20, 100))
        b.deal_damage(horse, 99, foe, "weapon")
        assert knight.mounted_on is None and knight.hp == knight.max_hp and rng.unused == 0
        assert [e["target"] for e in events(b.log, "damage_dealt")] == ["Horse"]

    def test_mount_under_destiny_follows_the_normal_rule(self, scripted) -> None:
        """Mounted combat: with destiny points a mount at 0 HP is unconscious, not dead (the points
        are for characters, and do not make 0 HP lethal for their horses), and throws its rider."""
        b = battle(mounted(destiny_points=1))
        knight, horse, foe = b.fighters
        rng = scripted(b, (20, 100))
        b.deal_damage(horse, 99, foe, "weapon")
        assert horse.status == "unconscious" and b.destiny_left == 1
        assert events(b.log, "resource_spent") == [] and events(b.log, "died") == []
        ended = events(b.log, "effect_ended")
        assert [(e["target"], e["effect"], e["reason"]) for e in ended] == [
            ("Knight", "mounted", "mount fell")]
        assert knight.mounted_on is None and rng.unused == 0

    def test_mount_knocked_out_throws_its_rider(self, scripted) -> None:
        """Mounted combat: a mount knocked out by a serious wound throws its rider like a mount
        at 0 HP: a riding check, failure 1d10 armor-piercing; nobody rides it any more."""
        b = battle(mounted())
        knight, horse, foe = b.fighters
        rng = scripted(b, (90, 100), (2, 4), (80, 100), (6, 10))  # wound, out 2; riding fails
        b.deal_damage(horse, 15, foe, "weapon")
        assert horse.status == "unconscious" and horse.hp == 15
        assert [e["purpose"] for e in events(b.log, "check_rolled")] == ["physique", "riding"]
        ended = events(b.log, "effect_ended")
        assert [(e["target"], e["effect"], e["reason"]) for e in ended] == [
            ("Knight", "mounted", "mount knocked out")]
        fall = [e for e in events(b.log, "damage_dealt") if e["target"] == "Knight"]
        assert [(e["amount"], e["kind"], e["armor_piercing"]) for e in fall] == [(6, "fall", True)]
        assert knight.mounted_on is None and horse.ridden_by is None and knight.prone
        assert rng.unused == 0
        rng = scripted(b, (90, 100))  # its next turn: it stands up, then one attack, no riding
        b._take_turn(knight)
        assert [e["purpose"] for e in events(b.log, "check_rolled")][2:] == ["attack"]
        assert rng.unused == 0

    def test_unconscious_rider_slides_out_of_the_saddle(self, scripted) -> None:
        """Mounted combat: a rider who falls unconscious slides out of the saddle, dismounted and
        unhurt; the riderless mount fights on its own and walks."""
        b = battle(mounted(distance=30))
        knight, horse, foe = b.fighters
        rng = scripted(b)
        b.deal_damage(knight, 99, foe, "weapon")
        ended = events(b.log, "effect_ended")
        assert [(e["target"], e["effect"], e["reason"]) for e in ended] == [
            ("Knight", "mounted", "slid out of the saddle")]
        assert [e["target"] for e in events(b.log, "damage_dealt")] == ["Knight"]
        assert knight.mounted_on is None and horse.ridden_by is None and rng.unused == 0
        b._take_turn(horse)  # the foe is 30 m away: the horse walks toward it alone
        assert horse.x > 0 and knight.x == 0

    def test_rider_knocked_out_by_a_wound_slides_off(self, scripted) -> None:
        """Mounted combat: a rider knocked out by a serious wound (HP left) slides out of the
        saddle too, with no riding check and no damage."""
        b = battle(mounted(knight={"hp": 20}))
        knight, horse, foe = b.fighters
        rng = scripted(b, (90, 100), (1, 4))  # the wound's physique fails, out for 1 turn
        b.deal_damage(knight, 10, foe, "weapon")
        assert knight.status == "unconscious" and knight.mounted_on is None
        assert horse.ridden_by is None and rng.unused == 0
        assert [e["purpose"] for e in events(b.log, "check_rolled")] == ["physique"]

    def test_unconscious_rider_falls_option(self, scripted) -> None:
        """unconscious_rider: falls: a rider knocked out by a serious wound falls as if thrown:
        riding check, failure 1d10 armor-piercing (the reading rules §6's Convention set aside)."""
        b = battle(mounted(knight={"hp": 20}, unconscious_rider="falls"))
        knight, horse, foe = b.fighters
        rng = scripted(b, (90, 100), (1, 4), (60, 100), (6, 10))
        b.deal_damage(knight, 10, foe, "weapon")
        assert [e["purpose"] for e in events(b.log, "check_rolled")] == ["physique", "riding"]
        fall = events(b.log, "damage_dealt")[-1]
        assert (fall["kind"], fall["amount"], fall["armor_piercing"]) == ("fall", 6, True)
        assert knight.hp == 4 and knight.mounted_on is None and horse.ridden_by is None
        assert events(b.log, "effect_ended")[0]["reason"] == "fell out of the saddle"
        assert rng.unused == 0

    def test_unconscious_rider_falls_with_one_hp_left(self, scripted) -> None:
        """unconscious_rider: falls: a rider knocked out with a single HP left still falls as if
        thrown (only at 0 HP does it slide): riding check, failed, and the fall's 1d10."""
        b = battle(mounted(knight={"hp": 20}, unconscious_rider="falls"))
        knight, horse, foe = b.fighters
        rng = scripted(b, (90, 100), (1, 4), (60, 100), (6, 10))
        b.deal_damage(knight, 19, foe, "weapon")
        assert [e["purpose"] for e in events(b.log, "check_rolled")] == ["physique", "riding"]
        assert events(b.log, "effect_ended")[0]["reason"] == "fell out of the saddle"
        assert knight.hp == 0 and horse.ridden_by is None and rng.unused == 0

    def test_unconscious_rider_falls_at_zero_hp_slides(self, scripted) -> None:
        """unconscious_rider: falls: a rider knocked out at 0 HP rolls nothing (a fall can take
        nothing more from it): it slides out as by default."""
        b = battle(mounted(unconscious_rider="falls"))
        knight, _, foe = b.fighters
        rng = scripted(b)
        b.deal_damage(knight, 99, foe, "weapon")
        assert events(b.log, "effect_ended")[0]["reason"] == "slid out of the saddle"
        assert events(b.log, "check_rolled") == [] and rng.unused == 0

    @pytest.mark.parametrize(("how", "exact"), [("slides", 0.0), ("falls", 0.5)])
    def test_unconscious_rider_falls_probability(self, how: str, exact: float) -> None:
        """P(a rider knocked out by a wound is hurt by the fall): 0 sliding out (default);
        falling, its riding 50 fails with p 1/2."""
        spec = mounted(knight={"hp": 20}, unconscious_rider=how)
        out = hurt = 0
        for seed in range(3000):
            b = battle(spec, seed=seed, log=False)
            knight, _, foe = b.fighters
            b.deal_damage(knight, 10, foe, "weapon")
            if knight.status == "unconscious":
                out += 1
                hurt += knight.hp < 10
        assert out > 1000 and within(hurt, out, exact)

    def test_mount_does_not_decide_victory(self) -> None:
        """Mounted combat: the mount does not count for victory; the side falls with its rider."""
        b = battle(mounted())
        knight, horse, foe = b.fighters
        b.deal_damage(knight, 99, foe, "weapon")
        assert horse.able and b._decided() and b.winner == "monsters"

    def test_an_ally_helps_a_fallen_rider_up(self, scripted) -> None:
        """Action economy: helping someone up is a half-action; the helper may still attack once."""
        knife = Weapon(name="knife", damage=dice.parse("1d4"))
        spec = d100(side("riders", fighter("Knight", hp=20), fighter("Squire", hp=20,
                                                                    skills={"melee": 50},
                                                                    weapons=(knife,)), party=True),
                    side("monsters", fighter("Monster", hp=40)))
        b = battle(spec)
        b._special = True  # as with mounts in the scenario: someone may fall
        knight, squire = b.fighters[:2]
        knight.prone = True
        rng = scripted(b, (90, 100))  # one attack roll left after helping
        b._take_turn(squire)
        assert events(b.log, "helped_up")[0] == {**events(b.log, "helped_up")[0],
                                                 "actor": "Squire", "target": "Knight"}
        assert not knight.prone and len(events(b.log, "attack_resolved")) == 1 and not rng.unused

    def test_a_mount_does_not_help_its_rider_up(self, scripted) -> None:
        """Action economy: helping someone up is a person's half-action, never a horse's."""
        b = battle(mounted())
        knight, horse, _ = b.fighters
        knight.prone, knight.mounted_on, horse.ridden_by = True, None, None
        b._special = True
        scripted(b, (90, 100), (90, 100))  # the horse's hooves, twice
        b._take_turn(horse)
        assert events(b.log, "helped_up") == [] and knight.prone

    def test_serious_wound_knockout_counts_as_knocked_out(self, scripted) -> None:
        """Serious wound: its knock-out is logged and counted as a knock-out in the outcome."""
        b = battle(duel100(hero={"hp": 10, "characteristics": {"physique": 10}}))
        hero, monster = b.fighters
        scripted(b, (50, 100), (2, 4))  # physique failed, out for 2 turns
        b.deal_damage(hero, 6, monster, "weapon")
        ko = events(b.log, "knocked_out")[0]
        assert (ko["target"], ko["cause"], ko["serious_wound"]) == ("Hero", "weapon", True)
        assert b._outcome().rows[0][3] is True  # knocked out, and alive


# -- helpers ------------------------------------------------------------------------------------


class TestMoreRules:
    """d100 rules whose edges the mutation run found untested (rules §3, §6)."""

    @pytest.mark.parametrize(("weapon", "skill"), [
        (Weapon("bolt", dice.parse("1d6"), range=20, psy=1), "magic"),
        (Weapon("bow", dice.parse("1d6"), range=30, hands=2), "ranged"),
        (Weapon("sword", dice.parse("1d8")), "melee")])
    def test_attack_skill_by_weapon_kind(self, scripted, weapon: Weapon, skill: str) -> None:
        """Attack: a spell rolls under `magic`, a ranged weapon under `ranged`, else `melee`."""
        scores = {"magic": 31, "ranged": 32, "melee": 33}
        b = battle(duel100(hero={"weapons": (weapon,), "skills": scores, "psy": 5}))
        hero, foe = b.fighters
        scripted(b, (90, 100))
        b.attack(hero, foe, weapon)
        check = events(b.log, "check_rolled")[0]
        assert (check["skill"], check["target"]) == (skill, scores[skill])

    def test_wound_leaving_one_hp_is_serious(self, scripted) -> None:
        """Serious wound: half max HP in one hit, even leaving the target at 1 HP, rolls physique."""
        b = battle(duel100(foe={"hp": 10, "characteristics": {"physique": 50}}))
        hero, foe = b.fighters
        rng = scripted(b, (20, 100))
        b.deal_damage(foe, 9, hero, "weapon")
        assert foe.hp == 1 and [e["purpose"] for e in events(b.log, "check_rolled")] == ["physique"]
        assert rng.unused == 0

    def test_serious_wound_lasts_up_to_four_turns(self, scripted) -> None:
        """Serious wound: unconscious for 1d4 rounds: a 4 on the d4 is four turns."""
        b = battle(duel100(foe={"hp": 10, "characteristics": {"physique": 50}}))
        hero, foe = b.fighters
        scripted(b, (80, 100), (4, 4))
        b.deal_damage(foe, 5, hero, "weapon")
        assert events(b.log, "effect_started")[0]["rounds"] == 4

    def test_armor_piercing_damage_never_below_zero(self, scripted) -> None:
        """Damage is never below 0, armor-piercing or not: a 1d2-3 pick deals 0."""
        pick = Weapon("pick", dice.parse("1d2-3"), armor_piercing=True)
        b = battle(duel100(hero={"weapons": (pick,), "skills": {"melee": 60}}, foe={"hp": 20}))
        hero, foe = b.fighters
        scripted(b, (30, 100), (99, 100), (2, 2))
        b.attack(hero, foe, pick)
        assert events(b.log, "damage_dealt")[0]["amount"] == 0 and foe.hp == 20

    def test_morale_reroll_of_a_d100_check(self, scripted) -> None:
        """Morale (option on in d100): a failed check is rerolled, logged `morale_reroll`, on
        the same skill; an exploit on it ticks that skill's learning box."""
        b = battle(duel100(hero={"skills": {"climbing": 40}}, morale_on=True))
        hero = b.fighters[0]
        hero.morale = 3
        rng = scripted(b, (70, 100), (3, 100))
        assert D100_RULES.check(b.table, hero, "climbing").degree == CRITICAL_SUCCESS
        checks = [(e["purpose"], e["skill"], e["target"]) for e in events(b.log, "check_rolled")]
        assert checks == [("climbing", "climbing", 40), ("morale_reroll", "climbing", 40)]
        assert hero.learned == {"climbing"} and rng.unused == 0

    def test_fire_social_loss_costs_social_only(self) -> None:
        """Fire's lost social lowers social checks only."""
        b = battle(duel100(hero={"characteristics": {"social": 60, "physique": 55}}))
        hero = b.fighters[0]
        hero.social_lost = 7
        assert (characteristic(hero, "social"), characteristic(hero, "physique")) == (53, 55)

    def test_every_system_is_found_by_name(self) -> None:
        """`rules:` names one of the four systems; another name is refused, listing them."""
        forget()
        assert [system_for(n).name for n in ("d20", "d100", "2d10", "d10")] == [
            "d20", "d100", "2d10", "d10"]
        with pytest.raises(NotImplementedError, match=r"'d6' .*available: d20, d100, 2d10, d10"):
            system_for("d6")

    def test_riding_bonus_is_a_tenth_of_force(self) -> None:
        """Mounted combat: floor(mount force / 10): force 50 adds 5, 59 adds 5, 60 adds 6."""
        b = battle(mounted())
        horse = b.fighters[1]
        bonuses = []
        for force in (50, 59, 60):
            horse.spec = attrs.evolve(horse.spec, characteristics={"force": force})
            bonuses.append(D100_RULES.mount_bonus(horse))
        assert bonuses == [5, 5, 6]


class TestGroupAction:
    """Group action (rules §3, the seed-003 rule d100 borrows): a majority of successes;
    a tie rolls 1d6, 4+ succeeds."""

    @staticmethod
    def _band(count: int):
        members = [fighter(f"A{i}", skills={"stealth": 70}) for i in range(count)]
        b = battle(attrs.evolve(duel100(), sides=(side("h", *members, party=True),
                                                  side("m", fighter("M")))))
        return b, b.fighters[:count]

    @pytest.mark.parametrize(("rolls", "ok"), [((60, 65, 90), True), ((60, 80, 90), False)])
    def test_majority(self, scripted, rolls: tuple, ok: bool) -> None:
        """Group action: a majority of individual successes succeeds, a minority fails."""
        b, members = self._band(3)
        rng = scripted(b, *((r, 100) for r in rolls))
        assert D100_RULES.group_check(b.table, members, "stealth") is ok and rng.unused == 0
        event = b.log[-1]
        wins = sum(r <= 70 for r in rolls)  # each rolls its stealth skill, 70
        assert (event["event"], event["what"], event["members"]) == (
            "group_check_resolved", "stealth", ["A0", "A1", "A2"])
        assert (event["successes"], event["failures"], event["tie_roll"]) == (wins, 3 - wins, None)

    @pytest.mark.parametrize(("tie", "ok"), [(4, True), (3, False)])
    def test_tie_rolls_d6(self, scripted, tie: int, ok: bool) -> None:
        """Group action: a tie rolls 1d6 and succeeds on 4+."""
        b, members = self._band(2)
        rng = scripted(b, (10, 100), (90, 100), (tie, 6))
        assert D100_RULES.group_check(b.table, members, "stealth") is ok and rng.unused == 0
        assert b.log[-1]["tie_roll"] == tie


def _critical_duel(**options: object) -> tuple[Battle, Fighter, Fighter]:
    """A melee 60 hero against a foe who always defends, wears 4 armor and has 40 HP."""
    b = battle(duel100(hero={"skills": {"melee": 60}},
                       foe={"skills": {"defense": 99}, "armor": 4, "hp": 40}, **options))
    return b, b.fighters[0], b.fighters[1]


def duel100(hero: dict | None = None, foe: dict | None = None, **kwargs) -> Scenario:
    """Hero (the party, at x = 0) against Monster, under d100."""
    return d100(side("heroes", fighter("Hero", **(hero or {})), party=True),
                side("monsters", fighter("Monster", **(foe or {}))), **kwargs)


def succeeds(roll: int, target: int) -> bool:
    """rules §1 d100, stated independently: 01-05 always, 96-100 never, else roll <= target."""
    return roll <= 5 or (roll <= target and roll < 96)


def within(observed: int, n: int, p: float, sigmas: float = 4.0) -> bool:
    """Whether a count is within ``sigmas`` standard errors of n * p."""
    se = math.sqrt(p * (1 - p) / n)
    return abs(observed / n - p) <= sigmas * se + 1e-12

