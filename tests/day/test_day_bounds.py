"""A whole day's work is bounded, and a logged battle or day is written as it goes, never held
whole (issue 30: a 50-step day held 5.6 GB of events and ended in a MemoryError)."""

from __future__ import annotations

import pathlib

import pytest

from sim import cli
from sim.day.file import load_input
from sim.day.play import run_any
from sim.events import StreamedLog, to_jsonl_bytes
from sim.scenario.limits import MAX_DAY_TURNS
from tests.day_files import SMALL_DAY, WARREN

FIGHT = ("  - encounter: {name: f, max_rounds: 1000, sides: [{name: g, members: [{name: g, hp: 3,"
         " weapons: [{name: c, damage: 1d4}], count: 99}]}]}\n")
DAY = SMALL_DAY


@pytest.fixture
def held(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many events a streamed log holds after each one is added."""
    counts: list[int] = []
    append = StreamedLog.append

    def counting(self: StreamedLog, event: dict) -> None:
        append(self, event)
        counts.append(len(self))

    monkeypatch.setattr(StreamedLog, "append", counting)
    return counts


def validate(capsys: pytest.CaptureFixture[str], path: pathlib.Path) -> tuple[int, str]:
    code = cli.main(["validate", str(path)])
    out, err = capsys.readouterr()
    return code, out + err


def test_a_day_longer_than_two_battles_at_their_bound_is_refused(tmp_path: pathlib.Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """Each fight is at a battle's bound (100 combatants x 1,000 rounds); two are a day's most."""
    day = tmp_path / "day.yaml"
    day.write_text(DAY + FIGHT * 2)
    assert validate(capsys, day)[0] == 0
    day.write_text(DAY + FIGHT * 3)
    code, told = validate(capsys, day)
    assert code == 2 and MAX_DAY_TURNS == 200_000
    assert told == (f"{day}:8:3: steps: its 3 fights may take 300,000 turns in all (each fight's max_rounds"
                    " times its combatants); a whole day may take at most 200,000: lower the fights'"
                    " max_rounds, or split the day in two\n")


@pytest.mark.parametrize("target", ["file", "-"])
def test_run_log_is_written_as_it_goes(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str],
                                       held: list[int], target: str) -> None:
    """The log holds one event at a time, and is the same bytes as the whole log held."""
    path = tmp_path / "day.jsonl"
    code = cli.main(["run", str(WARREN), "--seed", "3", "--log", str(path) if target == "file" else "-"])
    out = capsys.readouterr().out
    whole = to_jsonl_bytes(run_any(load_input(WARREN), 3, log=True)[1])
    assert code == 0 and len(held) > 100 and max(held) == 1
    assert (path.read_bytes() if target == "file" else out.encode("utf-8")) == whole
    assert [p.name for p in tmp_path.iterdir()] == (["day.jsonl"] if target == "file" else [])


def test_run_log_and_narration(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "day.jsonl"
    assert cli.main(["run", str(WARREN), "--seed", "3", "--log", str(path), "--narrate"]) == 0
    narrated = capsys.readouterr().out
    assert cli.main(["run", str(WARREN), "--seed", "3"]) == 0
    assert capsys.readouterr().out == narrated and narrated.count("\n") > 50


def test_a_report_embeds_a_capped_sample(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A report embedded the picked days whole (375 MB of HTML for three long steps): each is cut
    at MAX_EMBEDDED_EVENTS, and the viewer says how many events it left out and where they are."""
    import json
    import re

    from sim.report import viewer as viewer_module
    from sim.report import write_report
    from tests.batch.helpers import batch

    batch(tmp_path, "run", str(WARREN), "-n", "6", "--seed", "2", "--workers", "1")
    monkeypatch.setattr(viewer_module, "MAX_EMBEDDED_EVENTS", 40)
    page = write_report(tmp_path / "run").read_text(encoding="utf-8")
    embedded = re.findall(r'<script type="application/json" id="battle-\w+"[^>]*>(.*?)</script>', page)
    assert len(embedded) == 3 and all(len(json.loads(events)) == 40 for events in embedded)
    told = re.findall(r"its first 40 of ([\d,]+) events are shown \(sim replay \S+ --battle \d+ shows"
                      r" them all\)", page)
    assert len(told) == 3 and all(int(n.replace(",", "")) > 40 for n in told)
    assert "unfinished" not in page  # how each day ended is still told


def test_batch_logs_are_rendered_as_they_come(tmp_path: pathlib.Path, held: list[int]) -> None:
    """A logged day of a batch was held as dicts, then rendered: each event is a line at once."""
    from sim.replay.load import regenerate
    from tests.batch.helpers import batch

    batch(tmp_path, "run", str(WARREN), "-n", "3", "--seed", "5", "--workers", "1", "--logs", "all")
    assert len(held) > 100 and max(held) == 1
    lines = b"".join(p.read_bytes() for p in sorted((tmp_path / "run" / "logs").glob("*.jsonl")))
    assert lines == b"".join(to_jsonl_bytes(regenerate(tmp_path / "run", i)) for i in range(3))
