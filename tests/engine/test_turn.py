"""A turn and its action economy (rules §2): distance and moves, half-actions, positions."""

from __future__ import annotations

import attrs
import pytest

from sim import dice
from sim.engine import run_battle
from sim.engine.effects import Asphyxiating, expose, poison, throw_off
from sim.model import Hazard, Item, Weapon
from tests.builders import SWORD, battle, d100, events, fighter, mounted, scenario, side
from tests.engine.helpers import Counting, unarmed


class TestDistance:
    """Positions on one line, 8 m moves, 2 m melee reach, ranged weapons (rules §2)."""

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

    def test_standing_together_every_weapon_reaches(self) -> None:
        """At distance 0 everyone stands at one spot: even a spell of the shortest range a
        scenario allows (0.5 m, a touch) reaches, and the caster's first turn casts it."""
        touch = Weapon("touch", dice.parse("1d4"), range=0.5, psy=1)
        b = battle(scenario(side("h", fighter("A", weapons=(touch,), psy=5), party=True),
                            side("m", fighter("M", hp=50))))
        b._take_turn(b.fighters[0])
        assert [e["weapon"] for e in events(b.log, "attack_resolved")] == ["touch"]

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
    """d20 action economy (rules §2): move, then a single attack."""

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


class TestWhoActs:
    """rules §2: a combatant acts on its turn if it is conscious, present and not stunned."""

    @pytest.mark.parametrize("state", ["able", "unconscious", "fled", "stunned"])
    def test_acts_only_if_conscious_present_and_not_stunned(self, state: str) -> None:
        """Only the able fighter attacks; an unconscious, fled or stunned one does nothing
        (the stunned one logs its lost turn)."""
        b = battle(scenario(side("h", fighter("A", hp=20), party=True),
                            side("m", fighter("M", hp=500), fighter("N", hp=500))))
        a = b.fighters[0]
        if state == "unconscious":
            b.set_unconscious(a, "test")
        elif state == "fled":
            b.flee(a)
        elif state == "stunned":
            a.skip_turns = 1
        before = len(b.log)
        b._take_turn(a)
        acted = [e["event"] for e in b.log[before:]]
        assert ("attack_resolved" in acted) == (state == "able")
        assert ("turn_skipped" in acted) == (state == "stunned")


class TestPositions:
    """Where sides start (rules §2 distance)."""

    def test_without_party_first_side_at_zero(self) -> None:
        """Without a party side, the first listed side stands at 0 and the others at distance."""
        spec = scenario(side("wolves", fighter("W")), side("bears", fighter("B")), distance=30)
        b = battle(spec)
        assert [f.x for f in b.fighters] == [0.0, 30.0]


class TestD100Turn:
    """d100 half-actions (rules §2): strike, then move; walk, then throw."""

    @staticmethod
    def _strike_and_go(scripted, n_at: float, **options: object):
        """A (melee 60, at 0) drops M, 1 m away, with one strike (hit, defense failed, 5
        damage), N standing at ``n_at``: the battle after A's turn."""
        spec = d100(side("h", fighter("A", skills={"melee": 60}), party=True),
                    side("m", fighter("M", hp=1, skills={"defense": 1}), fighter("N", hp=30)),
                    distance=1, **options)
        b = battle(spec)
        _, m, n = b.fighters
        m.x, n.x = 1.0, n_at
        b.spread = True
        scripted(b, (40, 100), (90, 100), (5, 8))
        b._take_turn(b.fighters[0])
        return b

    @pytest.mark.parametrize("options", [{}, {"attacks_per_turn": 1}], ids=["default", "one-attack"])
    def test_strike_then_move_to_the_next_enemy(self, scripted, options) -> None:
        """A one-handed fighter who drops its foe with one half-action moves with the other;
        `attacks_per_turn: 1` caps attacks, not half-actions, so it still walks."""
        b = self._strike_and_go(scripted, 6.0, **options)
        acts = [e["event"] for e in b.log if e["event"] in ("attack_resolved", "moved")]
        assert acts == ["attack_resolved", "moved"] and b.fighters[0].x == 6.0
        attack = events(b.log, "attack_resolved")[0]
        assert attack["outnumbered"] is False and attack["surprise"] is False

    def test_a_half_action_left_walks_it_never_runs(self, scripted) -> None:
        """Running (2 x Movement) is a full action: after a one-handed strike only a
        half-action is left, so the fighter walks one Movement (8 m) toward the next enemy,
        however far it stands."""
        b = self._strike_and_go(scripted, 30.0)
        moved = events(b.log, "moved")
        assert [(e["x_before"], e["x_after"], e.get("run")) for e in moved] == [(0.0, 8.0, None)]

    @staticmethod
    def _caster_turn(scripted, psy: int, pick: int):
        """A (a sword and a 20 m bolt costing 10 PSY, with ``psy`` PSY, at 0) faces M at 5 m and
        N at 15 m; its first random pick shows ``pick`` of 2: the battle after A's turn."""
        spell = Weapon("bolt", dice.parse("1d6"), range=20, psy=10)
        spec = d100(side("h", fighter("A", hp=20, psy=psy, weapons=(SWORD, spell)), party=True),
                    side("m", fighter("M", hp=30), fighter("N", hp=30)), distance=5)
        b = battle(spec)
        b.fighters[2].x = 15.0
        scripted(b, (pick, 2), (90, 100), (90, 100))  # the pick; then a miss, parried
        b._take_turn(b.fighters[0])
        return b

    def test_spell_it_cannot_afford_reaches_nobody(self, scripted) -> None:
        """An enemy only an unaffordable spell (20 m) would reach is not in reach: after
        walking up to one enemy, the fighter strikes it with its sword instead of walking on
        toward another (README, focus and reach; a random pick among those in reach)."""
        b = self._caster_turn(scripted, psy=0, pick=1)  # the first pick: M
        assert [(e["toward"], e["x_after"]) for e in events(b.log, "moved")] == [("M", 5.0)]
        assert [e["target"] for e in events(b.log, "attack_resolved")] == ["M"]

    def test_spell_it_can_afford_reaches_its_range(self, scripted) -> None:
        """The same fighter with the PSY to cast: the enemy 10 m off is in reach, so the random
        pick is between both enemies and it casts at N without moving."""
        b = self._caster_turn(scripted, psy=10, pick=2)  # the pick: N, among both
        assert events(b.log, "moved") == []
        assert [(e["target"], e["weapon"]) for e in events(b.log, "attack_resolved")] == [("N", "bolt")]

    def test_walk_then_throw(self, scripted) -> None:
        """One move short of range, a thrower walks (a half-action) and throws (the other)."""
        knife = Weapon("knife", dice.parse("1d4"), range=10, skill="throwing", thrown=True)
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


class TestRout:
    """Rout (rules §4, option flee_at): a side below the fraction flees at its turns."""

    def test_a_fleeing_rider_rides_away_on_its_mount(self) -> None:
        """A rider who flees is carried away by its mount: both have fled (both logged), and
        the rider's ongoing effects end because it fled."""
        spec = d100(side("h", fighter("Knight", mount="Horse"),
                         fighter("Horse", hp=30, rider="Knight", movement=16), fighter("Squire"),
                         party=True),
                    side("m", fighter("M", hp=40)), flee_at=0.9)
        b = battle(spec)
        knight, horse, squire, m = b.fighters
        b.deal_damage(squire, 99, m, "weapon")  # one able member of two: below 0.9
        Counting(b, knight).start()
        b._take_turn(knight)
        assert [e["target"] for e in events(b.log, "fled")] == ["Knight", "Horse"]
        assert (knight.status, horse.status) == ("fled", "fled")
        ended = [(e["target"], e["effect"], e["reason"]) for e in events(b.log, "effect_ended")]
        assert ended == [("Knight", "bleeding", "fled")]


class TestMovement:
    """Movement (rules §2 distance): metres per move."""

    def test_movement_zero_never_moves(self) -> None:
        """A fighter whose Movement is 0 stays where it stands: no move is logged, even with
        its only enemy out of reach."""
        spec = scenario(side("h", fighter("Rooted", movement=0.0), party=True),
                        side("m", unarmed("M", hp=50)), distance=20, max_rounds=2)
        _, log = run_battle(spec, seed=1, log=True)
        assert events(log, "moved") == [] and events(log, "attack_resolved") == []


class TestRescue:
    """Rescue (rules §6): an able ally within 2 m pulls a trapped fighter out (a full action)."""

    @staticmethod
    def _trapped(scripted, *zones: tuple[str, str], poisoned: bool = False):
        """Friend (unarmed, with a potion) then Swimmer, at 31.5 m and 30 m: the swimmer,
        poisoned first if asked, is in each (kind, escape) zone, drowning in water past its
        first failed check, still holding its breath in smoke."""
        friend = unarmed("Friend", hp=50, items=(Item(heal=dice.parse("2d4")),))
        spec = d100(side("m", unarmed("M", hp=500), party=True),
                    side("h", friend, unarmed("Swimmer", hp=50)), distance=30)
        # The scenario's hazards put the swimmer in its zones (placed below, after the poison).
        spec = attrs.evolve(spec, hazards=tuple(Hazard(kind, ("Swimmer",), escape=escape)
                                                for kind, escape in zones))
        b = battle(spec)
        friend, swimmer = b.fighters[1:]
        friend.x = 31.5
        b.spread = True
        if poisoned:
            scripted(b, (99, 100), (2, 4))  # the force check failed: poisoned, 2 damage
            poison(b, swimmer, None)
        for kind, escape in zones:
            expose(b, swimmer, kind, escape)
        for effect in swimmer.effects:
            if isinstance(effect, Asphyxiating):  # past its first failed check in water only
                effect.failed = effect.kind == "water"
        scripted(b)
        return b, swimmer, friend

    def test_rescue_reach_is_the_gap_between_them(self, scripted) -> None:
        """Within 2 m is the gap between the two, wherever they stand: 30 m and 31.5 m."""
        b, swimmer, friend = self._trapped(scripted, ("water", "none"))
        b._take_turn(friend)
        assert [(e["actor"], e["target"]) for e in events(b.log, "rescued")] == [
            ("Friend", "Swimmer")]
        assert swimmer.effects == []

    def test_a_poisoned_swimmer_is_still_pulled_out(self, scripted) -> None:
        """A drowning ally who is also poisoned is pulled out of the water; the poison stays."""
        b, swimmer, friend = self._trapped(scripted, ("water", "none"), poisoned=True)
        b._take_turn(friend)
        assert [e["target"] for e in events(b.log, "rescued")] == ["Swimmer"]
        assert [e.name for e in swimmer.effects] == ["poisoned"]

    def test_pulled_out_of_fire_while_holding_its_breath_in_smoke(self, scripted) -> None:
        """Held in a fire zone (escape: none) inside smoke where it still holds its breath, an
        ally is pulled out of the fire (the smoke, no hurry yet, stays)."""
        b, swimmer, friend = self._trapped(scripted, ("smoke", "move"), ("fire", "none"))
        b._take_turn(friend)
        ended = [(e["effect"], e["reason"]) for e in events(b.log, "effect_ended")]
        assert ended == [("in_fire", "rescued")]
        assert [e.name for e in swimmer.effects] == ["asphyxiating"]

    def test_an_able_ally_who_can_walk_out_is_not_rescued(self, scripted) -> None:
        """An able ally drowning in water it can leave by moving (escape: move) gets out on its
        own turn: nobody spends a full action on it."""
        b, swimmer, friend = self._trapped(scripted, ("water", "move"))
        b._take_turn(friend)
        assert events(b.log, "rescued") == [] and swimmer.effects[0].active


class TestLeavingAZone:
    """Leaving a hazard zone with `escape: move` is a move (rules §2, §6)."""

    @pytest.mark.parametrize(("rules", "x_after"), [("d20", 0.0), ("d100", 8.0), ("2d10", 0.0)])
    def test_leaving_a_zone_spends_a_move(self, rules: str, x_after: float) -> None:
        """d20 (move, then attack): the move is spent; d100: a half-action, the other half
        walks 8 m toward the enemy; 2d10: the turn's one action."""
        spec = attrs.evolve(
            scenario(side("h", fighter("A", hp=50), party=True), side("m", fighter("M", hp=50)),
                     distance=20),
            rules=rules, hazards=(Hazard("water", ("A",), escape="move"),))
        b = battle(spec)
        a = b.fighters[0]
        b._take_turn(a)
        ended = [(e["target"], e["reason"]) for e in events(b.log, "effect_ended")]
        assert ended == [("A", "left the zone")] and a.effects == []
        assert a.x == x_after and events(b.log, "attack_resolved") == []

    def test_only_a_zone_it_cannot_leave_holds_a_fighter(self, scripted) -> None:
        """A poisoned fighter still runs toward a distant enemy (d100: 16 m); what holds a
        fighter where it stands is a zone with `escape: none`."""
        spec = d100(side("h", fighter("A", hp=50), party=True), side("m", fighter("M", hp=50)),
                    distance=20)
        b = battle(spec)
        a = b.fighters[0]
        scripted(b, (99, 100), (2, 4))  # the force check failed: poisoned, 2 damage
        poison(b, a, None)
        b._take_turn(a)
        assert [(e["x_after"], e.get("run")) for e in events(b.log, "moved")] == [(16.0, True)]

    @pytest.mark.parametrize(("rules", "attacks"), [("d20", 1), ("d100", 1), ("2d10", 0)])
    def test_leaving_a_zone_leaves_what_is_left_of_the_turn(self, rules: str,
                                                            attacks: int) -> None:
        """With the enemy in reach, what is left after leaving the zone: d20 its attack, d100
        one half-action (one attack), 2d10 nothing."""
        spec = attrs.evolve(
            scenario(side("h", fighter("A", hp=50), party=True), side("m", fighter("M", hp=500))),
            rules=rules, hazards=(Hazard("water", ("A",), escape="move"),))
        b = battle(spec)
        b._take_turn(b.fighters[0])
        assert len(events(b.log, "attack_resolved")) == attacks


class TestStandingUp:
    """Standing up after a fall, or helping an ally up, costs a half-action (rules §6)."""

    @pytest.mark.parametrize(("rules", "attacks"), [("d20", 1), ("2d10", 0)])
    def test_standing_up_takes_its_share_of_the_turn(self, rules: str, attacks: int) -> None:
        """A fallen fighter stands up on its turn: d20 then attacks (move, then attack); in
        2d10 standing is the turn's one action."""
        spec = attrs.evolve(scenario(side("h", fighter("A"), party=True),
                                     side("m", fighter("M", hp=500))), rules=rules)
        b = battle(spec)
        a = b.fighters[0]
        a.prone = True  # thrown from a saddle
        b._take_turn(a)
        assert [e["actor"] for e in events(b.log, "stood_up")] == ["A"] and not a.prone
        assert len(events(b.log, "attack_resolved")) == attacks

    def test_helping_up_an_ally_within_two_metres(self) -> None:
        """2d10: helping a rider thrown from its horse, exactly 2 m away, to its feet is the
        helper's action, wherever the two stand (here 30 m and 32 m); it does nothing else."""
        spec = attrs.evolve(
            scenario(side("m", fighter("M", hp=500), party=True),
                     side("h", fighter("A", hp=50, mount="Horse"), fighter("Horse", rider="A"),
                          fighter("B")), distance=30),
            rules="2d10")
        b = battle(spec)
        a, _, helper = b.fighters[1:]
        throw_off(b, a, "fell from the saddle", check=False)
        helper.x, b.spread = 32.0, True
        b._take_turn(helper)
        assert [(e["actor"], e["target"]) for e in events(b.log, "helped_up")] == [("B", "A")]
        assert not a.prone and events(b.log, "moved") == []


class TestMountedMoves:
    """A ridden mount moves with its rider (rules §2 distance, §6 mounted combat)."""

    def test_a_ridden_mount_does_not_walk_on_its_own(self) -> None:
        """A mount whose rider is still in the saddle does not walk toward a distant enemy on
        its own turn: it goes where its rider rides it."""
        b = battle(mounted(distance=30))
        knight, horse, _ = b.fighters
        b._take_turn(horse)
        assert events(b.log, "moved") == [] and (knight.x, horse.x) == (0.0, 0.0)
