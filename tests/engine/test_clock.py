"""The round clock and initiative (rules §2): rounds, turn times, group initiative,
surprise, and effects ticking at their owner's turn."""

from __future__ import annotations

import attrs
import pytest

from sim import dice
from sim.engine import Battle, run_battle
from sim.model import Scripted, Surprise, Weapon
from tests.builders import battle, duel, events, fighter, scenario, side
from tests.engine.helpers import Counting, brawl


class TestRoundClock:
    """Rounds as SimPy time, turns at fractional times in initiative order (rules §2)."""

    def test_round_r_starts_at_r_minus_1(self) -> None:
        """Round r starts at t = r - 1 and every turn of it lies strictly inside (r-1, r)."""
        _, log = run_battle(brawl(), seed=3, log=True)
        for e in events(log, "round_started"):
            assert e["t"] == e["round"] - 1
        for e in events(log, "turn_started"):
            assert e["round"] - 1 < e["t"] < e["round"]

    def test_time_never_goes_back(self) -> None:
        """The log's t orders every event."""
        _, log = run_battle(brawl(), seed=5, log=True)
        times = [e["t"] for e in log]
        assert times == sorted(times)

    def test_turns_follow_initiative(self) -> None:
        """Inside a round, sides act in initiative order and members in listed order."""
        _, log = run_battle(brawl(), seed=8, log=True)
        roster = {c["name"]: c["side"] for c in log[0]["combatants"]}
        for number in {e["round"] for e in events(log, "initiative_rolled")}:
            first = next(e for e in log if e["event"] == "initiative_rolled" and e["round"] == number)
            actors = [e["actor"] for e in log if e["event"] == "turn_started" and e["round"] == number]
            assert actors, "every round that rolls initiative has turns (no timeline here)"
            assert roster[actors[0]] == first["first"]
            order = ["A", "B"] if first["first"] == "heroes" else ["g0", "g1", "g2"]
            seen = [a for a in actors if a in order]
            assert seen == sorted(seen, key=order.index)

    def test_max_rounds_is_a_draw(self) -> None:
        """`max_rounds` ends the battle as a draw: winner null, nobody dies of it."""
        unkillable = scenario(
            side("a", fighter("A", hp=1000, defense_threshold=60), party=True),
            side("b", fighter("B", hp=1000, level=0, defense_threshold=60, attack_threshold=0)),
            max_rounds=4,
        )
        outcome, log = run_battle(unkillable, seed=1, log=True)
        end = log[-1]
        assert (outcome.winner, outcome.rounds, end["winner"], end["rounds"]) == (None, 4, None, 4)
        assert end["dead"] == [] and end["t"] == 4.0

    def test_max_rounds_defaults_to_100(self, tmp_path) -> None:
        """`max_rounds` (default 100): a scenario that leaves it out is a draw after round 100
        (both sides keep landing 1-point blows on 999 HP: no stalemate, just a long fight)."""
        import pathlib

        from sim.scenario import load_scenario

        text = (
            "name: stalemate\nrules: d20\nsides:\n"
            "  - {name: a, party: true, members: [{name: A, hp: 999,"
            " weapons: [{name: stick, damage: '1'}]}]}\n"
            "  - {name: b, members: [{name: B, hp: 999, defense_threshold: 19, attack_threshold: 19,"
            " weapons: [{name: stick, damage: '1'}]}]}\n"
        )
        path = pathlib.Path(tmp_path) / "long.yaml"
        path.write_text(text)
        outcome, _ = run_battle(load_scenario(path), seed=1)
        assert (outcome.winner, outcome.rounds) == (None, 100)

    def test_victory_checked_after_every_turn(self) -> None:
        """Victory is checked after every turn: the battle ends on the turn the last enemy
        drops, so an ally listed after the killer never takes a turn that round."""
        one_shot = scenario(
            side("heroes", fighter("A", level=20, weapons=(Weapon("maul", dice.parse(50)),)),
                 fighter("B"), party=True),
            side("m", fighter("M", hp=5, defense_threshold=0)),
        )
        for seed in range(20):  # whoever wins initiative, A's first swing (it cannot miss) ends it
            _, log = run_battle(one_shot, seed=seed, log=True)
            turns = events(log, "turn_started")
            assert [t["actor"] for t in turns] in (["A"], ["M", "A"])
            end = log[-1]
            assert end["event"] == "battle_ended" and end["winner"] == "heroes"
            assert (end["round"], end["t"]) == (1, turns[-1]["t"])

    def test_victory_checked_after_the_scripted_events(self) -> None:
        """A scripted explosion that takes the last of a side at a round's start ends the
        battle there, won by the side left standing, before anybody's turn."""
        spec = attrs.evolve(
            scenario(side("a", fighter("A", hp=50, weapons=()), party=True),
                     side("b", fighter("B", hp=5, weapons=())), max_rounds=10),
            timeline=(Scripted(round=2, do="explode", targets=("B",), damage=dice.parse("50")),),
        )
        outcome, log = run_battle(spec, seed=1, log=True)
        assert (outcome.winner, outcome.rounds) == ("a", 2) and "stopped" not in log[-1]
        assert [e for e in events(log, "turn_started") if e["round"] == 2] == []

    def test_no_side_standing_is_a_draw(self) -> None:
        """Victory needs one side with able members: when none is left, nobody wins."""
        b = battle(duel())
        hero, monster = b.fighters
        b.deal_damage(hero, 99, monster, "weapon")
        b.deal_damage(monster, 99, None, "fall")
        assert b._decided() and b.winner is None and b.log[-1]["winner"] is None


class TestInitiative:
    """Group initiative (rules §2), rolled every round."""

    def test_party_rolls_d6_every_round(self) -> None:
        """The party rolls 1d6 each round; 4+ acts first, otherwise the other side."""
        _, log = run_battle(brawl(), seed=2, log=True)
        rolls = events(log, "initiative_rolled")
        assert len(rolls) == log[-1]["rounds"]
        for e in rolls:
            assert e["side"] == "heroes" and e["die"] == 6 and 1 <= e["roll"] <= 6
            assert e["first"] == ("heroes" if e["roll"] >= 4 else "goblins")

    def test_party_first_frequency(self) -> None:
        """The party acts first with probability 1/2 (4, 5 or 6 on a d6)."""
        firsts = []
        for seed in range(600):
            b = Battle(brawl(), seed, log=True)
            b._setup()
            b._initiative()
            firsts.append(b.log[-1]["first"] == "heroes")
        n, p = len(firsts), 0.5
        assert abs(sum(firsts) / n - p) < 4 * (p * (1 - p) / n) ** 0.5

    def test_initiative_gift_rolls_d8(self) -> None:
        """A conscious member with the `initiative` gift makes the party roll 1d8."""
        spec = scenario(side("h", fighter("A", gifts=("initiative",)), party=True),
                        side("m", fighter("M")))
        b = battle(spec)
        b._initiative()
        assert b.log[-1]["die"] == 8
        b._set_status(b.fighters[0], "unconscious")
        b._initiative()
        assert b.log[-1]["die"] == 6

    def test_without_party_first_side_rolls(self) -> None:
        """Without a party side, the first side listed rolls."""
        spec = scenario(side("wolves", fighter("W")), side("bears", fighter("B")))
        b = battle(spec)
        b._initiative()
        assert b.log[-1]["side"] == "wolves"

    @staticmethod
    def _three_sides(party: bool) -> Battle:
        """Wolves, then heroes (the party when asked), then crows."""
        return battle(scenario(
            side("wolves", fighter("W1"), fighter("W2")),
            side("heroes", fighter("H1"), fighter("H2"), party=party),
            side("crows", fighter("C1")),
        ))

    def test_party_first_then_others_in_listed_order(self, scripted) -> None:
        """Initiative won (4+): the party acts first, then the other sides in listed order,
        members in listed order inside each side."""
        b = self._three_sides(party=True)
        scripted(b, (4, 6))
        assert [f.name for f in b._initiative()] == ["H1", "H2", "W1", "W2", "C1"]
        assert b.log[-1]["first"] == "heroes"

    def test_others_first_in_listed_order(self, scripted) -> None:
        """Initiative lost (1-3): the other sides act first, in their listed order, then the party."""
        b = self._three_sides(party=True)
        scripted(b, (3, 6))
        assert [f.name for f in b._initiative()] == ["W1", "W2", "C1", "H1", "H2"]
        assert b.log[-1]["first"] == "wolves"

    def test_without_party_first_listed_side_rolls_others_keep_order(self, scripted) -> None:
        """Without a party, the first side listed rolls; the others keep their listed order."""
        b = self._three_sides(party=False)
        scripted(b, (6, 6))
        assert [f.name for f in b._initiative()] == ["W1", "W2", "H1", "H2", "C1"]
        scripted(b, (1, 6))
        assert [f.name for f in b._initiative()] == ["H1", "H2", "C1", "W1", "W2"]
        assert b.log[-1]["first"] == "heroes"

    def test_three_sides_turns_follow_listed_order(self) -> None:
        """In a played battle of three sides, each round's turns follow the initiative order."""
        spec = scenario(
            side("wolves", fighter("W1", hp=60), fighter("W2", hp=60)),
            side("heroes", fighter("H1", hp=60), party=True),
            side("crows", fighter("C1", hp=60), fighter("C2", hp=60)),
            max_rounds=6,
        )
        listed = {True: ["H1", "W1", "W2", "C1", "C2"], False: ["W1", "W2", "C1", "C2", "H1"]}
        played = set()
        for seed in range(4):
            _, log = run_battle(spec, seed=seed, log=True)
            for roll in events(log, "initiative_rolled"):
                played.add(roll["first"])
                actors = [e["actor"] for e in log
                          if e["event"] == "turn_started" and e["round"] == roll["round"]]
                order = listed[roll["first"] == "heroes"]
                assert actors == [name for name in order if name in actors]
        assert played == {"heroes", "wolves"}  # both orders were played


class TestSurprise:
    """Surprise round (rules §2): only the surprising side acts in round 1."""

    def test_only_surprising_side_acts_in_round_one(self) -> None:
        """Round 1 has no initiative roll, only goblin turns, and surprise attacks."""
        _, log = run_battle(scenario(*brawl().sides, surprise="goblins"), seed=4, log=True)
        assert not [e for e in events(log, "initiative_rolled") if e["round"] == 1]
        actors = {e["actor"] for e in events(log, "turn_started") if e["round"] == 1}
        assert actors <= {"g0", "g1", "g2"} and actors
        for e in events(log, "attack_resolved"):
            assert e["surprise"] is (e["round"] == 1)

    def test_surprise_attacks_have_advantage(self) -> None:
        """A surprise attack favours the attacker: the party defends with disadvantage."""
        _, log = run_battle(scenario(*brawl().sides, surprise="goblins"), seed=4, log=True)
        first = [e for e in events(log, "check_rolled") if e["round"] == 1]
        assert first and all(e["advantage"] == -1 and len(e["dice"]) == 2 for e in first)

    def test_group_check_decides_surprise(self) -> None:
        """`surprise: {side, group_check}`: the side surprises only if its group check succeeds."""
        outcomes = set()
        for seed in range(30):
            spec = scenario(*brawl().sides, surprise=Surprise("heroes", "stealth"))
            _, log = run_battle(spec, seed=seed, log=True)
            group = events(log, "group_check_resolved")[0]
            surprised = events(log, "round_started")[0].get("surprise") == "heroes"
            assert surprised is group["success"]
            outcomes.add(surprised)
        assert outcomes == {True, False}

    def test_surprise_group_check_is_the_surprising_sides(self) -> None:
        """The group check that decides surprise is rolled by the surprising side's members
        only, each with the named skill (stealth)."""
        spec = scenario(*brawl().sides, surprise=Surprise("goblins", "stealth"))
        _, log = run_battle(spec, seed=1, log=True)
        group = events(log, "group_check_resolved")
        assert [(e["what"], e["members"]) for e in group] == [("stealth", ["g0", "g1", "g2"])]
        rolled = events(log, "check_rolled")[:3]
        assert [(e["actor"], e["purpose"]) for e in rolled] == [
            ("g0", "stealth"), ("g1", "stealth"), ("g2", "stealth")]

    @pytest.mark.parametrize("rules", ["d100", "2d10", "d10"])
    def test_surprise_gives_advantage_in_other_systems(self, rules: str) -> None:
        """Surprise attacks in d100, 2d10 and d10: advantage on the attack roll, and only in
        the surprise round."""
        spec = attrs.evolve(scenario(*duel().sides, surprise="heroes"), rules=rules)
        b = battle(spec)
        hero, monster = b.fighters
        b.table.round, b.surprise_side, b.table.surprising = 1, "heroes", "heroes"
        b.attack(hero, monster, hero.spec.weapons[0])
        first = next(e for e in b.log if e["event"] == "check_rolled")
        assert (first["purpose"], first["advantage"]) == ("attack", 1)
        assert events(b.log, "attack_resolved")[-1]["surprise"] is True
        b.table.round, b.table.surprising = 2, None
        start = len(b.log)
        b.attack(hero, monster, hero.spec.weapons[0])
        later = next(e for e in b.log[start:] if e["event"] == "check_rolled")
        assert later["advantage"] == 0


class TestTurnTimes:
    """Turns happen at fractional times inside their round, in initiative order (rules §2)."""

    def test_turn_times_with_ticking_effects(self) -> None:
        """With effects ticking, each turn still lies strictly inside (r - 1, r), in order, and
        a tick shares its owner's turn time."""
        spec = scenario(
            side("h", fighter("A", hp=50, level=-5), fighter("B", hp=50, level=-5), party=True),
            side("m", fighter("M", hp=50, defense_threshold=60, attack_threshold=0),
                 fighter("N", hp=50, defense_threshold=60, attack_threshold=0)),
            max_rounds=3,
        )
        b = Battle(spec, seed=3, log=True)
        b._setup()
        for f in b.fighters:
            Counting(b, f).start()
        b.env.process(b._clock())
        b.env.run()
        for number in (1, 2, 3):
            times = [e["t"] for e in events(b.log, "turn_started") if e["round"] == number]
            assert len(times) == 4 and times == sorted(set(times))
            assert all(number - 1 < t < number for t in times)
        ticks = {(e["target"], e["t"]) for e in b.log
                 if e["event"] == "damage_dealt" and e["kind"] == "bleeding"}
        turns = {(e["actor"], e["t"]) for e in events(b.log, "turn_started")}
        assert len(ticks) == 12 and ticks <= turns

    def test_surprise_noted_only_in_round_one(self) -> None:
        """Only the surprise round's `round_started` names the surprising side."""
        _, log = run_battle(scenario(*brawl().sides, surprise="goblins"), seed=4, log=True)
        starts = events(log, "round_started")
        assert starts[0]["surprise"] == "goblins" and len(starts) > 1
        assert all("surprise" not in e for e in starts[1:])

    def test_lost_initiative_names_the_first_other_side(self, scripted) -> None:
        """Initiative lost: `initiative_rolled` says the first other side acts first."""
        b = battle(duel())
        scripted(b, (2, 6))
        assert [f.name for f in b._initiative()] == ["Monster", "Hero"]
        assert b.log[-1]["first"] == "monsters"


class TestOngoingEffects:
    """Ongoing effects tick as SimPy processes at the start of their owner's turn (rules §2)."""

    def test_ticks_at_owner_turn_even_unconscious(self) -> None:
        """An effect ticks at the start of each of the owner's turns, unconscious or not."""
        spec = scenario(
            side("h", fighter("A", hp=2, level=0), fighter("B", hp=999, level=-5), party=True),
            side("m", fighter("M", hp=999, defense_threshold=60, attack_threshold=0)),
            max_rounds=5,
        )
        b = Battle(spec, seed=1, log=True)
        b._setup()
        Counting(b, b.fighters[0]).start()
        b.env.process(b._clock())
        b.env.run()
        ticks = [e for e in b.log if e["event"] == "damage_dealt" and e["kind"] == "bleeding"]
        assert [e["round"] for e in ticks] == [1, 2, 3]
        turns = {(e["round"], e["t"]) for e in events(b.log, "turn_started") if e["actor"] == "A"}
        assert {(e["round"], e["t"]) for e in ticks} <= turns
        assert b.fighters[0].status == "unconscious"  # 2 HP, 2 ticks: down, then still ticking
        ended = events(b.log, "effect_ended")
        assert ended[0]["effect"] == "bleeding" and ended[0]["round"] == 3

    def test_effect_ends_when_owner_dies(self) -> None:
        """A dead owner's effects end with it."""
        b = battle(duel())
        effect = Counting(b, b.fighters[0])
        effect.start()
        b.kill(b.fighters[0], "weapon")
        assert not effect.active and b.fighters[0].effects == []
        assert b.log[-1]["event"] == "effect_ended" and b.log[-1]["reason"] == "died"
