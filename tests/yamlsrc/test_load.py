"""Tests for sim.yamlsrc.load: reading a file or text into a Source, and what is refused before parsing."""

from __future__ import annotations

import os
import pathlib

import pytest
import yaml

from sim.errors import Problem, ScenarioError
from sim.yamlsrc import Mark, load_yaml, load_yaml_text
from sim.yamlsrc import compose as yaml_compose
from tests.yamlsrc.helpers import NESTED, only_problem


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
        monkeypatch.setattr(yaml_compose, "_PARSER", yaml.SafeLoader)
        assert load_yaml_text(NESTED, "s.yaml") == fast
        assert only_problem("a: !!str x\n").message == "YAML tags are not allowed (got '!!str')"


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
