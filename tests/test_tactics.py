"""Target and weapon choice policies (ARCHITECTURE.md tactics: random, weakest, strongest, focus)."""

from __future__ import annotations

from collections import Counter

from sim import dice
from sim.model import Weapon
from sim.tactics import choose_target, choose_weapon
from tests.builders import battle, fighter, scenario, side


def trio(target: str, **hps: int):
    """A hero with the given policy against three enemies with the given HP."""
    enemies = [fighter(name, hp=hp) for name, hp in hps.items()]
    return battle(scenario(side("h", fighter("Hero"), fighter("Ally"), party=True, target=target),
                           side("m", *enemies)))


class TestPolicies:
    """Each policy picks among able enemies."""

    def test_weakest(self) -> None:
        """`weakest` picks the lowest current HP, ties in listed order."""
        b = trio("weakest", a=9, b=4, c=4)
        assert choose_target(b, b.fighters[0]).name == "b"

    def test_strongest(self) -> None:
        """`strongest` picks the highest current HP, ties in listed order."""
        b = trio("strongest", a=9, b=4, c=9)
        assert choose_target(b, b.fighters[0]).name == "a"

    def test_focus_shared_until_down(self) -> None:
        """`focus`: the whole side shares one target until it drops, then picks anew."""
        b = trio("focus", a=9, b=4, c=6)
        hero, ally, _a, bee, c = b.fighters
        assert choose_target(b, hero) is bee
        bee.hp = 99  # no longer the weakest, still the shared target
        assert choose_target(b, ally) is bee
        b.deal_damage(bee, 999, hero, "weapon")
        assert choose_target(b, ally) is c and choose_target(b, hero) is c

    def test_random_is_uniform(self) -> None:
        """`random` picks each able enemy equally often."""
        b = trio("random", a=9, b=4, c=6)
        counts = Counter(choose_target(b, b.fighters[0]).name for _ in range(6000))
        for name in "abc":
            assert abs(counts[name] / 6000 - 1 / 3) < 4 * (2 / 9 / 6000) ** 0.5

    def test_member_override(self) -> None:
        """A member's own tactics override its side's."""
        from sim.model import Tactics

        b = battle(scenario(
            side("h", fighter("Hero", tactics=Tactics("strongest")), party=True, target="weakest"),
            side("m", fighter("a", hp=3), fighter("b", hp=8))))
        assert choose_target(b, b.fighters[0]).name == "b"

    def test_prefers_enemies_in_reach(self) -> None:
        """Enemies already within reach are preferred over distant ones."""
        b = trio("strongest", a=9, b=4, c=6)
        b.fighters[2].x = 50  # 'a' is far away
        b.spread = True  # positions now differ (the engine sets this when anyone moves)
        assert choose_target(b, b.fighters[0]).name == "c"


class TestWeapons:
    """Weapon choice at a given gap."""

    def test_melee_in_reach_else_ranged(self) -> None:
        """The first melee weapon within 2 m, else the first ranged weapon in range."""
        bow = Weapon("bow", dice.parse("1d6"), range=30)
        dagger = Weapon("dagger", dice.parse("1d4"))
        b = battle(scenario(side("h", fighter("A", weapons=(bow, dagger)), party=True),
                            side("m", fighter("M"))))
        archer = b.fighters[0]
        assert choose_weapon(archer, 1).name == "dagger"
        assert choose_weapon(archer, 20).name == "bow"
        assert choose_weapon(archer, 31) is None

    def test_melee_reach_is_at_most_two_metres(self) -> None:
        """Melee needs a gap of at most 2 m: exactly 2 m is in reach, 2.5 m is not."""
        b = battle(scenario(side("h", fighter("A"), party=True), side("m", fighter("M"))))
        swordsman = b.fighters[0]
        assert choose_weapon(swordsman, 2.0).name == "sword"
        assert choose_weapon(swordsman, 2.5) is None

    def test_range_is_inclusive(self) -> None:
        """A ranged weapon reaches a gap equal to its range, not one beyond it."""
        bow = Weapon("bow", dice.parse("1d6"), range=30)
        b = battle(scenario(side("h", fighter("A", weapons=(bow,)), party=True),
                            side("m", fighter("M"))))
        assert choose_weapon(b.fighters[0], 30.0).name == "bow"
        assert choose_weapon(b.fighters[0], 30.5) is None

    def test_targets_in_reach_at_exactly_two_metres(self) -> None:
        """An enemy exactly 2 m away counts as within melee reach when choosing a target."""
        b = trio("strongest", a=9, b=4, c=6)
        hero = b.fighters[0]
        hero.x = 10.0
        for enemy, x in zip(b.fighters[2:], (12.5, 8.0, 40.0), strict=True):
            enemy.x = x
        b.spread = True
        assert choose_target(b, hero).name == "b"  # the only one in reach, not the strongest


class TestRangedAndSpells:
    """Ranged fighters keep their distance; casters do not burn themselves out."""

    def test_archer_with_a_knife_stops_at_range(self) -> None:
        """A fighter with a ranged weapon closes only to its range, even with a melee backup."""
        from sim.tactics import approach_gap

        bow = Weapon("bow", dice.parse("1d6"), range=30)
        knife = Weapon("knife", dice.parse("1d4"))
        b = battle(scenario(side("h", fighter("A", weapons=(bow, knife)), party=True),
                            side("m", fighter("M"))))
        assert approach_gap(b.fighters[0]) == 30
        assert choose_weapon(b.fighters[0], 1.0).name == "knife"

    def test_no_spell_that_would_knock_the_caster_out(self) -> None:
        """Out of PSY, a spell is cast on HP only while HP stay above twice its cost."""
        spell = Weapon("bolt", dice.parse("2d6"), range=20, psy=3)
        b = battle(scenario(side("h", fighter("Mage", weapons=(spell,), hp=7), party=True),
                            side("m", fighter("M"))))
        mage = b.fighters[0]
        mage.psy = 0
        assert choose_weapon(mage, 10).name == "bolt"  # 7 HP > 6
        mage.hp = 6
        assert choose_weapon(mage, 10) is None
        mage.psy = 3
        assert choose_weapon(mage, 10).name == "bolt"

    def test_no_touch_spell_that_would_knock_the_caster_out(self) -> None:
        """Out of PSY, a melee (touch) spell follows the same rule: cast on HP only while HP
        stay above twice its cost, else the next weapon."""
        touch = Weapon("shocking grasp", dice.parse("2d6"), psy=3)
        staff = Weapon("staff", dice.parse("1d6"))
        b = battle(scenario(side("h", fighter("Mage", weapons=(touch, staff), hp=7), party=True),
                            side("m", fighter("M"))))
        mage = b.fighters[0]
        mage.psy = 0
        assert choose_weapon(mage, 1.0).name == "shocking grasp"  # 7 HP > 6
        mage.hp = 6
        assert choose_weapon(mage, 1.0).name == "staff"

    def test_a_caster_out_of_spells_closes_in(self) -> None:
        """Distance: a spell it can no longer afford does not keep a caster at spell range."""
        from sim.tactics import approach_gap

        spell = Weapon("bolt", dice.parse("2d6"), range=20, psy=3)
        staff = Weapon("staff", dice.parse("1d6"))
        b = battle(scenario(side("h", fighter("Mage", weapons=(spell, staff), hp=5), party=True),
                            side("m", fighter("M"))))
        mage = b.fighters[0]
        mage.psy = 3
        assert approach_gap(mage) == 20
        mage.psy = 0
        assert approach_gap(mage) == 0.0
