"""The Checker: wrong types, ranges, dice, unknown keys with hints, choices, long values."""

from __future__ import annotations

import pytest

from sim.scenario.checker import INVALID, Checker
from sim.yamlsrc import load_yaml_text
from tests.scenario.arena import variant, where


class TestWrongTypes:
    """A value of the wrong type is reported at the value, naming what was expected."""

    def test_hp_text(self, arena):
        """``hp: "lots"`` is not dice notation."""
        p = arena.one(variant("hp: 24", 'hp: "lots"'))
        assert where(p) == (9, 13, "sides[0].members[0].hp")
        assert "must be dice notation" in p.message
        assert "'lots'" in p.message

    def test_level_quoted(self, arena):
        """``level: "3"`` is a string, not an integer."""
        p = arena.one(variant("level: 3", 'level: "3"'))
        assert where(p) == (8, 16, "sides[0].members[0].level")
        assert p.message == "must be an integer (got '3'): quoted, it is text; write it without quotes"

    @pytest.mark.parametrize(("value", "message"), [
        ('"12"', "must be a number (got '12'): quoted, it is text; write it without quotes"),
        ("'0.5'", "must be a number (got '0.5'): quoted, it is text; write it without quotes"),
        ("1e3", "must be a number (got '1e3') (YAML reads 1e5 as text: write 100000 or 1.0e+5)"),
        ('"a lot"', "must be a number (got 'a lot')")])
    def test_number_as_text_says_why(self, arena, value, message):
        """A number that came as text says why: a quoted '0.5' was told YAML reads 1e5 as
        text, which is no help; 1e5 (text in YAML 1.1: its floats need a dot) still is."""
        p = arena.one(variant("rules: d20\n", f"rules: d20\ndistance: {value}\n"))
        assert (where(p), p.message) == ((3, 11, "distance"), message)

    def test_integer_written_1e3_is_not_told_to_write_a_float(self, arena):
        p = arena.one(variant("rules: d20\n", "rules: d20\nmax_rounds: 1e3\n"))
        assert p.message == "must be an integer (got '1e3') (YAML reads 1e5 as text: write 100000)"

    def test_armor_boolean(self, arena):
        """``armor: true`` is refused even though bool is an int in Python."""
        p = arena.one(variant("armor: 4", "armor: true"))
        assert where(p) == (10, 16, "sides[0].members[0].armor")
        assert p.message == "must be an integer (got true)"  # as YAML writes it

    def test_weapons_string(self, arena):
        """``weapons: "sword"`` must be a list."""
        p = arena.one(variant("weapons: [{name: sword, damage: 1d8}]", 'weapons: "sword"'))
        assert where(p) == (11, 18, "sides[0].members[0].weapons")
        assert p.message == "must be a list (got 'sword')"

    def test_weapon_item_string(self, arena):
        """A weapon given as a bare name must be a mapping."""
        p = arena.one(variant("weapons: [{name: sword, damage: 1d8}]", "weapons: [sword]"))
        assert where(p) == (11, 19, "sides[0].members[0].weapons[0]")
        assert p.message == "must be a mapping (got 'sword')"

    def test_sides_mapping(self, arena):
        """``sides: {}`` must be a list."""
        text = "name: Test\nrules: d20\nsides: {}\n"
        p = arena.one(text)
        assert where(p) == (3, 8, "sides")
        assert p.message == "must be a list (got {})"

    def test_party_string(self, arena):
        """``party: 'yes'`` must be a boolean."""
        p = arena.one(variant("party: true", "party: 'yes'"))
        assert where(p) == (5, 12, "sides[0].party")
        assert p.message == "must be true or false (got 'yes')"

    def test_top_level_list(self, arena):
        """A document that is a list, not a mapping, is reported on the whole document."""
        p = arena.one("- a\n- b\n")
        assert where(p) == (1, 1, "")
        assert "must be a mapping at the top level" in p.message


class TestOutOfRange:
    """Numbers outside their range name the range and the value."""

    @pytest.mark.parametrize(
        ("old", "new", "expected"),
        [
            ("level: 3", "level: 99", (8, 16, "sides[0].members[0].level")),
            ("armor: 4", "armor: -1", (10, 16, "sides[0].members[0].armor")),
            ("count: 2", "count: 0", (14, 30, "sides[1].members[0].count")),
            ("count: 2", "count: 101", (14, 30, "sides[1].members[0].count")),
        ],
    )
    def test_integer_out_of_range(self, arena, old, new, expected):
        """An integer field outside its bounds is reported at its value."""
        p = arena.one(variant(old, new))
        assert where(p) == expected
        assert p.message.startswith("must be between ")
        assert f"(got {new.split(': ')[1]})" in p.message

    def test_max_rounds_zero(self, arena):
        """``max_rounds: 0`` is below 1."""
        p = arena.one(variant("rules: d20\n", "rules: d20\nmax_rounds: 0\n"))
        assert where(p) == (3, 13, "max_rounds")
        assert p.message == "must be between 1 and 10000 (got 0)"

    def test_distance_nan(self, arena):
        """``distance: .nan`` is not a usable number."""
        p = arena.one(variant("rules: d20\n", "rules: d20\ndistance: .nan\n"))
        assert where(p) == (3, 11, "distance")
        assert "(got .nan)" in p.message

    def test_weapon_range_zero(self, arena):
        """A ranged weapon needs a range of at least half a metre."""
        p = arena.one(variant("damage: 1d8}", "damage: 1d8, range: 0}"))
        assert where(p) == (11, 53, "sides[0].members[0].weapons[0].range")
        assert p.message == "must be between 0.5 and 10000 (got 0)"

    def test_huge_integer(self, arena):
        """An integer too long for Python to convert is a problem, not a crash."""
        p = arena.one(variant("level: 3", "level: 1" + "0" * 5000))
        assert where(p) == (8, 16, "sides[0].members[0].level")
        assert "cannot read" in p.message
        assert len(str(p)) < 200


class TestBadDice:
    """Dice notation that does not parse or is out of bounds, at the dice value."""

    @pytest.mark.parametrize(
        ("damage", "detail"),
        [
            ("1d", "'1d' is not a number or a dice term"),
            ("2d6+", "after '+' at the end"),
            ("1001d6", "at most 1000 dice per term"),
            ("1d8-5", "must never be below 0"),
        ],
    )
    def test_weapon_damage(self, arena, damage, detail):
        """Bad weapon damage is reported at ``weapons[0].damage``."""
        p = arena.one(variant("damage: 1d8", f"damage: {damage}"))
        assert where(p) == (11, 41, "sides[0].members[0].weapons[0].damage")
        assert detail in p.message
        assert damage in p.message

    @pytest.mark.parametrize(("hp", "minimum"), [("0", "min 0"), ("1d6-10", "min -9")])
    def test_hp_below_one(self, arena, hp, minimum):
        """HP that can be below 1 is refused, naming the minimum it can reach."""
        p = arena.one(variant("hp: 24", f"hp: {hp}"))
        assert where(p) == (9, 13, "sides[0].members[0].hp")
        assert "must never be below 1" in p.message
        assert minimum in p.message


class TestUnknownKeys:
    """Unknown keys are errors at every level, at the key, with a 'did you mean' hint."""

    @pytest.mark.parametrize(
        ("old", "new", "expected", "hint"),
        [
            ("sides:\n", "sidez:\n", (3, 1, "sidez"), "sides"),
            ("rules: d20\n", "rules: d20\nmax_round: 5\n", (3, 1, "max_round"), "max_rounds"),
            ("party: true\n", "party: true\n    tactic: {target: weakest}\n",
             (6, 5, "sides[0].tactic"), "tactics"),
            ("armor: 4\n", "armor: 4\n        tactic: {target: weakest}\n",
             (11, 9, "sides[0].members[0].tactic"), "tactics"),
            ("weapons:", "weapon:", (11, 9, "sides[0].members[0].weapon"), "weapons"),
            ("count: 2}", "count: 2, armr: 3}", (14, 33, "sides[1].members[0].armr"), "armor"),
            ("damage: 1d8}", "damage: 1d8, bonnus: 1}",
             (11, 46, "sides[0].members[0].weapons[0].bonnus"), "bonus"),
            ("rules: d20\n", "rules: d20\noptions: {moral: false}\n",
             (3, 11, "options.moral"), "morale"),
            ("party: true\n", "party: true\n    tactics: {targt: weakest}\n",
             (6, 15, "sides[0].tactics.targt"), "target"),
            ("rules: d20\n", "rules: d20\nsurprise: {side: goblins, groupcheck: stealth}\n",
             (3, 27, "surprise.groupcheck"), "group_check"),
        ],
    )
    def test_unknown_key_with_hint(self, arena, old, new, expected, hint):
        """The unknown key is reported at the key itself and the close known key suggested."""
        problems = arena.problems(variant(old, new))
        p = problems[0]
        assert where(p) == expected
        assert p.message.startswith(f"unknown key '{expected[2].split('.')[-1]}'")
        assert p.message.endswith(f"; did you mean '{hint}'?")

    def test_hitpoints_suggests_hp(self, arena):
        """``hitpoints`` is the long name of ``hp`` and should be suggested as such (in d20,
        as another d20 game's key: tests/scenario/test_foreign.py)."""
        p = arena.problems(variant("hp: 24", "hitpoints: 24"))[0]
        assert where(p) == (9, 9, "sides[0].members[0].hitpoints")
        assert "write hp: 24" in p.message
        p = arena.problems(variant("rules: d20", "rules: d100", "        level: 3\n", "",
                                   "hp: 24", "hitpoints: 24"))[0]
        assert "did you mean 'hp'?" in p.message

    def test_hitpoints_reported_at_key(self, arena):
        """``hitpoints`` is at least reported as an unknown key, at the key."""
        p = arena.one(variant("hp: 24", "hitpoints: 24"))
        assert where(p) == (9, 9, "sides[0].members[0].hitpoints")
        assert p.message.startswith("unknown key 'hitpoints'")


class TestChoices:
    """Values from a fixed set: tactics and rule systems."""

    def test_unknown_tactic(self, arena):
        """An unknown target policy lists the policies that exist."""
        p = arena.one(variant("party: true\n", "party: true\n    tactics: {target: nearest}\n"))
        assert where(p) == (6, 23, "sides[0].tactics.target")
        assert p.message.startswith(
            "must be one of random, weakest, strongest, focus (got 'nearest')")

    def test_unknown_rules(self, arena):
        """An unknown rule system is refused with a hint."""
        p = arena.one(variant("rules: d20", "rules: d21"))
        assert where(p) == (2, 8, "rules")
        assert p.message == "must be one of d20, d100, 2d10, d10 (got 'd21'); did you mean 'd20'?"

    def test_rules_number(self, arena):
        """``rules: 20`` (an int) is refused without crashing the hint."""
        p = arena.one(variant("rules: d20", "rules: 20"))
        assert where(p) == (2, 8, "rules")
        assert p.message == "must be one of d20, d100, 2d10, d10 (got 20)"

    def test_missing_rules(self, arena):
        """A scenario without ``rules`` says so on the whole document."""
        p = arena.one(variant("rules: d20\n", ""))
        assert where(p) == (1, 1, "")
        assert p.message == "missing required key 'rules'"


class TestLongValues:
    """A long bad value is shortened so no message line is unreadably long."""

    LONG = "x" * 300

    def test_long_string_where_integer_expected(self, arena):
        """A 300-character level is cut in the message."""
        p = arena.one(variant("level: 3", f"level: {self.LONG}"))
        assert where(p) == (8, 16, "sides[0].members[0].level")
        assert len(str(p)) < 200

    def test_long_name(self, arena):
        """A 300-character name reports its length, not its text."""
        p = arena.one(variant("name: Aria", f"name: {self.LONG}"))
        assert p.message == "must be at most 80 characters (got 300)"

    def test_very_long_dice(self, arena):
        """Dice text over the 200-character limit is cut in the message."""
        p = arena.one(variant("hp: 24", f"hp: 1d6+{self.LONG}"))
        assert where(p) == (9, 13, "sides[0].members[0].hp")
        assert len(str(p)) < 200

    def test_long_dice_under_limit(self, arena):
        """Bad dice of 150 characters still gives a short message."""
        p = arena.one(variant("hp: 24", f"hp: 1d6+{'x' * 150}"))
        assert len(str(p)) < 200

    def test_long_unknown_key(self, arena):
        """A 300-character unknown key is cut in the path as well as in the message."""
        p = arena.one(variant("armor: 4", f"{self.LONG}: 4"))
        assert (p.line, p.col) == (10, 9)
        assert len(str(p)) < 200

    def test_long_surprise(self, arena):
        """A 300-character surprise side is cut in the message."""
        p = arena.one(variant("rules: d20\n", f"rules: d20\nsurprise: {self.LONG}\n"))
        assert len(str(p)) < 200


class TestEach:
    """Checker.each: a list read item by item, every bad item reported at its index."""

    def test_items_at_their_index(self):
        """Good items give a tuple; bad ones make the list INVALID, each reported at its index."""
        problems: list = []
        c = Checker(load_yaml_text("a: [1, x, 2, y]\n", "x.yaml"), problems, "d20")
        assert c.each([1, 2], ("a",), lambda v, p: c.integer(v, p, 0, 9)) == (1, 2)
        assert c.each(["x", 1, "y"], ("a",), lambda v, p: c.integer(v, p, 0, 9)) is INVALID
        assert [p.path for p in problems] == ["a[0]", "a[2]"]
