"""Stat blocks: hp dice, tactics, items."""

from __future__ import annotations

from sim import dice
from sim.model import Tactics
from tests.scenario.arena import BASE, BESTIARY, variant, where


class TestHp:
    """``hp`` of a stat block is dice, parsed once."""

    def test_hp_dice(self, arena):
        """``hp: 3d8`` is parsed once into dice rolled each battle."""
        scenario = arena.load(variant("hp: 24", "hp: 3d8"))
        hp = scenario.sides[0].members[0].hp
        assert isinstance(hp, dice.Dice)
        assert (str(hp), hp.min, hp.max) == ("3d8", 3, 24)

    def test_hp_number(self, arena):
        """``hp: 24`` is a constant."""
        hp = arena.load(BASE).sides[0].members[0].hp
        assert hp.is_constant
        assert (hp.min, hp.max) == (24, 24)


class TestTacticsAndItems:
    """The keys of issue 9: `tactics.weapons`, `tactics.potion_at` and `items` (rules §8)."""

    def test_unknown_weapon_in_member_tactics(self, arena):
        """`tactics.weapons` naming no weapon of the stat block: file:line:col and did you mean."""
        p = arena.one(variant("        weapons: [{name: sword, damage: 1d8}]\n",
                              "        weapons: [{name: sword, damage: 1d8}]\n"
                              "        tactics: {weapons: [swrod]}\n"))
        assert where(p) == (12, 29, "sides[0].members[0].tactics.weapons[0]")
        assert p.message == ("no weapon named 'swrod' in this stat block (its weapons: sword);"
                             " did you mean 'sword'?")

    def test_unknown_weapon_in_side_tactics(self, arena):
        """Side `tactics.weapons` must name a weapon of at least one member of the side."""
        p = arena.one(variant("  - name: goblins\n",
                              "  - name: goblins\n    tactics: {weapons: [rusty blde]}\n"))
        assert where(p) == (13, 25, "sides[1].tactics.weapons[0]")
        assert "did you mean 'rusty blade'?" in p.message

    def test_unknown_weapon_in_bestiary_tactics(self, arena):
        """A bestiary entry's `tactics.weapons` is checked against its own weapons, in the bestiary."""
        arena.write(BESTIARY.replace("    weapons: [{name: spear, damage: 1d8}]\n",
                                     "    weapons: [{name: spear, damage: 1d8}]\n"
                                     "    tactics: {weapons: [pike]}\n"), "bestiary/d20/x.yaml")
        code, _, err = arena.cli("validate", "bestiary/d20/x.yaml")
        assert code == 2
        assert err.startswith("bestiary/d20/x.yaml:13:25: creatures.hobgoblin.tactics.weapons[0]:"
                              " no weapon named 'pike'")

    def test_weapon_listed_twice(self, arena):
        """A weapon named twice in `tactics.weapons` is refused."""
        p = arena.one(variant("        weapons: [{name: sword, damage: 1d8}]\n",
                              "        weapons: [{name: sword, damage: 1d8}]\n"
                              "        tactics: {weapons: [sword, sword]}\n"))
        assert p.path == "sides[0].members[0].tactics.weapons[1]" and "twice" in p.message

    def test_potion_at_is_a_fraction(self, arena):
        """`tactics.potion_at` is a fraction of maximum HP, 0 to 1."""
        p = arena.one(variant("party: true\n", "party: true\n    tactics: {potion_at: 33}\n"))
        assert p.path == "sides[0].tactics.potion_at"
        assert p.message == "must be between 0 and 1 (got 33)"

    def test_items_load(self, arena):
        """`items: [{name, heal, count}]` on a member; the name defaults to a healing potion."""
        scenario = arena.load(variant("        armor: 4\n",
                                      "        armor: 4\n        items: [{heal: 2d4+2, count: 3},"
                                      " {name: elixir, heal: 4d4}]\n"))
        items = scenario.sides[0].members[0].items
        assert [(i.name, str(i.heal), i.count) for i in items] == [
            ("healing potion", "2d4+2", 3), ("elixir", "4d4", 1)]

    def test_bad_items(self, arena):
        """An item needs `heal` dice; unknown keys and a name listed twice are refused."""
        problems = arena.problems(variant("        armor: 4\n",
                                          "        armor: 4\n        items: [{name: a, count: 2},"
                                          " {heal: 1d4, colour: red}, {heal: 1d4}, {heal: 1d6}]\n"))
        assert [(p.path, p.message.split(" (")[0]) for p in problems] == [
            ("sides[0].members[0].items[0]", "missing required key 'heal'"),
            ("sides[0].members[0].items[1].colour", "unknown key 'colour'"),
            ("sides[0].members[0].items[3].name", "item 'healing potion' is listed twice"),
        ]

    def test_member_tactics_merge_with_the_bestiary_entry(self, arena):
        """A member's `tactics` override its bestiary entry's key by key."""
        arena.write(BESTIARY.replace("    weapons: [{name: spear, damage: 1d8}]\n",
                                     "    weapons: [{name: spear, damage: 1d8}, {name: net, damage: 1}]\n"
                                     "    tactics: {weapons: [net], target: weakest}\n"),
                    "bestiary/d20/x.yaml")
        scenario = arena.load(variant("{use: goblin, count: 2}",
                                      "{use: hobgoblin, tactics: {potion_at: 0.5}, items: [{heal: 1d4}]}"))
        tactics = scenario.sides[1].members[0].tactics
        assert tactics == Tactics(target="weakest", weapons=("net",), potion_at=0.5)

    def test_potion_at_without_items_is_a_warning(self, arena):
        """`potion_at` with no items to drink does nothing: a warning, member and side."""
        p = arena.warning(variant("        armor: 4\n", "        armor: 4\n"
                                                     "        tactics: {potion_at: 0.5}\n"))
        assert p.path == "sides[0].members[0].tactics.potion_at"
        assert p.message.startswith("does nothing here: it carries no items to drink")
        p = arena.warning(variant("party: true\n", "party: true\n    tactics: {potion_at: 0.5}\n"))
        assert (p.path, p.message) == ("sides[0].tactics.potion_at",
                                       "does nothing here: no member of this side carries items")
        arena.write(BESTIARY.replace("    weapons: [{name: spear, damage: 1d8}]\n",
                                     "    weapons: [{name: spear, damage: 1d8}]\n"
                                     "    tactics: {potion_at: 0.5}\n"), "bestiary/d20/x.yaml")
        code, out, err = arena.cli("validate", "bestiary/d20/x.yaml")
        assert (code, out) == (0, "bestiary/d20/x.yaml: ok (bestiary, 1 warning)\n")
        assert "creatures.hobgoblin.tactics.potion_at: does nothing here: it carries no items" in err


    def test_potions_of_a_lone_fighter_that_never_drinks_are_refused(self, arena):
        """`potion_at: 0` never drinks while standing; the side's only fighter has nobody to
        give a potion to: its items did nothing, accepted without a word. Refused where the 0
        was written (the member's, else the side's); with an ally, kept."""
        items = "        armor: 4\n        items: [{heal: 2d4}]\n"
        why = ("does nothing here: with potion_at 0 it never drinks while standing, and no ally on"
               " its side could be given a potion (a mount is given none)")
        p = arena.warning(variant("        armor: 4\n", items + "        tactics: {potion_at: 0}\n"))
        assert (p.path, p.message) == ("sides[0].members[0].tactics.potion_at", why)
        p = arena.warning(variant("        armor: 4\n", items,
                              "party: true\n", "party: true\n    tactics: {potion_at: 0}\n"))
        assert (p.path, p.message) == ("sides[0].tactics.potion_at", why)
        arena.load(variant("        armor: 4\n", items + "        tactics: {potion_at: 0}\n",
                           "  - name: goblins", "      - {name: Brom, hp: 9}\n  - name: goblins"))

class TestDefense:
    """``defense`` of 2d10 and d10 stat blocks (rules §3)."""

    QUALITY = ("rules: 2d10\nsides:\n  - name: heroes\n    party: true\n    members:\n"
               "      - {name: A, hp: 10, defense: DEF, weapons: [{name: s, damage: 1d6}]}\n"
               "  - name: foes\n    members: [{name: B, hp: 10, weapons: [{name: s, damage: 1d6}]}]\n")

    def test_quality_defense_is_read_on_the_ladder(self, arena):
        """2d10 defense: "defense 0..10 read on the difficulty ladder" (impossible is -10), so
        11 is refused, not silently made harder than impossible."""
        p = arena.one("name: t\n" + self.QUALITY.replace("DEF", "11"))
        assert where(p) == (7, 36, "sides[0].members[0].defense")
        assert p.message.startswith("must be between 0 and 10 (got 11)")
        assert arena.load("name: t\n" + self.QUALITY.replace("DEF", "10"))

    def test_open_d10_defense_is_a_difficulty(self, arena):
        """d10 defense is the attack's difficulty, on the seed's open scale: 25 is a master's."""
        text = "name: t\n" + self.QUALITY.replace("2d10", "d10").replace("DEF", "25")
        assert arena.load(text).sides[0].members[0].defense == 25
