"""Tests for sim.yamlsrc.source: marks of a Source, format_path and shorten."""

from __future__ import annotations

from sim.errors import Problem
from sim.yamlsrc import Mark, Source, format_path, load_yaml_text, shorten


class TestSource:
    def make(self) -> Source:
        return load_yaml_text("side:\n  hp: 7\n  name: Ana\n", "s.yaml")

    def test_mark_of_a_known_path(self) -> None:
        """mark() returns the recorded mark of the value."""
        assert self.make().mark(("side", "hp")) == Mark(2, 7)

    def test_mark_walks_up_to_the_nearest_known_parent(self) -> None:
        """A path missing from the file is located at its nearest existing parent."""
        assert self.make().mark(("side", "armor", 0)) == Mark(2, 3)

    def test_mark_falls_back_to_the_first_line(self) -> None:
        """With no mark at all, mark() answers line 1 column 1."""
        assert Source("s.yaml", None, {}, {}).mark(("x",)) == Mark(1, 1)

    def test_key_mark_and_its_fallback(self) -> None:
        """key_mark() gives the key's mark, or the value mark when there is no key."""
        source = self.make()
        assert source.key_mark(("side", "name")) == Mark(3, 3)
        assert source.key_mark(()) == Mark(1, 1)
        assert source.key_mark(("side", "armor")) == Mark(2, 3)

    def test_problem_at_value_and_at_key(self) -> None:
        """problem() builds a Problem with the formatted path at the right mark."""
        source = self.make()
        assert source.problem(("side", "name"), "bad") == Problem("s.yaml", 3, 9, "side.name", "bad")
        at_key = source.problem(("side", "name"), "bad", at_key=True)
        assert str(at_key) == "s.yaml:3:3: side.name: bad"


class TestFormatPath:
    def test_mixed_path(self) -> None:
        """Keys join with dots and indexes go in brackets."""
        path = ("sides", 1, "members", 2, "weapons", 0, "damage")
        assert format_path(path) == "sides[1].members[2].weapons[0].damage"

    def test_empty_path(self) -> None:
        """The document itself has the empty path."""
        assert format_path(()) == ""

    def test_leading_index(self) -> None:
        """A path may start with a list index."""
        assert format_path((0, "name")) == "[0].name"

    def test_long_key_is_cut(self) -> None:
        """A very long key is shortened in the path like a value in a message."""
        assert format_path(("a", "x" * 300, 1)) == "a['" + "x" * 37 + "…'][1]"
        assert format_path(("y" * 40,)) == "y" * 40

    def test_keys_that_are_not_identifiers(self) -> None:
        """Keys with spaces or dots, and non-string keys, are quoted in brackets."""
        assert format_path(("monsters", "Goblin Boss", "hp")) == "monsters['Goblin Boss'].hp"
        assert format_path(("a.b",)) == "['a.b']"
        assert format_path(("x", None, True)) == "x[null][true]"  # type: ignore[arg-type]


class TestShorten:
    def test_short_string_in_single_quotes(self) -> None:
        """Strings are shown in single quotes, like a repr."""
        assert shorten("goblin") == "'goblin'"

    def test_quotes_and_newlines_are_escaped(self) -> None:
        """Embedded quotes, backslashes, tabs and newlines never break the line."""
        assert shorten("it's\na\\b\tc") == "'it\\'s\\na\\\\b\\tc'"

    def test_long_string_is_cut_to_the_limit(self) -> None:
        """A long string is cut with '…' inside its quotes, within the limit."""
        text = shorten("x" * 100)
        assert text == "'" + "x" * 37 + "…'"
        assert len(text) == 40

    def test_cut_never_splits_an_escape(self) -> None:
        """The cut falls between escapes, never in the middle of one."""
        assert shorten("ab\n\n\n", limit=8) == "'ab\\n…'"

    def test_non_strings_as_yaml(self) -> None:
        """Other values show as YAML writes them (a GM's file never says None or True), cut the
        same way when long."""
        assert shorten(12) == "12"
        assert shorten(None) == "null"
        assert (shorten(True), shorten(False), shorten(float("nan"))) == ("true", "false", ".nan")
        assert shorten({"hp": None, "tags": [True, "x"]}) == "{'hp': null, 'tags': [true, 'x']}"
        assert shorten(list(range(100)), limit=10) == "[0, 1, 2,…"
