"""Target and weapon choice policies (docs/reference/scenario.md: random, weakest, strongest, focus)."""

from __future__ import annotations

from collections import Counter

import attrs

from sim import dice
from sim.engine import Battle
from sim.engine.tactics import approach_gap, choose_weapon
from sim.model import Tactics, Weapon
from tests.builders import battle, d100, fighter, scenario, side, target_of


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
        assert target_of(b, b.fighters[0]).name == "b"

    def test_strongest(self) -> None:
        """`strongest` picks the highest current HP, ties in listed order."""
        b = trio("strongest", a=9, b=4, c=9)
        assert target_of(b, b.fighters[0]).name == "a"

    def test_focus_shared_until_down(self) -> None:
        """`focus`: the whole side shares one target until it drops, then picks anew."""
        b = trio("focus", a=9, b=4, c=6)
        hero, ally, _a, bee, c = b.fighters
        assert target_of(b, hero) is bee
        bee.hp = 99  # no longer the weakest, still the shared target
        assert target_of(b, ally) is bee
        b.deal_damage(bee, 999, hero, "weapon")
        assert target_of(b, ally) is c and target_of(b, hero) is c

    def test_random_is_uniform(self) -> None:
        """`random` picks each able enemy equally often."""
        b = trio("random", a=9, b=4, c=6)
        counts = Counter(target_of(b, b.fighters[0]).name for _ in range(6000))
        for name in "abc":
            assert abs(counts[name] / 6000 - 1 / 3) < 4 * (2 / 9 / 6000) ** 0.5

    def test_member_override(self) -> None:
        """A member's own tactics override its side's."""
        b = battle(scenario(
            side("h", fighter("Hero", tactics=Tactics("strongest")), party=True, target="weakest"),
            side("m", fighter("a", hp=3), fighter("b", hp=8))))
        assert target_of(b, b.fighters[0]).name == "b"


class TestMemberTacticsOverrideTheSides:
    """`tactics` per member overrides the side's key by key: every key, and only the keys given."""

    @staticmethod
    def hero(side_tactics: Tactics, member: Tactics | None):
        spec = scenario(
            side("h", fighter("Hero", tactics=member, weapons=(DAGGER, STAFF)), party=True),
            side("m", fighter("a", hp=3), fighter("b", hp=8)))
        spec = attrs.evolve(spec, sides=(attrs.evolve(spec.sides[0], tactics=side_tactics),
                                         spec.sides[1]))
        return battle(spec).fighters[0]

    def test_target_override(self) -> None:
        """Member tactics: `target` given by the member wins; left out, the side's applies."""
        assert self.hero(Tactics("weakest"), Tactics("strongest")).policy == "strongest"
        assert self.hero(Tactics("weakest"), Tactics(potion_at=0.5)).policy == "weakest"

    def test_weapons_override(self) -> None:
        """Member tactics: `weapons` given by the member wins; left out, the side's applies."""
        side_t = Tactics(weapons=("staff",))
        assert self.hero(side_t, Tactics(weapons=("dagger",))).weapon_at_hand.name == "dagger"
        assert self.hero(side_t, Tactics("strongest")).weapon_at_hand.name == "staff"
        assert self.hero(Tactics(), None).weapon_at_hand.name == "dagger"

    def test_potion_at_override(self) -> None:
        """Member tactics: `potion_at` given by the member wins; left out, the side's, else 0.33."""
        assert self.hero(Tactics(potion_at=0.5), Tactics(potion_at=0.1)).potion_at == 0.1
        assert self.hero(Tactics(potion_at=0.5), Tactics("weakest")).potion_at == 0.5
        assert self.hero(Tactics(), None).potion_at == 0.33

    def test_prefers_enemies_in_reach(self) -> None:
        """Enemies already within reach are preferred over distant ones."""
        b = trio("strongest", a=9, b=4, c=6)
        b.fighters[2].x = 50  # 'a' is far away
        b.spread = True  # positions now differ (the engine sets this when anyone moves)
        assert target_of(b, b.fighters[0]).name == "c"


def pick(f, gap: float) -> str | None:
    """The name of the weapon the fighter chooses at this gap, or None."""
    chosen = choose_weapon(f, gap)
    return None if chosen is None else chosen[0].name


def played(spec, seed: int = 1) -> Battle:
    """A battle played to its end, with its log."""
    b = Battle(spec, seed, log=True)
    b.run()
    return b


BOW = Weapon("bow", dice.parse("1d6"), range=30, hands=2)
DAGGER = Weapon("dagger", dice.parse("1d4"))
BOLT = Weapon("bolt", dice.parse("2d6"), range=20, psy=3, skill="magic")
STAFF = Weapon("staff", dice.parse("1d6"))


def solo(*weapons: Weapon, rules: str = "d20", distance: float = 0.0, **fields):
    """A battle of one armed hero (the party) against a plain monster; returns it and the hero."""
    spec = scenario(side("h", fighter("A", weapons=weapons, **fields), party=True),
                    side("m", fighter("M")), distance=distance)
    b = battle(attrs.evolve(spec, rules=rules))
    return b, b.fighters[0]


class TestWeapons:
    """Weapon choice at a given gap (README, Tactics a GM can steer)."""

    def test_archers_switch_to_a_melee_weapon_in_contact(self) -> None:
        """Archers: in contact the melee weapon comes before the bow, at a distance the bow."""
        _, archer = solo(BOW, DAGGER)
        assert pick(archer, 1) == "dagger"
        assert pick(archer, 20) == "bow"
        assert pick(archer, 31) is None

    def test_casters_prefer_an_affordable_spell_over_a_dagger(self) -> None:
        """Casters: an affordable spell comes first, even in contact; out of it, the dagger."""
        _, mage = solo(DAGGER, BOLT, rules="d100", psy=3, hp=9)
        assert pick(mage, 1) == "bolt"
        mage.psy = 0  # 9 HP - 3 = 6 would leave it at twice the cost: too dear
        assert pick(mage, 1) == "dagger"
        assert pick(mage, 10) is None

    def test_weapons_preference_order(self) -> None:
        """`tactics.weapons`: the first usable weapon of the list at this gap, then the others."""
        _, mage = solo(DAGGER, BOLT, rules="d100", psy=9, tactics=Tactics(weapons=("dagger",)))
        assert pick(mage, 1) == "dagger"
        assert pick(mage, 10) == "bolt"  # the dagger does not reach: the one left out comes next

    def test_a_second_weapon_is_usable(self) -> None:
        """A creature's second weapon (the wyvern's venom sting) is used when the GM puts it first."""
        bite = Weapon("bite", dice.parse("2d6"))
        sting = Weapon("venom sting", dice.parse("1d6"), poison=True)
        wyvern = fighter("Wyvern", weapons=(bite, sting), hp=500,
                         tactics=Tactics(weapons=("venom sting",)))
        b = played(scenario(side("h", fighter("Hero", hp=500), party=True), side("m", wyvern),
                            max_rounds=3))
        used = {e["weapon"] for e in b.log if e["event"] == "attack_resolved"
                and e["actor"] == "Wyvern"}
        assert used == {"venom sting"}

    def test_a_second_weapon_with_venom_comes_first_by_default(self) -> None:
        """A creature's second weapon is used without tactics too: within a kind of weapon, one
        carrying poison or fire comes before a plain one (a bow still after a dagger)."""
        bite = Weapon("bite", dice.parse("2d6"))
        sting = Weapon("venom sting", dice.parse("1d6"), poison=True)
        torch = Weapon("torch", dice.parse("1d6"), fire=True)
        _, wyvern = solo(bite, sting)
        assert pick(wyvern, 1) == "venom sting"
        _, archer = solo(BOW, DAGGER, torch)
        assert [w.name for w, _, _ in archer.arsenal] == ["torch", "dagger", "bow"]

    def test_default_order_is_melee_then_thrown_then_bows(self) -> None:
        """Without `tactics.weapons`: melee weapons first, then thrown ones, then bows, whatever
        order the stat block lists them in (a javelin before the bow, the spear before both)."""
        javelin = Weapon("javelin", dice.parse("1d6"), range=10, thrown=True)
        spear = Weapon("spear", dice.parse("1d8"))
        for listed in ((BOW, javelin, spear), (javelin, BOW, spear), (BOW, spear, javelin)):
            _, hunter = solo(*listed)
            assert [w.name for w, _, _ in hunter.arsenal] == ["spear", "javelin", "bow"]
        assert pick(hunter, 8) == "javelin" and pick(hunter, 20) == "bow"

    def test_weapon_order_is_cached_with_costs(self) -> None:
        """The order of preference and each weapon's cost are computed once, at set-up."""
        _b, archer = solo(BOW, DAGGER, rules="d100")
        assert [(w.name, cost) for w, cost, _ in archer.arsenal] == [("dagger", 1), ("bow", 2)]
        assert archer.weapon_at_hand.name == "dagger" and archer.fixed_at_hand

    def test_melee_reach_is_at_most_two_metres(self) -> None:
        """Melee needs a gap of at most 2 m: exactly 2 m is in reach, 2.5 m is not."""
        b = battle(scenario(side("h", fighter("A"), party=True), side("m", fighter("M"))))
        swordsman = b.fighters[0]
        assert choose_weapon(swordsman, 2.0)[0].name == "sword"
        assert choose_weapon(swordsman, 2.5) is None

    def test_range_is_inclusive(self) -> None:
        """A ranged weapon reaches a gap equal to its range, not one beyond it."""
        bow = Weapon("bow", dice.parse("1d6"), range=30)
        b = battle(scenario(side("h", fighter("A", weapons=(bow,)), party=True),
                            side("m", fighter("M"))))
        assert choose_weapon(b.fighters[0], 30.0)[0].name == "bow"
        assert choose_weapon(b.fighters[0], 30.5) is None

    def test_targets_in_reach_at_exactly_two_metres(self) -> None:
        """An enemy exactly 2 m away counts as within melee reach when choosing a target."""
        b = trio("strongest", a=9, b=4, c=6)
        hero = b.fighters[0]
        hero.x = 10.0
        for enemy, x in zip(b.fighters[2:], (12.5, 8.0, 40.0), strict=True):
            enemy.x = x
        b.spread = True
        assert target_of(b, hero).name == "b"  # the only one in reach, not the strongest


class TestRangedAndSpells:
    """Ranged fighters keep their distance; casters do not burn themselves out."""

    def test_archer_with_a_knife_stops_at_range(self) -> None:
        """A fighter with a ranged weapon closes only to its range, even with a melee backup."""
        _, archer = solo(BOW, DAGGER)
        assert approach_gap(archer) == 30
        assert pick(archer, 1.0) == "dagger"

    def test_archers_stop_shooting_at_fatigue_that_makes_hitting_impossible(self) -> None:
        """Archers (d100): once fatigue leaves no score under which to hit, they stop shooting
        and close in with their melee weapon; with nothing else, they hold their ground."""
        _, archer = solo(BOW, DAGGER, rules="d100", skills={"ranged": 40, "melee": 40})
        archer.fatigue = 7  # 40 - 35 = 5: still a chance
        assert pick(archer, 20) == "bow" and approach_gap(archer) == 30
        archer.fatigue = 8  # 40 - 40 = 0: only the 01-05 critical could hit
        assert pick(archer, 20) is None and approach_gap(archer) == 0.0
        _, bowman = solo(BOW, rules="d100", skills={"ranged": 40}, distance=20)
        bowman.fatigue = 8
        assert approach_gap(bowman) is None

    def test_a_shot_is_hopeless_at_a_score_of_0_not_1(self) -> None:
        """Archers (d100): one point of fatigue (-5) is enough to stop a shot whose score it
        takes to 0; a score of 1 still shoots."""
        _, archer = solo(BOW, DAGGER, rules="d100", skills={"ranged": 5, "melee": 40})
        archer.fatigue = 1  # 5 - 5 = 0
        assert pick(archer, 20) is None
        _, archer = solo(BOW, DAGGER, rules="d100", skills={"ranged": 6, "melee": 40})
        archer.fatigue = 1  # 6 - 5 = 1
        assert pick(archer, 20) == "bow"

    def test_hopeless_shot_reaches_nobody(self) -> None:
        """Archers (d100): while fatigue leaves the bow no chance, an enemy only the bow would
        reach is not "in reach": the archer's pick is the enemy at its dagger's reach."""
        b = battle(d100(side("h", fighter("A", weapons=(BOW, DAGGER), skills={"ranged": 40, "melee": 40}),
                             party=True), side("m", fighter("M"), fighter("N")), distance=1))
        archer, _m, n = b.fighters
        n.x = 20.0
        b.spread = True
        assert {target_of(b, archer).name for _ in range(40)} == {"M", "N"}  # the bow reaches both
        archer.fatigue = 8  # 40 - 40 = 0: the bow is hopeless
        assert {target_of(b, archer).name for _ in range(40)} == {"M"}

    def test_fatigue_never_stops_shooting_outside_d100(self) -> None:
        """Archers: only d100 has fatigue, so elsewhere the bow is always there to shoot."""
        _, archer = solo(BOW)
        archer.fatigue = 50
        assert pick(archer, 20) == "bow"

    def test_caster_never_pays_hp_down_to_twice_the_cost(self) -> None:
        """Casters: a spell paid in HP must leave the caster above twice its cost (3 PSY: 7+)."""
        _, mage = solo(BOLT, rules="d100", hp=10)
        mage.psy = 0
        assert pick(mage, 10) == "bolt"  # 10 - 3 = 7 > 6
        mage.hp = 9
        assert pick(mage, 10) is None  # 9 - 3 = 6: twice the cost
        mage.psy, mage.hp = 1, 8  # pays 1 PSY and 2 HP: 6 left
        assert pick(mage, 10) is None
        mage.hp = 9
        assert pick(mage, 10) == "bolt"
        mage.psy, mage.hp = 3, 1
        assert pick(mage, 10) == "bolt"  # PSY pays it all

    def test_caster_affordability_holds_at_distance_0(self) -> None:
        """Casters: with everyone in reach (distance 0) a spell-only caster stops casting before
        the price would leave it at twice the cost or less, and pays no more HP."""
        bolt = Weapon("bolt", dice.parse("1"), psy=3, skill="magic", range=20)
        spec = d100(side("h", fighter("Mage", weapons=(bolt,), hp=12), party=True),
                    side("m", fighter("Rock", hp=1000, weapons=())), max_rounds=10)
        b = played(spec)
        paid = [e for e in b.log if e["event"] == "damage_dealt" and e.get("cost") is True]
        assert [e["hp_after"] for e in paid] == [9]  # 12 -> 9; a second cast would leave 6
        assert b.fighters[0].hp == 9

    def test_caster_that_cannot_cast_stays_out_of_reach(self) -> None:
        """Casters: a spell-only caster that cannot afford a cast stays where it is and logs no
        empty 0 m moves, turn after turn."""
        spec = d100(side("h", fighter("Mage", weapons=(BOLT,), hp=9), party=True),
                    side("m", fighter("Rock", hp=1000, weapons=())), distance=30, max_rounds=5)
        b = played(spec)
        assert [e for e in b.log if e["event"] in ("moved", "attack_resolved")] == []

    def test_caster_that_cannot_cast_uses_another_weapon(self) -> None:
        """Casters: out of PSY and too hurt to pay in HP, a caster fights with its staff."""
        spec = d100(side("h", fighter("Mage", weapons=(BOLT, STAFF), hp=9), party=True),
                    side("m", fighter("Rock", hp=1000, weapons=())), max_rounds=2)
        b = played(spec)
        used = {e["weapon"] for e in b.log if e["event"] == "attack_resolved"}
        assert used == {"staff"}

    def test_no_touch_spell_that_would_knock_the_caster_out(self) -> None:
        """Out of PSY, a melee (touch) spell follows the same rule: cast on HP only while the HP
        it leaves stay above twice its cost (also at distance 0), else the next weapon."""
        touch = Weapon("shocking grasp", dice.parse("2d6"), psy=3)
        staff = Weapon("staff", dice.parse("1d6"))
        b = battle(scenario(side("h", fighter("Mage", weapons=(touch, staff), hp=10), party=True),
                            side("m", fighter("M"))))
        mage = b.fighters[0]
        mage.psy = 0
        assert choose_weapon(mage, 0.0)[0].name == "shocking grasp"  # leaves 7 > 6
        mage.hp = 9
        assert choose_weapon(mage, 0.0)[0].name == "staff"  # would leave 6: not above 6

    def test_a_caster_out_of_spells_closes_in(self) -> None:
        """Distance: a spell it can no longer afford does not keep a caster at spell range."""
        _, mage = solo(BOLT, STAFF, rules="d100", hp=5)
        mage.psy = 3
        assert approach_gap(mage) == 20
        mage.psy = 0
        assert approach_gap(mage) == 0.0


class TestFocusKeepsContact:
    """Focus tactic keeps contact (issue 9): an enemy in reach always comes first."""

    def test_focus_keeps_contact(self) -> None:
        """Focus: with an able enemy in reach, a fighter strikes it rather than walk off after
        the shared target; the side's shared target stays."""
        b = trio("focus", a=9, b=4, c=6)
        hero, _ally, a, bee, _c = b.fighters
        b.spread = True
        bee.x = 30.0  # the weakest, shared, far away
        for enemy in (a, _c):
            enemy.x = 30.0
        a.x = 1.0  # 'a' stands in reach
        b.focus["h"] = bee
        assert target_of(b, hero) is a
        assert b.focus["h"] is bee

    def test_focus_keeps_a_shared_target_exactly_at_reach(self) -> None:
        """Focus: a shared target exactly 2 m away is in reach, so the fighter keeps it rather
        than turn to a weaker enemy beside it."""
        b = trio("focus", a=9, b=4, c=6)
        hero, _ally, a, bee, c = b.fighters
        b.spread = True
        hero.x, a.x, bee.x, c.x = 10.0, 12.0, 9.0, 40.0  # a: shared, at exactly 2 m; b: weaker, in reach
        b.focus["h"] = a
        assert target_of(b, hero) is a
        hero.x, a.x, bee.x = 10.0, 12.5, 9.0  # a now out of reach: the weakest in reach
        assert target_of(b, hero) is bee and b.focus["h"] is a

    def test_nobody_walks_away_from_an_enemy_in_reach(self) -> None:
        """Focus: a whole battle at a distance logs no move by a fighter that had an able enemy
        within 2 m."""
        wolves = [fighter(f"wolf {i}", hp=6, movement=16) for i in range(1, 4)]
        archers = [fighter(f"archer {i}", hp=4, weapons=(BOW,)) for i in range(1, 3)]
        heroes = [fighter(name, hp=20) for name in ("Bors", "Greta", "Tam")]
        walked_away = moves = 0
        for seed in range(20):
            b = played(scenario(side("h", *heroes, party=True, target="focus"),
                                side("m", *wolves, *archers, target="focus"), distance=30), seed)
            x = {c["name"]: c["x"] for c in b.log[0]["combatants"]}
            sides = {c["name"]: c["side"] for c in b.log[0]["combatants"]}
            down: set[str] = set()
            for e in b.log:
                if e["event"] in ("knocked_out", "died"):
                    down.add(e["target"])
                elif e["event"] == "moved":
                    moves += 1
                    near = [n for n in x if n not in down and sides[n] != sides[e["actor"]]
                            and abs(x[n] - e["x_before"]) <= 2]
                    walked_away += bool(near)
                    x[e["actor"]] = e["x_after"]
        assert moves > 50 and walked_away == 0
