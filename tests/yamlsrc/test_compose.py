"""Tests for sim.yamlsrc.compose: syntax errors, tags, mapping problems and alias limits."""

from __future__ import annotations

import pathlib

import pytest
import yaml

from sim.errors import Problem, ScenarioError
from sim.yamlsrc import load as yaml_load
from sim.yamlsrc import load_yaml_text
from tests.yamlsrc.helpers import only_problem, problems_of


class TestSyntaxErrors:
    def test_syntax_error_is_located(self) -> None:
        """A YAML syntax error gives pyyaml's problem mark and text on one line."""
        with pytest.raises(ScenarioError) as info:
            load_yaml_text("a: 1\nb: c: d\n", "s.yaml")
        [problem] = info.value.problems
        assert (problem.file, problem.line, problem.col, problem.path) == ("s.yaml", 2, 5, "")
        assert problem.message.startswith("invalid YAML: mapping values are not allowed")
        assert "\n" not in problem.message
        assert isinstance(info.value.__cause__, yaml.YAMLError)

    def test_unclosed_quote_mentions_where_it_started(self) -> None:
        """The error's context and its position are folded into the one line."""
        problem = only_problem("a: 'open\n")
        assert (problem.line, problem.col) == (2, 1)
        assert problem.message == (
            "invalid YAML: found unexpected end of stream (while scanning a quoted scalar at 1:4)"
        )

    def test_bad_indentation(self) -> None:
        """A mis-indented line is reported at the offending token."""
        problem = only_problem("a:\n  b: 1\n c: 2\n")
        assert (problem.line, problem.col) == (3, 2)
        assert problem.message.startswith("invalid YAML: ")

    def test_more_than_one_document(self) -> None:
        """A second document is refused where it starts."""
        assert only_problem("a: 1\n---\nb: 2\n") == Problem(
            "s.yaml", 2, 1, "", "more than one YAML document (a file holds one)"
        )


class TestTags:
    def test_python_object_tag_is_refused_and_never_run(self, tmp_path: pathlib.Path) -> None:
        """The classic os.system payload is reported and the command never runs."""
        target = tmp_path / "pwned"
        text = f'attack: !!python/object/apply:os.system ["touch {target}"]\n'
        assert only_problem(text) == Problem(
            "s.yaml",
            1,
            9,
            "attack",
            "YAML tags are not allowed (got '!!python/object/apply:os.system')",
        )
        assert not target.exists()

    @pytest.mark.parametrize(
        ("value", "shown"),
        [
            ("!!python/name:os.system ''", "!!python/name:os.system"),
            ("!foo 1", "!foo"),
            ("!!binary aGVsbG8=", "!!binary"),
            ("!!set {a, b}", "!!set"),
            ("!!omap [a: 1]", "!!omap"),
            ("!!str plain", "!!str"),
            ("!!int 3", "!!int"),
            ("! text", "!"),
            ("!<tag:example.com,2000:x> 1", "tag:example.com,2000:x"),
        ],
    )
    def test_every_explicit_tag_is_refused(self, value: str, shown: str) -> None:
        """Any written tag, even a core one, is refused at the tagged node."""
        problem = only_problem(f"name: x\nvalue: {value}\n")
        assert problem == Problem("s.yaml", 2, 8, "value", f"YAML tags are not allowed (got '{shown}')")

    def test_tag_on_a_collection_and_on_a_key(self) -> None:
        """Tags on mappings, sequences and keys are refused too, each reported."""
        text = "a: !!seq [1]\n? !!str k\n: v\nb: !!map {x: 1}\n"
        assert [(p.line, p.col, p.path) for p in problems_of(text)] == [
            (1, 4, "a"),
            (2, 3, ""),
            (4, 4, "b"),
        ]

    def test_tag_directive_cannot_smuggle_a_python_tag(self) -> None:
        """A %TAG shorthand still expands to the refused python tag."""
        text = "%TAG !p! tag:yaml.org,2002:python/\n---\nx: !p!name:os.system ''\n"
        message = only_problem(text).message
        assert message == "YAML tags are not allowed (got '!!python/name:os.system')"


class TestMappingProblems:
    def test_duplicate_key(self) -> None:
        """A repeated key is reported at its second occurrence."""
        text = "side: a\nhp: 3\nname: x\nac: 12\nname: y\n"
        assert only_problem(text) == Problem("s.yaml", 5, 1, "name", "duplicate key 'name' (first at line 3)")

    def test_duplicate_key_in_a_nested_flow_mapping(self) -> None:
        """Duplicates are found at any depth and in flow style."""
        problem = only_problem("sides:\n  - {name: a, hp: 1, name: b}\n")
        assert problem == Problem("s.yaml", 2, 22, "sides[0].name", "duplicate key 'name' (first at line 2)")

    def test_keys_equal_in_python_are_duplicates(self) -> None:
        """1 and true would collide in a dict, so the second is reported."""
        assert only_problem("true: a\n1: b\n").message == "duplicate key 1 (first at line 1 as true)"

    def test_merge_key_is_refused(self) -> None:
        """'<<' merge keys are not supported and say so at the key."""
        text = "base: &b {hp: 1}\ngoblin:\n  <<: *b\n  name: g\n"
        assert only_problem(text) == Problem("s.yaml", 3, 3, "goblin", "merge keys ('<<') are not supported")

    def test_quoted_merge_key_is_an_ordinary_key(self) -> None:
        """Only the plain '<<' is a merge key; a quoted one is just a string."""
        assert load_yaml_text("'<<': 1\n", "s.yaml").data == {"<<": 1}

    @pytest.mark.parametrize(("text", "kind"), [("? [a, b]\n: 1\n", "list"), ("{x: 1}: 2\n", "mapping")])
    def test_collection_keys_are_refused(self, text: str, kind: str) -> None:
        """A key must be a scalar; lists and mappings as keys are reported."""
        problem = only_problem(text)
        assert problem.message == f"a mapping key must be a single value, not a {kind}"
        assert (problem.line, problem.col) == (1, 1 if kind == "mapping" else 3)

    def test_all_problems_are_reported_together(self) -> None:
        """One load reports every problem it can find, in document order."""
        text = "a: !!str x\nb: 1\nb: 2\nc:\n  <<: {x: 1}\nd: *nowhere\n"
        assert [str(p) for p in problems_of(text)] == [
            "s.yaml:1:4: a: YAML tags are not allowed (got '!!str')",
            "s.yaml:3:1: b: duplicate key 'b' (first at line 2)",
            "s.yaml:5:3: c: merge keys ('<<') are not supported",
            "s.yaml:6:4: d: unknown alias '*nowhere' (no '&nowhere' before it)",
        ]

    def test_node_reached_through_aliases_is_reported_once(self) -> None:
        """A refused node repeated by aliases gives one problem, at its first path."""
        assert [str(p) for p in problems_of("a: &t !!str x\nb: *t\nc: [*t, *t]\n")] == [
            "s.yaml:1:4: a: YAML tags are not allowed (got '!!str')"
        ]

    def test_integer_too_long_for_python(self) -> None:
        """An integer Python refuses to convert is a problem, not a ValueError."""
        problem = only_problem("hp: " + "9" * 5000 + "\n")
        assert (problem.line, problem.col, problem.path) == (1, 5, "hp")
        assert problem.message == "cannot read '" + "9" * 37 + "…' as int"


LAUGHS = "".join(
    f"{name}: &{name} [{', '.join([f'*{prev}'] * 10 if prev else ['lol'] * 10)}]\n"
    for prev, name in zip([None, "a", "b", "c", "d", "e", "f", "g"], "abcdefgh", strict=True)
)


class TestAliasLimits:
    def test_billion_laughs_is_stopped_quickly(self) -> None:
        """Nested aliases that expand to 10**8 nodes stop at the node limit: where it stops
        (10**5 nodes in) shows the expansion was cut short, with no clock involved."""
        problem = only_problem(LAUGHS)
        assert problem.message == "document too large after expanding aliases"
        # Stopped inside the anchor "a" while expanding "e", 10**5 nodes in.
        assert (problem.line, problem.col) == (1, 28)
        assert problem.path == "e[7][8][8][8][4]"

    def test_limit_counts_expansion_not_file_size(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """A file bigger than the limit but without aliases still loads."""
        monkeypatch.setattr(yaml_load, "MAX_NODES", 50)
        assert load_yaml_text("[" + ", ".join(["x"] * 200) + "]\n", "s.yaml").data == ["x"] * 200
        text = "a: &a [x, x, x, x, x, x, x, x]\nb: [*a, *a, *a, *a, *a, *a, *a, *a]\n"
        assert only_problem(text).message == "document too large after expanding aliases"

    def test_recursive_alias(self) -> None:
        """An alias inside its own anchor is reported at the alias, without hanging."""
        assert only_problem("a: &a [1, *a]\n") == Problem(
            "s.yaml", 1, 11, "a[1]", "alias '*a' is used inside its own anchor (endless nesting)"
        )

    def test_recursive_alias_in_a_mapping(self) -> None:
        """Self-reference through a mapping value is caught the same way."""
        problem = only_problem("a: &a\n  b: *a\n")
        assert (problem.line, problem.col, problem.path) == (2, 6, "a.b")

    def test_undefined_alias(self) -> None:
        """An alias with no anchor before it is reported at the alias."""
        assert only_problem("a: [1, *x]\n") == Problem(
            "s.yaml", 1, 8, "a[1]", "unknown alias '*x' (no '&x' before it)"
        )

    def test_nesting_of_one_hundred_is_allowed(self) -> None:
        """A node exactly 100 levels down still loads."""
        data = load_yaml_text("[" * 101 + "]" * 101, "s.yaml").data
        for _ in range(100):
            assert isinstance(data, list)
            data = data[0]
        assert data == []

    def test_nesting_deeper_than_one_hundred(self) -> None:
        """Text nested past 100 levels is refused at the first node too deep."""
        assert only_problem("[" * 102 + "]" * 102) == Problem("s.yaml", 1, 102, "", "nesting deeper than 100")

    def test_very_deep_text_does_not_crash(self) -> None:
        """Half a million open brackets are a problem, not a RecursionError."""
        # libyaml may stop first (at 1000 levels) with its own wording.
        assert "nesting" in only_problem("[" * 500_000).message

    def test_nesting_deeper_than_one_hundred_through_aliases(self) -> None:
        """Aliases that stack nesting past 100 levels are refused too."""
        text = "a: &a " + "[" * 60 + "]" * 60 + "\nb: " + "[" * 60 + "*a" + "]" * 60 + "\n"
        problem = only_problem(text)
        assert problem.message == "nesting deeper than 100"
        assert (problem.line, problem.col) == (1, 47)
        assert problem.path == "b" + "[0]" * 100


class TestOldNumbers:
    """YAML 1.1 number spellings that YAML 1.2 (and a reader) take otherwise are refused."""

    @pytest.mark.parametrize(("text", "value"), [("010", "8"), ("-010", "-8"), ("00", "0"),
                                                 ("1:30", "90"), ("1:30.5", "90.5"),
                                                 ("0b11", "3")])
    def test_octal_base_60_and_binary_are_refused(self, text: str, value: str) -> None:
        """``max_rounds: 010`` loaded as 8 and ``1:30`` as 90 without a word: now refused,
        naming the value they were read as."""
        problem = only_problem(f"max_rounds: {text}\n")
        assert (problem.line, problem.col, problem.path) == (1, 13, "max_rounds")
        assert problem.message == (f"'{text}' is an old YAML spelling of {value} (octal, binary"
                                   f" or base 60): write {value}, or quote it")

    @pytest.mark.parametrize(("text", "value"), [("0", 0), ("10", 10), ("0.5", 0.5), ("0x10", 16),
                                                 ("1_000", 1000), ("'010'", "010"), ("10:61", "10:61")])
    def test_plain_numbers_and_quoted_text_still_load(self, text: str, value: object) -> None:
        """Decimal numbers, hexadecimal, quoted text and what is no number at all load as before."""
        assert load_yaml_text(f"x: {text}\n", "s.yaml").data == {"x": value}
