"""The sides: unique names, at least two sides, one party at most."""

from __future__ import annotations

import pytest

from tests.scenario.arena import BASE, variant, where


class TestNames:
    """Combatant and side names are unique; sides are at least two, one party at most."""

    def test_duplicate_explicit_names(self, arena):
        """Two members with one name: the second is reported, naming the first."""
        p = arena.one(variant("      - {use: goblin, count: 2}\n",
                              "      - {use: goblin, count: 2}\n      - {name: Aria, hp: 3}\n"))
        assert where(p) == (15, 9, "sides[1].members[1]")
        assert p.message == "duplicate combatant name 'Aria' (first at sides[0].members[0])"

    def test_count_collides_with_explicit_name(self, arena):
        """``count: 2`` makes 'goblin 2', which collides with a member named so."""
        p = arena.one(variant("      - {use: goblin, count: 2}\n",
                              "      - {use: goblin, count: 2}\n      - {name: goblin 2, hp: 3}\n"))
        assert where(p) == (15, 9, "sides[1].members[1]")
        assert p.message == "duplicate combatant name 'goblin 2' (first at sides[1].members[0])"

    def test_explicit_name_before_count(self, arena):
        """An explicit 'goblin 1' listed first makes the ``count:`` entry the duplicate."""
        p = arena.one(variant("name: Aria", "name: goblin 1"))
        assert where(p) == (14, 9, "sides[1].members[0]")
        assert p.message == "duplicate combatant name 'goblin 1' (first at sides[0].members[0])"

    @pytest.mark.parametrize(("second", "first_shown"), [
        ('"e\\u0301"', "'\u00e9'"),          # the accent composed, then apart (NFC vs NFD)
        ('"Aria\\u200b"', "'Aria'"),          # a zero-width space after it
        ('"\\u200eAria"', "'Aria'"),          # a left-to-right mark before it
        ('"goblin\\u00a01"', "'goblin 1'"),   # a no-break space for the space of count's name
    ], ids=["accent", "zero-width", "bidi-mark", "no-break-space"])
    def test_names_that_look_alike(self, arena, second, first_shown):
        """Two names a reader cannot tell apart (they differ in invisible or look-alike
        characters) are refused like duplicates: both were accepted as two combatants."""
        first = '"\\u00e9"' if "u0301" in second else "Aria"
        text = variant("name: Aria", f"name: {first}",
                       "      - {use: goblin, count: 2}\n",
                       f"      - {{use: goblin, count: 2}}\n      - {{name: {second}, hp: 3}}\n")
        p = arena.one(text)
        assert where(p) == (15, 9, "sides[1].members[1]")
        assert p.message.startswith("combatant name ")
        assert f"looks the same as {first_shown} (at sides[" in p.message
        assert p.message.endswith("they differ only in invisible or look-alike characters)")

    def test_side_names_that_look_alike(self, arena):
        """Two side names that differ only in a zero-width space are refused."""
        p = arena.one(variant("- name: goblins", '- name: "heroes\\u200b"'))
        assert where(p) == (12, 11, "sides[1].name")
        assert p.message == ("side name 'heroes\\u200b' looks the same as 'heroes' (they differ"
                             " only in invisible or look-alike characters)")

    def test_duplicate_side_names(self, arena):
        """Two sides with one name: the second name is reported."""
        p = arena.one(variant("- name: goblins", "- name: heroes"))
        assert where(p) == (12, 11, "sides[1].name")
        assert p.message == "duplicate side name 'heroes'"

    def test_one_side_only(self, arena):
        """A battle needs two sides."""
        p = arena.one(BASE.split("  - name: goblins")[0])
        assert where(p) == (4, 3, "sides")
        assert p.message == "must have at least 2 items (got 1)"

    def test_two_party_sides(self, arena):
        """Only one side can be the party."""
        p = arena.one(variant("- name: goblins\n", "- name: goblins\n    party: true\n"))
        assert p.path == "sides[1].party"
        assert p.message == "only one side can be the party (the first is at sides[0])"

    def test_two_party_sides_location(self, arena):
        """The second ``party: true`` is where the problem is."""
        p = arena.one(variant("- name: goblins\n", "- name: goblins\n    party: true\n"))
        assert where(p) == (13, 12, "sides[1].party")

    def test_empty_name(self, arena):
        """An empty name is refused at the value."""
        p = arena.one(variant("count: 2}", "count: 2, name: ''}"))
        assert where(p) == (14, 39, "sides[1].members[0].name")
        assert p.message == "must be a non-empty string (got '')"

    @pytest.mark.parametrize(("written", "read"), [("no", "false"), ("on", "true"), ("1984", "1984"),
                                                   ("~", "null")])
    def test_name_yaml_reads_as_no_text(self, arena, written, read):
        """A bare no, on, 1984 or ~ is a boolean, a number or null to YAML: the message says
        to quote it (it only said 'got False')."""
        p = arena.one(variant("name: Aria", f"name: {written}"))
        assert where(p) == (7, 15, "sides[0].members[0].name")
        assert p.message == f"must be a non-empty string (got {read}): quote it to write it as text"

    def test_control_character_in_name(self, arena):
        """A tab inside a name is refused and shown escaped."""
        p = arena.one(variant("name: Aria", 'name: "A\\tria"'))
        assert where(p) == (7, 15, "sides[0].members[0].name")
        assert p.message == "must not contain control characters (got 'A\\tria')"

    def test_missing_member_name_and_hp(self, arena):
        """A member with neither ``use:`` nor name/hp names both missing keys."""
        problems = arena.problems(variant("count: 2}", "count: 2}\n      - {level: 2}"))
        assert [where(p) for p in problems] == [(15, 9, "sides[1].members[1]")] * 2
        assert [p.message for p in problems] == [
            "missing required key 'name' (and no 'use:')",
            "missing required key 'hp' (and no 'use:')",
        ]


MOUNTED = """\
name: Mounted
rules: d100
sides:
  - name: riders
    party: true
    tactics: {target: focus}
    members:
      - name: Knight
        hp: 14
        tactics: {target: weakest}
        weapons: [{name: sword, damage: 1d8}]
        mount: {name: horse, hp: 20, weapons: [{name: kick, damage: 1d6}]}
  - name: outlaws
    members:
      - {name: Outlaw, hp: 10, weapons: [{name: club, damage: 1d6}]}
      - {name: Cutpurse, hp: 8, weapons: [{name: knife, damage: 1d4}]}
"""
# A second hero for BASE: with Aria alone the goblins would have one enemy, and a target
# policy (which every policy picks) would do nothing.
BROM = "      - {name: Brom, level: 1, hp: 9, weapons: [{name: axe, damage: 1d6}]}\n"


class TestSideTarget:
    """A side's ``tactics.target`` is read by every member (and mount) without one of its own."""

    def test_target_every_member_overrides_is_refused(self, arena):
        """A side's target that each member sets itself, here or through its bestiary entry,
        changes nothing: refused (it was accepted and ignored)."""
        arena.write(arena.root.joinpath("bestiary/d20/x.yaml").read_text().replace(
            "    weapons: [{name: spear, damage: 1d8}]\n",
            "    weapons: [{name: spear, damage: 1d8}]\n    tactics: {target: weakest}\n"),
            "bestiary/d20/x.yaml")
        p = arena.warning(variant("  - name: goblins\n    members:\n      - {use: goblin, count: 2}\n",
                              BROM + "  - name: goblins\n    tactics: {target: focus}\n    members:\n"
                              "      - {use: goblin, count: 2, tactics: {target: strongest}}\n"
                              "      - {use: hobgoblin}\n"))
        assert where(p) == (14, 15, "sides[1].tactics.target")
        assert p.message == ("does nothing here: every member of this side (and mount) sets its own"
                             " target, here or in its bestiary entry")

    def test_target_one_member_reads_is_kept(self, arena):
        """One member without a target of its own takes the side's: accepted."""
        scenario = arena.load(variant("  - name: goblins\n    members:\n      - {use: goblin, count: 2}\n",
                                      BROM + "  - name: goblins\n    tactics: {target: focus}\n    members:\n"
                                      "      - {use: goblin, tactics: {target: strongest}}\n"
                                      "      - {use: hobgoblin}\n"))
        assert scenario.sides[1].tactics.target == "focus"
        assert scenario.sides[1].members[1].tactics is None

    def test_target_a_mount_reads_is_kept(self, arena):
        """A mount without a target of its own takes its side's, though its rider sets one."""
        scenario = arena.load(MOUNTED)
        assert [m.name for m in scenario.sides[0].members] == ["Knight", "horse of Knight"]
        assert scenario.sides[0].tactics.target == "focus"
