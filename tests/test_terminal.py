"""Terminal-safe output: names from a scenario or a log are data, never markup or control codes."""

from __future__ import annotations

import asyncio
import json
import pathlib
import re

import pytest
import yaml
from textual.widgets import Static

from sim.cli import main
from sim.errors import Problem
from sim.replay.ui import ReplayApp
from sim.terminal import clean, markup, quoted_text, safe

HOSTILE = pathlib.Path(__file__).parent / "data" / "hostile"
# A log written by someone else (a real duel, names replaced by hand): markup for rich and
# textual, ESC/OSC/CSI and the one-byte C1 CSI, bidi overrides, CR, tab, DEL, an emoji code.
LOG = HOSTILE / "names.jsonl"
# The same kinds of names in a scenario (validation refuses C0 controls in names, not these).
SCENARIO = HOSTILE / "names.yaml"

# Everything a terminal acts on: C0 but newline, DEL, C1, bidi controls, lone surrogates.
UNSAFE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
                    "\ud800-\udfff]")
MARKUP = "[bold]x[/bold]"


def assert_inert(text: str) -> None:
    """No character a terminal acts on; markup shown as typed."""
    assert not UNSAFE.search(text), UNSAFE.findall(text)
    assert MARKUP in text


class TestSafe:
    """safe() and friends: the one place that decides what reaches a terminal."""

    def test_controls_become_visible_escapes(self) -> None:
        """ESC, BEL, CR, tab, DEL, C1 (U+009B), bidi controls and surrogates are spelled out."""
        text = "a\x1b[31mb\x07\r\t\x7f\u009b2J\u202e\u2066\u200f\udcff"
        assert safe(text) == "a\\x1b[31mb\\x07\\x0d\\x09\\x7f\\x9b2J\\u202e\\u2066\\u200f\\udcff"

    def test_newline_kept_only_where_meant(self) -> None:
        """A message keeps its lines; a name (newlines=False) stays on one line."""
        assert safe("one\ntwo") == "one\ntwo"
        assert safe("one\ntwo", newlines=False) == "one\\x0atwo"

    def test_plain_text_unchanged(self) -> None:
        """Letters, accents, emoji and box drawing pass as they are."""
        assert safe("Élodie 🐉 ██░░ -> ok") == "Élodie 🐉 ██░░ -> ok"

    def test_markup_is_escaped_for_rich(self) -> None:
        """markup() lets rich print brackets as typed."""
        from rich.text import Text

        assert Text.from_markup(markup(f"{MARKUP} [/bold]")).plain == f"{MARKUP} [/bold]"

    def test_clean_reaches_keys_and_nested_values(self) -> None:
        """clean() makes every string of an event or a summary safe, dict keys included."""
        value = {"\u202ename": ["\x1bx", {"k": "\u009b"}], "n": 3}
        assert clean(value) == {"\\u202ename": ["\\x1bx", {"k": "\\x9b"}], "n": 3}

    def test_clean_survives_deep_nesting(self) -> None:
        """A hand-written event nested deeper than the recursion limit is cleaned, not a crash."""
        deep: list = ["\x1b"]
        for _ in range(5000):
            deep = [deep]
        copy = clean({"event": "died", "extra": deep})["extra"]
        for _ in range(5000):
            copy = copy[0]
        assert copy == ["\\x1b"]

    def test_quoted_text_is_the_same_json(self) -> None:
        """quoted_text() writes C1, DEL and bidi as \\u escapes: the same value, ASCII on screen."""
        data = {"name": "\u009b31m\u202e\x7f é"}
        text = quoted_text(json.dumps(data, ensure_ascii=False))
        assert not UNSAFE.search(text) and json.loads(text) == data

    def test_problem_line_is_safe(self) -> None:
        """An input problem quoting a hostile value prints it as data, on one line."""
        line = str(Problem("f\x1b.yaml", 1, 2, "sides[\u202e]", "got '\x9b2J'\nnext"))
        assert line == "f\\x1b.yaml:1:2: sides[\\u202e]: got '\\x9b2J'\\x0anext"


class TestHostileLog:
    """A log written by someone else cannot drive the terminal, whatever command shows it."""

    def test_narration(self, capsys: pytest.CaptureFixture[str]) -> None:
        """`sim replay LOG` prints the names escaped, markup as typed."""
        assert main(["replay", str(LOG), "--no-interactive"]) == 0
        out = capsys.readouterr().out
        assert_inert(out)
        assert "\\x1b[2J\\x1b]0;pwned\\x07Beast\\x9b31m \\u202eevil" in out
        assert "== \\x1b]0;pwned\\x07Duel \\x9b2J [bold]x[/bold] (d20, seed 3) ==" in out

    def test_log_to_stdout(self, capsys: pytest.CaptureFixture[str]) -> None:
        """`--log -` prints the same events, with C1 and bidi controls as JSON escapes."""
        assert main(["replay", str(LOG), "--log", "-"]) == 0
        out = capsys.readouterr().out
        assert_inert(out)
        written = [json.loads(line) for line in LOG.read_text(encoding="utf-8").splitlines()]
        assert [json.loads(line) for line in out.splitlines()] == written

    def test_textual_replay(self) -> None:
        """The textual replay shows names as data: border titles, combatants, header, event."""
        from sim.replay.load import read_log

        app = ReplayApp(read_log(LOG))
        shown: list[str] = []

        async def session() -> None:
            async with app.run_test(size=(160, 32)) as pilot:
                for _ in range(12):
                    shown.extend(str(s.render()) for s in app.query(Static))
                    shown.extend(str(c.border_title) for c in app.query(".side"))
                    await pilot.press("right")

        asyncio.run(session())
        text = "\n".join(shown)
        assert_inert(text)
        assert "[$accent]side[/]" in text and "[@click=app.quit]q[/]" in text
        assert ":skull:" in text


class TestHostileScenario:
    """Names in a scenario are data in the narration, the tables and the error messages."""

    def test_run_narration(self, capsys: pytest.CaptureFixture[str]) -> None:
        """`sim run` narrates hostile names literally and escaped."""
        assert main(["run", str(SCENARIO)]) == 0
        out = capsys.readouterr().out
        assert_inert(out)
        assert "[link=http://evil.example]heroes[/link]" in out and "Red \\x9b2J [/bold]" in out

    def test_batch_tables(self, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
        """`sim batch` prints the tables with names as typed: no markup, no emoji, no codes."""
        code = main(["batch", str(SCENARIO), "-n", "20", "--workers", "1", "--no-progress",
                     "--out", str(tmp_path / "run")])
        assert code == 0
        out = capsys.readouterr().out
        assert_inert(out.replace("\n", ""))  # rich may wrap a long name over two lines
        assert ":skull:" in out and "💀" not in out
        assert "\\u2066bidi\\u2069" in out

    def test_batch_json(self, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
        """`sim batch --json` prints the names with JSON escapes: the same summary."""
        main(["batch", str(SCENARIO), "-n", "5", "--workers", "1", "--no-progress", "--json",
              "--out", str(tmp_path / "run")])
        out = capsys.readouterr().out
        assert not UNSAFE.search(out)
        assert "Red \u009b2J [/bold]" in json.loads(out)["combatants"]

    def test_problem_lines(self, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
        """A refused scenario quotes its hostile values escaped on stderr."""
        path = tmp_path / "bad\u202e.yaml"
        text = SCENARIO.read_text(encoding="utf-8")
        path.write_text(text.replace("rules: d20", 'rules: d20\n"\\e[2Jkey\\u009b": 1'),
                        encoding="utf-8")
        assert main(["validate", str(path)]) == 2
        err = capsys.readouterr().err
        assert not UNSAFE.search(err)
        assert "bad\\u202e.yaml" in err

    def test_usage_errors(self, capsys: pytest.CaptureFixture[str]) -> None:
        """argparse echoes a refused argument escaped."""
        with pytest.raises(SystemExit) as exit_info:
            main(["run", "x.yaml", "--\x1b[2J\u009b\u202e"])
        assert exit_info.value.code == 2
        err = capsys.readouterr().err
        assert not UNSAFE.search(err) and "--\\x1b[2J\\x9b\\u202e" in err

    def test_compare_tables(self, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
        """`sim compare` prints variant and combatant names as typed, escaped."""
        other = tmp_path / "evil\u202e[bold]v.yaml"
        other.write_text(SCENARIO.read_text(encoding="utf-8"), encoding="utf-8")
        code = main(["compare", str(SCENARIO), str(other), "-n", "20", "--workers", "1",
                     "--no-progress"])
        assert code == 0
        out = capsys.readouterr().out.replace("\n", "")
        assert not UNSAFE.search(out) and "💀" not in out

    def test_show_yaml(self, capsys: pytest.CaptureFixture[str]) -> None:
        """`sim show` writes hostile names as YAML escapes: the same values, nothing raw."""
        assert main(["show", str(SCENARIO)]) == 0
        out = capsys.readouterr().out
        assert not UNSAFE.search(out)
        shown = yaml.safe_load(out)
        assert shown["name"] == "Evil [bold]x[/bold] \u202eevil \u009b31m"
        assert shown["sides"][1]["name"] == "\u2066bidi\u2069 \u200e"

    def test_bestiary_listing(self, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
        """`sim bestiary` lists and shows a hostile entry escaped."""
        folder = tmp_path / "d20"
        folder.mkdir()
        (folder / "evil.yaml").write_text(
            'rules: d20\ncreatures:\n  "imp \\u202e[bold]x[/bold]":\n'
            '    {hp: 3, weapons: [{name: "claw \\u009b2J", damage: 1d4}]}\n', encoding="utf-8")
        assert main(["bestiary", "d20", "--bestiary", str(tmp_path)]) == 0
        listed = capsys.readouterr().out
        assert not UNSAFE.search(listed) and "imp \\u202e[bold]x[/bold]" in listed
        assert main(["bestiary", "d20", "imp \u202e[bold]x[/bold]", "--bestiary", str(tmp_path)]) == 0
        shown = capsys.readouterr().out
        assert not UNSAFE.search(shown)
        entry = yaml.safe_load(shown)["imp \u202e[bold]x[/bold]"]
        assert entry["weapons"][0]["name"] == "claw \u009b2J"
