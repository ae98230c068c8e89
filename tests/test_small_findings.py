"""The smaller findings of issue 30, section 6: each refused, shown or told as a GM expects."""

from __future__ import annotations

import os
import pathlib
import signal
import subprocess
import sys
import time

import pytest
import yaml

from sim import cli
from sim.day.file import load_input
from sim.day.play import run_any
from sim.replay.ui import ReplayApp
from tests.batch.helpers import journal_records
from tests.day_files import SMALL_DAY, WARREN

ROOT = pathlib.Path(__file__).parent.parent
AMBUSH = ROOT / "scenarios" / "road_ambush.yaml"
DUEL = pathlib.Path(__file__).parent / "data" / "duel" / "duel.yaml"
SEPARATED = "sides[0].members[0].name=A\u2028B\u2029C"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_compare_vary_over_a_member_s_name_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    """Renaming a member plays the same battles: a table of exact zeros, as the top-level name."""
    code, out, err = run(capsys, "compare", str(AMBUSH), "--vary",
                         "sides[heroes].members[Aria].name=Aria,Bea",
                         "-n", "50", "--workers", "1", "--no-progress")
    assert code == 2 and out == ""
    assert err.startswith("sim compare: --vary: sides[heroes].members[Aria].name=Bea fights the same battles")
    code, _, _ = run(capsys, "compare", str(AMBUSH), "--vary", "sides[heroes].members[Aria].hp=20,24",
                     "-n", "50", "--workers", "1", "--no-progress", "--json")
    assert code == 0


def test_line_separators_in_show_narration_and_log(tmp_path: pathlib.Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """U+2028/9 made sim show write YAML that does not load, and were printed raw."""
    code, shown, _ = run(capsys, "show", str(DUEL), "--set", SEPARATED)
    assert code == 0 and "\u2028" not in shown and "\u2029" not in shown
    written = tmp_path / "shown.yaml"
    written.write_text(shown, encoding="utf-8")
    assert yaml.safe_load(shown)["sides"][0]["members"][0]["name"] == "A\u2028B\u2029C"
    assert run(capsys, "validate", str(written))[0] == 0
    code, narrated, _ = run(capsys, "run", str(DUEL), "--set", SEPARATED)
    assert code == 0 and "A\\u2028B\\u2029C" in narrated and "\u2028" not in narrated
    code, logged, _ = run(capsys, "run", str(DUEL), "--set", SEPARATED, "--log", "-")
    assert code == 0 and "A\\u2028B\\u2029C" in logged and "\u2028" not in logged


def test_day_replay_header_names_the_day_and_the_fight_s_rounds() -> None:
    """The terminal replay of a day showed "? · d20 · round 3/0"."""
    events = run_any(load_input(WARREN), 3, log=True)[1]
    app = ReplayApp(events)
    k = next(i for i, e in enumerate(events) if e["round"] == 3)
    app.battle.goto(k)
    line = app.header_line()
    ended = next(e for e in events[k:] if e["event"] == "encounter_ended")
    assert line.startswith(f"{events[0]['day']} · d20 · seed 3 · round 3/{ended['rounds']} · ")


def test_symlink_loop_is_told_as_one(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A symlink loop was "no such file" (an encounter) or a RuntimeError (--log)."""
    loop = tmp_path / "loop.yaml"
    loop.symlink_to(loop)
    day = tmp_path / "day.yaml"
    day.write_text(SMALL_DAY + "  - encounter: loop.yaml\n")
    code, _, err = run(capsys, "validate", str(day))
    assert code == 2 and "(looked at" in err and "Too many levels of symbolic links" in err
    assert "no such file" not in err
    code, _, err = run(capsys, "run", str(DUEL), "--log", str(loop))
    assert code == 2 and err == f"{loop}:0:0: --log: cannot follow it (Too many levels of symbolic links)\n"


@pytest.mark.parametrize("name", [" Opposition ", "OPPOSITION"])
def test_a_party_named_as_the_opposition_is_refused(tmp_path: pathlib.Path, name: str,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    day = tmp_path / "day.yaml"
    day.write_text(SMALL_DAY.replace("name: heroes", f'name: "{name}"') + f"  - encounter: {AMBUSH}\n")
    code, _, err = run(capsys, "validate", str(day))
    assert code == 2 and "party.name: 'opposition' is the name a day's results give" in err


def test_no_leaked_semaphore_warning_after_kill_9(tmp_path: pathlib.Path) -> None:
    """kill -9 of a batch with a worker pool: the resource tracker cleaned up the pool's
    semaphores and warned of "leaked semaphore objects" on the terminal."""
    run_dir = tmp_path / "run"
    batch = subprocess.Popen([sys.executable, "-m", "sim", "batch", str(AMBUSH), "-n", "100000", "--workers",
                              "2", "--chunk", "50", "--out", str(run_dir), "--no-progress"], cwd=ROOT,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 120
        while not (run_dir / "parts.journal").exists() or len(journal_records(run_dir)) < 2:
            assert time.monotonic() < deadline and batch.poll() is None
            time.sleep(0.05)
    finally:
        os.kill(batch.pid, signal.SIGKILL)
    batch.wait()
    time.sleep(2)  # the tracker notices its pipe closed, cleans up (and warned) then
    assert batch.stderr is not None
    assert b"leaked" not in batch.stderr.read()


def test_out_of_memory_is_one_line(capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """sim report on a run too big for the machine died of MemoryError: a traceback, exit 1."""
    def exhausted(*args: object, **kwargs: object) -> None:
        raise MemoryError

    monkeypatch.setattr("sim.cli.play.run_any", exhausted)
    code, _, err = run(capsys, "run", str(DUEL))
    assert code == 2 and "Traceback" not in err and err.startswith("sim: out of memory: ")
    assert err.count("\n") == 1
