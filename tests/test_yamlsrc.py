"""Tests for sim.yamlsrc: safe YAML loading with line:col marks for every node."""

from __future__ import annotations

import os
import pathlib
import time

import pytest
import yaml

from sim import yamlsrc
from sim.errors import Problem, ScenarioError
from sim.yamlsrc import Mark, Source, format_path, load_yaml, load_yaml_text, shorten

NESTED = """\
name: Skirmish
sides:
  - name: heroes
    members:
      - name: Ana
        weapons:
          - {name: sword, damage: 1d8+2}
  - name: goblins
    members: []
"""


def problems_of(text: str | bytes, display: str = "s.yaml") -> list[Problem]:
    """The problems that loading ``text`` reports (fails if it loads)."""
    with pytest.raises(ScenarioError) as info:
        load_yaml_text(text, display)
    return info.value.problems


def only_problem(text: str | bytes, display: str = "s.yaml") -> Problem:
    """The single problem that loading ``text`` reports."""
    found = problems_of(text, display)
    assert len(found) == 1, found
    return found[0]


class TestLoadData:
    def test_nested_document_data(self) -> None:
        """A nested document loads into plain dicts, lists and scalars."""
        source = load_yaml_text(NESTED, "s.yaml")
        assert source.file == "s.yaml"
        assert source.data == {
            "name": "Skirmish",
            "sides": [
                {
                    "name": "heroes",
                    "members": [{"name": "Ana", "weapons": [{"name": "sword", "damage": "1d8+2"}]}],
                },
                {"name": "goblins", "members": []},
            ],
        }

    def test_marks_of_nested_values(self) -> None:
        """Value marks are the 1-based line:col where each value node starts."""
        marks = load_yaml_text(NESTED, "s.yaml").marks
        assert marks[()] == Mark(1, 1)
        assert marks[("sides", 0, "members", 0, "weapons", 0)] == Mark(7, 13)
        assert marks[("sides", 0, "members", 0, "weapons", 0, "damage")] == Mark(7, 35)
        assert marks[("sides", 1, "members")] == Mark(9, 14)

    def test_marks_of_keys(self) -> None:
        """Key marks point at the key token, not at its value."""
        source = load_yaml_text(NESTED, "s.yaml")
        damage = ("sides", 0, "members", 0, "weapons", 0, "damage")
        assert source.key_marks[damage] == Mark(7, 27)
        assert source.key_marks[("sides", 1, "name")] == Mark(8, 5)
        assert ("sides", 0) not in source.key_marks

    def test_core_scalars_follow_the_safe_loader(self) -> None:
        """Scalars resolve as YAML 1.1 in the SafeLoader; quoted ones stay strings."""
        text = "a: yes\nb: 0x1f\nc: .inf\nd: ~\ne: '12'\nf: 1_000\ng: off\nh:\ni: 1.5\n"
        data = load_yaml_text(text, "s.yaml").data
        assert data == {
            "a": True,
            "b": 31,
            "c": float("inf"),
            "d": None,
            "e": "12",
            "f": 1000,
            "g": False,
            "h": None,
            "i": 1.5,
        }

    def test_timestamps_and_special_plain_scalars_stay_text(self) -> None:
        """Dates, '=' and '<<' as values are kept exactly as written."""
        text = "d: 2024-01-01\nt: 2001-12-14 21:59:43.10 -5\ne: =\nm: <<\n"
        data = load_yaml_text(text, "s.yaml").data
        assert data == {"d": "2024-01-01", "t": "2001-12-14 21:59:43.10 -5", "e": "=", "m": "<<"}

    def test_non_string_scalar_keys_keep_their_value(self) -> None:
        """Int, bool and null keys load as Python values, with marks under that key."""
        source = load_yaml_text("2: two\ntrue: yes\n~: nothing\n", "s.yaml")
        assert source.data == {2: "two", True: True, None: "nothing"}
        assert source.key_marks[(None,)] == Mark(3, 1)  # type: ignore[index]

    def test_aliases_are_expanded_with_marks_at_the_anchor(self) -> None:
        """An alias repeats the anchored data; its inner marks point into the anchor."""
        source = load_yaml_text("a: &x\n  b: [1, 2]\nc: *x\n", "s.yaml")
        assert source.data == {"a": {"b": [1, 2]}, "c": {"b": [1, 2]}}
        assert source.marks[("c", "b", 1)] == Mark(2, 10)
        assert source.key_marks[("c",)] == Mark(3, 1)

    def test_anchor_may_be_redefined(self) -> None:
        """A later anchor with the same name wins for the aliases after it (YAML 1.2)."""
        data = load_yaml_text("a: &x 1\nb: *x\nc: &x 2\nd: *x\n", "s.yaml").data
        assert data == {"a": 1, "b": 1, "c": 2, "d": 2}

    def test_utf8_bom_is_accepted_and_not_counted(self) -> None:
        """A leading UTF-8 BOM is skipped, in bytes and in text, and columns ignore it."""
        for text in (b"\xef\xbb\xbfname: x\n", "\ufeffname: x\n"):
            source = load_yaml_text(text, "s.yaml")
            assert source.data == {"name": "x"}
            assert source.marks[("name",)] == Mark(1, 7)

    def test_columns_count_characters_not_bytes(self) -> None:
        """Non-ASCII text before a value shifts its column by characters."""
        source = load_yaml_text("é€: ok\n".encode(), "s.yaml")
        assert source.marks[("é€",)] == Mark(1, 5)

    def test_crlf_line_ends(self) -> None:
        """Windows line ends count as one line break each."""
        source = load_yaml_text(b"a: 1\r\nb:\r\n  - x\r\n", "s.yaml")
        assert source.data == {"a": 1, "b": ["x"]}
        assert source.marks[("b", 0)] == Mark(3, 5)

    def test_load_yaml_reads_a_file(self, tmp_path: pathlib.Path) -> None:
        """load_yaml names the file by its path unless a display name is given."""
        path = tmp_path / "s.yaml"
        path.write_text("hp: 7\n", encoding="utf-8")
        assert load_yaml(path) == load_yaml_text("hp: 7\n", str(path))
        assert load_yaml(path, display="scenarios/s.yaml").file == "scenarios/s.yaml"

    def test_pure_python_parser_gives_the_same_result(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Without libyaml, pyyaml's own parser yields the same data and marks."""
        fast = load_yaml_text(NESTED, "s.yaml")
        monkeypatch.setattr(yamlsrc, "_PARSER", yaml.SafeLoader)
        assert load_yaml_text(NESTED, "s.yaml") == fast
        assert only_problem("a: !!str x\n").message == "YAML tags are not allowed (got '!!str')"


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
        assert format_path(("x", None, True)) == "x[None][True]"  # type: ignore[arg-type]


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

    def test_non_strings_use_repr(self) -> None:
        """Other values show as their repr, cut the same way when long."""
        assert shorten(12) == "12"
        assert shorten(None) == "None"
        assert shorten(list(range(100)), limit=10) == "[0, 1, 2,…"


class TestReadFailures:
    def test_missing_file(self, tmp_path: pathlib.Path) -> None:
        """A missing file is one whole-file problem, named as the caller asked."""
        with pytest.raises(ScenarioError) as info:
            load_yaml(tmp_path / "nope.yaml", display="nope.yaml")
        assert info.value.problems == [
            Problem("nope.yaml", 0, 0, "", "cannot read file: No such file or directory")
        ]
        assert isinstance(info.value.__cause__, FileNotFoundError)

    def test_directory(self, tmp_path: pathlib.Path) -> None:
        """A directory cannot be read as a file."""
        with pytest.raises(ScenarioError) as info:
            load_yaml(tmp_path, display="dir")
        assert info.value.problems == [
            Problem("dir", 0, 0, "", "cannot read file: a directory, not a regular file")
        ]

    def test_fifo_without_writer_is_refused_at_once(self, tmp_path: pathlib.Path) -> None:
        """A FIFO nobody writes to is refused, not waited on (a blocking open would hang)."""
        fifo = tmp_path / "pipe.yaml"
        os.mkfifo(fifo)
        with pytest.raises(ScenarioError) as info:
            load_yaml(fifo, display="pipe.yaml")
        assert str(info.value) == (
            "pipe.yaml:0:0: (document): cannot read file: a FIFO (named pipe), not a regular file"
        )

    def test_character_device_is_refused(self) -> None:
        """/dev/zero would be read forever: a device is refused before any byte is read."""
        with pytest.raises(ScenarioError) as info:
            load_yaml(pathlib.Path(os.devnull), display="null")
        assert str(info.value) == (
            "null:0:0: (document): cannot read file: a character device, not a regular file"
        )

    def test_unreadable_file(self, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
        """A permission error is reported like any other read failure."""
        path = tmp_path / "secret.yaml"
        path.write_text("a: 1\n", encoding="utf-8")

        def refuse(*args: object, **kwargs: object) -> None:
            raise PermissionError(13, "Permission denied")

        # Simulated: the tests may run as root, who can read anything.
        monkeypatch.setattr(os, "open", refuse)
        with pytest.raises(ScenarioError) as info:
            load_yaml(path, display="secret.yaml")
        assert str(info.value) == "secret.yaml:0:0: (document): cannot read file: Permission denied"

    def test_file_larger_than_one_mib(self, tmp_path: pathlib.Path) -> None:
        """A file over 1 MiB is refused before parsing."""
        path = tmp_path / "big.yaml"
        path.write_bytes(b"a: " + b"x" * (1024 * 1024))
        with pytest.raises(ScenarioError) as info:
            load_yaml(path, display="big.yaml")
        assert info.value.problems == [Problem("big.yaml", 0, 0, "", "file is larger than 1 MiB")]

    def test_text_of_exactly_one_mib_is_accepted(self) -> None:
        """The limit is inclusive: 1 MiB exactly still loads."""
        text = "a: " + "x" * (1024 * 1024 - 4) + "\n"
        assert len(text.encode()) == 1024 * 1024
        assert load_yaml_text(text, "s.yaml").data == {"a": "x" * (1024 * 1024 - 4)}
        assert only_problem(text + "#").message == "file is larger than 1 MiB"

    def test_invalid_utf8_is_located(self) -> None:
        """The first bad byte is reported at its line and character column."""
        problem = only_problem(b"a: 1\nb: caf\xc3\xa9 \xff\n")
        assert problem == Problem("s.yaml", 2, 9, "", "not valid UTF-8 (byte 0xff)")

    def test_text_size_is_measured_in_utf8_bytes(self) -> None:
        """A str is measured as the UTF-8 file it stands for, not in characters."""
        text = "a: " + "é" * (1024 * 1024 // 2) + "\n"
        assert len(text) < 1024 * 1024
        assert only_problem(text).message == "file is larger than 1 MiB"

    def test_bom_is_not_counted_in_the_size(self) -> None:
        """Bytes over 1 MiB are refused even when a BOM would bring the text under it."""
        raw = b"\xef\xbb\xbf" + b"a" * (1024 * 1024 - 2)
        assert only_problem(raw).message == "file is larger than 1 MiB"

    @pytest.mark.skipif(not pathlib.Path("/dev/zero").exists(), reason="needs /dev/zero")
    def test_endless_stream_is_not_read_at_all(self) -> None:
        """An endless device is refused before a byte is read, so it cannot hang the load."""
        with pytest.raises(ScenarioError) as info:
            load_yaml(pathlib.Path("/dev/zero"), display="zero")
        assert str(info.value) == (
            "zero:0:0: (document): cannot read file: a character device, not a regular file"
        )

    def test_invalid_utf8_after_a_bom(self) -> None:
        """Columns of a bad byte on the first line do not count the BOM."""
        assert only_problem(b"\xef\xbb\xbfa: \xfe\n") == Problem(
            "s.yaml", 1, 4, "", "not valid UTF-8 (byte 0xfe)"
        )

    def test_disallowed_character_is_located(self) -> None:
        """Control characters are refused at their line:col, not a byte offset."""
        problem = only_problem("a: 1\nb: é\x07\n")
        assert problem == Problem("s.yaml", 2, 5, "", "character '\\x07' (U+0007) is not allowed in YAML")

    def test_disallowed_character_after_a_bom(self) -> None:
        """A BOM in str input is not counted in the column of a bad character."""
        problem = only_problem("\ufeffa: \x07\n")
        assert (problem.line, problem.col) == (1, 4)

    def test_lone_surrogate_in_text(self) -> None:
        """A str holding a lone surrogate is reported, not a UnicodeEncodeError."""
        problem = only_problem("a: \udc80\n")
        assert (problem.line, problem.col) == (1, 4)
        assert problem.message == "character '\\udc80' (U+DC80) is not allowed in YAML"

    @pytest.mark.parametrize(
        "text",
        ["", b"", "   \n\n\t\n", "# only a comment\n  # and another\n", "---\n", "--- # x\n...\n"],
    )
    def test_empty_file(self, text: str | bytes) -> None:
        """Files with no content at all are reported as empty."""
        assert only_problem(text) == Problem("s.yaml", 0, 0, "", "file is empty")

    def test_explicit_empty_string_is_not_empty(self) -> None:
        """A document that is an empty quoted string does have content."""
        assert load_yaml_text("''\n", "s.yaml").data == ""


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
        assert only_problem("true: a\n1: b\n").message == "duplicate key 1 (first at line 1 as True)"

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
        """Nested aliases that expand to 10**8 nodes stop at the node limit."""
        started = time.monotonic()
        problem = only_problem(LAUGHS)
        assert time.monotonic() - started < 20
        assert problem.message == "document too large after expanding aliases"
        # Stopped inside the anchor "a" while expanding "e", 10**5 nodes in.
        assert (problem.line, problem.col) == (1, 28)
        assert problem.path == "e[7][8][8][8][4]"

    def test_limit_counts_expansion_not_file_size(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """A file bigger than the limit but without aliases still loads."""
        monkeypatch.setattr(yamlsrc, "MAX_NODES", 50)
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
