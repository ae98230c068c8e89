"""Attack and damage: area weapons, wounds through damage."""

from __future__ import annotations

import attrs
import pytest

from sim import dice
from sim.engine import Battle
from sim.model import Weapon
from tests.builders import battle, d100, duel, events, fighter, mounted, scenario, side


class TestAreaWeapons:
    """An area weapon's hit strikes the target and every enemy within 2 m of it."""

    def test_blast_strikes_enemies_within_two_metres(self, scripted) -> None:
        """The blast takes the target and its able fellows at most 2 m away (2 m in, 2.5 m out),
        never the attacker's own side."""
        firepot = Weapon("firepot", dice.parse("1d6"), range=10, thrown=True, area=True)
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
        with its natural dice and its flat bonus (what the narration shows)."""
        bolt = Weapon("bolt", dice.parse("2d6+1"), range=20, psy=1, armor_piercing=True)
        b = battle(duel(hero={"level": 10, "weapons": (bolt,)},
                        monster={"hp": 40, "defense_threshold": 10}))
        hero, monster = b.fighters
        hero.psy = 5
        scripted(b, (5, 20), (2, 6), (6, 6))
        b.attack(hero, monster, bolt)
        damage = events(b.log, "damage_dealt")[-1]
        assert (damage["kind"], damage["amount"], damage["armor_piercing"], damage["dice"],
                damage["bonus"]) == ("spell", 9, True, [2, 6], 1)

    def test_plain_hit_logs_its_dice_and_flat_bonus(self, scripted) -> None:
        """A plain weapon's hit logs its natural dice and its flat bonus, what the narration
        shows (1d6+2: a 3 rolled, +2)."""
        club = Weapon("club", dice.parse("1d6+2"))
        b = battle(duel(hero={"level": 10, "weapons": (club,)},
                        monster={"hp": 30, "defense_threshold": 10}))
        hero, monster = b.fighters
        scripted(b, (5, 20), (3, 6))  # 15 > 10, margin 5: a hit, no critical
        b.attack(hero, monster, club)
        damage = events(b.log, "damage_dealt")[-1]
        assert (damage["amount"], damage["dice"], damage["bonus"]) == (5, [3], 2)


class TestDamageLog:
    """What a hit's `damage_dealt` tells in the systems that share one damage roll."""

    @pytest.mark.parametrize("rules", ["d100", "2d10", "d10"])
    def test_a_hit_logs_its_flat_bonus_beside_its_dice(self, rules: str) -> None:
        """d100, 2d10, d10: with no armor, a hit's amount is its natural dice plus its logged
        flat bonus (1d6+2: at least the +2; d10 adds its margin there)."""
        club = Weapon("club", dice.parse("1d6+2"))
        spec = attrs.evolve(scenario(side("h", fighter("Hero", hp=500, weapons=(club,)), party=True),
                                     side("m", fighter("Rock", hp=500, weapons=())), max_rounds=20),
                            rules=rules)
        b = Battle(spec, 1, log=True)
        b.run()
        hits = [e for e in events(b.log, "damage_dealt") if e["source"] == "Hero"]
        assert hits
        for hit in hits:
            assert isinstance(hit["bonus"], int) and hit["bonus"] >= 2
            assert hit["amount"] == sum(hit["dice"]) + hit["bonus"]


class TestWoundsThroughDamage:
    """What a hit sets off, through the engine's damage (rules §4 wounds)."""

    def test_one_damage_costs_a_token_with_divisor_one(self) -> None:
        """Morale: a wound of k damage costs floor(k / divisor): 1 damage, divisor 1, 1 token."""
        b = battle(duel(morale_on=True, wound_divisor=1))
        hero, monster = b.fighters
        before = hero.morale
        b.deal_damage(hero, 1, monster, "weapon")
        assert hero.morale == max(0, before - 1)

    def test_one_damage_can_be_a_serious_wound(self, scripted) -> None:
        """d100: a serious wound is one instance of at least half the maximum HP, so 1 damage
        on a 2-HP fighter still calls for the physique check (failed: out 1d4 rounds)."""
        b = battle(d100(side("h", fighter("Imp", hp=2), party=True), side("m", fighter("M"))))
        imp, monster = b.fighters
        rng = scripted(b, (99, 100), (3, 4))  # physique failed; out for 3 of its turns
        b.deal_damage(imp, 1, monster, "weapon")
        assert [e["skill"] for e in events(b.log, "check_rolled")] == ["physique"]
        assert imp.hp == 1 and not imp.able and rng.unused == 0

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


class TestSpellPrice:
    """Spells cost PSY; with no PSY left, HP that cannot be healed today (rules §3, d100)."""

    def test_unhealable_hp_add_up_over_casts(self, scripted) -> None:
        """Each cast PSY cannot pay adds its price to the unhealable HP (2, then 3 more), paid
        as plain HP (no dice, no bonus), and each PSY payment logs what is left."""
        bolt = Weapon("bolt", dice.parse("1d6"), skill="magic", psy=3)
        b = battle(attrs.evolve(duel(hero={"weapons": (bolt,), "psy": 1, "hp": 20}), rules="d100"))
        caster, foe = b.fighters
        scripted(b, (90, 100), (90, 100))  # two missed casts
        b.attack(caster, foe, bolt)  # 1 PSY, then 2 HP
        b.attack(caster, foe, bolt)  # 3 HP
        spent = [(e["resource"], e["amount"], e["left"]) for e in events(b.log, "resource_spent")]
        assert spent == [("psy", 1, 0)]
        paid = [(e["amount"], e["kind"], e["cost"], e["dice"], e["bonus"])
                for e in events(b.log, "damage_dealt")]
        assert paid == [(2, "spell", True, [], 0), (3, "spell", True, [], 0)]
        assert (caster.psy, caster.hp, caster.unhealable) == (0, 15, 5)


class TestRidingFromTheSaddle:
    """Mounted combat (rules §6): a rider attacking from the saddle first rolls riding."""

    def test_riding_is_rolled_against_the_plain_skill(self, scripted) -> None:
        """The riding check has no modifier: 51 against riding 50 fails, so the blow lands
        without the mount's weight."""
        b = battle(mounted())
        knight, _, foe = b.fighters
        scripted(b, (51, 100), (30, 100), (99, 100), (3, 8))  # riding, attack, defense, damage
        b.attack(knight, foe, knight.spec.weapons[0])
        riding = events(b.log, "check_rolled")[0]
        assert (riding["purpose"], riding["target"], riding["success"]) == ("riding", 50, False)
        assert events(b.log, "damage_dealt")[0]["amount"] == 3
