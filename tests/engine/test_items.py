"""Items (rules §8): healing potions drunk or poured into a downed ally, and the policy."""

from __future__ import annotations

from collections import Counter

import attrs
import icepool
import pytest

from sim import dice
from sim.engine import Battle, run_battle
from sim.engine.items import use_item
from sim.model import Item, Tactics, Weapon
from tests.builders import battle, d100, events, fighter, scenario, side

POTION = Item(heal=dice.parse("2d4"), name="healing potion", count=2)


def hurt_hero(rules: str = "d20", hp: int = 3, **fields) -> Battle:
    """A 30-HP hero carrying two potions, down to ``hp``, in reach of a monster."""
    fields.setdefault("items", (POTION,))
    spec = scenario(side("h", fighter("Hero", hp=30, **fields), party=True),
                    side("m", fighter("Monster", hp=30)))
    b = battle(attrs.evolve(spec, rules=rules))
    b.fighters[0].hp = hp
    return b


def one_turn(b: Battle, gap: float | None = None) -> list[str]:
    """The hero's moves, drinks and blows in one turn, the monster ``gap`` metres away (None:
    everyone stands together)."""
    if gap is not None:
        b.fighters[1].x, b.spread = gap, True
    b._take_turn(b.fighters[0])
    return [e["event"] for e in b.log if e["event"] in ("moved", "item_used", "attack_resolved")]


class TestDrinking:
    """Drinking a potion: a half-action in d100, the turn's action elsewhere."""

    def test_drinking_is_a_half_action_in_d100(self) -> None:
        """Items (d100): drinking takes one half-action; the other half still attacks."""
        b = hurt_hero("d100", items=(Item(heal=dice.parse("10"), count=2),))
        b._take_turn(b.fighters[0])  # 3 + 10 HP: above a third, so one drink
        assert [e["event"] for e in b.log if e["event"] in ("item_used", "attack_resolved")] == [
            "item_used", "attack_resolved"]

    def test_drinking_is_the_turns_action_in_d20(self) -> None:
        """Items (d20, 2d10, d10): drinking is the turn's action: no attack that turn."""
        for rules in ("d20", "2d10", "d10"):
            b = hurt_hero(rules)
            b._take_turn(b.fighters[0])
            assert len(events(b.log, "item_used")) == 1, rules
            assert events(b.log, "attack_resolved") == [], rules

    @pytest.mark.parametrize("gap", [10.0, 30.0])
    def test_d20_drinking_replaces_the_attack_not_the_move(self, gap: float) -> None:
        """Items (d20, rules §2, 8): drinking takes the attack's place, never the move: a hurt
        hero 10 m from the monster moves, then drinks, and does not attack; 30 m away, its
        8 m move falls short and it drinks all the same."""
        b = hurt_hero("d20")
        assert one_turn(b, gap) == ["moved", "item_used"] and b.fighters[0].x == 8.0

    def test_d20_drinking_with_nothing_to_strike_with(self) -> None:
        """Items (d20): a hurt hero with no weapon stays where it is (it strikes no one at any
        distance) and drinks once: the drink takes the attack's place, and its move is no
        second drink, however hurt it still is (3 + 2 of 30 HP)."""
        b = hurt_hero("d20", weapons=(), items=(Item(heal=dice.parse("2"), count=2),))
        assert one_turn(b, 10.0) == ["item_used"] and b.fighters[0].x == 0.0

    def test_d20_drinking_in_reach_still_no_attack(self) -> None:
        """Items (d20): in reach, the drink is the turn's attack: one drink, no blow, no move."""
        b = hurt_hero("d20", items=(Item(heal=dice.parse("20"), count=2),))
        assert one_turn(b) == ["item_used"]

    def test_potion_at_threshold(self) -> None:
        """Items: the default policy drinks at or below 0.33 of maximum HP, not above."""
        b = hurt_hero(hp=9)  # 9 / 30 = 0.3
        b._take_turn(b.fighters[0])
        assert len(events(b.log, "item_used")) == 1
        b = hurt_hero(hp=10)  # 0.333... > 0.33
        b._take_turn(b.fighters[0])
        assert events(b.log, "item_used") == []

    @pytest.mark.parametrize(("potion_at", "max_hp", "hp"),
                             [(0.7, 90, 63), (0.29, 100, 29), (0.57, 100, 57), (0.58, 50, 29)])
    def test_potion_at_exact_threshold(self, potion_at: float, max_hp: int, hp: int) -> None:
        """Items: exactly at potion_at of maximum HP it drinks, even where potion_at x max_hp
        rounds below the HP (0.7 x 90 = 62.99999999999999: at 63 of 90 it did not drink)."""
        b = hurt_hero(hp=hp, tactics=Tactics(potion_at=potion_at))
        b.fighters[0].max_hp = max_hp
        b._take_turn(b.fighters[0])
        assert len(events(b.log, "item_used")) == 1
        b = hurt_hero(hp=hp + 1, tactics=Tactics(potion_at=potion_at))
        b.fighters[0].max_hp = max_hp
        b._take_turn(b.fighters[0])
        assert events(b.log, "item_used") == []

    def test_potion_at_is_exact_for_every_hundredth(self) -> None:
        """Items: for every potion_at of two decimals and maximum HP up to 120, the fighter
        drinks exactly when hp / max_hp <= potion_at, read as fractions."""
        from fractions import Fraction

        from sim.engine.items import wants_to_drink

        hero = hurt_hero().fighters[0]
        for hundredths in range(1, 100):
            hero.potion_at = hundredths / 100
            for max_hp in range(1, 121):
                hero.max_hp = max_hp
                for hp in range(1, max_hp):
                    hero.hp = hp
                    assert wants_to_drink(hero) == (Fraction(hp, max_hp) <= Fraction(hundredths, 100))

    def test_potion_at_is_steerable(self) -> None:
        """Items: `tactics: {potion_at: 0.5}` drinks at half HP; 0 only at... never while up."""
        b = hurt_hero(hp=15, tactics=Tactics(potion_at=0.5))
        b._take_turn(b.fighters[0])
        assert len(events(b.log, "item_used")) == 1
        b = hurt_hero(hp=1, tactics=Tactics(potion_at=0.0))
        b._take_turn(b.fighters[0])
        assert events(b.log, "item_used") == []

    def test_potion_never_heals_above_max_hp(self) -> None:
        """Items: a potion heals its dice, never above maximum HP (less HP paid for spells)."""
        b = hurt_hero(hp=29, items=(Item(heal=dice.parse("10")),))
        hero = b.fighters[0]
        use_item(b.table, hero, hero.spec.items[0], hero, b.wake)
        assert hero.hp == 30
        used = events(b.log, "item_used")[0]
        assert (used["healed"], used["hp_before"], used["hp_after"], used["left"]) == (1, 29, 30, 0)
        b = hurt_hero(hp=10, items=(Item(heal=dice.parse("10"), count=2),))
        hero = b.fighters[0]
        hero.unhealable = 5
        use_item(b.table, hero, hero.spec.items[0], hero, b.wake)
        assert hero.hp == 20
        hero.hp = 24
        use_item(b.table, hero, hero.spec.items[0], hero, b.wake)  # the ceiling holds
        assert hero.hp == 25

    def test_potion_heals_its_dice(self) -> None:
        """Items: the HP a potion gives back follow its dice exactly (2d4, far from the maximum)."""
        b = hurt_hero(hp=1, items=(Item(heal=dice.parse("2d4"), count=10**6),))
        hero = b.fighters[0]
        hero.max_hp = 1000
        n = 4000
        healed = Counter()
        for _ in range(n):
            hero.hp = 1
            use_item(b.table, hero, hero.spec.items[0], hero, b.wake)
            healed[hero.hp - 1] += 1
        for value, p in (icepool.d4 + icepool.d4).items():
            p = p / 16
            assert abs(healed[value] / n - p) < 4 * (p * (1 - p) / n) ** 0.5, value

    def test_item_used_event(self) -> None:
        """Items: `item_used` names actor, item, target, healed, hp_before, hp_after and left."""
        b = hurt_hero(hp=3)
        b._take_turn(b.fighters[0])
        used = events(b.log, "item_used")[0]
        assert {"actor", "item", "target", "healed", "hp_before", "hp_after", "left"} <= set(used)
        assert (used["actor"], used["item"], used["target"], used["hp_before"], used["left"]) == (
            "Hero", "healing potion", "Hero", 3, 1)
        assert used["hp_after"] - used["hp_before"] == used["healed"] > 0
        assert b.fighters[0].items == {"healing potion": 1} and b.fighters[0].items_used == 1

    def test_no_potion_no_drink(self) -> None:
        """Items: a fighter whose potions are gone attacks instead."""
        b = hurt_hero(hp=3, items=(Item(heal=dice.parse("1"), count=1),))
        hero = b.fighters[0]
        b._take_turn(hero)
        b._take_turn(hero)
        assert len(events(b.log, "item_used")) == 1 and len(events(b.log, "attack_resolved")) == 1
        assert hero.items == {}


class TestGiving:
    """Giving a potion to a downed ally within 2 m (rules §8)."""

    @staticmethod
    def pair(rules: str = "d20", gap: float = 0.0) -> Battle:
        spec = scenario(side("h", fighter("Medic", hp=30, items=(POTION,)),
                             fighter("Down", hp=20), party=True),
                        side("m", fighter("Monster", hp=30)))
        b = battle(attrs.evolve(spec, rules=rules))
        _medic, down, _ = b.fighters
        b.deal_damage(down, 99, None, "weapon")
        down.x = gap
        b.spread = gap > 0
        return b

    def test_potion_poured_into_an_unconscious_ally_heals_and_wakes_it(self) -> None:
        """Items: a healing potion poured into an unconscious ally within 2 m heals it and wakes
        it, before the giver attacks (d100: giving is a half-action, one attack follows)."""
        b = self.pair("d100")
        medic, down, _ = b.fighters
        assert down.status == "unconscious"
        b._take_turn(medic)
        used = events(b.log, "item_used")[0]
        assert (used["actor"], used["target"], used["hp_before"], used["woke"]) == (
            "Medic", "Down", 0, True)
        assert down.status == "active" and down.able and down.hp == used["hp_after"] > 0
        assert len(events(b.log, "attack_resolved")) == 1
        assert b._able["h"] == 2  # counts for victory again

    @pytest.mark.parametrize("rules", ["d20", "2d10", "d10"])
    def test_giving_is_the_turns_action_outside_d100(self, rules: str) -> None:
        """Items (d20, 2d10, d10): pouring a potion into a downed ally is the turn's action."""
        b = self.pair(rules)
        b._take_turn(b.fighters[0])
        assert len(events(b.log, "item_used")) == 1 and events(b.log, "attack_resolved") == []

    @pytest.mark.parametrize(("gap", "given"), [(2.0, 1), (2.5, 0), (3.0, 0)])
    def test_only_within_2_m(self, gap: float, given: int) -> None:
        """Items: a downed ally exactly 2 m away gets the potion; farther, nothing."""
        b = self.pair("d100", gap=gap)
        b._take_turn(b.fighters[0])
        assert len(events(b.log, "item_used")) == given

    @pytest.mark.parametrize(("rules", "after_move"), [("d100", ["item_used"]),
                                                       ("d20", ["item_used"]),
                                                       ("2d10", [])])
    def test_a_move_into_reach_then_pours_before_attacking(self, rules: str,
                                                           after_move: list[str]) -> None:
        """Items: a move that ends within 2 m of a downed ally is followed by the potion, not an
        attack, where the turn has the half-action for it (d100; the audit found Aria in
        wyvern_crag move 8 m next to Greta, down, and strike the wyvern with her potions in
        hand). In d20 the move leaves the turn's action (move, then the action: rules §2, 8),
        which the potion takes; in 2d10 the move is the turn."""
        b = self.pair(rules, gap=8.0)
        medic, down, monster = b.fighters
        monster.x = 10.0
        b._take_turn(medic)
        done = [e["event"] for e in b.log if e["event"] in ("moved", "item_used", "attack_resolved")]
        assert done == ["moved", *after_move]
        assert medic.x == 8.0
        assert (down.status == "active") == (after_move == ["item_used"])

    def test_potion_ends_a_serious_wounds_knock_out(self) -> None:
        """Items (d100): a potion wakes an ally knocked out by a serious wound; the wound's
        weakness stays."""
        from sim.engine.effects import KnockedOut

        spec = d100(side("h", fighter("Medic", hp=30, items=(POTION,)), fighter("Hurt", hp=20),
                         party=True), side("m", fighter("Monster", hp=30)))
        b = battle(spec)
        medic, hurt, _ = b.fighters
        hurt.hp = 8
        KnockedOut(b, hurt, 4, "weapon").start()
        assert hurt.status == "unconscious"
        b._take_turn(medic)
        assert hurt.status == "active" and hurt.weakened and hurt.effects == []
        assert [e["reason"] for e in events(b.log, "effect_ended")] == ["potion"]


class TestWholeBattle:
    """A whole d20 battle with potions against the exact numbers of rules §2, §3, §5, §8."""

    HERO_HP, OGRE_HP, POTIONS = 10, 15, 2

    @classmethod
    def exact(cls) -> tuple[float, float, float]:
        """(P(hero wins), E[potions drunk], E[rounds]) by a Markov chain over (hero HP, ogre HP,
        potions left), round by round: group initiative 4+ on 1d6 (the hero first),
        the hero drinks 2d4 (capped) at or below half HP, else attacks 1d20+2 > 13 (1d8, +1d4
        on a natural 20); the ogre makes it defend 1d20+3 > 12 (1d10, +1d4 on a natural 1)."""
        d4, d8, d10 = icepool.d4, icepool.d8, icepool.d10

        def chances(die: icepool.Die) -> list[tuple[int, float]]:
            total = die.denominator()
            return [(value, count / total) for value, count in die.items()]

        heal = chances(d4 + d4)
        # The damage of one attack, 0 for a miss: 11 in 20 miss, 8 hit, 1 in 20 is critical.
        hero_hits = chances(icepool.Die({icepool.Die([0]): 11, d8: 8, d8 + d4: 1}))
        ogre_hits = chances(icepool.Die({icepool.Die([0]): 11, d10: 8, d10 + d4: 1}))

        def hero(s: tuple[int, int, int]) -> list:
            h, o, left = s
            if left and h * 2 <= cls.HERO_HP:
                return [((min(cls.HERO_HP, h + v), o, left - 1), p) for v, p in heal]
            return [((h, max(0, o - v), left), p) for v, p in hero_hits]

        def ogre(s: tuple[int, int, int]) -> list:
            h, o, left = s
            return [((max(0, h - v), o, left), p) for v, p in ogre_hits]

        now = {(cls.HERO_HP, cls.OGRE_HP, cls.POTIONS): 1.0}
        win = drunk = rounds = 0.0
        for number in range(1, 101):
            after: Counter = Counter()
            for state, p in now.items():
                for turns in ((hero, ogre), (ogre, hero)):  # 3 of 6: the party first
                    states = {state: p / 2}
                    for turn in turns:
                        moved: Counter = Counter()
                        for s, q in states.items():
                            if s[0] == 0 or s[1] == 0:
                                moved[s] += q
                                continue
                            for s2, q2 in turn(s):
                                moved[s2] += q * q2
                        states = moved
                    for s, q in states.items():
                        if s[0] and s[1]:
                            after[s] += q
                        else:
                            win += q if s[1] == 0 else 0.0
                            drunk += q * (cls.POTIONS - s[2])
                            rounds += q * number
            now = after
            if sum(now.values()) < 1e-9:  # what is left cannot move the 4th decimal
                break
        return win, drunk, rounds

    def test_duel_with_potions(self) -> None:
        """Items: win rate, potions drunk and rounds of a duel with potions (d20) match the exact
        chain within 4 standard errors (the items audit's independent model agreed too)."""
        ogre = fighter("Ogre", hp=self.OGRE_HP, level=3, attack_threshold=12,
                       weapons=(Weapon(name="club", damage=dice.parse("1d10")),))
        hero = fighter("Hero", hp=self.HERO_HP, level=2, armor=3, items=(POTION,),
                       tactics=Tactics(potion_at=0.5))
        spec = scenario(side("heroes", hero, party=True), side("ogres", ogre))
        n = 20000
        wins, drunk, rounds = [], [], []
        for seed in range(n):
            outcome, _ = run_battle(spec, seed)
            wins.append(outcome.winner == "heroes")
            drunk.append(outcome.rows[0][-1])
            rounds.append(outcome.rounds)
        for values, want in zip((wins, drunk, rounds), self.exact(), strict=True):
            mean = sum(values) / n
            var = sum((v - mean) ** 2 for v in values) / (n - 1)
            assert abs(mean - want) < 4 * (var / n) ** 0.5, (mean, want)
