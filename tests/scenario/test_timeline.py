"""``surprise:``; the timeline's refusals are in the corpus of tests/data/invalid (test_load)."""

from __future__ import annotations

from sim.model import Surprise
from tests.scenario.arena import variant, where


class TestSurprise:
    """``surprise``: a side, or ``{side, group_check}``, that must name a side of the scenario."""

    def test_unknown_side(self, arena):
        """A surprise naming no side is reported at its value."""
        p = arena.one(variant("rules: d20\n", "rules: d20\nsurprise: orcs\n"))
        assert where(p) == (3, 11, "surprise")
        assert p.message == "no side named 'orcs'"

    def test_unknown_side_hint(self, arena):
        """A misspelt side gets a hint."""
        p = arena.one(variant("rules: d20\n", "rules: d20\nsurprise: goblin\n"))
        assert p.message == "no side named 'goblin'; did you mean 'goblins'?"

    def test_mapping_without_side(self, arena):
        """The mapping form needs ``side``."""
        p = arena.one(variant("rules: d20\n", "rules: d20\nsurprise: {group_check: stealth}\n"))
        assert where(p) == (3, 11, "surprise")
        assert p.message == "missing required key 'side'"

    def test_mapping_unknown_side_location(self, arena):
        """In the mapping form the bad side is located at ``surprise.side``."""
        p = arena.one(variant("rules: d20\n", "rules: d20\nsurprise: {side: orcs}\n"))
        assert where(p) == (3, 18, "surprise.side")

    def test_reported_with_other_problems(self, arena):
        """A bad surprise is reported together with the other problems of the file."""
        problems = arena.problems(variant("rules: d20\n", "rules: d20\nsurprise: orcs\n",
                                          "hp: 24", "hp: lots"))
        assert [p.path for p in problems] == ["surprise", "sides[0].members[0].hp"]  # file order

    def test_empty_string(self, arena):
        """``surprise: ''`` is refused as an empty name."""
        p = arena.one(variant("rules: d20\n", "rules: d20\nsurprise: ''\n"))
        assert p.message == "must be a non-empty string (got '')"

    def test_surprise_mapping(self, arena):
        """``surprise: {side, group_check}`` is kept as given."""
        text = variant("rules: d20\n",
                       "rules: d20\nsurprise: {side: goblins, group_check: stealth}\n")
        assert arena.load(text).surprise == Surprise(side="goblins", group_check="stealth")

    def test_surprise_string(self, arena):
        """``surprise: goblins`` is a surprise with no group check."""
        text = variant("rules: d20\n", "rules: d20\nsurprise: goblins\n")
        assert arena.load(text).surprise == Surprise(side="goblins")
