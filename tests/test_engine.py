"""The round clock of RULES.md §2 and unconsciousness and death of §5."""

from __future__ import annotations

import pytest

from sim import dice
from sim.effects import OngoingEffect
from sim.engine import Battle, run_battle
from sim.model import Surprise, Weapon
from tests.builders import battle, duel, fighter, scenario, side


def events(log: list[dict], name: str) -> list[dict]:
    return [e for e in log if e["event"] == name]


def brawl(**options: object):
    """Two heroes against three goblins, everyone fragile enough to end quickly."""
    return scenario(
        side("heroes", fighter("A", level=3, hp=12), fighter("B", level=3, hp=12), party=True),
        side("goblins", *(fighter(f"g{i}", hp=5, attack_threshold=12, defense_threshold=11)
                          for i in range(3))),
        **options,
    )


class TestRoundClock:
    """Rounds as SimPy time, turns at fractional times in initiative order (RULES.md §2)."""

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
            if actors:
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

    def test_no_side_standing_is_a_draw(self) -> None:
        """Victory needs one side with able members: when none is left, nobody wins."""
        b = battle(duel())
        hero, monster = b.fighters
        b.deal_damage(hero, 99, monster, "weapon")
        b.deal_damage(monster, 99, None, "fall")
        assert b._decided() and b.winner is None and b.log[-1]["winner"] is None


class TestInitiative:
    """Group initiative (RULES.md §2), rolled every round."""

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
        b.fighters[0].status = "unconscious"
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
    """Surprise round (RULES.md §2): only the surprising side acts in round 1."""

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


class TestUnconsciousAndDeath:
    """Unconsciousness and death (RULES.md §5)."""

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
        hp, status, cause, knocked_out, _morale, _learned = outcome.rows[0]
        assert hp == 0
        assert knocked_out and status == "unconscious" and cause is None

    def test_unconscious_not_targeted(self) -> None:
        """An unconscious combatant is not targeted by the default tactics."""
        spec = scenario(side("h", fighter("A"), fighter("B"), party=True),
                        side("m", fighter("M", hp=999)))
        for seed in range(10):
            b = battle(spec, seed=seed)
            b.deal_damage(b.fighters[0], 99, None, "fall")
            from sim.tactics import choose_target

            assert choose_target(b, b.fighters[2]).name == "B"


class TestDestinyPoints:
    """Destiny points option (RULES.md §5)."""

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


class Counting(OngoingEffect):
    """A test effect: 1 damage a tick, ends after three ticks."""

    name = "bleeding"

    def tick(self) -> None:
        self.battle.deal_damage(self.owner, 1, None, "bleeding")
        if self.ticks == 3:
            self.end("stopped")


class TestOngoingEffects:
    """Ongoing effects tick as SimPy processes at the start of their owner's turn (RULES.md §2)."""

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


class TestDistance:
    """Positions on one line, 8 m moves, 2 m melee reach, ranged weapons (RULES.md §2)."""

    def test_melee_closes_then_attacks(self) -> None:
        """At 20 m, a melee fighter moves 8 m a turn and attacks only within 2 m."""
        spec = scenario(side("h", fighter("A", hp=999, defense_threshold=60), party=True),
                        side("m", fighter("M", hp=999, defense_threshold=60, attack_threshold=0)),
                        distance=20, max_rounds=4)
        _, log = run_battle(spec, seed=1, log=True)
        moves = events(log, "moved")
        assert all(abs(e["x_after"] - e["x_before"]) <= 8 for e in moves)
        for attack in events(log, "attack_resolved"):
            positions = _positions_before(log, attack)
            assert abs(positions[attack["actor"]] - positions[attack["target"]]) <= 2

    def test_archer_stays_and_shoots(self) -> None:
        """A ranged fighter within range shoots without moving."""
        bow = Weapon("bow", dice.parse("1d6"), range=30)
        spec = scenario(side("h", fighter("Archer", weapons=(bow,), hp=999), party=True),
                        side("m", fighter("M", hp=999, defense_threshold=60, attack_threshold=0)),
                        distance=25, max_rounds=2)
        _, log = run_battle(spec, seed=1, log=True)
        assert not [e for e in events(log, "moved") if e["actor"] == "Archer"]
        assert [e for e in events(log, "attack_resolved") if e["actor"] == "Archer"]

    @pytest.mark.parametrize(("distance", "in_reach"), [(2.0, True), (2.5, False)])
    def test_melee_reach_is_two_metres(self, distance: float, in_reach: bool) -> None:
        """Melee needs a gap of at most 2 m: at exactly 2 m the first turn is an attack with
        no move; at 2.5 m the fighter must move first."""
        spec = scenario(side("h", fighter("A", hp=999, defense_threshold=60), party=True),
                        side("m", fighter("M", hp=999, defense_threshold=60, attack_threshold=0)),
                        distance=distance, max_rounds=1)
        _, log = run_battle(spec, seed=1, log=True)
        first = next(e for e in log if e["event"] in ("moved", "attack_resolved"))
        assert first["event"] == ("attack_resolved" if in_reach else "moved")
        assert bool(events(log, "moved")) is not in_reach


def _positions_before(log: list[dict], until: dict) -> dict[str, float]:
    positions = {c["name"]: c["x"] for c in log[0]["combatants"]}
    for e in log:
        if e is until:
            break
        if e["event"] == "moved":
            positions[e["actor"]] = e["x_after"]
    return positions


class TestActionEconomy:
    """d20 action economy (RULES.md §2): move, then a single attack."""

    def test_no_move_after_attack(self) -> None:
        """A d20 fighter never moves after attacking in the same turn, and attacks once."""
        bow = Weapon("bow", dice.parse("1d6"), range=30)
        spec = scenario(
            side("h", fighter("A", hp=999, level=10), fighter("B", hp=999, level=10), party=True),
            side("m", *(fighter(f"m{i}", hp=3, weapons=(bow,)) for i in range(4))),
            distance=20,
        )
        for seed in range(30):
            _, log = run_battle(spec, seed=seed, log=True)
            per_turn: dict[tuple, list[str]] = {}
            for e in log:
                if e["event"] in ("moved", "attack_resolved"):
                    per_turn.setdefault((e["t"], e["actor"]), []).append(e["event"])
            for actions in per_turn.values():
                assert actions in (["moved"], ["attack_resolved"], ["moved", "attack_resolved"])


class TestPositions:
    """Where sides start (RULES.md §2 distance)."""

    def test_without_party_first_side_at_zero(self) -> None:
        """Without a party side, the first listed side stands at 0 and the others at distance."""
        spec = scenario(side("wolves", fighter("W")), side("bears", fighter("B")), distance=30)
        b = battle(spec)
        assert [f.x for f in b.fighters] == [0.0, 30.0]
