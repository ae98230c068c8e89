"""The round clock of RULES.md §2 and unconsciousness and death of §5."""

from __future__ import annotations

import attrs
import pytest

from sim import dice
from sim.effects import OngoingEffect
from sim.engine import Battle, run_battle
from sim.model import Item, Scripted, Surprise, Weapon
from tests.builders import battle, duel, fighter, scenario, side, target_of


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

    def test_a_save_lasts_one_fall(self) -> None:
        """A point saves a character once: woken again (a potion), then knocked out by a
        serious wound, it dies with the unconscious if its side loses (RULES 5)."""
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


class Counting(OngoingEffect):
    """A test effect: 1 damage a tick, ends after three ticks."""

    name = "bleeding"

    def tick(self) -> None:
        self.host.deal_damage(self.owner, 1, None, "bleeding")
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

    def test_d20_turn_ends_at_its_single_attack(self, scripted) -> None:
        """d20: one attack ends the turn: after it nothing more is chosen or rolled."""
        b = battle(scenario(side("h", fighter("A"), party=True),
                            side("m", fighter("M", hp=30, defense_threshold=10),
                                 fighter("N", hp=30, defense_threshold=10))))
        rng = scripted(b, (1, 2), (15, 20), (3, 8))  # target M, 16 > 10, 3 damage
        b._take_turn(b.fighters[0])
        assert len(events(b.log, "attack_resolved")) == 1 and rng.unused == 0

    def test_d100_turn_is_two_half_actions(self, scripted) -> None:
        """d100: two one-handed attacks spend the turn: nothing more is chosen or rolled."""
        b = battle(d100(side("h", fighter("A", skills={"melee": 60}), party=True),
                        side("m", fighter("M", hp=30, skills={"defense": 1}),
                             fighter("N", hp=30, skills={"defense": 1}))))
        hit = ((40, 100), (90, 100), (3, 8))  # attack roll, failed defense, damage
        rng = scripted(b, (1, 2), *hit, (2, 2), *hit)
        b._take_turn(b.fighters[0])
        assert [e["target"] for e in events(b.log, "attack_resolved")] == ["M", "N"]
        assert rng.unused == 0


class TestPositions:
    """Where sides start (RULES.md §2 distance)."""

    def test_without_party_first_side_at_zero(self) -> None:
        """Without a party side, the first listed side stands at 0 and the others at distance."""
        spec = scenario(side("wolves", fighter("W")), side("bears", fighter("B")), distance=30)
        b = battle(spec)
        assert [f.x for f in b.fighters] == [0.0, 30.0]


def d100(*sides, **kwargs):
    """A d100 scenario built in code (half-actions: move, then strike, or strike twice)."""
    return attrs.evolve(scenario(*sides, **kwargs), rules="d100")


class TestAreaWeapons:
    """An area weapon's hit strikes the target and every enemy within 2 m of it."""

    def test_blast_strikes_enemies_within_two_metres(self, scripted) -> None:
        """The blast takes the target and its able fellows at most 2 m away (2 m in, 2.5 m out),
        never the attacker's own side."""
        firepot = Weapon("firepot", dice.parse("1d6"), range=10, area=True)
        spec = scenario(
            side("h", fighter("A", level=10, weapons=(firepot,)), fighter("Ally", hp=30),
                 party=True, target="weakest"),
            side("m", fighter("T", hp=30, defense_threshold=10), fighter("Near", hp=30),
                 fighter("Edge", hp=30), fighter("Far", hp=30)),
        )
        b = battle(spec)
        a, ally, target, near, edge, far = b.fighters
        a.x, ally.x, target.x, near.x, edge.x, far.x = 0.0, 5.0, 5.0, 6.0, 7.0, 7.5
        b.spread = True
        scripted(b, (5, 20), (3, 6), (4, 6), (5, 6))  # 15 > 10, margin 5: no critical
        b.attack(a, target, firepot)
        hit = [(e["target"], e["amount"], e["source"], e["kind"]) for e in events(b.log, "damage_dealt")]
        assert hit == [("T", 3, "A", "weapon"), ("Near", 4, "A", "weapon"), ("Edge", 5, "A", "weapon")]
        assert (ally.hp, far.hp) == (30, 30)

    def test_no_blast_without_area(self, scripted) -> None:
        """Only an `area` weapon blasts: a poisoned blade hits its target alone, even with
        another enemy within 2 m."""
        blade = Weapon("blade", dice.parse("1d6"), poison=True)
        spec = scenario(side("h", fighter("A", level=10, weapons=(blade,)), party=True),
                        side("m", fighter("T", hp=30, defense_threshold=10), fighter("N", hp=30)))
        b = battle(spec)
        a, target, near = b.fighters
        scripted(b, (5, 20), (3, 6), (20, 20))  # hit, 3 damage, the poison's force check beaten
        b.attack(a, target, blade)
        assert [e["target"] for e in events(b.log, "damage_dealt")] == ["T"] and near.hp == 30

    def test_spell_damage_kind_and_armor_piercing(self, scripted) -> None:
        """A spell's hit is logged as `spell` damage; an armor-piercing weapon's hit says so,
        with its natural dice."""
        bolt = Weapon("bolt", dice.parse("2d6"), range=20, psy=1, armor_piercing=True)
        b = battle(duel(hero={"level": 10, "weapons": (bolt,)},
                        monster={"hp": 40, "defense_threshold": 10}))
        hero, monster = b.fighters
        hero.psy = 5
        scripted(b, (5, 20), (2, 6), (6, 6))
        b.attack(hero, monster, bolt)
        damage = events(b.log, "damage_dealt")[-1]
        assert (damage["kind"], damage["amount"], damage["armor_piercing"], damage["dice"]) == (
            "spell", 8, True, [2, 6])


class TestTurnTimes:
    """Turns happen at fractional times inside their round, in initiative order (RULES.md §2)."""

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


class TestEndOfBattle:
    """Victory, draws and who dies at the end (RULES.md §2, §5)."""

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
    """A knocked-out fighter that wakes counts again for victory (RULES.md §2 victory)."""

    def test_woken_fighter_stands_for_its_side(self) -> None:
        """Knocked out, then awake: its side stands again; knocked out again: its side falls."""
        b = battle(duel())
        hero, _ = b.fighters
        b.set_unconscious(hero, "weapon")
        b.wake(hero)
        assert not b._decided()
        b.set_unconscious(hero, "weapon")
        assert b._decided() and b.winner == "monsters"


class TestD100Turn:
    """d100 half-actions (RULES.md §2): strike, then move; walk, then throw."""

    def test_strike_then_move_to_the_next_enemy(self, scripted) -> None:
        """A one-handed fighter who drops its foe with one half-action moves with the other."""
        spec = d100(side("h", fighter("A", skills={"melee": 60}), party=True),
                    side("m", fighter("M", hp=1, skills={"defense": 1}), fighter("N", hp=30)),
                    distance=1)
        b = battle(spec)
        a, m, n = b.fighters
        m.x, n.x = 1.0, 6.0
        b.spread = True
        scripted(b, (40, 100), (90, 100), (5, 8))  # hit, defense failed, 5 damage
        b._take_turn(a)
        acts = [e["event"] for e in b.log if e["event"] in ("attack_resolved", "moved")]
        assert acts == ["attack_resolved", "moved"] and a.x == 6.0
        attack = events(b.log, "attack_resolved")[0]
        assert attack["outnumbered"] is False and attack["surprise"] is False

    def test_walk_then_throw(self, scripted) -> None:
        """One move short of range, a thrower walks (a half-action) and throws (the other)."""
        knife = Weapon("knife", dice.parse("1d4"), range=10, skill="throwing")
        spec = d100(side("h", fighter("A", weapons=(knife,), skills={"throwing": 60}), party=True),
                    side("m", fighter("M", hp=30, skills={"defense": 1})), distance=16)
        b = battle(spec)
        a = b.fighters[0]
        scripted(b, (40, 100), (90, 100), (2, 4))
        b._take_turn(a)
        moved = events(b.log, "moved")
        assert [(e["x_after"], e.get("run")) for e in moved] == [(6.0, None)]
        assert len(events(b.log, "attack_resolved")) == 1

    @pytest.mark.parametrize(("start", "end"), [(34.0, 30.0), (30.5, 30.0)])
    def test_archer_closes_exactly_to_range(self, start: float, end: float) -> None:
        """A ranged fighter out of range moves only until the target is at its range."""
        bow = Weapon("bow", dice.parse("1d6"), range=30)
        b = battle(scenario(side("h", fighter("A", weapons=(bow,)), party=True),
                            side("m", fighter("M")), distance=start))
        archer, m = b.fighters
        b._move(archer, m, stop_at=30.0)
        moved = events(b.log, "moved")[0]
        assert (moved["toward"], moved["x_before"], m.x - moved["x_after"]) == ("M", 0.0, end)


class TestWoundsThroughDamage:
    """What a hit sets off, through the engine's damage (RULES.md §4 wounds)."""

    def test_one_damage_costs_a_token_with_divisor_one(self) -> None:
        """Morale: a wound of k damage costs floor(k / divisor): 1 damage, divisor 1, 1 token."""
        b = battle(duel(morale_on=True, wound_divisor=1))
        hero, monster = b.fighters
        before = hero.morale
        b.deal_damage(hero, 1, monster, "weapon")
        assert hero.morale == max(0, before - 1)

    def test_plain_hit_credits_the_attacker(self, scripted) -> None:
        """A plain weapon hit is `weapon` damage from the attacker: a kill is the attacker's."""
        b = battle(duel(hero={"level": 10}, monster={"hp": 3, "defense_threshold": 10},
                        morale_on=True))
        hero, monster = b.fighters
        tokens = hero.morale
        scripted(b, (5, 20), (8, 8))
        b.attack(hero, monster, hero.spec.weapons[0])
        damage = events(b.log, "damage_dealt")[-1]
        assert (damage["source"], damage["kind"]) == ("Hero", "weapon")
        assert monster.cause == "weapon" and hero.morale == tokens + 2


def _unarmed(name: str, **fields: object):
    return fighter(name, weapons=(), **fields)


class TestStalemate:
    """A battle nobody can change any more ends at once as a draw, stopped by stalemate."""

    def test_weaponless_sides_stop_in_round_one(self) -> None:
        """Weaponless sides: a draw at round 1, battle_ended says stopped: stalemate."""
        spec = scenario(side("a", *(_unarmed(f"a{i}") for i in range(3)), party=True),
                        side("b", *(_unarmed(f"b{i}") for i in range(3))), max_rounds=10_000)
        outcome, log = run_battle(spec, seed=1, log=True)
        end = log[-1]
        assert (outcome.winner, outcome.rounds) == (None, 1)
        assert (end["winner"], end["rounds"], end["stopped"]) == (None, 1, "stalemate")
        assert end["dead"] == [] and len(end["survivors"]) == 6

    def test_an_armed_side_is_not_a_stalemate(self) -> None:
        """One weapon on the field: the battle is fought out and the armed side wins."""
        spec = scenario(side("a", fighter("A", level=5), party=True),
                        side("b", _unarmed("B", hp=3)), max_rounds=10_000)
        outcome, log = run_battle(spec, seed=1, log=True)
        assert outcome.winner == "a" and "stopped" not in log[-1]

    def test_scripted_event_delays_the_stalemate(self) -> None:
        """A timeline entry still to come (round 3) keeps the battle going until it has run."""
        spec = attrs.evolve(
            scenario(side("a", _unarmed("A", hp=50), party=True), side("b", _unarmed("B", hp=50)),
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
            scenario(side("a", _unarmed("A", hp=200), party=True), side("b", _unarmed("B", hp=50)),
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
            scenario(side("a", fighter("A", hp=1), _unarmed("A2"), party=True),
                     side("b", _unarmed("B", hp=500, defense_threshold=99)), max_rounds=100),
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
            scenario(side("a", fighter("A", hp=1), _unarmed("A2", items=(potion,)), party=True),
                     side("b", _unarmed("B", hp=500, defense_threshold=99)), max_rounds=6),
            timeline=(Scripted(round=2, do="explode", targets=("A",), damage=dice.parse("5")),),
        )
        outcome, log = run_battle(spec, seed=1, log=True)
        assert [(e["actor"], e["target"], e["round"]) for e in events(log, "item_used")] == [
            ("A2", "A", 2)]
        assert outcome.rounds == 6 and log[-1]["stopped"] == "max_rounds"

    def test_a_rout_to_come_is_not_a_stalemate(self) -> None:
        """A side below flee_at still flees at its turns: that decides the battle, not a draw."""
        spec = attrs.evolve(
            scenario(side("a", fighter("A", hp=1), _unarmed("A2"), _unarmed("A3"), party=True),
                     side("b", _unarmed("B", hp=500, defense_threshold=99)), max_rounds=100,
                     flee_at=0.9),
            timeline=(Scripted(round=2, do="explode", targets=("A",), damage=dice.parse("5")),),
        )
        outcome, log = run_battle(spec, seed=1, log=True)
        assert outcome.winner == "b" and "stopped" not in log[-1]
        assert [e["target"] for e in events(log, "fled")] == ["A2", "A3"]
