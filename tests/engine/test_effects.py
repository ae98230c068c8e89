"""Hazards and ongoing effects of seed 002 as event timelines (rules §6, §2 ticks, timeline)."""

from __future__ import annotations

import attrs
import pytest

from sim import dice
from sim.engine import Battle
from sim.engine.effects import Burning, explode, expose, fall, ignite, poison, throw_off
from sim.model import Hazard, Scenario, Scripted, Weapon
from sim.rules.d100 import characteristic
from tests.builders import ScriptedRandom, battle, d100, events, fighter, scenario, side, turn

INITIATIVE = (4, 6)  # the party's group initiative die, each round: the party acts first


class TestFire:
    """Fire: catching fire, burning ticks, putting it out, social lost (rules §6, fire)."""

    def test_ignite_failure_sets_burning(self, scripted) -> None:
        """Fire: touched by fire, a failed physique check sets the target burning."""
        b = battle(duo())
        target = b.fighters[0]
        scripted(b, (80, 100))
        ignite(b, target, None)
        check = events(b.log, "check_rolled")[0]
        assert (check["actor"], check["purpose"], check["success"]) == ("A", "physique", False)
        started = events(b.log, "effect_started")[0]
        assert (started["target"], started["effect"]) == ("A", "burning")

    def test_ignite_success_does_nothing(self, scripted) -> None:
        """Fire: a successful physique check when touched by fire keeps the target from burning."""
        b = battle(duo())
        target = b.fighters[0]
        scripted(b, (30, 100))
        ignite(b, target, None)
        assert target.effects == [] and events(b.log, "effect_started") == []

    def test_already_burning_not_rechecked(self, scripted) -> None:
        """Fire: a burning combatant touched by fire again rolls nothing (one fire at a time)."""
        b = battle(duo())
        target = b.fighters[0]
        scripted(b, (80, 100))
        ignite(b, target, None)
        rng = scripted(b)
        ignite(b, target, None)
        assert rng.unused == 0 and len(target.effects) == 1

    def test_burning_ticks_then_physique_puts_out(self, scripted) -> None:
        """Burning: 1d6 armor-piercing at the start of each of its turns, then a physique check;
        success puts the fire out."""
        b = battle(duo(a={"armor": 5, "hp": 30}))
        target = b.fighters[0]
        scripted(b, (80, 100))
        ignite(b, target, None)
        b.env.run()
        rng = scripted(b, (4, 6), (80, 100), (3, 6), (30, 100))
        turn(b, target)
        turn(b, target)
        fire = events(b.log, "damage_dealt")
        assert [(e["amount"], e["kind"], e["armor_piercing"]) for e in fire] == [
            (4, "fire", True), (3, "fire", True)]
        assert target.hp == 30 - 7
        checks = [e["success"] for e in events(b.log, "check_rolled")]
        assert checks == [False, False, True]  # ignite, then one check after each tick
        ended = events(b.log, "effect_ended")
        assert [(e["effect"], e["reason"]) for e in ended] == [("burning", "put out")]
        turn(b, target)  # out: nothing more
        assert rng.unused == 0 and target.effects == []

    def test_social_lost_once_past_half_max_hp(self, scripted) -> None:
        """Fire: once fire damage exceeds half the maximum HP, 1d10 social is lost, once."""
        b = battle(duo(a={"hp": 10, "characteristics": {"social": 40}}))
        target = b.fighters[0]
        scripted(b, (80, 100))
        ignite(b, target, None)
        b.env.run()
        rng = scripted(
            b,
            (4, 6), (80, 100),  # 4 of fire
            (1, 6), (80, 100),  # 5: exactly half, not past it
            (2, 6), (7, 10), (80, 100),  # 7 > 5: lose 1d10 = 7 social
            (1, 6), (30, 100),  # 8: no second loss; put out
        )
        for _ in range(4):
            turn(b, target)
        lost = events(b.log, "characteristic_lost")
        assert [(e["target"], e["characteristic"], e["amount"], e["cause"]) for e in lost] == [
            ("A", "social", 7, "fire")]
        assert characteristic(target, "social") == 33 and rng.unused == 0

    def test_social_lost_again_in_a_later_fight_of_a_day(self, scripted) -> None:
        """Fire: the threshold counts the HP lost to fire this battle, so a later fight of a day
        can take 1d10 social again; the social lost earlier stays lost (rules §6, §7)."""
        b = battle(duo(a={"hp": 10, "characteristics": {"social": 40}}))
        target = b.fighters[0]
        target.social_lost = 7  # carried from the day's earlier fire
        scripted(b, (80, 100))
        ignite(b, target, None)
        b.env.run()
        rng = scripted(b, (4, 6), (80, 100),  # 4 of fire this battle
                       (2, 6), (3, 10), (30, 100))  # 6 > 5: lose 1d10 = 3 more; put out
        for _ in range(2):
            turn(b, target)
        lost = events(b.log, "characteristic_lost")
        assert [(e["characteristic"], e["amount"]) for e in lost] == [("social", 3)]
        assert target.social_lost == 10 and characteristic(target, "social") == 30
        assert rng.unused == 0

    def test_fire_social_loss_counts_hp_actually_lost(self, scripted) -> None:
        """Fire: the social loss counts the HP actually lost to fire, not dice rolled at 0 HP
        (10 HP, 3 left: a 6 of fire takes 3, not past half; 1d10 social is not lost)."""
        b = battle(duo(a={"hp": 10, "characteristics": {"social": 40}}))
        target = b.fighters[0]
        b.deal_damage(target, 7, None, "fall")
        scripted(b, (80, 100))
        ignite(b, target, None)
        b.env.run()
        rng = scripted(b, (6, 6), (80, 100))  # 6 of fire on 3 HP; still burning
        turn(b, target)
        assert target.hp == 0 and target.fire_damage == 3
        assert events(b.log, "characteristic_lost") == [] and target.social_lost == 0
        assert characteristic(target, "social") == 40 and rng.unused == 0

    def test_fire_weapon_hit_ignites(self, scripted) -> None:
        """Fire: a hit with a `fire` weapon touches the target with fire (a physique check)."""
        torch = Weapon(name="torch", damage=dice.parse("1d4"), fire=True)
        b = battle(duo(a={"weapons": (torch,), "skills": {"melee": 60}}, m={"hp": 40}))
        a, m = b.fighters[0], b.fighters[-1]
        rng = scripted(b, (30, 100), (99, 100), (2, 4), (80, 100))
        b.attack(a, m, torch)
        assert [e["purpose"] for e in events(b.log, "check_rolled")] == ["attack", "defense",
                                                                       "physique"]
        assert [e["effect"] for e in events(b.log, "effect_started")] == ["burning"]
        assert events(b.log, "effect_started")[0]["source"] == "A" and rng.unused == 0

    def test_fire_zone_touches_each_turn(self, scripted) -> None:
        """Fire: a burning zone touches its occupant with fire at the start of each of its turns."""
        b = battle(duo())
        target = b.fighters[0]
        expose(b, target, "fire", "none")
        b.env.run()
        rng = scripted(b, (30, 100), (80, 100))
        turn(b, target)  # resists
        turn(b, target)  # catches fire
        assert [e["success"] for e in events(b.log, "check_rolled")] == [True, False]
        assert [e["effect"] for e in events(b.log, "effect_started")] == ["in_fire", "burning"]
        assert rng.unused == 0


class TestAsphyxia:
    """Asphyxia and drowning: checks at -10 a turn down to -50, then 1d6 a turn (rules §6)."""

    def test_trapped_swimmer_timeline(self) -> None:
        """Drowning: physique at 60, 50, 40, 30, 20, 10, 10 on successive exposed turns until the
        first failure; from then on 1d6 `drowning` each turn, with no more checks."""
        rolls = [60, 50, 40, 30, 20, 10, 11]  # each equal to its target, then one short
        damage = [3, 5, 2]
        faces = [f for r in rolls for f in (INITIATIVE, (r, 100))]
        faces += [(damage[0], 6)]  # the failing turn already takes its 1d6
        faces += [INITIATIVE, (damage[1], 6), INITIATIVE, (damage[2], 6)]
        spec = swimmer_scenario(Hazard("water", ("Swimmer",), zone="pond", escape="none"),
                                max_rounds=9)
        b, rng = run_scripted(spec, *faces)
        checks = [e for e in events(b.log, "check_rolled") if e["actor"] == "Swimmer"]
        assert [e["target"] for e in checks] == [60, 50, 40, 30, 20, 10, 10]
        assert [e["modifier"] for e in checks] == [0, -10, -20, -30, -40, -50, -50]
        assert [e["success"] for e in checks] == [True] * 6 + [False]
        assert {e["purpose"] for e in checks} == {"physique"}
        hurt = events(b.log, "damage_dealt")
        assert [(e["round"], e["amount"], e["kind"], e["armor_piercing"]) for e in hurt] == [
            (7, 3, "drowning", True), (8, 5, "drowning", True), (9, 2, "drowning", True)]
        assert [e["round"] for e in checks] == list(range(1, 8))
        assert rng.unused == 0 and b.fighters[0].hp == 50 - 10

    def test_smoke_is_asphyxia(self) -> None:
        """Asphyxia: a smoke zone works like water, and its damage has the event log's one kind
        for this rule, `drowning` (ARCHITECTURE: damage_dealt kinds); effect_started says smoke."""
        spec = swimmer_scenario(Hazard("smoke", ("Swimmer",), escape="none"), max_rounds=2)
        b, rng = run_scripted(spec, INITIATIVE, (80, 100), (4, 6), INITIATIVE, (2, 6))
        hurt = events(b.log, "damage_dealt")
        assert [(e["amount"], e["kind"]) for e in hurt] == [(4, "drowning"), (2, "drowning")]
        assert [e["kind"] for e in events(b.log, "effect_started")] == ["smoke"]
        assert len(events(b.log, "check_rolled")) == 1 and rng.unused == 0

    def test_escape_by_move(self) -> None:
        """Asphyxia: with `escape: move` the fighter leaves the zone with a move (a half-action)."""
        spec = swimmer_scenario(Hazard("water", ("Swimmer",), escape="move"), max_rounds=2)
        b, rng = run_scripted(spec, INITIATIVE, (30, 100), INITIATIVE)
        ended = events(b.log, "effect_ended")
        assert [(e["target"], e["effect"], e["reason"], e["round"]) for e in ended] == [
            ("Swimmer", "asphyxiating", "left the zone", 1)]
        assert len(events(b.log, "check_rolled")) == 1 and rng.unused == 0

    def test_exposed_by_timeline(self) -> None:
        """Asphyxia: a scripted `expose` puts a fighter in water from that round on."""
        spec = swimmer_scenario(max_rounds=3)
        spec = attrs.evolve(spec, timeline=(
            Scripted(round=2, do="expose", targets=("Swimmer",), kind="water", escape="none"),))
        b, rng = run_scripted(spec, INITIATIVE, INITIATIVE, (60, 100), INITIATIVE, (51, 100),
                              (1, 6))
        checks = events(b.log, "check_rolled")
        assert [(e["round"], e["target"], e["success"]) for e in checks] == [(2, 60, True),
                                                                          (3, 50, False)]
        assert rng.unused == 0

    def test_ally_rescues_trapped_swimmer(self) -> None:
        """Asphyxia: an ally in reach rescues a trapped drowning fighter with a full action
        (`rescued`); the effect ends and the drowning stops."""
        spec = swimmer_scenario(Hazard("water", ("Swimmer",), escape="none"), max_rounds=2,
                                friend={"weapons": ()})
        faces = (INITIATIVE, (80, 100), (3, 6), INITIATIVE, (2, 6), (2, 6))  # two spare dice
        b, _ = run_scripted(spec, *faces)
        rescued = events(b.log, "rescued")
        assert [(e["actor"], e["target"], e["round"]) for e in rescued] == [("Friend", "Swimmer", 1)]
        ended = events(b.log, "effect_ended")
        assert [(e["effect"], e["reason"]) for e in ended] == [("asphyxiating", "rescued")]
        assert len(events(b.log, "damage_dealt")) == 1
        assert b.fighters[0].effects == []

    @pytest.mark.parametrize(("gap", "rescued"), [(2.0, 1), (2.5, 0), (3.0, 0)])
    def test_rescue_only_within_2_m(self, scripted, gap: float, rescued: int) -> None:
        """Rescue (rules §6): only an ally within 2 m can pull a drowning fighter out."""
        spec = swimmer_scenario(Hazard("water", ("Swimmer",), escape="none"),
                                friend={"weapons": ()})
        b = battle(spec)
        swimmer, friend = b.fighters[:2]
        swimmer.effects[0].failed = True  # past its first failed check: it cannot hold on
        friend.x, b.spread = gap, True
        scripted(b)
        b._take_turn(friend)
        assert len(events(b.log, "rescued")) == rescued

    def test_rescue_is_a_full_action(self, scripted) -> None:
        """Asphyxia: the rescue takes the rescuer's whole turn, even with an enemy in reach."""
        spec = swimmer_scenario(Hazard("water", ("Swimmer",), escape="none"), friend={})
        b = battle(spec)
        swimmer, friend = b.fighters[:2]
        drowning = swimmer.effects[0]
        drowning.failed = True  # past its first failed check: it cannot hold on alone
        rng = scripted(b)
        b._take_turn(friend)
        assert [(e["actor"], e["target"]) for e in events(b.log, "rescued")] == [("Friend",
                                                                                  "Swimmer")]
        assert not drowning.active and swimmer.effects == []
        assert events(b.log, "attack_resolved") == [] and rng.unused == 0

    def test_a_trapped_fighter_cannot_rescue(self, scripted) -> None:
        """Rescue: only an able ally not itself trapped in a hazard zone can rescue; a friend
        stuck in the same water fights on instead."""
        spec = swimmer_scenario(Hazard("water", ("Swimmer", "Friend"), escape="none"), friend={})
        b = battle(spec)
        swimmer, friend = b.fighters[:2]
        swimmer.effects[0].failed = True  # past its first failed check: it cannot hold on alone
        rng = scripted(b, (90, 100), (90, 100))  # the friend's two sword attacks
        b._take_turn(friend)
        assert events(b.log, "rescued") == [] and swimmer.effects[0].active
        assert len(events(b.log, "attack_resolved")) == 2 and rng.unused == 0

    def test_no_rescue_while_holding_breath(self, scripted) -> None:
        """Asphyxia: a swimmer who has not yet failed a check needs no rescue; the ally fights on."""
        spec = swimmer_scenario(Hazard("water", ("Swimmer",), escape="none"), friend={})
        b = battle(spec)
        friend = b.fighters[1]
        scripted(b, (90, 100), (90, 100))
        b._take_turn(friend)
        assert events(b.log, "rescued") == [] and b.fighters[0].effects
        assert len(events(b.log, "attack_resolved")) == 2


class TestPoison:
    """Poison: a force check at contact, then each turn until it succeeds (rules §6)."""

    def test_contact_failure_hurts_and_lingers(self, scripted) -> None:
        """Poison: a failed force check at contact deals 1d4 (armor-piercing) and the poison lingers."""
        b = battle(duo(a={"armor": 4}))
        target = b.fighters[0]
        rng = scripted(b, (80, 100), (3, 4))
        poison(b, target, None)
        check = events(b.log, "check_rolled")[0]
        assert (check["purpose"], check["success"]) == ("force", False)
        hurt = events(b.log, "damage_dealt")[0]
        assert (hurt["amount"], hurt["kind"], hurt["armor_piercing"]) == (3, "poison", True)
        assert [e["effect"] for e in events(b.log, "effect_started")] == ["poisoned"]
        assert rng.unused == 0

    def test_contact_success_beats_it(self, scripted) -> None:
        """Poison: a successful force check at contact beats the poison at once."""
        b = battle(duo())
        target = b.fighters[0]
        rng = scripted(b, (30, 100))
        poison(b, target, None)
        assert target.effects == [] and events(b.log, "damage_dealt") == [] and rng.unused == 0

    def test_repeats_each_turn_until_beaten(self, scripted) -> None:
        """Poison: the force check repeats at the start of each turn, 1d4 per failure, until a
        success (`effect_ended` reason "beaten")."""
        b = battle(duo(a={"hp": 30}))
        target = b.fighters[0]
        scripted(b, (80, 100), (3, 4))
        poison(b, target, None)
        b.env.run()
        rng = scripted(b, (80, 100), (2, 4), (90, 100), (4, 4), (30, 100))
        for _ in range(4):
            turn(b, target)  # the fourth turn rolls nothing: the poison is beaten
        hurt = events(b.log, "damage_dealt")
        assert [(e["amount"], e["kind"]) for e in hurt] == [(3, "poison"), (2, "poison"),
                                                            (4, "poison")]
        assert {e["purpose"] for e in events(b.log, "check_rolled")} == {"force"}
        ended = events(b.log, "effect_ended")
        assert [(e["effect"], e["reason"]) for e in ended] == [("poisoned", "beaten")]
        assert target.hp == 30 - 9 and rng.unused == 0

    def test_poison_weapon_hit(self, scripted) -> None:
        """Poison: a hit with a `poison` weapon brings the contact force check."""
        sting = Weapon(name="sting", damage=dice.parse("1d4"), poison=True)
        b = battle(duo(a={"weapons": (sting,), "skills": {"melee": 60}}, m={"hp": 40}))
        a, m = b.fighters[0], b.fighters[-1]
        rng = scripted(b, (30, 100), (99, 100), (2, 4), (80, 100), (1, 4))
        b.attack(a, m, sting)
        hurt = events(b.log, "damage_dealt")
        assert [(e["kind"], e["source"]) for e in hurt] == [("weapon", "A"), ("poison", "A")]
        assert [e["effect"] for e in events(b.log, "effect_started")] == ["poisoned"]
        assert rng.unused == 0


class TestExplosion:
    """Explosion: 3d6+4 by default to each combatant in the blast, armor applies (rules §6)."""

    def test_default_blast_from_timeline(self) -> None:
        """Explosion: a scripted `explode` on a side deals 3d6+4 (default) minus armor to each member;
        the log gives its dice and its flat +4 apart."""
        spec = duo(a={"armor": 3, "hp": 50}, b={"hp": 50}, max_rounds=1)
        spec = attrs.evolve(spec, timeline=(Scripted(round=1, do="explode", side="h"),))
        b, rng = run_scripted(spec, INITIATIVE, (6, 6), (5, 6), (4, 6), (1, 6), (1, 6), (2, 6))
        blast = events(b.log, "damage_dealt")
        assert [(e["target"], e["amount"], e["kind"], e["armor_piercing"], e["dice"], e["bonus"])
                for e in blast] == [("A", 6 + 5 + 4 + 4 - 3, "explosion", False, [6, 5, 4], 4),
                                    ("B", 1 + 1 + 2 + 4, "explosion", False, [1, 1, 2], 4)]
        assert rng.unused == 0

    @pytest.mark.parametrize(("armor", "amount"), [(0, 7), (3, 4), (10, 0)])
    def test_given_dice_minus_armor(self, scripted, armor: int, amount: int) -> None:
        """Explosion: the given damage dice minus armor, never below 0."""
        b = battle(duo(a={"armor": armor, "hp": 50}))
        target = b.fighters[0]
        scripted(b, (3, 6), (4, 6))
        explode(b, [target], dice.parse("2d6"))
        assert events(b.log, "damage_dealt")[0]["amount"] == amount
        assert target.hp == 50 - amount


    def test_explosion_ignores_armor_in_d20(self, scripted) -> None:
        """Explosion: armor applies as the system applies it; in d20 armor only feeds the
        defense roll, so an explosion's full dice hit an armored target."""
        b = battle(scenario(side("h", fighter("A", armor=5, hp=50), party=True),
                            side("m", fighter("M"))))
        target = b.fighters[0]
        scripted(b, (3, 6), (4, 6))
        explode(b, [target], dice.parse("2d6"))
        assert events(b.log, "damage_dealt")[0]["amount"] == 7 and target.hp == 43


class TestFall:
    """Fall: 1d6 per full 3 m, a physique success saves 1d6 under 6 m, armor-piercing (rules §6)."""

    @pytest.mark.parametrize(
        ("height", "faces", "amount"),
        [
            (2.9, [], 0),  # no full 3 m: no die, no check
            (3, [(30, 100)], 0),  # 1d6, cancelled by the physique success
            (4, [(80, 100), (5, 6)], 5),  # 1d6, physique failed
            (5.9, [(30, 100)], 0),
            (6, [(3, 6), (4, 6)], 7),  # 2d6 and no check at 6 m
            (8.9, [(1, 6), (6, 6)], 7),
            (9, [(1, 6), (2, 6), (3, 6)], 6),  # 3d6
        ],
    )
    def test_fall_damage(self, scripted, height: float, faces: list, amount: int) -> None:
        """Fall: 1d6 per full 3 m; a physique success cancels 1d6 when under 6 m; none at 6 m or
        more; the damage pierces armor."""
        b = battle(duo(a={"armor": 5, "hp": 40}))
        target = b.fighters[0]
        rng = scripted(b, *faces)
        fall(b, target, height)
        hurt = events(b.log, "damage_dealt")[0]
        assert (hurt["amount"], hurt["kind"], hurt["armor_piercing"]) == (amount, "fall", True)
        checks = events(b.log, "check_rolled")
        assert [e["purpose"] for e in checks] == (["physique"] if 3 <= height < 6 else [])
        assert target.hp == 40 - amount and rng.unused == 0


class TestTicks:
    """Effects tick at the start of their owner's turn, even unconscious (rules §2)."""

    def test_tick_opens_the_owner_turn(self) -> None:
        """Ticks: each burning tick comes right after the owner's `turn_started`, before it acts."""
        spec = duo(a={"hp": 200, "characteristics": {"physique": 0}}, m={"hp": 200}, max_rounds=4)
        b = Battle(spec, seed=5, log=True)
        b._setup()
        Burning(b, b.fighters[0]).start()
        b.env.process(b._clock())
        b.env.run()
        log = b.log
        ticks = [i for i, e in enumerate(log) if e["event"] == "damage_dealt" and e["kind"] == "fire"]
        assert ticks
        for i in ticks:
            ticked, opened = log[i - 1], log[i - 2]
            assert (ticked["event"], ticked["target"], ticked["effect"]) == ("effect_ticked", "A",
                                                                             "burning")
            assert (opened["event"], opened["actor"], opened["t"]) == ("turn_started", "A",
                                                                       log[i]["t"])

    def test_every_tick_is_logged(self, scripted) -> None:
        """rules §6: every tick is logged, a quiet one too: holding its breath in smoke (the
        physique checks pass, no damage), each of its turns still logs `effect_ticked`."""
        b = battle(duo())
        a = b.fighters[0]
        expose(b, a, "smoke", "none")
        b.env.run()  # the effect's process starts, waiting for its owner's turns
        scripted(b, (10, 100), (10, 100), (10, 100))  # three passed checks
        for _ in range(3):
            turn(b, a)
        ticks = [e["tick"] for e in events(b.log, "effect_ticked") if e["target"] == "A"]
        assert ticks == [1, 2, 3] and events(b.log, "damage_dealt") == []

    def test_ticks_while_unconscious(self) -> None:
        """Ticks: a burning body keeps burning while unconscious, every one of its turns, and
        still rolls physique after each 1d6 ("takes 1d6, then rolls physique")."""
        spec = duo(a={"characteristics": {"physique": 0}}, max_rounds=3)  # fails but on 01-05
        b = Battle(spec, seed=2, log=True)
        b._setup()
        a = b.fighters[0]
        b.deal_damage(a, 99, None, "weapon")
        Burning(b, a).start()
        b.env.process(b._clock())
        b.env.run()
        fire = [e for e in events(b.log, "damage_dealt") if e["kind"] == "fire"]
        assert [e["round"] for e in fire] == [1, 2, 3]
        assert all(e["hp_before"] == e["hp_after"] == 0 for e in fire)
        checks = [e for e in events(b.log, "check_rolled") if e["actor"] == "A"]
        assert [c["purpose"] for c in checks] == ["physique"] * len(fire)
        turns = {e["t"] for e in events(b.log, "turn_started") if e["actor"] == "A"}
        assert {e["t"] for e in fire} <= turns

    def test_timeline_fires_at_round_start_in_order(self) -> None:
        """Timeline: entries of a round fire at its start, after initiative and before any turn,
        in listed order (`scripted` events)."""
        spec = duo(a={"hp": 500}, b={"hp": 500}, m={"hp": 500}, max_rounds=3)
        spec = attrs.evolve(spec, timeline=(
            Scripted(round=2, do="ignite", targets=("A",)),
            Scripted(round=2, do="poison", targets=("B",)),
            Scripted(round=2, do="explode", side="m", damage=dice.parse(1)),
            Scripted(round=3, do="fall", targets=("A", "B"), height=4),
        ))
        b = Battle(spec, seed=9, log=True)
        b.run()
        log = b.log
        scripted_events = events(log, "scripted")
        assert [(e["round"], e["do"], e["targets"]) for e in scripted_events] == [
            (2, "ignite", ["A"]), (2, "poison", ["B"]), (2, "explode", ["M"]),
            (3, "fall", ["A", "B"])]
        for number in (2, 3):
            in_round = [e for e in log if e["round"] == number]
            names = [e["event"] for e in in_round]
            first_script = names.index("scripted")
            assert names[:first_script] == ["round_started", "initiative_rolled"]
            assert "turn_started" not in names[:first_script]
            assert in_round[first_script]["t"] == number - 1
        explosion = [e for e in events(log, "damage_dealt") if e["kind"] == "explosion"]
        assert [(e["target"], e["round"]) for e in explosion] == [("M", 2)]


class TestHazardRules:
    """What every hazard of rules §6 shares: armor-piercing damage, one effect at a time."""

    @staticmethod
    def _armored() -> tuple[Battle, object]:
        b = battle(duo(a={"armor": 5, "hp": 50}))
        return b, b.fighters[0]

    def test_fire_tick_is_armor_piercing(self, scripted) -> None:
        """Hazard damage is armor-piercing: a burning tick deals its full 1d6 through armor."""
        b, target = self._armored()
        scripted(b, (80, 100))
        ignite(b, target, None)
        b.env.run()
        scripted(b, (4, 6), (30, 100))
        turn(b, target)
        assert _hazard_damage(b) == [("fire", 4, True, [4])] and target.hp == 46

    def test_poison_is_armor_piercing(self, scripted) -> None:
        """Hazard damage is armor-piercing: poison's 1d4, at contact and at each tick."""
        b, target = self._armored()
        scripted(b, (80, 100), (3, 4))
        poison(b, target, b.fighters[-1])
        b.env.run()
        scripted(b, (80, 100), (2, 4))
        turn(b, target)
        assert _hazard_damage(b) == [("poison", 3, True, [3]), ("poison", 2, True, [2])]
        assert target.hp == 45
        assert events(b.log, "effect_started")[0]["source"] == "M"

    def test_drowning_is_armor_piercing(self, scripted) -> None:
        """Hazard damage is armor-piercing: drowning's 1d6 after a failed physique check."""
        b, target = self._armored()
        expose(b, target, "water", "none")
        b.env.run()
        scripted(b, (99, 100), (5, 6))
        turn(b, target)
        assert _hazard_damage(b) == [("drowning", 5, True, [5])] and target.hp == 45

    def test_fall_is_armor_piercing(self, scripted) -> None:
        """Hazard damage is armor-piercing: a 7 m fall deals its 2d6 in full (no check at 6 m+)."""
        b, target = self._armored()
        scripted(b, (3, 6), (4, 6))
        fall(b, target, 7.0)
        assert _hazard_damage(b) == [("fall", 7, True, [3, 4])] and target.hp == 43

    def test_thrown_rider_is_armor_piercing(self, scripted) -> None:
        """A rider thrown from the saddle takes 1d10 armor-piercing."""
        b, rider = self._armored()
        mount = b.fighters[1]
        rider.mounted_on, mount.ridden_by = mount, rider
        scripted(b, (6, 10))
        throw_off(b, rider, "mount fell", check=False)
        assert _hazard_damage(b) == [("fall", 6, True, [6])] and rider.hp == 44
        assert rider.mounted_on is None and mount.ridden_by is None and rider.prone

    @pytest.mark.parametrize(("kind", "effect"), [("water", "asphyxiating"), ("smoke", "asphyxiating"),
                                                  ("fire", "in_fire")])
    def test_exposed_twice_is_one_effect(self, kind: str, effect: str) -> None:
        """A fighter already in a water, smoke or fire zone exposed again stays in one zone."""
        b, target = self._armored()
        expose(b, target, kind, "move")
        expose(b, target, kind, "move")
        assert [e.name for e in target.effects] == [effect]
        started = events(b.log, "effect_started")
        assert len(started) == 1 and started[0]["escape"] == "move"
        assert started[0].get("kind") == (None if kind == "fire" else kind)

    def test_every_poisoned_hit_is_checked(self, scripted) -> None:
        """Poison (rules §6: "hit by a poison weapon: a force check"): a fighter already poisoned
        checks each new dose; a failure deals its 1d4 at once, a success nothing. Its one
        ``poisoned`` effect goes on (no second one ticking beside it)."""
        b, target = self._armored()
        scripted(b, (80, 100), (3, 4))
        poison(b, target, None)
        assert target.hp == 47
        rng = scripted(b, (90, 100), (2, 4))  # a second dose: fails again, 1d4 = 2
        poison(b, target, None)
        assert rng.unused == 0 and target.hp == 45 and len(target.effects) == 1
        rng = scripted(b, (10, 100))  # a third: beaten, nothing more
        poison(b, target, None)
        assert rng.unused == 0 and target.hp == 45 and len(target.effects) == 1

    def test_leaving_a_fire_zone_by_moving(self) -> None:
        """A fire zone with `escape: move` is left with a move, like water and smoke."""
        spec = swimmer_scenario(Hazard("fire", ("Swimmer",), escape="move"), max_rounds=1)
        b, _ = run_scripted(spec, INITIATIVE, (30, 100))
        ended = events(b.log, "effect_ended")
        assert [(e["effect"], e["reason"]) for e in ended] == [("in_fire", "left the zone")]

    def test_ended_effect_no_longer_ticks(self, scripted) -> None:
        """An effect ended between two turns (a rescue) deals nothing at its owner's next turns."""
        b, target = self._armored()
        expose(b, target, "water", "none")
        b.env.run()
        scripted(b, (99, 100), (5, 6))
        turn(b, target)
        drowning = target.effects[0]
        drowning.end("rescued")
        rng = scripted(b)
        turn(b, target)
        turn(b, target)
        assert rng.unused == 0 and len(events(b.log, "effect_ticked")) == 1
        assert events(b.log, "effect_ticked")[0]["tick"] == 1 and target.hp == 45


class TestSeriousWoundWaking:
    """A serious wound knocks out for 1d4 turns, then weakens (rules §3, d100)."""

    @staticmethod
    def _knocked_out(hp: int) -> tuple[Battle, object]:
        from sim.engine.effects import KnockedOut

        b = battle(duo(a={"hp": 20}))
        target = b.fighters[0]
        target.hp = hp
        KnockedOut(b, target, 1, "weapon").start()
        b.env.run()
        return b, target

    @pytest.mark.parametrize("hp", [1, 7])
    def test_wakes_weakened_after_its_rounds(self, hp: int) -> None:
        """Unconscious for its 1d4 turns, then awake and weakened (-20 on every check)."""
        b, target = self._knocked_out(hp)
        turn(b, target)
        assert target.status == "unconscious"
        turn(b, target)
        assert target.status == "active" and target.weakened
        weak = events(b.log, "effect_started")[-1]
        assert (weak["target"], weak["effect"]) == ("A", "weakened")

    @pytest.mark.parametrize("rounds", [1, 3])
    def test_serious_wound_from_its_own_tick_lasts_its_rounds(self, rounds: int) -> None:
        """Serious wound (rules §3, d100): a fire tick at the start of its turn that knocks it
        out for N rounds costs N of its turns, that one included (not N + 1)."""
        spec = attrs.evolve(duo(a={"hp": 10, "characteristics": {"physique": 40}}, max_rounds=6),
                            timeline=(Scripted(round=1, do="ignite", targets=("A",)),))
        # Party first each round; the ignite check fails; A's turn: 5 fire (half its 10 HP),
        # the wound's physique fails, out for `rounds`, then the fire goes out.
        b, _ = run_scripted(spec, INITIATIVE, (80, 100), (5, 6), (90, 100), (rounds, 4),
                            (30, 100), *[INITIATIVE] * 5)
        turns = [e["round"] for e in events(b.log, "turn_started") if e["actor"] == "A"]
        woke = [e["round"] for e in events(b.log, "effect_ended") if e["effect"] == "unconscious"]
        assert woke == [1 + rounds] and turns[:rounds + 1] == list(range(1, rounds + 2))

    def test_no_waking_at_zero_hp(self) -> None:
        """A knocked-out fighter that reached 0 HP meanwhile stays unconscious: 0 HP is out."""
        b, target = self._knocked_out(5)
        b.deal_damage(target, 5, None, "fire")
        turn(b, target)
        turn(b, target)
        assert target.hp == 0 and target.status == "unconscious" and not target.weakened


def _hazard_damage(b: Battle) -> list[tuple]:
    return [(e["kind"], e["amount"], e["armor_piercing"], e["dice"])
            for e in events(b.log, "damage_dealt")]


# -- helpers ------------------------------------------------------------------------------------


def duo(a: dict | None = None, b: dict | None = None, m: dict | None = None, **kwargs) -> Scenario:
    """A and B (the party, unarmed) against M (unarmed): nobody attacks unless told to."""
    def spec(name: str, fields: dict | None):
        return fighter(name, **{"weapons": (), "hp": 20, **(fields or {})})

    return d100(side("h", spec("A", a), spec("B", b), party=True), side("m", spec("M", m)),
                **kwargs)


def swimmer_scenario(*hazards: Hazard, max_rounds: int = 100,
                     friend: dict | None = None) -> Scenario:
    """Swimmer (physique 60, 50 HP, unarmed) against M (unarmed), with Friend beside the
    swimmer when ``friend`` gives its fields (a sword unless told otherwise)."""
    members = [fighter("Swimmer", hp=50, weapons=(), characteristics={"physique": 60})]
    if friend is not None:
        members.append(fighter("Friend", **{"hp": 50, **friend}))
    spec = d100(side("h", *members, party=True), side("m", fighter("M", hp=500, weapons=())),
                max_rounds=max_rounds)
    return attrs.evolve(spec, hazards=hazards)


def run_scripted(spec: Scenario, *faces: tuple[int, int]):
    """Run a whole battle on scripted dice; returns the battle and its scripted Random."""
    b = Battle(spec, seed=0, log=True)
    rng = ScriptedRandom(faces)
    b.table.use(rng)
    b.run()
    return b, rng


