"""Weapon orders that change nothing are refused; one that changes a fighter's order is kept."""

from __future__ import annotations

import pytest

from sim.engine.tactics import weapon_order
from sim.model import Tactics
from tests.scenario.arena import BESTIARY, where

# Two weapons whose default order is sword, then bow (melee before bows).
ARMS = "[{name: sword, damage: 1d8}, {name: bow, damage: 1d6, range: 40}]"

ENTRIES = BESTIARY + f"""\
  archer:
    hp: 10
    weapons: {ARMS}
  sniper:
    hp: 10
    weapons: {ARMS}
    tactics: {{weapons: [bow]}}
"""


def scenario(side: str = "", *members: str) -> str:
    """Heroes with ``side`` tactics and the given member lines, against a goblin."""
    lines = "".join(f"      - {m}\n" for m in members)
    return (f"name: t\nrules: d20\nsides:\n  - name: heroes\n    party: true\n{side}"
            f"    members:\n{lines}  - name: goblins\n    members: [{{use: goblin}}]\n")


@pytest.fixture
def archers(arena):
    """The arena, its bestiary holding two-weapon entries: `archer` and `sniper` (bow first)."""
    arena.write(ENTRIES, "bestiary/d20/x.yaml")
    return arena


def fighter_order(scenario_, member: int) -> list[str]:
    """The weapon names a loaded member of the first side uses, in order (as the engine)."""
    side = scenario_.sides[0]
    spec = side.members[member]
    tactics = side.tactics if spec.tactics is None else spec.tactics.over(side.tactics)
    return [w.name for w in weapon_order(spec.weapons, tactics.weapons)]


class TestMemberOrder:
    """A member's `tactics.weapons` is refused when its fighter's full order stays the same."""

    def test_partial_order_completed_into_the_default(self, archers):
        """`[sword]` completes into sword, bow: the default order, refused at the key."""
        p = archers.warning(scenario("", "{use: archer, tactics: {weapons: [sword]}}"))
        assert where(p) == (7, 33, "sides[0].members[0].tactics.weapons")
        assert p.message == ("does nothing here: it is the order this fighter already uses by"
                             " default (sword, bow)")

    def test_copy_of_the_sides_order(self, archers):
        """A member's order equal to its side's is refused, saying where it comes from."""
        p = archers.warning(scenario("    tactics: {weapons: [bow, sword]}\n",
                                 "{use: archer, tactics: {weapons: [bow]}}"))
        assert p.path == "sides[0].members[0].tactics.weapons"
        assert p.message == ("does nothing here: it is the order this fighter already uses from its"
                             " side's tactics.weapons (bow, sword)")

    def test_copy_of_the_bestiary_entrys_order(self, archers):
        """A member's order equal to its bestiary entry's is refused, naming the entry."""
        p = archers.warning(scenario("", "{use: sniper, tactics: {weapons: [bow, sword]}}"))
        assert p.message == ("does nothing here: it is the order this fighter already uses from"
                             " bestiary entry 'sniper' (bow, sword)")

    def test_default_order_over_the_sides_is_kept(self, archers):
        """The default order written on a member matters when its side gives another."""
        loaded = archers.load(scenario("    tactics: {weapons: [bow]}\n",
                                       "{use: archer, tactics: {weapons: [sword]}}",
                                       "{use: archer, name: B}"))
        assert fighter_order(loaded, 0) == ["sword", "bow"]
        assert fighter_order(loaded, 1) == ["bow", "sword"]

    def test_default_order_over_the_entrys_is_kept(self, archers):
        """The default order written on a member matters when its bestiary entry gives another."""
        loaded = archers.load(scenario("", "{use: sniper, tactics: {weapons: [sword]}}"))
        assert loaded.sides[0].members[0].tactics == Tactics(weapons=("sword",))
        assert fighter_order(loaded, 0) == ["sword", "bow"]

    def test_only_weapon(self, archers):
        """An order of a block's only weapon is refused, at the key's own line."""
        block = scenario("", "{name: Aria, hp: 9, weapons: [{name: axe, damage: 1d6}], x: y}")
        p = archers.warning(block.replace(", x: y}", ",\n          tactics: {\n            weapons:\n"
                                                 "              [axe]}}"))
        assert where(p) == (9, 13, "sides[0].members[0].tactics.weapons")
        assert p.message == "does nothing here: 'axe' is this stat block's only weapon"

    def test_unknown_name_is_reported_once(self, archers):
        """An order naming a weapon the block lacks gets that refusal only."""
        p = archers.one(scenario("", "{use: archer, tactics: {weapons: [swrod]}}"))
        assert p.path == "sides[0].members[0].tactics.weapons[0]"
        assert p.message.startswith("no weapon named 'swrod'")

    def test_mount_written_in_the_scenario(self, arena):
        """A mount's order is checked like a member's (here d100's warhorse and its one weapon)."""
        arena.write("rules: d100\ncreatures:\n  horse:\n    hp: 30\n"
                    "    weapons: [{name: hooves, damage: 1d6}]\n"
                    "  rider:\n    hp: 12\n    weapons: [{name: lance, damage: 1d10}]\n",
                    "bestiary/d100/x.yaml")
        p = arena.warning("name: t\nrules: d100\nsides:\n  - name: a\n    party: true\n"
                      "    members: [{use: rider, mount: {use: horse, tactics: {weapons: [hooves]}}}]\n"
                      "  - name: b\n    members: [{use: rider, name: r2}]\n")
        assert p.path == "sides[0].members[0].mount.tactics.weapons"
        assert p.message == "does nothing here: 'hooves' is this stat block's only weapon"


class TestSideOrder:
    """A side's `tactics.weapons` is refused when no fighter of the side changes order."""

    def test_every_member_sets_its_own(self, archers):
        """Every member overriding the side's order (here or in the bestiary) leaves it idle."""
        p = archers.warning(scenario("    tactics: {weapons: [bow]}\n",
                                 "{use: archer, tactics: {weapons: [sword]}}", "{use: sniper}"))
        assert where(p) == (6, 15, "sides[0].tactics.weapons")
        assert p.message == ("does nothing here: every member of this side sets its own tactics.weapons"
                             " (here or in its bestiary entry)")

    def test_heirs_already_use_it(self, archers):
        """A side's order its heirs use by default anyway is refused."""
        p = archers.warning(scenario("    tactics: {weapons: [sword]}\n", "{use: archer}",
                                 "{name: Aria, hp: 9, weapons: [{name: axe, damage: 1d6}]}"))
        assert p.path == "sides[0].tactics.weapons"
        assert p.message.startswith("does nothing here: the members of this side without their own")

    def test_member_copy_is_reported_alone(self, archers):
        """A member copying its side's order is reported, not the side's too: removing both
        would change the member's order."""
        p = archers.warning(scenario("    tactics: {weapons: [bow]}\n",
                                 "{use: archer, tactics: {weapons: [bow]}}"))
        assert p.path == "sides[0].members[0].tactics.weapons"

    def test_order_reaching_one_member_is_kept(self, archers):
        """A side's order that reorders one member's weapons matters."""
        loaded = archers.load(scenario("    tactics: {weapons: [bow]}\n", "{use: archer}",
                                       "{name: Aria, hp: 9, weapons: [{name: axe, damage: 1d6}]}"))
        assert fighter_order(loaded, 0) == ["bow", "sword"]


class TestEntryOrder:
    """A bestiary entry's order is kept (it overrides a side's) unless it has one weapon."""

    def test_only_weapon_in_the_bestiary(self, arena):
        """An entry ordering its only weapon is a warning in the bestiary file."""
        arena.write(BESTIARY + "    tactics: {weapons: [spear]}\n", "bestiary/d20/x.yaml")
        code, _, err = arena.cli("validate", "bestiary/d20/x.yaml")
        assert code == 0
        assert err.splitlines()[0] == ("bestiary/d20/x.yaml:13:15: creatures.hobgoblin.tactics.weapons:"
                                       " does nothing here: 'spear' is this stat block's only weapon")
        assert arena.cli("validate", "--strict", "bestiary/d20/x.yaml")[0] == 2

    def test_default_order_in_the_bestiary_is_kept(self, arena):
        """An entry's order equal to its default is kept: a side's order would change it."""
        arena.write(ENTRIES + "  ranger:\n    hp: 10\n"
                    f"    weapons: {ARMS}\n    tactics: {{weapons: [sword]}}\n", "bestiary/d20/x.yaml")
        code, _, err = arena.cli("validate", "bestiary/d20/x.yaml")
        assert (code, err) == (0, "")


class TestSideTypo:
    """A side's order naming no weapon of its members is refused as such, and nothing is
    compared with it."""

    def test_member_order_under_a_misspelt_side_order(self, archers):
        """Under `[bwo, sword]` (meant `[bow, sword]`) a member's `[sword]` is not refused as a
        copy: only the misspelling is reported."""
        p = archers.one(scenario("    tactics: {weapons: [bwo, sword]}\n",
                                 "{use: archer, tactics: {weapons: [sword]}}"))
        assert p.path == "sides[0].tactics.weapons[0]"
        assert p.message.startswith("no weapon named 'bwo' in any member of this side")
