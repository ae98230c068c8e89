"""Status and victory (rules §5): unconsciousness and death, destiny points, the end of a
battle, waking, stalemates."""

from __future__ import annotations

import attrs
import pytest

from sim import dice
from sim.engine import Battle, run_battle
from sim.model import Item, Scripted
from tests.builders import battle, d100, duel, events, fighter, scenario, side, target_of
from tests.engine.helpers import Counting, unarmed


class TestUnconsciousAndDeath:
    """Unconsciousness and death (rules §5)."""

    def test_zero_hp_is_unconscious_not_below(self) -> None:
        """HP never go below 0; at 0 a combatant is knocked out."""
        b = battle(duel(hero={"hp": 10}))
        hero = b.fighters[0]
        b.deal_damage(hero, 25, b.fighters[1], "weapon")
        assert hero.hp == 0 and hero.status == "unconscious"
        assert b.log[-2]["hp_after"] == 0 and b.log[-1]["event"] == "knocked_out"

    def test_losing_side_unconscious_die(self) -> None:
        """When a side loses with every member unconscious, they die; the cause is kept."""
        b = battle(duel())
        hero, monster = b.fighters
        b.deal_damage(hero, 99, monster, "weapon")
        assert b._decided()
        assert hero.status == "dead" and hero.cause == "weapon"
        died = events(b.log, "died")
        assert died == [{**died[0], "target": "Hero", "cause": "weapon"}]
        assert b.log[-1]["dead"] == ["Hero"] and b.log[-1]["winner"] == "monsters"

    def test_winning_side_unconscious_survive(self) -> None:
        """Members of the winning side who are unconscious survive, reported knocked out."""
        spec = scenario(side("h", fighter("A"), fighter("B"), party=True), side("m", fighter("M")))
        b = battle(spec)
        a, _, m = b.fighters
        b.deal_damage(a, 99, m, "weapon")
        b.deal_damage(m, 99, b.fighters[1], "weapon")
        assert b._decided() and b.winner == "h"
        assert a.status == "unconscious" and b.log[-1]["knocked_out"] == ["A"]
        assert b.log[-1]["dead"] == ["M"]
        outcome = b._outcome()
        hp, status, cause, knocked_out, _morale, _learned, _items = outcome.rows[0]
        assert hp == 0
        assert knocked_out and status == "unconscious" and cause is None

    def test_unconscious_not_targeted(self) -> None:
        """An unconscious combatant is not targeted by the default tactics."""
        spec = scenario(side("h", fighter("A"), fighter("B"), party=True),
                        side("m", fighter("M", hp=999)))
        for seed in range(10):
            b = battle(spec, seed=seed)
            b.deal_damage(b.fighters[0], 99, None, "fall")

            assert target_of(b, b.fighters[2]).name == "B"


class TestDestinyPoints:
    """Destiny points option (rules §5)."""

    def test_zero_hp_kills_a_party_member_outright(self) -> None:
        """With the option on, a party member reaching 0 HP with no point left dies at once."""
        spec = scenario(side("h", fighter("A"), fighter("B"), party=True), side("m", fighter("M")),
                        destiny_points=1)
        b = battle(spec)
        a, bee, m = b.fighters
        b.deal_damage(a, 99, m, "weapon")  # the one point saves A
        b.deal_damage(bee, 99, m, "weapon")
        assert bee.status == "dead" and events(b.log, "died")[0]["target"] == "B"

    def test_destiny_points_are_for_party_members_only(self) -> None:
        """Destiny points are for party members only: a monster at 0 HP follows the normal
        rule (unconscious, no point spent) and survives when its side wins."""
        spec = scenario(side("h", fighter("A"), party=True),
                        side("m", fighter("M1"), fighter("M2")), destiny_points=1)
        b = battle(spec)
        a, m1, m2 = b.fighters
        b.deal_damage(m1, 99, a, "weapon")
        assert m1.status == "unconscious" and b.destiny_left == 1
        assert events(b.log, "died") == [] and events(b.log, "resource_spent") == []
        b.deal_damage(a, 99, m2, "weapon")
        assert b._decided() and b.winner == "m"
        assert m1.status == "unconscious" and b.log[-1]["dead"] == []

    def test_a_save_lasts_one_fall(self) -> None:
        """A point saves a character once: woken again (a potion), then knocked out by a
        serious wound, it dies with the unconscious if its side loses (rules §5)."""
        spec = scenario(side("h", fighter("A"), party=True), side("m", fighter("M")),
                        destiny_points=1)
        b = battle(spec)
        a, m = b.fighters
        b.deal_damage(a, 99, m, "weapon")
        assert a.saved and a.status == "unconscious"
        a.hp = 5
        b.wake(a)  # what a healing potion does
        assert not a.saved
        b.set_unconscious(a, "weapon")  # a serious wound: knocked out with HP left
        assert b._decided() and b.winner == "m"
        assert a.status == "dead"

    def test_party_spends_a_point_to_save(self) -> None:
        """The party spends a point: the character survives unconscious, even if the side loses."""
        spec = scenario(side("h", fighter("A"), fighter("B"), party=True), side("m", fighter("M")),
                        destiny_points=1)
        b = battle(spec)
        a, bee, m = b.fighters
        b.deal_damage(a, 99, m, "weapon")
        spent = events(b.log, "resource_spent")
        assert spent[0]["resource"] == "destiny" and spent[0]["actor"] == "A"
        assert a.status == "unconscious" and b.destiny_left == 0
        b.deal_damage(bee, 99, m, "weapon")
        assert bee.status == "dead"
        assert b._decided() and a.status == "unconscious"


class TestEndOfBattle:
    """Victory, draws and who dies at the end (rules §2, §5)."""

    def test_battle_ended_by_an_effect_tick_ends_once(self) -> None:
        """A tick that drops the last member of a side ends the battle, with one `battle_ended`."""
        spec = scenario(side("h", fighter("A", hp=1), party=True),
                        side("m", fighter("M", hp=50, defense_threshold=60)), max_rounds=3)
        b = Battle(spec, seed=1, log=True)
        b._setup()
        Counting(b, b.fighters[0]).start()
        b.env.process(b._clock())
        b.env.run()
        assert [e["event"] for e in b.log].count("battle_ended") == 1
        assert b.log[-1]["winner"] == "m" and b.log[-1]["dead"] == ["A"]

    def test_draw_spares_the_unconscious_of_standing_sides(self) -> None:
        """At max_rounds (a draw) no side lost: an unconscious member beside able allies lives."""
        b = battle(scenario(side("h", fighter("A"), fighter("B"), party=True),
                            side("m", fighter("M")), max_rounds=1))
        a = b.fighters[0]
        b.deal_damage(a, 99, b.fighters[2], "weapon")
        b._finish(None)
        assert a.status == "unconscious" and b.log[-1]["dead"] == []

    def test_knocked_out_event_names_cause_and_source(self) -> None:
        """`knocked_out` names what dropped the combatant and who."""
        b = battle(duel())
        hero, monster = b.fighters
        b.deal_damage(hero, 99, monster, "weapon")
        out = events(b.log, "knocked_out")[0]
        assert (out["target"], out["cause"], out["source"]) == ("Hero", "weapon", "Monster")

    def test_a_body_at_zero_does_not_fall_again(self) -> None:
        """Damage to a body already at 0 HP (a burning body) is no new fall: no second
        knock-out, no second destiny point, no second morale loss for its allies."""
        spec = scenario(side("h", fighter("A"), fighter("B"), party=True), side("m", fighter("M")),
                        destiny_points=2, morale_on=True)
        b = battle(spec)
        a, bee, m = b.fighters
        b.deal_damage(a, 99, m, "weapon")
        tokens = bee.morale
        b.deal_damage(a, 3, None, "fire")
        assert len(events(b.log, "knocked_out")) == 1 and b.destiny_left == 1
        assert bee.morale == tokens

    def test_destiny_death_keeps_its_cause(self) -> None:
        """With destiny points, a party member's 0 HP that kills outright keeps its cause; a
        spent point says how many are left."""
        spec = scenario(side("h", fighter("A"), fighter("B"), party=True), side("m", fighter("M")),
                        destiny_points=1)
        b = battle(spec)
        a, bee, m = b.fighters
        b.deal_damage(a, 99, m, "weapon")
        assert events(b.log, "resource_spent")[0]["left"] == 0
        b.deal_damage(bee, 99, None, "fall")  # no point left: a party member dies outright
        assert events(b.log, "died")[0]["cause"] == "fall" and bee.cause == "fall"


class TestWaking:
    """A knocked-out fighter that wakes counts again for victory (rules §2 victory)."""

    def test_woken_fighter_stands_for_its_side(self) -> None:
        """Knocked out, then awake: its side stands again; knocked out again: its side falls."""
        b = battle(duel())
        hero, _ = b.fighters
        b.set_unconscious(hero, "weapon")
        b.wake(hero)
        assert not b._decided()
        b.set_unconscious(hero, "weapon")
        assert b._decided() and b.winner == "monsters"


class TestStalemate:
    """A battle nobody can change any more ends at once as a draw, stopped by stalemate."""

    def test_weaponless_sides_stop_in_round_one(self) -> None:
        """Weaponless sides: a draw at round 1, battle_ended says stopped: stalemate."""
        spec = scenario(side("a", *(unarmed(f"a{i}") for i in range(3)), party=True),
                        side("b", *(unarmed(f"b{i}") for i in range(3))), max_rounds=10_000)
        outcome, log = run_battle(spec, seed=1, log=True)
        end = log[-1]
        assert (outcome.winner, outcome.rounds) == (None, 1)
        assert (end["winner"], end["rounds"], end["stopped"]) == (None, 1, "stalemate")
        assert end["dead"] == [] and len(end["survivors"]) == 6

    def test_a_stalemate_at_the_round_limit_is_a_max_rounds_draw(self) -> None:
        """A draw at the round limit says stopped: max_rounds, even when nobody could have
        changed anything that round (README, stalemate)."""
        spec = scenario(side("a", unarmed("A"), party=True), side("b", unarmed("B")),
                        max_rounds=1)
        outcome, log = run_battle(spec, seed=1, log=True)
        assert (outcome.winner, outcome.rounds, log[-1]["stopped"]) == (None, 1, "max_rounds")

    def test_an_armed_side_is_not_a_stalemate(self) -> None:
        """One weapon on the field: the battle is fought out and the armed side wins."""
        spec = scenario(side("a", fighter("A", level=5), party=True),
                        side("b", unarmed("B", hp=3)), max_rounds=10_000)
        outcome, log = run_battle(spec, seed=1, log=True)
        assert outcome.winner == "a" and "stopped" not in log[-1]

    def test_scripted_event_delays_the_stalemate(self) -> None:
        """A timeline entry still to come (round 3) keeps the battle going until it has run."""
        spec = attrs.evolve(
            scenario(side("a", unarmed("A", hp=50), party=True), side("b", unarmed("B", hp=50)),
                     max_rounds=100),
            timeline=(Scripted(round=3, do="explode", side="b", damage=dice.parse("2")),),
        )
        outcome, log = run_battle(spec, seed=1, log=True)
        assert outcome.rounds == 3 and log[-1]["stopped"] == "stalemate"
        blast = events(log, "damage_dealt")
        assert [(e["round"], e["target"], e["amount"]) for e in blast] == [(3, "B", 2)]

    def test_ongoing_effect_delays_the_stalemate(self) -> None:
        """Somebody still burning can still fall: no stalemate until the fire is out."""
        spec = attrs.evolve(
            scenario(side("a", unarmed("A", hp=200), party=True), side("b", unarmed("B", hp=50)),
                     max_rounds=100),
            timeline=(Scripted(round=1, do="ignite", targets=("A",)),),
        )
        outcome, log = run_battle(spec, seed=7, log=True)  # a seed where it burns 9 rounds
        put_out = [e["round"] for e in events(log, "effect_ended") if e["effect"] == "burning"]
        assert events(log, "effect_started") and put_out  # it did burn, then went out
        assert outcome.rounds == put_out[0] + 1 and log[-1]["stopped"] == "stalemate"

    def test_armed_fighter_down_leaves_a_stalemate(self) -> None:
        """When the last armed fighter falls and nobody else holds a weapon, it stops."""
        spec = attrs.evolve(
            scenario(side("a", fighter("A", hp=1), unarmed("A2"), party=True),
                     side("b", unarmed("B", hp=500, defense_threshold=99)), max_rounds=100),
            timeline=(Scripted(round=2, do="explode", targets=("A",), damage=dice.parse("5")),),
        )
        outcome, log = run_battle(spec, seed=1, log=True)
        assert outcome.winner is None and outcome.rounds == 2
        assert log[-1]["stopped"] == "stalemate" and log[-1]["knocked_out"] == ["A"]

    def test_max_rounds_draw_says_so(self) -> None:
        """A draw at the round limit says stopped: max_rounds."""
        unkillable = scenario(
            side("a", fighter("A", hp=1000, defense_threshold=60), party=True),
            side("b", fighter("B", hp=1000, defense_threshold=60)), max_rounds=3)
        _, log = run_battle(unkillable, seed=1, log=True)
        assert log[-1]["stopped"] == "max_rounds"

    def test_a_potion_to_pour_is_not_a_stalemate(self) -> None:
        """A weaponless ally with a potion can wake the downed armed fighter: no stalemate."""
        potion = Item(heal=dice.parse("10"))
        spec = attrs.evolve(
            scenario(side("a", fighter("A", hp=1), unarmed("A2", items=(potion,)), party=True),
                     side("b", unarmed("B", hp=500, defense_threshold=99)), max_rounds=6),
            timeline=(Scripted(round=2, do="explode", targets=("A",), damage=dice.parse("5")),),
        )
        outcome, log = run_battle(spec, seed=1, log=True)
        assert [(e["actor"], e["target"], e["round"]) for e in events(log, "item_used")] == [
            ("A2", "A", 2)]
        assert outcome.rounds == 6 and log[-1]["stopped"] == "max_rounds"

    def test_a_woken_fighter_is_armed_again(self) -> None:
        """Woken by a potion, the armed fighter holds its weapon again; knocked out once more,
        with the potion gone and nobody else armed, the battle is a stalemate."""
        potion = Item(heal=dice.parse("10"))
        spec = attrs.evolve(
            scenario(side("a", fighter("A", hp=1), unarmed("A2", items=(potion,)), party=True),
                     side("b", unarmed("B", hp=500, defense_threshold=99)), max_rounds=8),
            timeline=(Scripted(round=2, do="explode", targets=("A",), damage=dice.parse("5")),
                      Scripted(round=4, do="explode", targets=("A",), damage=dice.parse("50"))),
        )
        outcome, log = run_battle(spec, seed=1, log=True)
        assert [(e["target"], e["round"]) for e in events(log, "item_used")] == [("A", 2)]
        assert (outcome.rounds, log[-1]["stopped"]) == (4, "stalemate")

    @pytest.mark.parametrize("left", [["A2"], ["A2", "A3"]])
    def test_a_rout_to_come_is_not_a_stalemate(self, left: list[str]) -> None:
        """A side below flee_at still flees at its turns, however few it has left standing
        (one or two): that decides the battle, not a draw."""
        spec = attrs.evolve(
            scenario(side("a", fighter("A", hp=1), *map(unarmed, left), party=True),
                     side("b", unarmed("B", hp=500, defense_threshold=99)), max_rounds=100,
                     flee_at=0.9),
            timeline=(Scripted(round=2, do="explode", targets=("A",), damage=dice.parse("5")),),
        )
        outcome, log = run_battle(spec, seed=1, log=True)
        assert outcome.winner == "b" and "stopped" not in log[-1]
        assert [e["target"] for e in events(log, "fled")] == left

    def test_a_side_exactly_at_flee_at_is_no_rout_to_come(self) -> None:
        """A side routs only once it falls *below* flee_at: one able member of two, at 0.5, is
        not about to flee, so with no weapon left the battle is a stalemate."""
        spec = attrs.evolve(
            scenario(side("a", fighter("A", hp=1), unarmed("A2"), party=True),
                     side("b", unarmed("B", hp=500)), max_rounds=10, flee_at=0.5),
            timeline=(Scripted(round=2, do="explode", targets=("A",), damage=dice.parse("5")),),
        )
        outcome, log = run_battle(spec, seed=1, log=True)
        assert (outcome.winner, outcome.rounds, log[-1]["stopped"]) == (None, 2, "stalemate")
        assert events(log, "fled") == []

    def test_a_side_already_down_is_no_rout_to_come(self) -> None:
        """A third side with nobody able left has nobody to flee: it does not hold off the
        stalemate of the two sides still standing without a weapon."""
        spec = attrs.evolve(
            scenario(side("a", fighter("A", hp=1), unarmed("A2"), party=True),
                     side("b", unarmed("B", hp=500)), side("c", unarmed("C", hp=1)),
                     max_rounds=10, flee_at=0.5),
            timeline=(Scripted(round=2, do="explode", targets=("A", "C"), damage=dice.parse("5")),),
        )
        outcome, log = run_battle(spec, seed=1, log=True)
        assert (outcome.winner, outcome.rounds, log[-1]["stopped"]) == (None, 2, "stalemate")


class TestBrokenMind:
    """Spirit points (rules §3, d20): at 0 spirit the mind is broken, out of the fight."""

    def test_a_broken_mind_is_logged_as_such(self) -> None:
        """Terror that empties a fighter's spirit is logged (spirit before and after), then the
        broken mind as an effect: a replay shows it out of the fight."""
        b = battle(duel(hero={"spirit": dice.parse(4)}, spirit=True))
        hero, monster = b.fighters
        b.lose_spirit(hero, 6, monster)
        lost, broken = b.log[-2:]
        assert (lost["event"], lost["target"], lost["amount"], lost["source"]) == (
            "spirit_lost", "Hero", 6, "Monster")
        assert (lost["spirit_before"], lost["spirit_after"]) == (4, 0)
        assert (broken["event"], broken["target"], broken["effect"]) == (
            "effect_started", "Hero", "broken")
        assert hero.status == "broken" and not hero.able


class TestSeriousWound:
    """A serious wound (rules §3, d100) knocks a fighter out with HP left: it has fallen."""

    @staticmethod
    def _wounded(scripted, **options: object):
        """Hero (20 HP, beside Friend) takes 10 (half its HP) from M and fails physique twice
        (the roll and, with morale on, its reroll): out for 1d4 = 2 rounds."""
        b = battle(d100(side("h", fighter("Hero", hp=20), fighter("Friend", hp=20), party=True),
                        side("m", fighter("M")), **options))
        hero, friend, m = b.fighters
        rerolls = [(99, 100)] if b.morale_on else []
        scripted(b, (99, 100), *rerolls, (2, 4))
        b.deal_damage(hero, 10, m, "weapon")
        return b, hero, friend, m

    def test_knocked_out_by_a_serious_wound_is_logged(self, scripted) -> None:
        """`knocked_out` names the cause, the one who dealt the wound, and says it was a
        serious wound; the fighter keeps its HP."""
        b, hero, _, _ = self._wounded(scripted)
        out = events(b.log, "knocked_out")
        assert [(e["target"], e["cause"], e["source"], e["serious_wound"]) for e in out] == [
            ("Hero", "weapon", "M", True)]
        assert (hero.hp, hero.status) == (10, "unconscious")

    def test_the_wound_is_its_dealers_kill(self, scripted) -> None:
        """Morale (rules §4, kill an enemy +2): a serious wound's knock-out is a fall, so the one
        who dealt the wound gains 2 tokens, as for a blow to 0 HP."""
        b, *_ = self._wounded(scripted, morale_on=True, morale_who="everyone")
        kills = [(e["actor"], e["delta"]) for e in events(b.log, "morale_changed")
                 if e["reason"] == "kill"]
        assert kills == [("M", 2)]

    def test_dies_of_its_wound_if_its_side_loses(self, scripted) -> None:
        """Out with HP left, it dies if its side loses (rules §5), of what knocked it out."""
        b, hero, friend, m = self._wounded(scripted)
        b.deal_damage(friend, 99, m, "weapon")
        assert b._decided() and b.winner == "m"
        assert [(e["target"], e["cause"]) for e in events(b.log, "died")] == [
            ("Hero", "weapon"), ("Friend", "weapon")]
        assert hero.cause == "weapon"

    def test_its_allies_lose_morale(self, scripted) -> None:
        """Morale (rules §4): an ally knocked out by a serious wound has fallen all the
        same: each conscious ally loses 4 tokens."""
        b, *_ = self._wounded(scripted, morale_on=True, morale_who="everyone")
        fell = [(e["actor"], e["delta"]) for e in events(b.log, "morale_changed")
                if e["reason"] == "ally_fell"]
        assert fell == [("Friend", -4)]


class TestLeftBehind:
    """Left behind is not dead (rules §5): death is final only when every member of a side
    is down; the fallen of a side that lost while one of it got away live, where they lie."""

    def _routed(self, **options: object):
        """h (A, B, C) against M: A falls, then B and C flee; M wins."""
        spec = scenario(side("h", fighter("A", hp=10), fighter("B"), fighter("C"), party=True),
                        side("m", fighter("M", hp=999)), flee_at=0.9, **options)
        b = battle(spec)
        a, bee, c, m = b.fighters
        b.deal_damage(a, 4, m, "weapon")
        b.deal_damage(a, 99, m, "weapon")
        b._take_turn(bee)
        b._take_turn(c)
        assert b._decided() and b.winner == "m"
        return b

    def test_left_behind_is_not_dead(self) -> None:
        """The unconscious member of a side that fled lives, at its HP, and is logged as left
        behind (not dead, not knocked out) on ``battle_ended``."""
        b = self._routed()
        a = b.fighters[0]
        assert a.status == "left_behind" and a.hp == 0
        assert events(b.log, "died") == []
        end = b.log[-1]
        assert (end["dead"], end["knocked_out"], end["left_behind"]) == ([], [], ["A"])
        assert end["fled"] == ["B", "C"] and "A" in end["survivors"]

    def test_left_behind_row_counts_as_down_not_dead(self) -> None:
        """The batch row says left_behind, went down, and no cause of death."""
        hp, status, cause, knocked_out, *_ = self._routed()._outcome().rows[0]
        assert (hp, status, cause, knocked_out) == (0, "left_behind", None, True)

    def test_left_behind_when_every_member_down_they_die(self) -> None:
        """A side whose members are all down (nobody got away) loses its unconscious, as
        before: ``left_behind`` is not even on the event."""
        spec = scenario(side("h", fighter("A"), fighter("B"), party=True),
                        side("m", fighter("M", hp=999)))
        b = battle(spec)
        a, bee, m = b.fighters
        b.deal_damage(a, 99, m, "weapon")
        b.deal_damage(bee, 99, m, "weapon")
        assert b._decided()
        assert (a.status, bee.status) == ("dead", "dead")
        assert b.log[-1]["dead"] == ["A", "B"] and "left_behind" not in b.log[-1]

    def test_left_behind_a_fled_mount_saves_nobody(self) -> None:
        """Only a member who got away counts (a mount is no member, rules §5): a riderless
        horse that bolted leaves its side's unconscious to die."""
        spec = scenario(side("h", fighter("A"), fighter("Horse", rider="Nobody"), party=True),
                        side("m", fighter("M", hp=999)))
        b = battle(spec)
        a, horse, m = b.fighters
        b.flee(horse)
        b.deal_damage(a, 99, m, "weapon")
        assert b._decided() and a.status == "dead"
