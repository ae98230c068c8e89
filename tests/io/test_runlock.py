"""The run folder's lock and emptiness rules, with a real second process."""

from __future__ import annotations

import os
import pathlib
import signal

import pytest

from sim import cli
from sim.errors import InputError
from sim.io.runlock import LOCK, RunLock
from tests.batch.helpers import journal_records
from tests.cli.helpers import PROBLEM_LINE
from tests.processes import group_alive, run_sim, start_sim, wait_until

DATA = pathlib.Path(__file__).parent.parent / "data"
SKIRMISH = DATA / "golden" / "skirmish.yaml"


class TestRunLock:
    """One writer per run folder, for the run's whole life."""

    def test_second_process_is_turned_away(self, tmp_path: pathlib.Path) -> None:
        """While a batch runs, a second batch or a resume on its folder exits 2 naming its pid."""
        run = tmp_path / "run"
        first = start_sim("batch", str(SKIRMISH), "-n", "1000000", "--chunk", "100",
                          "--workers", "1", "--out", str(run), "--no-progress")
        try:
            wait_until(lambda: len(journal_records(run)) >= 1
                       or first.poll() is not None, "the first run's first part")
            assert first.poll() is None
            for args in (["batch", str(SKIRMISH), "-n", "10", "--seed", "9", "--out", str(run)],
                         ["batch", "--resume", str(run)]):
                second = run_sim(*args, "--no-progress")
                assert second.returncode == 2, second.stderr
                assert f"{run}:0:0: (run folder): another sim (pid {first.pid}) is running this run" in (
                    second.stderr)
                assert "Traceback" not in second.stderr
        finally:
            os.killpg(first.pid, signal.SIGKILL)
            first.communicate()
        wait_until(lambda: not group_alive(first.pid), "the killed run's processes to go")
        RunLock(run).acquire().release()  # a dead holder holds nothing: --resume may go on

    def test_lock_in_one_process(self, tmp_path: pathlib.Path) -> None:
        """A lock held by this process refuses a second taker and names this pid."""
        held = RunLock(tmp_path).acquire()
        with pytest.raises(InputError, match=rf"another sim \(pid {os.getpid()}\)"):
            RunLock(tmp_path).acquire()
        held.release()
        RunLock(tmp_path).acquire().release()


class TestNewRunFolder:
    """A new run starts only in a missing or empty folder."""

    def test_refuses_a_folder_with_files(self, tmp_path: pathlib.Path, capsys) -> None:
        """The user's files are left alone, with no lock or manifest dropped among them."""
        out = tmp_path / "mine"
        out.mkdir()
        (out / "notes.txt").write_text("my notes")
        code = cli.main(["batch", str(SKIRMISH), "-n", "5", "--out", str(out), "--no-progress"])
        assert code == 2
        assert f"{out}:0:0: (run folder): not empty; use --resume {out}, or another --out" in (
            capsys.readouterr().err)
        assert sorted(p.name for p in out.iterdir()) == ["notes.txt"]

    def test_refuses_leftover_parts(self, tmp_path: pathlib.Path, capsys) -> None:
        """A folder holding parts of an earlier run is not adopted by a new run."""
        out = tmp_path / "old"
        out.mkdir()
        (out / "parts.journal").write_bytes(b"CSJ1")
        code = cli.main(["batch", str(SKIRMISH), "-n", "5", "--out", str(out), "--no-progress"])
        assert code == 2 and "not empty" in capsys.readouterr().err
        assert not (out / "manifest.json").exists()

    @pytest.mark.parametrize("kind", ["file", "under a file", "dangling link"])
    def test_what_cannot_be_a_run_folder_is_one_problem_line(self, tmp_path: pathlib.Path, capsys,
                                                             kind: str) -> None:
        """--out naming a file, a path under a file or a dangling link: one
        ``folder:0:0: (run folder): reason`` line, exit 2."""
        (tmp_path / "file").write_text("mine")
        out = {"file": tmp_path / "file", "under a file": tmp_path / "file" / "run",
               "dangling link": tmp_path / "link"}[kind]
        if kind == "dangling link":
            out.symlink_to(tmp_path / "nowhere")
        code = cli.main(["batch", str(SKIRMISH), "-n", "5", "--out", str(out), "--no-progress"])
        err = capsys.readouterr().err
        assert code == 2 and len(err.splitlines()) == 1
        assert PROBLEM_LINE.match(err) and err.startswith(f"{out}:0:0: (run folder): ")
        assert (tmp_path / "file").read_text() == "mine"

    def test_empty_folder_is_fine(self, tmp_path: pathlib.Path) -> None:
        """An existing empty folder takes the run; the lock file is its only hidden guest."""
        out = tmp_path / "empty"
        out.mkdir()
        code = cli.main(["batch", str(SKIRMISH), "-n", "5", "--workers", "1", "--out", str(out),
                         "--json", "--no-progress"])
        assert code == 0
        assert {"manifest.json", "summary.json", "battles.parquet", LOCK} <= {
            p.name for p in out.iterdir()}
