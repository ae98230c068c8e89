"""What every sim command shares: say/warn (the one terminal-safe printer), the runner the
options ask for and the progress bar."""

from __future__ import annotations

import argparse
import io
import os
import threading

import pytest

import sim.batch.weigh
from sim.batch import LogPlan, Work, default_workers, run_serial, runner_of
from sim.batch.runners import DaskRunner
from sim.cli import main
from sim.cli.common import (
    battle_progress,
    check_bestiary_dirs,
    check_execution_options,
    say,
    warn,
)
from sim.errors import InputError
from tests.builders import duel
from tests.cli.helpers import AMBUSH, PROBLEM_LINE, run


class TestSay:
    def test_controls_are_shown_as_escapes(self):
        """A message quoting user input never writes a terminal control (ESC, CSI, bidi)."""
        out = io.StringIO()
        say("name: \x1b[31mred\u202e\x9b", out)
        assert out.getvalue() == "name: \\x1b[31mred\\u202e\\x9b\n"

    def test_unencodable_character_is_escaped_not_raised(self):
        """On a stream that cannot encode a character (an ASCII terminal), it is written as an escape."""
        raw = io.BytesIO()
        out = io.TextIOWrapper(raw, encoding="ascii")
        say("caf\u00e9 ok", out)
        out.flush()
        assert raw.getvalue() == b"caf\\xe9 ok\n"

    def test_stdout_by_default_warn_on_stderr(self, capsys):
        """say writes to stdout unless given a stream; warn writes to stderr."""
        say("to out")
        warn("to err")
        assert capsys.readouterr() == ("to out\n", "to err\n")


class TestRunnerOf:
    def test_one_worker_plays_serially_with_a_window_of_two(self):
        """--workers 1 plays in this process; two chunks stay in flight at the least."""
        args = argparse.Namespace(workers=1, executor="process", scheduler=None)
        assert runner_of(args) == (run_serial, 2)

    def test_window_is_two_chunks_a_worker(self):
        """With K workers, 2K chunks are in flight; no --workers means one a core."""
        assert runner_of(argparse.Namespace(workers=3, executor="process", scheduler=None))[1] == 6
        default = runner_of(argparse.Namespace(workers=None, executor="process", scheduler=None))
        assert default[1] == max(2, 2 * default_workers())

    def test_a_short_run_plays_here_unless_workers_are_asked_for(self, monkeypatch):
        """No --workers: a batch of one chunk plays in this process, a longer one in one worker a
        core when a pool ends sooner (here one that starts at once); --workers 2 is kept."""
        default = argparse.Namespace(workers=None, executor="process", scheduler=None)
        assert runner_of(default, Work(duel(), 1, 500, 500, LogPlan())) == (run_serial, 2)
        monkeypatch.setattr(sim.batch.weigh, "POOL_START_S", 0.0)
        many = runner_of(default, Work(duel(), 1, 1000, 500, LogPlan()))
        assert (many[0] is run_serial) == (default_workers() == 1)
        two = argparse.Namespace(workers=2, executor="process", scheduler=None)
        assert runner_of(two, Work(duel(), 1, 500, 500, LogPlan()))[0] is not run_serial


class TestBattleProgress:
    def test_off_yields_a_callback_that_does_nothing(self, capsys):
        """No bar (--no-progress, --json): the callback takes (done, total) and draws nothing."""
        with battle_progress(False) as progress:
            progress(3, 10)
        assert capsys.readouterr() == ("", "")

    def test_on_starts_no_thread(self):
        """The bar is drawn as battles land (at most every REDRAW_S, and at the end), never by
        a refresh thread that would take the GIL from the battles."""
        before = set(threading.enumerate())
        with battle_progress(True, 10) as progress:
            progress(4, 10)
            assert set(threading.enumerate()) - before == set()
            progress(10, 10)

    def test_on_takes_updates_and_lets_an_interrupt_through(self):
        """The bar's callback takes (done, total); Ctrl-C inside the block still reaches the caller."""
        with pytest.raises(KeyboardInterrupt), battle_progress(True, 10) as progress:
            progress(4, 10)
            raise KeyboardInterrupt


class TestWorkerLimit:
    """--workers of a local pool or a local Dask cluster: at most WORKERS_PER_CORE a usable core."""

    @pytest.fixture(autouse=True)
    def _two_cores(self, monkeypatch: pytest.MonkeyPatch) -> None:
        monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)

        def no_cluster(runner: DaskRunner) -> None:
            # A local Dask cluster starts all its workers at once: 1,024 of them, let through by
            # a regression, would exhaust the machine's memory instead of failing this test.
            raise AssertionError(f"a local Dask cluster of {runner.workers} workers was started")

        monkeypatch.setattr(DaskRunner, "_start", no_cluster)

    @pytest.mark.parametrize("command", ["batch", "batch-dask", "resume", "compare", "tune"])
    @pytest.mark.parametrize("workers", ["1024", "17"])
    def test_more_than_the_limit_is_refused_before_anything(self, tmp_path, capsys, command, workers):
        """--workers 1024 on two cores started 1,024 worker processes (memory ran out): now
        17 or more is one line saying the limit and why, exit 2, before any folder or battle."""
        out = tmp_path / "run"
        if command == "resume":
            assert main(["batch", str(AMBUSH), "-n", "5", "--workers", "1", "--out", str(out),
                         "--no-progress"]) == 0
            before = sorted(p.name for p in out.iterdir())
        code, _, err = run(capsys, *self.argv(command, out), "--workers", workers)
        assert code == 2 and err == (f"{workers}:0:0: --workers: at most 16 here (8 a usable core,"
                                     " 2 cores): battles only compute, so more processes end no sooner,"
                                     " and each holds memory of its own\n")
        assert PROBLEM_LINE.match(err)
        assert sorted(p.name for p in out.iterdir()) == before if command == "resume" else not out.exists()

    def test_the_limit_itself_is_played(self, tmp_path, capsys):
        """--workers 16 on two cores is let through (a pool starts its workers as chunks
        need them: one chunk, one worker)."""
        code, _, _ = run(capsys, "batch", str(AMBUSH), "-n", "5", "--workers", "16", "--out",
                         str(tmp_path / "run"), "--no-progress", "--json")
        assert code == 0 and (tmp_path / "run" / "battles.parquet").is_file()

    @staticmethod
    def argv(command: str, out) -> list[str]:
        return {"batch": ["batch", str(AMBUSH), "-n", "5", "--out", str(out)],
                "batch-dask": ["batch", str(AMBUSH), "-n", "5", "--executor", "dask", "--out", str(out)],
                "resume": ["batch", "--resume", str(out)],
                "compare": ["compare", str(AMBUSH), str(AMBUSH), "-n", "5", "--report", str(out)],
                "tune": ["tune", str(AMBUSH), "--vary", "sides[goblins].members[goblin].count=1..2",
                         "--target", "party.win>=0.5", "-n", "5", "--report", str(out)]}[command]


def test_workers_with_a_scheduler_is_refused():
    """--workers sizes a local pool or cluster: with a remote --scheduler it would do nothing
    (it was accepted and ignored), so it is refused before the scheduler is even dialled."""
    args = argparse.Namespace(command="batch", executor="dask", scheduler="tcp://127.0.0.1:1",
                              workers=4)
    with pytest.raises(InputError, match=r"^4:0:0: --workers: would do nothing with --scheduler \("):
        check_execution_options(args)


class TestBestiaryFolders:
    """--bestiary and $SIM_BESTIARY name folders that exist."""

    def test_a_missing_sim_bestiary_folder_is_refused(self, tmp_path, monkeypatch):
        """A $SIM_BESTIARY folder that does not exist was passed over without a word (an entry
        it meant to give then came from the next folder): refused as --bestiary's is."""
        (tmp_path / "d20").mkdir()
        monkeypatch.setenv("SIM_BESTIARY", f"{tmp_path}::{tmp_path / 'gone'}")
        with pytest.raises(InputError) as info:
            check_bestiary_dirs([])
        assert str(info.value) == f"{tmp_path / 'gone'}:0:0: SIM_BESTIARY: not a folder"

    @pytest.mark.parametrize("option", ["--bestiary", "SIM_BESTIARY"])
    def test_a_folder_without_rules_folders_is_refused(self, tmp_path, monkeypatch, option):
        """A folder of YAML files but no d20/ (d100/...) folder, nor named after the rules,
        was searched and never read (its goblin silently lost to the repository's)."""
        (tmp_path / "x.yaml").write_text("rules: d20\ncreatures: {goblin: {hp: 99}}\n")
        monkeypatch.setenv("SIM_BESTIARY", str(tmp_path) if option == "SIM_BESTIARY" else "")
        with pytest.raises(InputError) as info:
            check_bestiary_dirs([tmp_path] if option == "--bestiary" else [])
        assert str(info.value) == (f"{tmp_path}:0:0: {option}: holds no rules folder (d20/, d100/,"
                                   " 2d10/, d10/) and is not one: put its YAML files in"
                                   " FOLDER/<rules>/")

    def test_folders_that_exist_and_empty_entries_pass(self, tmp_path, monkeypatch):
        """Empty entries of the list (as in PATH) name no folder; a rules folder itself is one."""
        (tmp_path / "lib" / "d100").mkdir(parents=True)
        (tmp_path / "d20").mkdir()
        monkeypatch.setenv("SIM_BESTIARY", f":{tmp_path / 'lib'}:")
        check_bestiary_dirs([tmp_path / "d20"])


def test_sim_serve_leaves_sim_bestiary_unchecked(tmp_path, monkeypatch) -> None:
    """sim serve does not read $SIM_BESTIARY (env=False): a bad one must not stop it, while
    the commands that read it refuse it, naming it."""
    monkeypatch.setenv("SIM_BESTIARY", str(tmp_path / "none"))
    check_bestiary_dirs([], env=False)
    with pytest.raises(InputError, match=r"none:0:0: SIM_BESTIARY: not a folder"):
        check_bestiary_dirs([])
