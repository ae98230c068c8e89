"""Morale tokens of seed 000, one test (or class) per rule of rules §4 (and the rout convention)."""

from __future__ import annotations

import json
import math
import pathlib
from collections import Counter

import attrs
import icepool
import pytest

from sim import dice
from sim.cli import main
from sim.engine import Battle, run_battle
from sim.engine.effects import Burning
from sim.engine.morale import give_tokens, state_of
from sim.model import Options, Scenario
from sim.rules import CRITICAL_FAILURE, CRITICAL_SUCCESS
from sim.rules.systems import system_for
from tests.builders import ScriptedRandom, battle, duel, events, fighter, scenario, side, turn

QUALITY = system_for("2d10")
D20 = system_for("d20")
N = 20_000


class TestTokens:
    """Each combatant that holds tokens starts each battle with 2d6 of them (rules §4)."""

    def test_2d6_per_combatant_in_listed_order(self) -> None:
        """Tokens: 2d6 rolled for each combatant at set-up, in listed order."""
        b = Battle(duel2d10(morale_who="everyone"), 1, log=True)
        b.table.use(ScriptedRandom([(3, 6), (4, 6), (6, 6), (2, 6)]))  # HP are fixed: only tokens roll
        b._setup()
        assert [f.morale for f in b.fighters] == [7, 8]
        assert [c["morale"] for c in b.log[0]["combatants"]] == [7, 8]
        assert b.table.rng.unused == 0

    def test_2d6_distribution(self) -> None:
        """Tokens: the starting stock follows 2d6 exactly (icepool), rolled anew each battle."""
        b = battle(duel2d10(), seed=5, log=False)
        hero = b.fighters[0]
        counts = Counter()
        for _ in range(N):
            give_tokens(b.table, hero)
            counts[hero.morale] += 1
        die = 2 @ icepool.d6
        assert set(counts) <= set(range(2, 13))
        for tokens in range(2, 13):
            assert within(counts[tokens], N, float(die.probability(tokens))), tokens

    def test_rolled_per_battle(self) -> None:
        """Tokens: each battle rolls its own stock (different seeds, different stocks)."""
        stocks = {tuple(f.morale for f in battle(duel2d10(morale_who="everyone"), seed=s,
                                                 log=False).fighters)
                  for s in range(40)}
        assert len(stocks) > 10

    def test_stat_block_morale_dice(self) -> None:
        """Tokens: a stat block's `morale` dice replace the default 2d6."""
        b = battle(duel2d10(hero={"morale": dice.parse(3)}, foe={"morale": dice.parse("1d4+20")},
                            morale_who="everyone"))
        hero, foe = b.fighters
        assert hero.morale == 3 and 21 <= foe.morale <= 24

    def test_on_by_default_with_2d10(self) -> None:
        """Morale is on by default with the 2d10 system."""
        b = battle(duel2d10())
        assert b.morale_on and 2 <= b.fighters[0].morale <= 12

    def test_off_when_asked_with_2d10(self) -> None:
        """`morale: false` turns it off with 2d10: no tokens at all."""
        b = battle(duel2d10(morale_on=False))
        assert not b.morale_on and [f.morale for f in b.fighters] == [None, None]

    @pytest.mark.parametrize("rules", ["d20", "d10", "d100"])
    def test_off_by_default_elsewhere(self, rules: str) -> None:
        """Morale is off by default outside 2d10, on with `morale: true`."""
        off = battle(attrs.evolve(duel(), rules=rules))
        assert not off.morale_on and off.fighters[0].morale is None
        on = battle(attrs.evolve(duel(morale_on=True), rules=rules))
        assert on.morale_on and 2 <= on.fighters[0].morale <= 12


class TestTokensBelongToThePlayers:
    """Rules §4 (seed 000: "ce stock de jeton est de 2d6 pour chaque joueur"): the party's
    members hold tokens; the other sides hold none, never reroll by morale and never despair.
    Without a party side every side holds them; ``morale: {who: everyone}`` gives every side
    tokens."""

    def test_only_the_party_holds_tokens(self) -> None:
        hero, monster = battle(duel2d10()).fighters
        assert 2 <= hero.morale <= 12 and monster.morale is None

    def test_without_a_party_side_every_side_holds_tokens(self) -> None:
        b = battle(quality(side("a", fighter("A")), side("b", fighter("B"))))
        assert all(2 <= f.morale <= 12 for f in b.fighters)

    def test_who_everyone_gives_every_side_tokens(self) -> None:
        b = battle(duel2d10(morale_who="everyone"))
        assert all(2 <= f.morale <= 12 for f in b.fighters)

    def test_a_monsters_own_morale_dice_count_only_where_its_side_holds_tokens(self) -> None:
        foe = {"morale": dice.parse(20)}
        assert battle(duel2d10(foe=foe)).fighters[1].morale is None
        assert battle(duel2d10(foe=foe, morale_who="everyone")).fighters[1].morale == 20

    def test_monsters_never_reroll_despair_or_change_tokens(self) -> None:
        """Over many battles the party rerolls, gains and loses tokens; the monsters never
        do anything morale-wise (and the first battles prove the party's side does)."""
        party_events = 0
        for seed in range(40):
            log = run_battle(duel2d10(foe={"hp": 30}), seed, log=True)[1]
            for e in log:
                if e["event"] == "check_rolled" and e["purpose"] in ("morale_reroll", "despair"):
                    assert e["actor"] == "Hero", e
                    party_events += 1
                if e["event"] in ("morale_changed", "resource_spent", "learning_ticked"):
                    assert e["actor"] == "Hero", e
                if e["event"] == "effect_started" and e["effect"] in ("demoralized", "despairing"):
                    assert e["target"] == "Hero", e
        assert party_events > 20


class TestEndState:
    """How a combatant ends, morale-wise (the summary's demoralized and despairing)."""

    @pytest.mark.parametrize(("tokens", "despairing", "state"), [
        (3, False, None), (1, False, None), (0, False, "demoralized"), (0, True, "despairing"),
        (None, False, None)])
    def test_state_of(self, tokens, despairing, state) -> None:
        hero = battle(duel2d10()).fighters[0]
        hero.morale, hero.despairing = tokens, despairing
        assert state_of(hero) == state


class TestReroll:
    """A failed check is rerolled once; a token is spent only if the reroll fails too (rules §4)."""

    def test_reroll_succeeds_costs_nothing(self, scripted) -> None:
        """Morale reroll: a failed check rerolled into a success spends no token."""
        b, hero = one_hero(5)
        rng = scripted(b, (6, 10), (6, 10), (5, 10), (5, 10))  # Q = -1, then Q = +1
        result = QUALITY.check(b.table, hero, "physique")
        assert (result.success, result.margin, result.dice) == (True, 1, (5, 5))
        assert hero.morale == 5
        assert names(b.log) == ["check_rolled", "check_rolled"]
        assert [e["purpose"] for e in b.log] == ["physique", "morale_reroll"]
        assert [e["skill"] for e in b.log] == ["physique", "physique"]
        assert [e["success"] for e in b.log] == [False, True]
        assert rng.unused == 0

    def test_reroll_fails_costs_one_token(self, scripted) -> None:
        """Morale reroll: a failed reroll spends exactly one token (`resource_spent` morale)."""
        b, hero = one_hero(5)
        rng = scripted(b, (6, 10), (6, 10), (7, 10), (6, 10))  # Q = -1, then Q = -2
        result = QUALITY.check(b.table, hero, "physique")
        assert (result.success, result.margin) == (False, -2)
        assert hero.morale == 4
        assert names(b.log) == ["check_rolled", "check_rolled", "resource_spent"]
        assert b.log[1]["purpose"] == "morale_reroll"
        spent = b.log[2]
        assert (spent["actor"], spent["resource"], spent["amount"], spent["left"]) == (
            "Hero", "morale", 1, 4)
        assert rng.unused == 0  # rerolled once only

    def test_no_reroll_on_success(self, scripted) -> None:
        """Morale reroll: a successful check is kept as it is."""
        b, hero = one_hero(5)
        rng = scripted(b, (5, 10), (6, 10))
        assert QUALITY.check(b.table, hero, "physique").success
        assert names(b.log) == ["check_rolled"] and hero.morale == 5 and rng.unused == 0

    def test_reroll_keeps_the_new_result(self, scripted) -> None:
        """Morale reroll: the new result is kept even when worse (a failure rerolled into a
        disaster: one token for the reroll, one for the disaster)."""
        b, hero = one_hero(5)
        scripted(b, (6, 10), (6, 10), (10, 10), (10, 10))  # Q = -1, then Q = -9
        result = QUALITY.check(b.table, hero, "physique")
        assert (result.margin, result.degree) == (-9, CRITICAL_FAILURE)
        assert hero.morale == 3
        assert names(b.log) == ["check_rolled", "check_rolled", "resource_spent",
                                "morale_changed", "learning_ticked"]
        assert (b.log[3]["delta"], b.log[3]["reason"], b.log[3]["tokens"]) == (-1, "disaster", 3)

    def test_attack_reroll_comes_right_after_the_failed_attack(self, scripted) -> None:
        """Morale reroll: on an attack, the reroll is logged right after the failed attack roll."""
        b, hero = one_hero(5, combat=11)
        foe = b.fighters[1]
        rng = scripted(b, (6, 10), (6, 10), (3, 10), (3, 10), (4, 8))
        b.attack(hero, foe, hero.spec.weapons[0])
        assert names(b.log)[:3] == ["check_rolled", "check_rolled", "attack_resolved"]
        assert [b.log[0]["purpose"], b.log[1]["purpose"]] == ["attack", "morale_reroll"]
        assert b.log[2]["hit"] is True and rng.unused == 0

    def test_d20_with_morale_rerolls(self, scripted) -> None:
        """Morale reroll: with `morale: true` a d20 check is rerolled the same way."""
        b = battle(duel(morale_on=True, hero={"level": 1}))
        hero = b.fighters[0]
        hero.morale = 3
        scripted(b, (5, 20), (9, 20))  # 6 and 10, both <= 16
        assert not D20.check(b.table, hero, "persuasion").success
        assert [e["purpose"] for e in b.log if e["event"] == "check_rolled"][-2:] == [
            "persuasion", "morale_reroll"]
        assert hero.morale == 2

    def test_reroll_probability(self) -> None:
        """Morale reroll: with tokens to spare P(success) = 1 - (1 - p)^2 and a token goes on
        (1 - p)^2 of the checks (SR 11 on 2d10: p = 55/100)."""
        b = battle(duel2d10(hero={"characteristics": {"physique": 11}, "morale": dice.parse(10**6)}),
                   seed=9)
        hero = b.fighters[0]
        successes = sum(QUALITY.check(b.table, hero, "physique").success for _ in range(N))
        spent = sum(1 for e in b.log if e["event"] == "resource_spent")
        assert within(successes, N, 1 - 0.45**2)
        assert within(spent, N, 0.45**2)


class TestGainsAndLosses:
    """Exploit +1, kill +2, disaster -1, an ally falls -4, wound -floor(k / 2) (rules §4)."""

    def test_exploit_gains_one(self, scripted) -> None:
        """Gains: an exploit (Q > 7) gives +1 token."""
        b, hero = one_hero(5)
        scripted(b, (1, 10), (1, 10))
        assert QUALITY.check(b.table, hero, "physique").degree == CRITICAL_SUCCESS
        assert changes(b.log) == [("Hero", 1, "exploit", 6)] and hero.morale == 6

    def test_disaster_loses_one(self, scripted) -> None:
        """Losses: a disaster (Q < -7) costs 1 token, on top of the token its failed reroll spent."""
        b, hero = one_hero(5)
        scripted(b, (10, 10), (10, 10), (10, 10), (10, 10))
        assert QUALITY.check(b.table, hero, "physique").degree == CRITICAL_FAILURE
        assert names(b.log).count("resource_spent") == 1
        assert changes(b.log) == [("Hero", -1, "disaster", 3)] and hero.morale == 3

    def test_plain_results_change_nothing(self, scripted) -> None:
        """Gains and losses: a plain success or a plain failure moves no token by itself."""
        b, hero = one_hero(5)
        scripted(b, (3, 10), (3, 10), (9, 10), (9, 10), (9, 10), (9, 10))  # Q = 5, then -7 twice
        QUALITY.check(b.table, hero, "physique")
        QUALITY.check(b.table, hero, "physique")
        assert changes(b.log) == [] and hero.morale == 4  # only the failed reroll's token

    def test_kill_gains_two(self) -> None:
        """Gains: dropping an enemy gives its killer +2 tokens."""
        b = battle(duel2d10())
        hero, foe = b.fighters
        hero.morale = foe.morale = 5
        b.deal_damage(foe, 99, hero, "weapon")
        assert ("Hero", 2, "kill", 7) in changes(b.log) and hero.morale == 7

    def test_no_kill_gain_without_a_killer(self) -> None:
        """Gains: a fall with no source (a hazard) gives nobody the kill."""
        b = battle(duel2d10())
        hero, foe = b.fighters
        hero.morale = foe.morale = 5
        b.deal_damage(foe, 99, None, "fall")
        assert hero.morale == 5 and [c for c in changes(b.log) if c[2] != "wound"] == []

    def test_each_conscious_ally_loses_four(self) -> None:
        """Losses: when one falls, each conscious ally loses 4 (the unconscious ones do not)."""
        b = battle(quality(side("heroes", fighter("A"), fighter("B"), fighter("C"), fighter("D"),
                                party=True),
                           side("monsters", fighter("X"))))
        a, _bb, c, d, x = b.fighters
        for f in b.fighters:
            f.morale = 6
        d.morale = 3
        b._set_status(c, "unconscious")  # already out before A falls
        b.deal_damage(a, 99, x, "weapon")
        assert sorted(changes(b.log)) == [("A", -5, "wound", 1), ("B", -4, "ally_fell", 2),
                                          ("D", -3, "ally_fell", 0), ("X", 2, "kill", 8)]
        assert (a.morale, c.morale) == (1, 6)  # A's own wound of its 10 HP, not its fall

    def test_an_ally_falls_once(self) -> None:
        """Losses: one knocked out by a serious wound has fallen; brought to 0 HP while out, it
        does not fall again (allies lose 4 once, the kill is gained once, one knocked_out). The
        fire's 20 HP are still a wound to it (rules §4: HP lost of any kind)."""
        b = battle(attrs.evolve(scenario(side("heroes", fighter("A", hp=20), fighter("B"), party=True),
                                         side("monsters", fighter("X")), morale_on=True), rules="d100"))
        a, _ally, x = b.fighters
        for f in b.fighters:
            f.morale = 6
        b.set_unconscious(a, "weapon")  # a serious wound: out with HP left
        b.deal_damage(a, 99, x, "fire")  # then its fire takes the rest
        assert a.hp == 0 and a.status == "unconscious"
        assert changes(b.log) == [("B", -4, "ally_fell", 2), ("A", -6, "wound", 0)]
        assert [e["target"] for e in b.log if e["event"] == "knocked_out"] == ["A"]

    def test_broken_mind_loses_no_morale_when_an_ally_falls(self) -> None:
        """Losses: a broken mind (d20 spirit at 0) is out of the fight, not a conscious ally:
        it loses nothing when an ally falls; the conscious ones lose 4."""
        b = battle(attrs.evolve(scenario(side("heroes", fighter("A"), fighter("B"), fighter("C"),
                                              party=True),
                                         side("monsters", fighter("X")),
                                         morale_on=True, spirit=True), rules="d20"))
        a, broken, _c, x = b.fighters
        for f in b.fighters:
            f.morale = 6
        b.lose_spirit(broken, 999, x)
        assert not broken.able
        b.deal_damage(a, 99, x, "weapon")
        fell = [(who, delta) for who, delta, reason, _ in changes(b.log) if reason == "ally_fell"]
        assert fell == [("C", -4)] and broken.morale == 6

    @pytest.mark.parametrize(("divisor", "amount", "delta"),
                             [(2, 1, 0), (2, 2, -1), (2, 3, -1), (2, 7, -3), (3, 2, 0),
                              (3, 3, -1), (3, 5, -1), (3, 6, -2), (3, 11, -3)])
    def test_wound_costs_floor_k_over_divisor(self, divisor: int, amount: int, delta: int) -> None:
        """Losses: a wound of k damage costs floor(k / 2) tokens, floor(k / 3) with wound_divisor 3."""
        b = battle(duel2d10(wound_divisor=divisor, hero={"hp": 40}))
        hero, foe = b.fighters
        hero.morale = 6
        b.deal_damage(hero, amount, foe, "weapon")
        assert changes(b.log) == ([("Hero", delta, "wound", 6 + delta)] if delta else [])

    def test_wound_counts_damage_after_armor(self, scripted) -> None:
        """Losses: k is the damage the hit deals (after armor): 7 - 2 armor = 5, so -2."""
        b = battle(duel2d10(hero={"characteristics": {"combat": 12}},
                            foe={"armor": 2, "hp": 40}))
        hero, foe = b.fighters
        foe.morale = 6
        scripted(b, (5, 10), (5, 10), (7, 8))
        b.attack(hero, foe, hero.spec.weapons[0])
        assert changes(b.log) == [("Monster", -2, "wound", 4)]

    def test_wound_that_drops_its_target_costs_tokens_too(self) -> None:
        """Losses: "wound -floor(k / 2) with k the HP lost", the hit that knocks a combatant out
        included: 9 damage on 5 HP takes 5 HP and costs 2 tokens, then its ally loses 4."""
        b = battle(quality(side("heroes", fighter("Hero", hp=5), fighter("Ally"), party=True),
                           side("monsters", fighter("Monster"))))
        hero, ally, foe = b.fighters
        hero.morale = ally.morale = foe.morale = 6
        b.deal_damage(hero, 9, foe, "weapon")
        assert changes(b.log) == [("Hero", -2, "wound", 4), ("Monster", 2, "kill", 8),
                                  ("Ally", -4, "ally_fell", 2)]

    def test_no_wound_to_a_body_already_down(self) -> None:
        """Losses: k is the HP lost, so fire on a body already at 0 HP (it loses none) costs no
        token."""
        b = battle(duel2d10(hero={"hp": 5}))
        hero, foe = b.fighters
        hero.morale = 6
        b.deal_damage(hero, 5, foe, "weapon")
        b.log.clear()
        b.deal_damage(hero, 6, None, "fire", True)
        assert changes(b.log) == [] and hero.morale == 4

    def test_spell_price_is_no_wound(self) -> None:
        """Losses: "wound -floor(k / 2) with k the HP lost": the HP a caster pays
        for a spell with no PSY left (rules §3) are no hit, so no token is lost; paying to 0 HP
        is still a fall (its ally loses 4, nobody gains a kill)."""
        b = battle(quality(side("heroes", fighter("Hero", hp=5), fighter("Ally"), party=True),
                           side("monsters", fighter("Monster"))))
        hero, ally, foe = b.fighters
        hero.morale = ally.morale = foe.morale = 6
        b.pay_psy(hero, 4)
        assert changes(b.log) == [] and hero.hp == 1
        b.pay_psy(hero, 3)
        assert changes(b.log) == [("Ally", -4, "ally_fell", 2)] and hero.morale == 6

    def test_tokens_never_below_zero(self) -> None:
        """Losses: tokens stop at 0 (a big wound empties the stock, no more)."""
        b = battle(duel2d10(hero={"hp": 40}))
        hero, foe = b.fighters
        hero.morale = 2
        b.deal_damage(hero, 20, foe, "weapon")
        assert changes(b.log) == [("Hero", -2, "wound", 0)] and hero.morale == 0


class TestMounts:
    """Mounts take no part in morale (rules §4, seed 000): a mount going down is neither the
    fall of a friend nor of an enemy, and mounts hold no tokens."""

    def _mounted(self) -> Battle:
        return battle(quality(side("heroes", fighter("Knight", mount="Horse"),
                                   fighter("Horse", hp=30, rider="Knight"), fighter("Squire"),
                                   party=True),
                              side("monsters", fighter("X", hp=40)), morale_who="everyone"))

    def test_mounts_hold_no_tokens(self) -> None:
        knight, horse, squire, x = self._mounted().fighters
        assert horse.morale is None
        assert None not in (knight.morale, squire.morale, x.morale)

    def test_mounts_falling_gives_and_costs_no_tokens(self) -> None:
        """Its killer gains no kill, its rider and allies lose nothing (the rider's fall from
        the saddle is a fall, not a wound here: slid off, no damage)."""
        b = self._mounted()
        knight, horse, squire, x = b.fighters
        for f in (knight, squire, x):
            f.morale = 6
        b.deal_damage(horse, 99, x, "weapon")
        b.kill(horse, "weapon")
        assert [c for c in changes(b.log) if c[0] != "Knight" or c[2] != "wound"] == []
        assert (squire.morale, x.morale) == (6, 6)

    def test_a_rider_falling_still_costs_its_allies(self) -> None:
        b = self._mounted()
        knight, _horse, squire, x = b.fighters
        for f in (knight, squire, x):
            f.morale = 6
        b.deal_damage(knight, 99, x, "weapon")
        assert ("Squire", -4, "ally_fell", 2) in changes(b.log) and ("X", 2, "kill", 8) in changes(b.log)


class TestWoundsOfAnyKind:
    """Any HP lost is a wound (rules §4): fire, poison, drowning, falls and explosions cost
    floor(k / 2) tokens as a weapon's blow does."""

    @pytest.mark.parametrize("kind", ["weapon", "fire", "poison", "drowning", "fall", "explosion"])
    def test_wounds_of_any_kind_cost_tokens(self, kind: str) -> None:
        b = battle(duel2d10(hero={"hp": 40}))
        hero, _ = b.fighters
        hero.morale = 6
        b.deal_damage(hero, 5, None, kind, kind != "weapon")
        assert changes(b.log) == [("Hero", -2, "wound", 4)]

    def test_wounds_of_any_kind_from_a_burning_tick(self) -> None:
        """A fire's own tick (the effect, not a scripted blow) is a wound too."""
        b = battle(duel2d10(hero={"hp": 40}))
        hero, _ = b.fighters
        hero.morale = 9
        Burning(b, hero).start()
        b.env.run()  # the effect's process starts, waiting for its owner's turns
        b.table.use(ScriptedRandom(((6, 6), (1, 10), (1, 10))))  # 6 fire, then put out
        turn(b, hero)
        assert changes(b.log)[0] == ("Hero", -3, "wound", 6)


class TestDemoralized:
    """At 0 tokens the combatant is demoralized (rules §4)."""

    def test_reaching_zero_demoralizes(self) -> None:
        """Demoralized: losing the last tokens starts `demoralized`."""
        b = battle(duel2d10(hero={"hp": 40}))
        hero, foe = b.fighters
        hero.morale = 1
        b.deal_damage(hero, 2, foe, "weapon")
        assert effects(b.log) == [("effect_started", "Hero", "demoralized")]

    def test_spending_the_last_token_demoralizes(self, scripted) -> None:
        """Demoralized: the token a failed reroll spends can be the last one."""
        b, hero = one_hero(1)
        scripted(b, (6, 10), (6, 10), (6, 10), (6, 10))
        QUALITY.check(b.table, hero, "physique")
        assert hero.morale == 0
        assert effects(b.log) == [("effect_started", "Hero", "demoralized")]

    def test_starting_at_zero_is_demoralized(self) -> None:
        """Demoralized: a combatant whose stock rolls 0 starts demoralized."""
        b = battle(duel2d10(hero={"morale": dice.parse(0)}))
        assert ("effect_started", "Hero", "demoralized") in effects(b.log)

    def test_starting_at_zero_is_logged_after_battle_started(self) -> None:
        """Demoralized from the start: logged after `battle_started`, which opens every log."""
        _, log = run_battle(duel2d10(hero={"morale": dice.parse(0)}, max_rounds=1), 1, log=True)
        assert log[0]["event"] == "battle_started"
        assert ("effect_started", "Hero", "demoralized") in effects(log)

    def test_a_gain_ends_demoralized(self) -> None:
        """Demoralized: gaining a token (a kill) ends `demoralized`."""
        b = battle(duel2d10())
        hero, foe = b.fighters
        hero.morale = 0
        b.deal_damage(foe, 99, hero, "weapon")
        assert ("effect_ended", "Hero", "demoralized") in effects(b.log) and hero.morale == 2


class TestDespair:
    """A demoralized combatant may reroll by despair: +1 token, or despairing (rules §4)."""

    def test_despair_success_gains_a_token(self, scripted) -> None:
        """Despair: a failed check rerolled by despair into a success gains 1 token and ends
        demoralized."""
        b, hero = one_hero(0)
        rng = scripted(b, (6, 10), (6, 10), (5, 10), (5, 10))
        assert QUALITY.check(b.table, hero, "physique").success
        assert [e["purpose"] for e in b.log if e["event"] == "check_rolled"] == ["physique", "despair"]
        assert names(b.log)[:2] == ["check_rolled", "check_rolled"]
        assert changes(b.log) == [("Hero", 1, "despair", 1)]
        assert ("effect_ended", "Hero", "demoralized") in effects(b.log)
        assert not hero.despairing and "resource_spent" not in names(b.log)
        assert rng.unused == 0

    def test_despair_failure_starts_despairing(self, scripted) -> None:
        """Despair: a failed despair reroll starts `despairing` (no token to spend)."""
        b, hero = one_hero(0)
        rng = scripted(b, (6, 10), (6, 10), (6, 10), (7, 10))
        assert not QUALITY.check(b.table, hero, "physique").success
        assert [e["purpose"] for e in b.log if e["event"] == "check_rolled"] == ["physique", "despair"]
        assert effects(b.log) == [("effect_started", "Hero", "despairing")]
        assert hero.despairing and hero.morale == 0
        assert "resource_spent" not in names(b.log) and rng.unused == 0

    def test_despairing_rolls_with_disadvantage(self, scripted) -> None:
        """Convention: a despairing combatant rolls every check with disadvantage (2d12)."""
        b, hero = one_hero(0)
        hero.despairing = True
        rng = scripted(b, (6, 12), (6, 12))  # a d10 would read these draws as 5s
        result = QUALITY.check(b.table, hero, "physique")
        assert result.dice == (6, 6) and b.log[-1]["advantage"] == -1
        assert rng.unused == 0

    @pytest.mark.parametrize(("rules", "advantage", "faces", "kept"), [
        ("d10", 0, [(7, 10), (3, 10)], 3),   # two chains, the worse kept
        ("d10", 1, [(7, 10)], 7),            # advantage cancels: one chain
        ("d10", -1, [(7, 10), (3, 10)], 3),  # already at disadvantage: still the worse
        ("d100", 0, [(30, 100), (70, 100)], 70),
        ("d100", 1, [(30, 100)], 30),
        ("d20", 0, [(15, 20), (5, 20)], 5),
        ("d20", 1, [(15, 20)], 15),
    ])
    def test_despairing_in_every_system(self, scripted, rules, advantage, faces, kept) -> None:
        """Convention: despairing is disadvantage in every system; advantage cancels it."""
        b = battle(attrs.evolve(duel2d10(), rules=rules, options=Options(morale_on=False)))
        hero = b.fighters[0]
        hero.despairing = True
        rng = scripted(b, *faces)
        system_for(rules).check(b.table, hero, "physique", advantage=advantage)
        check = [e for e in b.log if e["event"] == "check_rolled"][-1]
        assert (check["kept"], check["advantage"]) == (kept, -1 if advantage <= 0 else 0)
        assert rng.unused == 0

    def test_despairing_advantage_cancels(self, scripted) -> None:
        """Convention: a despairing combatant's advantage cancels its disadvantage (2d10)."""
        b, hero = one_hero(0)
        hero.despairing = True
        scripted(b, (7, 10), (3, 10))
        assert QUALITY.check(b.table, hero, "physique", advantage=1).dice == (7, 3)

    def test_despairing_makes_no_despair_reroll(self, scripted) -> None:
        """Convention: a despairing combatant cannot use despair again: its failures stand."""
        b, hero = one_hero(0)
        hero.despairing = True
        rng = scripted(b, (9, 12), (9, 12))
        assert not QUALITY.check(b.table, hero, "physique").success
        assert names(b.log) == ["check_rolled"] and rng.unused == 0

    def test_despairing_until_a_token_is_gained(self, scripted) -> None:
        """Despair: `despairing` lasts until a token is gained another way (a kill), then checks
        roll 2d10 and failures get the morale reroll again."""
        b, hero = one_hero(0)
        foe = b.fighters[1]
        scripted(b, (6, 10), (6, 10), (6, 10), (6, 10))
        QUALITY.check(b.table, hero, "physique")
        assert hero.despairing
        b.deal_damage(foe, 99, hero, "weapon")
        assert not hero.despairing and hero.morale == 2
        assert ("effect_ended", "Hero", "despairing") in effects(b.log)
        start = len(b.log)
        rng = scripted(b, (6, 10), (6, 10), (5, 10), (5, 10))
        assert QUALITY.check(b.table, hero, "physique").success
        rolled = [e for e in b.log[start:] if e["event"] == "check_rolled"]
        assert [(e["purpose"], e["advantage"]) for e in rolled] == [("physique", 0),
                                                                    ("morale_reroll", 0)]
        assert hero.morale == 2 and rng.unused == 0

    def test_despair_gain_does_not_start_despair_again(self, scripted) -> None:
        """Despair: after a successful despair reroll the combatant holds a token, so its next
        failure uses the ordinary morale reroll."""
        b, hero = one_hero(0)
        scripted(b, (6, 10), (6, 10), (5, 10), (5, 10), (6, 10), (6, 10), (6, 10), (6, 10))
        QUALITY.check(b.table, hero, "physique")
        QUALITY.check(b.table, hero, "physique")
        purposes = [e["purpose"] for e in b.log if e["event"] == "check_rolled"]
        assert purposes == ["physique", "despair", "physique", "morale_reroll"]
        assert hero.morale == 0 and not hero.despairing


class TestDespairOptions:
    """The despair Convention set aside (rules §4): ``morale: {despair_disadvantage: false}``
    and ``morale: {despair_again: true}``."""

    @staticmethod
    def despairing(**options: object) -> tuple[Battle, object]:
        """A 2d10 duel whose hero (physique 11) is despairing, with no token."""
        b = battle(duel2d10(hero={"characteristics": {"physique": 11}}, foe={"hp": 40},
                            **options))
        hero = b.fighters[0]
        hero.morale, hero.despairing = 0, True
        b.log.clear()
        return b, hero

    def test_despair_disadvantage_option(self, scripted) -> None:
        """despair_disadvantage: false: a despairing combatant rolls 2d10 like anyone."""
        b, hero = self.despairing(despair_disadvantage=False)
        rng = scripted(b, (6, 10), (6, 10))
        result = b.rules.check(b.table, hero, "physique")
        assert result.dice == (6, 6) and b.log[-1]["advantage"] == 0 and rng.unused == 0

    def test_despair_again_option(self, scripted) -> None:
        """despair_again: true: a despairing combatant's failure is rerolled by despair (at a
        disadvantage still); a success gains a token and ends despair."""
        b, hero = self.despairing(despair_again=True)
        rng = scripted(b, (9, 12), (9, 12), (3, 12), (3, 12))
        assert b.rules.check(b.table, hero, "physique").success
        assert [(e["purpose"], e["advantage"]) for e in events(b.log, "check_rolled")] == [
            ("physique", -1), ("despair", -1)]
        assert hero.morale == 1 and not hero.despairing and rng.unused == 0

    def test_despair_again_failure_stays_despairing(self, scripted) -> None:
        """despair_again: true: a failed despair reroll leaves it despairing, logged once."""
        b, hero = self.despairing(despair_again=True)
        rng = scripted(b, (9, 12), (9, 12), (9, 12), (9, 12))
        assert not b.rules.check(b.table, hero, "physique").success
        assert hero.despairing and effects(b.log) == [] and rng.unused == 0

    @pytest.mark.parametrize(("options", "dice_sides", "rolls"), [
        ({}, 12, 1),  # the Convention: 2d12, no reroll
        ({"despair_disadvantage": False}, 10, 1),
        ({"despair_again": True}, 12, 2),
        ({"despair_disadvantage": False, "despair_again": True}, 10, 2)])
    def test_despairing_success_probability(self, options: dict, dice_sides: int,
                                            rolls: int) -> None:
        """P(a despairing combatant's physique 11 check succeeds) = 1 - (1 - P(2dN <= 11))^k:
        N 12 with the disadvantage (10 without), k 2 when it may despair again (1 otherwise)."""
        p = float((2 @ icepool.d(dice_sides) <= 11).probability(True))
        exact = 1 - (1 - p) ** rolls
        b, hero = self.despairing(**options)
        b.log = b.table.log = None
        n, wins = 20_000, 0
        for _ in range(n):
            hero.morale, hero.despairing = 0, True
            wins += b.rules.check(b.table, hero, "physique").success
        assert within(wins, n, exact)


class TestLearning:
    """Every exploit or disaster ticks the learning box of the skill used (rules §4)."""

    @pytest.mark.parametrize(("faces", "ticked"), [
        (((1, 10), (1, 10)), True),  # exploit
        (((3, 10), (3, 10)), False),  # success
    ])
    def test_exploit_ticks(self, scripted, faces, ticked: bool) -> None:
        """Learning: an exploit ticks the skill's box; a plain success does not."""
        b, hero = one_hero(5, skills={"climbing": 2})
        scripted(b, *faces)
        QUALITY.check(b.table, hero, "climbing")
        ticks = [(e["actor"], e["skill"]) for e in b.log if e["event"] == "learning_ticked"]
        assert ticks == ([("Hero", "climbing")] if ticked else [])
        assert hero.learned == ({"climbing"} if ticked else set())

    def test_disaster_ticks(self, scripted) -> None:
        """Learning: a disaster ticks the skill's box too; a plain failure does not."""
        b, hero = one_hero(5, skills={"climbing": 1})  # SR 12
        scripted(b, (6, 10), (7, 10), (8, 10), (7, 10),  # failure, failure: no tick
                 (6, 10), (7, 10), (10, 10), (10, 10))  # failure, disaster: a tick
        QUALITY.check(b.table, hero, "climbing")
        assert "learning_ticked" not in names(b.log)
        QUALITY.check(b.table, hero, "climbing")
        ticks = [(e["actor"], e["skill"]) for e in b.log if e["event"] == "learning_ticked"]
        assert ticks == [("Hero", "climbing")] and hero.learned == {"climbing"}

    def test_attack_ticks_the_weapon_skill(self, scripted) -> None:
        """Learning: an attack exploit ticks the weapon skill's box."""
        b, hero = one_hero(5, combat=12, skills={"sword": 8})
        foe = b.fighters[1]
        scripted(b, (1, 10), (1, 10), (2, 8), (3, 8))
        b.attack(hero, foe, hero.spec.weapons[0])
        assert [e["skill"] for e in b.log if e["event"] == "learning_ticked"] == ["sword"]


class TestRout:
    """Convention, option `flee_at: 0.5`: a side below half its starting able members flees."""

    def test_routed_side_flees_at_its_turn(self, scripted) -> None:
        """Rout: with 1 of 3 left able (below half), the survivor flees at its turn and survives;
        the other side wins."""
        b = battle(rout_scenario(3, flee_at=0.5))
        a, bb, c, _x = b.fighters
        b.deal_damage(a, 99, None, "fall")
        b.deal_damage(bb, 99, None, "fall")
        rng = scripted(b)  # fleeing rolls nothing
        b._take_turn(c)
        assert (c.status, c.able) == ("fled", False)
        assert next(e for e in b.log if e["event"] == "fled")["target"] == "C"
        assert "attack_resolved" not in names(b.log)
        assert b._decided() and b.winner == "monsters"
        end = b.log[-1]
        assert end["event"] == "battle_ended" and "C" in end["survivors"] and "C" in end["fled"]
        assert rng.unused == 0

    def test_every_member_flees_at_its_own_turn(self, scripted) -> None:
        """Rout: the routed side's members flee one by one, each at its next turn."""
        b = battle(rout_scenario(5, flee_at=0.5))
        *heroes, _x = b.fighters
        for h in heroes[:3]:
            b.deal_damage(h, 99, None, "fall")
        scripted(b)
        b._take_turn(heroes[3])
        assert heroes[3].status == "fled" and heroes[4].able and not b._decided()
        b._take_turn(heroes[4])
        assert heroes[4].status == "fled" and b._decided() and b.winner == "monsters"

    def test_half_is_not_below_half(self, scripted) -> None:
        """Rout: exactly half the starting members (2 of 4) is not below half: no flight."""
        b = battle(rout_scenario(4, flee_at=0.5))
        *heroes, _x = b.fighters
        b.deal_damage(heroes[0], 99, None, "fall")
        b.deal_damage(heroes[1], 99, None, "fall")
        scripted(b, (9, 10), (9, 10), (9, 10), (9, 10))  # an attack and its morale reroll
        b._take_turn(heroes[2])
        assert heroes[2].able and "fled" not in names(b.log)
        assert "attack_resolved" in names(b.log)

    def test_no_rout_without_the_option(self, scripted) -> None:
        """Rout: without `flee_at`, a side fights to the last member."""
        b = battle(rout_scenario(3))
        a, bb, c, _x = b.fighters
        b.deal_damage(a, 99, None, "fall")
        b.deal_damage(bb, 99, None, "fall")
        scripted(b, (9, 10), (9, 10), (9, 10), (9, 10))
        b._take_turn(c)
        assert c.able and "fled" not in names(b.log)

    def test_whole_battle(self) -> None:
        """Rout: in whole battles, fled members survive, act no more, and the other side wins."""
        routed = 0
        for seed in range(30):
            outcome, log = run_battle(rout_scenario(3, flee_at=0.5, foe_combat=14), seed, log=True)
            fled = [e["target"] for e in log if e["event"] == "fled"]
            if not fled:
                continue
            routed += 1
            assert outcome.winner == "monsters"
            end = log[-1]
            assert set(fled) == set(end["fled"]) and set(fled) <= set(end["survivors"])
            for name in fled:
                at = next(i for i, e in enumerate(log) if e["event"] == "fled" and e["target"] == name)
                assert all(e.get("actor") != name for e in log[at + 1:] if e["event"] != "battle_ended")
            statuses = {row[1] for row in outcome.rows}
            assert "fled" in statuses
        assert routed >= 10


class TestSummary:
    """The batch summary reports demoralized, despairing and learning per combatant (rules §4)."""

    def test_summary_fields(self, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
        """Batch summary: `demoralized`, `despairing` and `learning` per combatant, as intervals."""
        path = tmp_path / "gloom.yaml"
        path.write_text(GLOOM)
        capsys.readouterr()
        code = main(["batch", str(path), "-n", "20", "--seed", "3", "--workers", "1", "--json",
                     "--no-progress", "--out", str(tmp_path / "run")])
        out, _ = capsys.readouterr()
        assert code == 0
        summary = json.loads(out)
        people = summary["combatants"]
        assert summary["battles"] == 20 and summary["draws"] == 20
        hapless, idle, wall = people["Hapless"], people["Idle"], people["Wall"]
        # Hapless always fails into a disaster, rerolls by despair, fails again: despairing.
        assert hapless["despairing"]["p"] == 1.0
        assert hapless["learning"]["sword"]["p"] == 1.0
        assert set(hapless["learning"]) == {"sword"}
        # Idle starts at 0 tokens and never rolls: demoralized, nothing learned.
        assert (idle["demoralized"]["p"], idle["despairing"]["p"], idle["learning"]) == (1.0, 0.0, {})
        # The wall is never touched: its 2d6 tokens stay.
        assert (wall["demoralized"]["p"], wall["despairing"]["p"], wall["learning"]) == (0.0, 0.0, {})
        assert set(wall["demoralized"]) == {"p", "lo", "hi"}
        assert wall["demoralized"]["hi"] > 0  # a Wilson interval, not a bare 0


GLOOM = """\
name: Gloom
rules: 2d10
max_rounds: 3
sides:
  - name: heroes
    party: true
    members:
      - {name: Hapless, hp: 30, morale: 0, characteristics: {combat: 0},
         weapons: [{name: sword, damage: 1d6}]}
      - {name: Idle, hp: 30, morale: 0, weapons: []}
  - name: wall
    members:
      - {name: Wall, hp: 30, defense: 10, weapons: []}
"""


# -- helpers ------------------------------------------------------------------------------------


def quality(*sides, **kwargs) -> Scenario:
    """A 2d10 scenario built in code (morale on: the system's default)."""
    return attrs.evolve(scenario(*sides, **kwargs), rules="2d10")


def duel2d10(hero: dict | None = None, foe: dict | None = None, **kwargs) -> Scenario:
    """Hero (the party) against Monster, under 2d10."""
    return quality(side("heroes", fighter("Hero", **(hero or {})), party=True),
                   side("monsters", fighter("Monster", **(foe or {}))), **kwargs)


def one_hero(tokens: int, combat: int = 5, skills: dict | None = None) -> tuple[Battle, object]:
    """A 2d10 duel with the hero's physique at 11 and ``tokens`` tokens; the log starts empty."""
    b = battle(duel2d10(hero={"characteristics": {"physique": 11, "combat": combat},
                              "skills": skills or {}}, foe={"hp": 40}))
    hero = b.fighters[0]
    hero.morale = tokens
    b.log.clear()
    return b, hero


def rout_scenario(heroes: int, foe_combat: int = 5, **options) -> Scenario:
    """``heroes`` fragile heroes against one tough monster, under 2d10."""
    members = [fighter(chr(ord("A") + i), hp=4) for i in range(heroes)]
    monster = fighter("X", hp=200, characteristics={"combat": foe_combat}, armor=3)
    return quality(side("heroes", *members, party=True), side("monsters", monster), **options)


def names(log: list[dict]) -> list[str]:
    return [e["event"] for e in log]


def changes(log: list[dict]) -> list[tuple[str, int, str, int]]:
    return [(e["actor"], e["delta"], e["reason"], e["tokens"]) for e in log
            if e["event"] == "morale_changed"]


def effects(log: list[dict]) -> list[tuple[str, str, str]]:
    return [(e["event"], e["target"], e["effect"]) for e in log
            if e["event"] in ("effect_started", "effect_ended")
            and e["effect"] in ("demoralized", "despairing")]


def within(observed: int, n: int, p: float, sigmas: float = 4.0) -> bool:
    """Whether a count is within ``sigmas`` standard errors of n * p."""
    se = math.sqrt(p * (1 - p) / n)
    return abs(observed / n - p) <= sigmas * se + 1e-12

