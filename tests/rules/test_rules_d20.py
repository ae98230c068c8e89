"""The d20 system of seed 003, one test (or class) per rule of rules §1 and §3."""

from __future__ import annotations

import math
import pathlib
from collections import Counter

import icepool
import pytest

from sim import dice
from sim.engine import run_battle
from sim.engine.effects import explode
from sim.model import Weapon
from sim.rules import CRITICAL_FAILURE, CRITICAL_SUCCESS, FAILURE, SUCCESS
from sim.rules.d20 import D20, roll_check
from sim.scenario import load_scenario
from tests.builders import SWORD, battle, duel, events, fighter, scenario, side

REPO = pathlib.Path(__file__).resolve().parent.parent.parent

D20_RULES = D20()
N = 40_000


def within(observed: int, n: int, p: float, sigmas: float = 4.0) -> bool:
    """Whether a count is within ``sigmas`` standard errors of n * p."""
    se = math.sqrt(p * (1 - p) / n)
    return abs(observed / n - p) <= sigmas * se + 1e-12


class TestCheckDistribution:
    """Exact distributions of the d20 check against icepool (rules §1, d20)."""

    @pytest.mark.parametrize(
        ("advantage", "die"),
        [(0, icepool.d20), (1, icepool.d20.highest(2, 1)), (-1, icepool.d20.lowest(2, 1))],
    )
    def test_kept_die_distribution(self, advantage: int, die: icepool.Die) -> None:
        """d20 check: 1d20, or 2d20 keep the higher (advantage) / lower (disadvantage)."""
        b = battle(duel(hero={"level": 2}), seed=7, log=False)
        hero = b.fighters[0]
        counts = Counter(
            D20_RULES.check(b.table, hero, "persuasion", advantage=advantage).kept for _ in range(N)
        )
        for face in range(1, 21):
            assert within(counts[face], N, float(die.probability(face))), face

    @pytest.mark.parametrize("advantage", [0, 1, -1])
    @pytest.mark.parametrize("level", [0, 3, 8])
    def test_success_rate(self, advantage: int, level: int) -> None:
        """Standard check: success iff 1d20 + level > 16, strictly, with any advantage."""
        die = {0: icepool.d20, 1: icepool.d20.highest(2, 1), -1: icepool.d20.lowest(2, 1)}[
            advantage
        ]
        exact = float((die + level > 16).probability(True))
        b = battle(duel(hero={"level": level}), seed=11, log=False)
        hero = b.fighters[0]
        successes = sum(
            D20_RULES.check(b.table, hero, "persuasion", advantage=advantage).success for _ in range(N)
        )
        assert within(successes, N, exact)


class TestCheck:
    """Checks, targets and degrees of the d20 system (rules §1, d20)."""

    def test_tie_fails(self, scripted) -> None:
        """Success iff total > target: a total equal to the target fails."""
        b = battle(duel(hero={"level": 3}))
        scripted(b, (13, 20))  # 13 + 3 = 16, not > 16
        result = D20_RULES.check(b.table, b.fighters[0], "persuasion")
        assert (result.total, result.target, result.success) == (16, 16, False)

    def test_standard_check_target(self, scripted) -> None:
        """Standard check: 1d20 + level > 16."""
        b = battle(duel(hero={"level": 3}))
        scripted(b, (14, 20))
        result = D20_RULES.check(b.table, b.fighters[0], "climbing")
        assert (result.modifier, result.total, result.target, result.success) == (3, 17, 16, True)

    @pytest.mark.parametrize("art", ["acrobatics", "athletics", "stealth"])
    def test_movement_art(self, scripted, art: str) -> None:
        """Movement art: 1d20 + level + 6 - armor > 16."""
        b = battle(duel(hero={"level": 2, "armor": 3}))
        scripted(b, (10, 20))
        result = D20_RULES.check(b.table, b.fighters[0], art)
        assert result.modifier == 2 + 6 - 3
        assert result.success is (10 + 5 > 16)

    def test_percent_modifier_scaled(self, scripted) -> None:
        """scale(p) = p / 5 rounded toward zero: -12% is -2 on the d20."""
        assert [D20_RULES.scale(p) for p in (-12, 12, -10, 4, -4, 50)] == [-2, 2, -2, 0, 0, 10]
        b = battle(duel(hero={"level": 3}))
        scripted(b, (10, 20))
        assert D20_RULES.check(b.table, b.fighters[0], "climbing", modifier=-12).modifier == 1

    @pytest.mark.parametrize(
        ("face", "level", "degree"),
        [
            (20, 0, CRITICAL_SUCCESS),  # natural 20 on a success
            (15, 12, CRITICAL_SUCCESS),  # margin 27 - 16 = 11 >= 10
            (16, 10, CRITICAL_SUCCESS),  # margin exactly 10
            (15, 10, SUCCESS),  # margin 9
            (17, 0, SUCCESS),
            (1, 3, CRITICAL_FAILURE),  # natural 1 on a failure
            (6, 0, CRITICAL_FAILURE),  # margin 6 - 16 = -10
            (7, 0, FAILURE),  # margin -9
            (1, 16, SUCCESS),  # a natural 1 that still succeeds is no critical failure
        ],
    )
    def test_degrees(self, scripted, face: int, level: int, degree: str) -> None:
        """Degree: natural 20 on a success or margin >= 10 is critical; natural 1 on a
        failure or margin <= -10 is a critical failure."""
        b = battle(duel(hero={"level": level}))
        scripted(b, (face, 20))
        result = D20_RULES.check(b.table, b.fighters[0], "climbing")
        expected_margin = face + level - 16
        assert result.margin == expected_margin
        assert result.degree == degree

    def test_natural_twenty_failing_is_plain_failure(self, scripted) -> None:
        """A natural 20 is critical only on a success."""
        b = battle(duel())
        scripted(b, (20, 20))
        result = roll_check(b.table, b.fighters[0], "climbing", modifier=0, target=25)
        assert (result.success, result.degree) == (False, FAILURE)

    def test_advantage_keeps_higher_logs_both(self, scripted) -> None:
        """Advantage: roll 2d20, keep the higher; the log holds both natural dice in order."""
        b = battle(duel(hero={"level": 1}))
        scripted(b, (4, 20), (17, 20))
        result = D20_RULES.check(b.table, b.fighters[0], "climbing", advantage=1)
        assert (result.dice, result.kept, result.total) == ((4, 17), 17, 18)
        event = b.log[-1]
        assert event["event"] == "check_rolled"
        assert (event["dice"], event["kept"], event["total"]) == ([4, 17], 17, 18)


class TestAttackAndDefense:
    """Player-facing attack and defense rolls (rules §3, d20)."""

    def test_party_attacks_against_defense_threshold(self, scripted) -> None:
        """Attack by a party member: 1d20 + level + weapon bonus > target.defense_threshold."""
        axe = Weapon(name="axe", damage=dice.parse("1d6"), bonus=2)
        b = battle(duel(hero={"level": 3, "weapons": (axe,)}, monster={"defense_threshold": 14}))
        hero, monster = b.fighters
        scripted(b, (9, 20), (4, 6))  # 9 + 3 + 2 = 14, not > 14: a miss
        assert D20_RULES.attack(b.table, hero, monster, axe, 0).hit is False
        scripted(b, (10, 20))
        assert D20_RULES.attack(b.table, hero, monster, axe, 0).hit is True
        check = next(e for e in reversed(b.log) if e["event"] == "check_rolled")
        assert (check["actor"], check["purpose"], check["target"]) == ("Hero", "attack", 14)

    def test_monster_attack_is_a_defense_roll(self, scripted) -> None:
        """Attack on a party member: the defender rolls 1d20 + armor > attack threshold;
        a failed defense is a hit, and a character is never hit automatically (it always
        rolls its defense: 10 + 4 > 13 holds)."""
        b = battle(duel(hero={"armor": 4}, monster={"attack_threshold": 13}))
        hero, monster = b.fighters
        scripted(b, (9, 20))  # 9 + 4 = 13, not > 13: defense fails, hit
        assert D20_RULES.attack(b.table, monster, hero, SWORD_OF(monster), 0).hit is True
        check = b.log[-1]
        assert (check["actor"], check["purpose"], check["target"], check["modifier"]) == (
            "Hero", "defense", 13, 4)
        scripted(b, (10, 20))
        assert D20_RULES.attack(b.table, monster, hero, SWORD_OF(monster), 0).hit is False

    def test_monster_against_monster_rolls_attack(self, scripted) -> None:
        """Attack by anyone against a non-party target: the attacker rolls."""
        spec = scenario(side("a", fighter("A", level=2)), side("b", fighter("B", defense_threshold=12)))
        b = battle(spec)
        a, target = b.fighters
        scripted(b, (11, 20))
        assert D20_RULES.attack(b.table, a, target, SWORD_OF(a), 0).hit is True
        assert b.log[-1]["actor"] == "A" and b.log[-1]["purpose"] == "attack"

    def test_default_thresholds(self) -> None:
        """Convention: a missing attack or defense threshold defaults to 10 + level."""
        spec = fighter("X", level=4)
        assert (spec.effective_attack_threshold, spec.effective_defense_threshold) == (14, 14)


def SWORD_OF(f):
    return f.spec.weapons[0]


class TestDamage:
    """Damage: the weapon's die, +1d4 once on surprise or criticals, no armor (rules §3)."""

    def test_plain_hit_rolls_weapon_die_only(self, scripted) -> None:
        """Damage is the weapon's die; armor does not reduce it in this system."""
        b = battle(duel(monster={"armor": 5, "defense_threshold": 10}))
        hero, monster = b.fighters
        scripted(b, (15, 20), (6, 8))
        b.attack(hero, monster, SWORD_OF(hero))
        damage = b.log[-1]
        assert (damage["event"], damage["amount"], damage["dice"]) == ("damage_dealt", 6, [6])

    @pytest.mark.parametrize(("damage", "amount"), [("1", 1), ("1d2-5", 0)])
    def test_damage_never_below_zero(self, scripted, damage: str, amount: int) -> None:
        """d20 damage is the weapon's dice, never below 0 (a 1 stays 1)."""
        weapon = Weapon("club", dice.parse(damage))
        b = battle(duel(hero={"weapons": (weapon,)}, monster={"defense_threshold": 10, "hp": 20}))
        hero, monster = b.fighters
        scripted(b, (15, 20), *([(1, 2)] if "d" in damage else []))
        b.attack(hero, monster, weapon)
        assert b.log[-1]["amount"] == amount and monster.hp == 20 - amount

    def test_same_damage_with_log_off(self) -> None:
        """Damage rolls from the battle's dice with or without a log: same seed, same outcome."""
        spec = duel(hero={"level": 3, "hp": 30}, monster={"hp": 30, "defense_threshold": 12})
        for seed in range(5):
            logged, _ = run_battle(spec, seed, log=True)
            quiet, _ = run_battle(spec, seed, log=False)
            assert quiet == logged

    def test_critical_attack_adds_d4(self, scripted) -> None:
        """+1d4 on a critical attack roll (natural 20)."""
        b = battle(duel(monster={"defense_threshold": 5}))
        hero, monster = b.fighters
        scripted(b, (20, 20), (5, 8), (3, 4))
        b.attack(hero, monster, SWORD_OF(hero))
        assert b.log[-1]["amount"] == 8 and b.log[-1]["dice"] == [5, 3]

    def test_critical_defense_failure_adds_d4(self, scripted) -> None:
        """+1d4 when the defense roll is a critical failure (natural 1)."""
        b = battle(duel(hero={"armor": 2}, monster={"attack_threshold": 12}))
        hero, monster = b.fighters
        scripted(b, (1, 20), (2, 8), (4, 4))
        b.attack(monster, hero, SWORD_OF(monster))
        assert b.log[-1]["amount"] == 6

    def test_extra_d4_once_even_if_both(self, scripted) -> None:
        """The +1d4 is added once per hit, even on a critical surprise attack."""
        spec = duel(monster={"defense_threshold": 5})
        spec = scenario(*spec.sides, surprise="heroes")
        b = battle(spec)
        b.table.round = 1
        b.surprise_side = b.table.surprising = "heroes"  # as the clock sets them in round 1
        hero, monster = b.fighters
        scripted(b, (20, 20), (20, 20), (1, 8), (2, 4))
        b.attack(hero, monster, SWORD_OF(hero))
        assert b.log[-1]["amount"] == 3

    @staticmethod
    def _surprising(spec, side_name: str):
        b = battle(scenario(*spec.sides, surprise=side_name))
        b.table.round = 1
        b.surprise_side = b.table.surprising = side_name  # as the clock sets them in round 1
        return b

    def test_surprise_hit_adds_d4_without_critical(self, scripted) -> None:
        """+1d4 on a surprise attack that hits, even when the attack roll is no critical."""
        b = self._surprising(duel(monster={"defense_threshold": 10}), "heroes")
        hero, monster = b.fighters
        scripted(b, (15, 20), (3, 20), (5, 8), (2, 4))  # advantage: keeps 15, 16 > 10, margin 6
        b.attack(hero, monster, SWORD_OF(hero))
        check = next(e for e in b.log if e["event"] == "check_rolled")
        assert check["degree"] == SUCCESS
        assert (b.log[-1]["amount"], b.log[-1]["dice"]) == (7, [5, 2])

    def test_monster_surprise_hit_adds_d4_without_critical(self, scripted) -> None:
        """+1d4 on a surprise attack against the party: a plain failed defense still adds it."""
        b = self._surprising(duel(monster={"attack_threshold": 12}), "monsters")
        hero, monster = b.fighters
        scripted(b, (8, 20), (15, 20), (3, 8), (4, 4))  # disadvantage: keeps 8, 8 <= 12, margin -4
        b.attack(monster, hero, SWORD_OF(monster))
        check = next(e for e in b.log if e["event"] == "check_rolled")
        assert (check["kept"], check["degree"]) == (8, FAILURE)
        assert (b.log[-1]["amount"], b.log[-1]["dice"]) == (7, [3, 4])

    def test_no_d4_after_the_surprise_round(self, scripted) -> None:
        """The surprise +1d4 belongs to the surprise round: a plain hit later rolls the die only."""
        b = battle(scenario(*duel(monster={"defense_threshold": 10}).sides, surprise="heroes"))
        b.table.round = 2
        b.surprise_side, b.table.surprising = "heroes", None
        hero, monster = b.fighters
        scripted(b, (15, 20), (5, 8))
        b.attack(hero, monster, SWORD_OF(hero))
        assert (b.log[-1]["amount"], b.log[-1]["dice"]) == (5, [5])

    BLESSED = Weapon("blessed mace", dice.parse("1d8"), suited=("undead", "ghoul"))

    @pytest.mark.parametrize(("kinds", "amount", "dice_"), [
        (("skeleton", "undead"), 7, [5, 2]), (("ghoul",), 7, [5, 2]), (("wolf",), 5, [5]),
        ((), 5, [5])])
    def test_suited_attack_adds_d4(self, scripted, kinds, amount, dice_) -> None:
        """Rules §3 (seed 003, "une attaque particulièrement adaptée"): a hit with a weapon
        suited to its target (by bestiary name or kind) adds 1d4; against others, nothing."""
        b = battle(duel(hero={"weapons": (self.BLESSED,)},
                        monster={"defense_threshold": 10, "kinds": kinds, "hp": 30}))
        hero, monster = b.fighters
        scripted(b, (15, 20), (5, 8), (2, 4))
        b.attack(hero, monster, self.BLESSED)
        assert (b.log[-1]["amount"], b.log[-1]["dice"]) == (amount, dice_)

    def test_suited_never_stacks_with_a_critical(self, scripted) -> None:
        """One +1d4 per hit, however many sources: a critical suited hit rolls one d4."""
        b = battle(duel(hero={"weapons": (self.BLESSED,)},
                        monster={"defense_threshold": 5, "kinds": ("undead",), "hp": 30}))
        hero, monster = b.fighters
        scripted(b, (20, 20), (1, 8), (2, 4))
        b.attack(hero, monster, self.BLESSED)
        assert (b.log[-1]["amount"], b.log[-1]["dice"]) == (3, [1, 2])

    def test_suited_monster_attack_on_a_failed_defense(self, scripted) -> None:
        """A monster's claws suited to elves: a plain failed defense of an elf adds 1d4."""
        claws = Weapon("claws", dice.parse("1d8"), suited=("elf",))
        b = battle(duel(hero={"kinds": ("elf",), "hp": 30},
                        monster={"attack_threshold": 12, "weapons": (claws,)}))
        hero, monster = b.fighters
        scripted(b, (8, 20), (3, 8), (4, 4))
        b.attack(monster, hero, claws)
        assert (b.log[-1]["amount"], b.log[-1]["dice"]) == (7, [3, 4])

    @pytest.mark.parametrize("kinds", [("undead",), ("wolf",)])
    def test_suited_strike_equals_attack_then_damage(self, kinds) -> None:
        """The fast path (strike) and the logged path give the same battles with a suited
        weapon, against what it suits and against what it does not (same seeds, same
        outcomes)."""
        spec = duel(hero={"level": 2, "hp": 30, "weapons": (self.BLESSED,)},
                    monster={"hp": 30, "defense_threshold": 12, "kinds": kinds})
        for seed in range(30):
            assert run_battle(spec, seed, log=False)[0] == run_battle(spec, seed, log=True)[0]

    @pytest.mark.parametrize("armor", [0, 4, 30])
    def test_explosion_ignores_armor(self, scripted, armor: int) -> None:
        """d20 explosion: armor only feeds the defense roll, so the blast's dice hit in full."""
        b = battle(duel(hero={"armor": armor, "hp": 50}))
        hero = b.fighters[0]
        scripted(b, (3, 6), (4, 6))
        explode(b, [hero], dice.parse("2d6+4"))
        damage = b.log[-1]
        assert (damage["kind"], damage["amount"], hero.hp) == ("explosion", 11, 39)


class TestMounts:
    """Mounted combat under d20 (rules §6): d20 stat blocks have no force."""

    def test_riding_adds_nothing(self) -> None:
        """A d20 riding success adds no damage: the mount has no force to lend."""
        b = battle(duel(monster={"hp": 30}))
        assert D20_RULES.mount_bonus(b.fighters[1]) == 0


class TestOutnumbered:
    """Outnumbered (rules §3): after 3 different attackers, later rolls favour the attacker."""

    def test_fourth_attack_in_round_has_advantage(self) -> None:
        """Once outnumbered_at (3) enemies attacked a combatant this round, the next
        defense roll is at disadvantage; a new round starts the count again."""
        goblins = [fighter(f"g{i}", attack_threshold=30) for i in range(5)]
        b = battle(scenario(side("heroes", fighter("Hero", hp=999), party=True),
                            side("goblins", *goblins)))
        b.table.round = 1
        hero = b.fighters[0]
        for g in b.fighters[1:]:
            b.attack(g, hero, SWORD_OF(g))
        defenses = [e for e in b.log if e["event"] == "check_rolled"]
        assert [e["advantage"] for e in defenses] == [0, 0, 0, -1, -1]
        flags = [e["outnumbered"] for e in b.log if e["event"] == "attack_resolved"]
        assert flags == [False, False, False, True, True]
        b.table.round = 2
        b.attack(b.fighters[1], hero, SWORD_OF(b.fighters[1]))
        assert [e for e in b.log if e["event"] == "check_rolled"][-1]["advantage"] == 0

    def test_same_attacker_twice_counts_once(self) -> None:
        """Only different enemies count toward being outnumbered."""
        b = battle(scenario(side("heroes", fighter("Hero", hp=999), party=True),
                            side("goblins", fighter("g1"), fighter("g2")), outnumbered_at=2))
        b.table.round = 1
        hero, g1, g2 = b.fighters
        for attacker in (g1, g1, g1, g2, g1):
            b.attack(attacker, hero, SWORD_OF(attacker))
        flags = [e["outnumbered"] for e in b.log if e["event"] == "attack_resolved"]
        assert flags == [False, False, False, False, True]


class TestHeroism:
    """Heroism dice (rules §3): spent after a failure a d6 can still turn around."""

    def test_spent_when_short_by_five_or_less(self, scripted) -> None:
        """A failed roll short by 5 or less spends one die and adds 1d6 to the total."""
        b = battle(duel(hero={"level": 0, "heroism": 2}))
        hero = b.fighters[0]
        scripted(b, (11, 20), (6, 6))  # 11 vs 16: short by 5, a 6 makes it 17
        result = D20_RULES.check(b.table, hero, "climbing")
        assert (result.total, result.success, result.bonus, hero.heroism) == (17, True, 6, 1)
        spent, check = b.log[-2], b.log[-1]
        assert (spent["event"], spent["resource"], spent["amount"]) == ("resource_spent",
                                                                        "heroism", 1)
        assert check["modifier"] == 6 and check["kept"] + check["modifier"] == check["total"]
        assert check["heroism"] == 6

    def test_spent_on_a_tie(self, scripted) -> None:
        """A tie fails (total > target is needed), so it is short by 0: heroism helps it."""
        b = battle(duel(hero={"level": 0, "heroism": 1}))
        rng = scripted(b, (16, 20), (1, 6))
        result = D20_RULES.check(b.table, b.fighters[0], "climbing")
        assert (result.total, result.success, rng.unused) == (17, True, 0)

    def test_morale_reroll_starts_from_the_plain_modifier(self, scripted) -> None:
        """A morale reroll repeats the roll as it was: the heroism d6 spent on the first roll
        is not added again."""
        b = battle(duel(hero={"level": 0, "heroism": 1}, morale_on=True))
        hero = b.fighters[0]
        hero.morale = 2
        rng = scripted(b, (11, 20), (1, 6), (14, 20))  # 11+1 = 12 fails; reroll 14 = 14
        D20_RULES.check(b.table, hero, "climbing")
        checks = [e for e in b.log if e["event"] == "check_rolled"]
        assert [(e["purpose"], e["modifier"], e["total"]) for e in checks] == [
            ("climbing", 1, 12), ("morale_reroll", 0, 14)]
        assert rng.unused == 0 and hero.morale == 1

    def test_morale_reroll_keeps_advantage_and_learning(self, scripted) -> None:
        """A morale reroll keeps the roll's advantage; an exploit ticks the check's skill."""
        b = battle(duel(hero={"level": 0}, morale_on=True))
        hero = b.fighters[0]
        hero.morale = 2
        rng = scripted(b, (3, 20), (2, 20), (20, 20), (4, 20))
        assert D20_RULES.check(b.table, hero, "climbing", advantage=1).degree == CRITICAL_SUCCESS
        reroll = [e for e in b.log if e["event"] == "check_rolled"][-1]
        assert (reroll["dice"], reroll["advantage"]) == ([20, 4], 1)
        assert hero.learned == {"climbing"} and rng.unused == 0

    def test_not_spent_when_hopeless(self, scripted) -> None:
        """Short by 6 or more, no d6 can help: the die is kept."""
        b = battle(duel(hero={"level": 0, "heroism": 2}))
        hero = b.fighters[0]
        rng = scripted(b, (10, 20))
        assert D20_RULES.check(b.table, hero, "climbing").success is False
        assert hero.heroism == 2 and rng.unused == 0

    def test_not_spent_on_success_or_empty_pool(self, scripted) -> None:
        """A success needs no die, and an empty pool has none to give."""
        b = battle(duel(hero={"level": 0, "heroism": 1}))
        hero = b.fighters[0]
        scripted(b, (17, 20))
        D20_RULES.check(b.table, hero, "climbing")
        assert hero.heroism == 1
        hero.heroism = 0
        scripted(b, (15, 20))
        assert D20_RULES.check(b.table, hero, "climbing").bonus == 0

    def test_only_for_aspects(self, scripted) -> None:
        """Only rolls concerning one of the combatant's aspects may use heroism."""
        b = battle(duel(hero={"level": 0, "heroism": 2, "aspects": ("stealth",)}))
        hero = b.fighters[0]
        scripted(b, (12, 20))
        assert D20_RULES.check(b.table, hero, "climbing").bonus == 0
        scripted(b, (6, 20), (5, 6))  # stealth: 6 + 0 + 6 = 12, short by 4
        assert D20_RULES.check(b.table, hero, "stealth").bonus == 5

    def test_aspects_default_to_all(self, scripted) -> None:
        """Without `aspects` every roll concerns the combatant (rules §3: default all): a
        climbing check short by 4 spends a heroism die."""
        b = battle(duel(hero={"level": 0, "heroism": 1}))
        hero = b.fighters[0]
        scripted(b, (12, 20), (5, 6))  # 12 + 0 = 12, short by 4: +5
        assert D20_RULES.check(b.table, hero, "climbing").bonus == 5 and hero.heroism == 0

    def test_heroism_on_a_reroll_concerns_the_aspect_it_repeats(self, scripted) -> None:
        """A morale reroll concerns the aspect of the roll it repeats: a hero whose only
        aspect is `defense` spends heroism on the reroll of a failed defense roll."""
        b = battle(duel(morale_on=True, hero={"level": 0, "armor": 0, "heroism": 1,
                                              "aspects": ("defense",)}))
        hero, monster = b.fighters
        hero.morale = 3
        # Defense 1d20 + 0 > 11: a hopeless 3 (short by 8), then the reroll's 9 (short by 2),
        # saved by the heroism d6 (4): 13 > 11.
        rng = scripted(b, (3, 20), (9, 20), (4, 6))
        result = D20_RULES.attack(b.table, monster, hero, SWORD, 0)
        assert not result.hit and hero.heroism == 0 and hero.morale == 3 and rng.unused == 0
        checks = [(e["purpose"], e["success"]) for e in b.log if e["event"] == "check_rolled"]
        assert checks == [("defense", False), ("morale_reroll", True)]

    def test_a_reroll_of_an_attack_concerns_its_weapon_aspect(self, scripted) -> None:
        """A morale reroll of an attack concerns what the attack did, its weapon included: a
        hero whose only aspect is its sword spends heroism on the reroll of a missed blow."""
        sword = Weapon("sword", dice.parse("1d8"), skill="blades")
        b = battle(duel(morale_on=True,
                        hero={"level": 0, "heroism": 1, "aspects": ("sword",), "weapons": (sword,)},
                        monster={"defense_threshold": 12, "hp": 50}))
        hero, monster = b.fighters
        hero.morale = 3
        # 2 is short by 10 (no d6 makes that up); the reroll's 10 is short by 2, and the
        # heroism d6 (5) makes it 15 > 12: a hit for 1d8 (2) + 5.
        rng = scripted(b, (2, 20), (10, 20), (5, 6), (2, 8))
        b.attack(hero, monster, sword)
        spent = [(e["resource"], e["roll"]) for e in b.log if e["event"] == "resource_spent"]
        assert spent == [("heroism", 5)] and hero.morale == 3 and rng.unused == 0
        assert events(b.log, "damage_dealt")[-1]["amount"] == 2 + 5

    @pytest.mark.parametrize(("aspects", "spent"), [
        (("sword",), True), (("blades",), True), (("axes",), False)])
    def test_weapon_name_or_skill_is_an_aspect(self, scripted, aspects: tuple, spent: bool) -> None:
        """An attack concerns the aspect named by its weapon's name or its weapon's skill."""
        sword = Weapon("sword", dice.parse("1d8"), skill="blades")
        b = battle(duel(hero={"level": 0, "heroism": 1, "aspects": aspects, "weapons": (sword,)},
                        monster={"defense_threshold": 12, "hp": 50}))
        hero, monster = b.fighters
        rng = scripted(b, (10, 20), *([(5, 6), (2, 8)] if spent else []))  # 10 short by 2
        b.attack(hero, monster, sword)
        spent_events = [e for e in b.log if e["event"] == "resource_spent"]
        if spent:
            assert [(e["actor"], e["resource"], e["roll"], e["left"]) for e in spent_events] == [
                ("Hero", "heroism", 5, 0)]
            assert b.log[-1]["amount"] == 2 + 5
        else:
            assert spent_events == [] and hero.heroism == 1
        assert rng.unused == 0

    def test_attack_die_added_to_damage(self, scripted) -> None:
        """If a heroism-boosted attack hits, the same d6 is added to the damage."""
        b = battle(duel(hero={"level": 0, "heroism": 1}, monster={"defense_threshold": 14}))
        hero, monster = b.fighters
        scripted(b, (12, 20), (4, 6), (3, 8))  # 12 + 4 = 16 > 14: hit; damage 3 + 4
        b.attack(hero, monster, SWORD_OF(hero))
        assert b.log[-1]["event"] == "damage_dealt" and b.log[-1]["amount"] == 7

    def test_defense_die_not_added_to_damage(self, scripted) -> None:
        """A heroism die spent on a defense roll helps the defense only."""
        b = battle(duel(hero={"armor": 0, "heroism": 1}, monster={"attack_threshold": 12}))
        hero, monster = b.fighters
        scripted(b, (10, 20), (1, 6), (5, 8))  # 10 + 1 = 11, still <= 12: hit for 5
        b.attack(monster, hero, SWORD_OF(monster))
        assert b.log[-1]["amount"] == 5 and hero.heroism == 0


class TestGroupActions:
    """Group action (rules §3): a majority succeeds; a tie rolls 1d6 (1d8 with the gift)."""

    def _members(self, gift: bool = False):
        gifts = ("initiative",) if gift else ()
        b = battle(scenario(side("heroes", fighter("A"), fighter("B", gifts=gifts), party=True),
                            side("m", fighter("M"))))
        return b, b.fighters[:2]

    def test_majority(self, scripted) -> None:
        """Two of two successes: the group succeeds without a tie roll."""
        b, members = self._members()
        scripted(b, (20, 20), (19, 20))
        assert D20_RULES.group_check(b.table, members, "climbing") is True
        assert b.log[-1]["tie_roll"] is None

    @pytest.mark.parametrize(("tie", "ok"), [(4, True), (3, False), (6, True), (1, False)])
    def test_tie_rolls_d6(self, scripted, tie: int, ok: bool) -> None:
        """One success, one failure: 1d6, 4+ succeeds."""
        b, members = self._members()
        rng = scripted(b, (20, 20), (2, 20), (tie, 6))
        assert D20_RULES.group_check(b.table, members, "climbing") is ok
        assert b.log[-1]["tie_roll"] == tie and rng.unused == 0

    def test_each_member_rolls_the_named_check(self, scripted) -> None:
        """Each member rolls the group's check itself (stealth: a movement art, +6)."""
        b, members = self._members()
        rng = scripted(b, (12, 20), (12, 20))  # 12 + 1 + 6 = 19 > 16; a standard check fails
        assert D20_RULES.group_check(b.table, members, "stealth") is True
        event = b.log[-1]
        assert (event["what"], event["members"], event["successes"], event["failures"]) == (
            "stealth", ["A", "B"], 2, 0)
        assert rng.unused == 0

    def test_tie_with_gift_rolls_d8(self, scripted) -> None:
        """With the initiative gift the tie die is a d8."""
        b, members = self._members(gift=True)
        rng = scripted(b, (20, 20), (2, 20), (8, 8))
        assert D20_RULES.group_check(b.table, members, "climbing") is True
        assert rng.unused == 0 and b.log[-1]["tie_roll"] == 8


class TestSpiritAndTerror:
    """Spirit points option (rules §3): terror costs spirit; at 0 the mind is broken."""

    def test_starting_spirit_is_level_d12_plus_3(self) -> None:
        """Start: 1d12+3 at level 1, +1d12 per level after."""
        values = {1: set(), 3: set()}
        for seed in range(300):
            for level in values:
                b = battle(duel(hero={"level": level}, spirit=True), seed=seed, log=False)
                values[level].add(b.fighters[0].spirit)
        assert min(values[1]) >= 4 and max(values[1]) <= 15 and len(values[1]) == 12
        assert min(values[3]) >= 6 and max(values[3]) <= 39

    def test_spirit_dice_rolled_per_battle(self) -> None:
        """`spirit: DICE` on a stat block is rolled for each battle."""
        spec = duel(hero={"spirit": dice.parse("1d6")}, spirit=True)
        rolls = {battle(spec, seed=s, log=False).fighters[0].spirit for s in range(60)}
        assert rolls == set(range(1, 7))

    def test_no_spirit_without_option(self) -> None:
        """Without `spirit: true` nobody has spirit points (a creature's terror is then refused
        by validation: tests/scenario/test_unused.py)."""
        b = battle(duel(monster={"terror": dice.parse("1d6")}))
        assert b.fighters[0].spirit is None

    def test_terror_check_and_loss(self, scripted) -> None:
        """A terror creature frightens each party member in round 1: a failed standard
        check loses the creature's terror dice in spirit points."""
        b = battle(duel(hero={"level": 1, "spirit": dice.parse(10)},
                        monster={"terror": dice.parse("1d6")}, spirit=True))
        hero = b.fighters[0]
        b.table.round = 1
        scripted(b, (3, 20), (4, 6))
        b.rules.round_started(b.table, b.fighters, b.lose_spirit)
        assert hero.spirit == 6
        lost = b.log[-1]
        assert (lost["event"], lost["amount"], lost["spirit_after"]) == ("spirit_lost", 4, 6)

    def test_terror_only_in_round_one(self, scripted) -> None:
        """Terror frightens the first round the creature is seen, never again."""
        b = battle(duel(hero={"spirit": dice.parse(10)}, monster={"terror": dice.parse(3)},
                        spirit=True))
        b.table.round = 2
        rng = scripted(b)
        b.rules.round_started(b.table, b.fighters, b.lose_spirit)
        assert rng.unused == 0 and b.fighters[0].spirit == 10

    def test_broken_mind_not_frightened_again(self, scripted) -> None:
        """A mind broken by one terror creature is out: the next creature does not frighten it."""
        spec = scenario(side("h", fighter("Hero", spirit=dice.parse(2)), party=True),
                        side("m", fighter("Ghoul", terror=dice.parse(3)),
                             fighter("Wight", terror=dice.parse(3))), spirit=True)
        b = battle(spec)
        b.table.round = 1
        rng = scripted(b, (3, 20))
        b.rules.round_started(b.table, b.fighters, b.lose_spirit)
        assert b.fighters[0].status == "broken" and rng.unused == 0
        assert len([e for e in b.log if e["event"] == "check_rolled"]) == 1

    def test_broken_mind_is_out_but_alive(self, scripted) -> None:
        """At 0 spirit the mind is broken: out of the fight, alive, not a target; its side,
        with an able member left, fights on."""
        spec = scenario(side("heroes", fighter("Hero", spirit=dice.parse(3)), fighter("Friend"),
                             party=True),
                        side("monsters", fighter("Monster", terror=dice.parse(5))), spirit=True)
        b = battle(spec)
        b.table.round = 1
        scripted(b, (2, 20), (20, 20))  # Hero fails and breaks; Friend is not frightened
        b.rules.round_started(b.table, b.fighters, b.lose_spirit)
        hero, friend, monster = b.fighters
        assert hero.status == "broken" and not hero.able and hero.hp > 0
        assert not b._decided()
        b.deal_damage(monster, 99, friend, "weapon")
        assert b._decided() and b.winner == "heroes"
        assert "Hero" not in b.log[-1]["dead"] and b.log[-1]["broken"] == ["Hero"]

    def test_broken_mind_dies_if_its_side_loses(self, scripted) -> None:
        """A broken mind is out like an unconscious body: when its side loses (no able member
        left, rules §5), it dies, of terror."""
        b = battle(duel(hero={"spirit": dice.parse(3)}, monster={"terror": dice.parse(5)},
                        spirit=True))
        b.table.round = 1
        scripted(b, (2, 20))
        b.rules.round_started(b.table, b.fighters, b.lose_spirit)
        hero = b.fighters[0]
        assert b._decided() and b.winner == "monsters"
        assert hero.status == "dead" and hero.cause == "terror"
        assert b.log[-1]["dead"] == ["Hero"] and b.log[-1]["broken"] == []

    def test_broken_mind_is_not_conscious_for_the_initiative_gift(self) -> None:
        """A broken mind does not count as conscious: its `initiative` gift no longer gives
        the party a d8."""
        spec = scenario(side("h", fighter("A", gifts=("initiative",)), fighter("B"), party=True),
                        side("m", fighter("M")), spirit=True)
        b = battle(spec)
        b._initiative()
        assert b.log[-1]["die"] == 8
        b.lose_spirit(b.fighters[0], 999, b.fighters[2])
        b._initiative()
        assert b.log[-1]["die"] == 6

    def test_terror_once_per_kind_of_creature(self) -> None:
        """Terror is rolled once per kind of creature, not per body: three ghouls of one stat
        block frighten each party member once, the wraith once more; a rat not at all."""
        ghouls = [fighter(f"ghoul {i}", terror=dice.parse(1), kind="ghoul") for i in (1, 2, 3)]
        b = battle(scenario(side("heroes", fighter("A", spirit=dice.parse(50)),
                                 fighter("B", spirit=dice.parse(50)), party=True),
                            side("undead", *ghouls, fighter("wraith", terror=dice.parse(2)),
                                 fighter("rat")), spirit=True))
        b.table.round = 1
        b.rules.round_started(b.table, b.fighters, b.lose_spirit)
        terror = [e["actor"] for e in b.log if e["event"] == "check_rolled" and e["purpose"] == "terror"]
        assert terror == ["A", "B"] * 2
        sources = {(e["target"], e["source"]) for e in b.log if e["event"] == "spirit_lost"}
        assert sources <= {(m, c) for m in "AB" for c in ("ghoul 1", "wraith")}

    def test_terror_per_body_option(self) -> None:
        """terror_per: body: every body frightens each party member, the reading rules §3's
        Convention set aside: three ghouls of one stat block and the wraith, four checks each."""
        ghouls = [fighter(f"ghoul {i}", terror=dice.parse(1), kind="ghoul") for i in (1, 2, 3)]
        b = battle(scenario(side("heroes", fighter("A", spirit=dice.parse(50)),
                                 fighter("B", spirit=dice.parse(50)), party=True),
                            side("undead", *ghouls, fighter("wraith", terror=dice.parse(2)),
                                 fighter("rat")), spirit=True, terror_per="body"))
        b.table.round = 1
        b.rules.round_started(b.table, b.fighters, b.lose_spirit)
        terror = [e["actor"] for e in b.log if e["event"] == "check_rolled" and e["purpose"] == "terror"]
        assert terror == ["A", "B"] * 4

    @pytest.mark.parametrize(("per", "exact"), [("kind", 1 - 0.25), ("body", 1 - 0.25 ** 3)])
    def test_terror_per_body_probability(self, per: str, exact: float) -> None:
        """A level-1 hero fails a standard check (1d20 + 1 > 16) with p 3/4: three ghouls of
        one kind frighten it with p 3/4 per kind, 1 - (1/4)^3 per body."""
        ghouls = [fighter(f"ghoul {i}", terror=dice.parse(1), kind="ghoul") for i in (1, 2, 3)]
        spec = scenario(side("heroes", fighter("A", spirit=dice.parse(50)), party=True),
                        side("undead", *ghouls), spirit=True, terror_per=per)
        n, frightened = 4000, 0
        for seed in range(n):
            b = battle(spec, seed=seed, log=False)
            b.table.round = 1
            b.rules.round_started(b.table, b.fighters, b.lose_spirit)
            frightened += b.fighters[0].spirit < 50
        se = math.sqrt(exact * (1 - exact) / n)
        assert abs(frightened / n - exact) <= 4 * se

    def test_creatures_of_different_stat_blocks_each_frighten(self) -> None:
        """Terror: creatures of different stat blocks (kinds) frighten each party member in turn."""
        ghouls = [fighter(f"ghoul {i}", terror=dice.parse(1)) for i in (1, 2, 3)]
        b = battle(scenario(side("heroes", fighter("A", spirit=dice.parse(50)),
                                 fighter("B", spirit=dice.parse(50)), party=True),
                            side("ghouls", *ghouls, fighter("rat")), spirit=True))
        b.table.round = 1
        b.rules.round_started(b.table, b.fighters, b.lose_spirit)
        terror = [e["actor"] for e in b.log if e["event"] == "check_rolled" and e["purpose"] == "terror"]
        assert terror == ["A", "B"] * 3

    def test_terror_once_per_kind_in_the_haunted_crypt(self) -> None:
        """Terror per kind, end to end: in scenarios/haunted_crypt.yaml (a wraith and
        `count: 3` ghouls) no hero rolls more than two terror checks."""
        spec = load_scenario(REPO / "scenarios" / "haunted_crypt.yaml")
        most = 0
        for seed in range(20):
            _, log = run_battle(spec, seed, log=True)
            checks = Counter(e["actor"] for e in log
                             if e["event"] == "check_rolled" and e["purpose"] == "terror")
            most = max(most, *checks.values())
        assert most == 2


class TestHitPoints:
    """HP as dice rolled each battle (rules §5, d20)."""

    def test_hp_dice_rolled_per_battle(self) -> None:
        """`hp: 3d8` is rolled anew for every battle, within 3..24, mean 13.5."""
        spec = duel(hero={"hp": "3d8"})
        rolls = [battle(spec, seed=s, log=False).fighters[0].max_hp for s in range(2000)]
        assert min(rolls) >= 3 and max(rolls) <= 24 and len(set(rolls)) > 12
        mean = sum(rolls) / len(rolls)
        sd = math.sqrt(3 * (64 - 1) / 12)
        assert abs(mean - 13.5) < 4 * sd / math.sqrt(len(rolls))
