"""Where a run's chunks are stored: in this process, or in a store process beside the battles."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest

import sim.batch.run
from sim.batch import Batch, BatchSpec, RunFolder, journal, run_serial, start_run
from sim.batch.battles_file import BATTLES
from sim.batch.chunk import PartSource
from sim.batch.store import WINDOW, LocalStore, StoreProcess, can_store_apart
from sim.day_file import load_input
from sim.errors import RunAborted
from sim.scenario import load_scenario
from tests.batch.helpers import SKIRMISH, journal_records, rows
from tests.day_files import WARREN

SPEC = BatchSpec(n=120, seed=5, chunk=25)
JOURNAL_ONLY = [".lock", "manifest.json", "parts.journal"]  # a stopped run: no battles.parquet, no .tmp


def left_in(folder: pathlib.Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def run_batch(folder: pathlib.Path, apart: bool, subject: pathlib.Path = SKIRMISH,
              spec: BatchSpec = SPEC, runner=run_serial) -> Batch:
    scenario = load_input(subject, ())
    run = start_run(folder, scenario, spec, ["batch"])
    batch = Batch(scenario, spec, run, runner, store_apart=apart)
    try:
        batch.run()
    finally:
        run.release()
    return batch


def stopped_batch(folder: pathlib.Path, error: type[BaseException], match: str | None = None,
                  runner=run_serial) -> Batch:
    """A run of SPEC with a store process, stopped by ``error``: the Batch, to look at."""
    scenario = load_scenario(SKIRMISH)
    run = start_run(folder, scenario, SPEC, ["batch"])
    batch = Batch(scenario, SPEC, run, runner, store_apart=True)
    with pytest.raises(error, match=match):
        batch.run()
    run.release()
    return batch


def stopping_after(chunks: int):
    """A serial runner that stops the run (as Ctrl-C does) after ``chunks`` chunks."""
    def runner(tasks, window):
        for count, result in enumerate(run_serial(tasks, window)):
            if count == chunks:
                raise KeyboardInterrupt
            yield result
    return runner


class TestBothStores:
    @pytest.mark.parametrize("subject", [SKIRMISH, WARREN], ids=["battles", "days"])
    def test_same_run_either_way(self, tmp_path: pathlib.Path, subject: pathlib.Path) -> None:
        """A store process and this process store the same battles.parquet rows and summary,
        and the store process really stored this run (its parts made there, not here)."""
        spec = BatchSpec(n=12, seed=3, chunk=5) if subject == WARREN else SPEC
        apart = run_batch(tmp_path / "apart", True, subject, spec)
        here = run_batch(tmp_path / "here", False, subject, spec)
        assert isinstance(apart.store, StoreProcess) and isinstance(here.store, LocalStore)
        assert rows(tmp_path / "apart") == rows(tmp_path / "here")
        summaries = [json.loads((tmp_path / name / "summary.json").read_text()) for name in ("apart", "here")]
        assert [{k: v for k, v in s.items() if k != "elapsed_s"} for s in summaries] == [
            {k: v for k, v in summaries[1].items() if k != "elapsed_s"}] * 2
        assert apart.stored == here.stored == spec.n

    def test_chunks_played_here_send_their_columns(self, tmp_path: pathlib.Path, monkeypatch) -> None:
        """Chunks played in this process leave their parts to the store process (their columns
        travel instead), which makes parts that decode to the same rows."""
        sent = []
        real = StoreProcess._send

        def send(self, message):
            sent.append(message)
            real(self, message)

        monkeypatch.setattr(StoreProcess, "_send", send)
        run_batch(tmp_path / "apart", True)
        adds = [m for m in sent if m[0] == "add"]
        assert len(adds) == 5 and all(part == b"" and source is not None for _, part, source, _ in adds)
        run_batch(tmp_path / "here", False)
        assert rows(tmp_path / "apart") == rows(tmp_path / "here")

    def test_batch_process_never_imports_pyarrow(self, tmp_path: pathlib.Path) -> None:
        """With a store process, `sim batch` itself never loads Arrow (a tenth of a second)."""
        if not can_store_apart():
            pytest.skip("one core: the run stores in its own process")
        code = ("import io, contextlib, sys; from sim import cli\n"
                "with contextlib.redirect_stdout(io.StringIO()):\n"
                f"    code = cli.main(['batch', {str(SKIRMISH)!r}, '-n', '60', '--chunk', '20',"
                f" '--workers', '1', '--out', {str(tmp_path / 'run')!r}, '--json', '--no-progress'])\n"
                "print(code, 'pyarrow' in sys.modules)")
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                              cwd=pathlib.Path(__file__).parents[2])
        assert done.stdout.split() == ["0", "False"]
        assert (tmp_path / "run" / BATTLES).exists()


class TestChoice:
    def test_one_core_stores_here(self, monkeypatch) -> None:
        monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0}, raising=False)
        assert not can_store_apart()
        monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1}, raising=False)
        assert can_store_apart() == ("fork" in __import__("multiprocessing").get_all_start_methods())

    def test_no_fork_to_be_had_stores_here(self, tmp_path: pathlib.Path, monkeypatch) -> None:
        """A fork refused (no memory, too many processes): the run stores here, to the end."""
        def refused(_local):
            raise OSError(11, "Resource temporarily unavailable")

        monkeypatch.setattr(sim.batch.run, "StoreProcess", refused)
        batch = run_batch(tmp_path / "here", True)
        assert isinstance(batch.store, LocalStore) and batch.stored == SPEC.n
        assert len(rows(tmp_path / "here")) == SPEC.n

    def test_resume_of_stored_parts_stores_here(self, tmp_path: pathlib.Path) -> None:
        """A run resuming stored parts has read them here: it stores here, to the same rows."""
        with pytest.raises(KeyboardInterrupt):
            run_batch(tmp_path / "cut", True, runner=stopping_after(2))
        assert len(journal_records(tmp_path / "cut")) == 2
        scenario = load_scenario(SKIRMISH)
        folder = RunFolder(tmp_path / "cut")
        resumed = Batch(scenario, SPEC, folder, run_serial, store_apart=True)
        resumed.run()
        assert isinstance(resumed.store, LocalStore)
        run_batch(tmp_path / "whole", False)
        assert rows(tmp_path / "cut") == rows(tmp_path / "whole")


class TestStoreProcess:
    def test_interrupt_keeps_every_part_in_flight(self, tmp_path: pathlib.Path) -> None:
        """Ctrl-C after 3 chunks: the store answers for all three before the run stops, and
        nothing but the journal is left."""
        batch = stopped_batch(tmp_path / "cut", KeyboardInterrupt, runner=stopping_after(3))
        assert batch.stored == 75 and len(journal_records(tmp_path / "cut")) == 3
        assert left_in(tmp_path / "cut") == JOURNAL_ONLY

    def test_failure_is_told_with_what_was_stored(self, tmp_path: pathlib.Path, monkeypatch) -> None:
        """A full disk on the third part: RunAborted naming the journal, two parts stored and
        counted, no battles.parquet, no half-written file."""
        real, appended = journal.append, []

        def fill_up(path, payload):
            if len(appended) == 2:
                raise OSError(28, "No space left on device")
            appended.append(payload)
            real(path, payload)

        monkeypatch.setattr(journal, "append", fill_up)
        batch = stopped_batch(tmp_path / "full", RunAborted, r"parts\.journal:0:0: .*No space left on device")
        assert batch.stored == 50 and len(journal_records(tmp_path / "full")) == 2
        assert left_in(tmp_path / "full") == JOURNAL_ONLY

    def test_a_bug_there_is_raised_here(self, tmp_path: pathlib.Path, monkeypatch, capfd) -> None:
        """An error in the store process that is not the run's (a bug) is raised by the batch,
        as it would be here; the store process prints nothing of it."""
        def broken(_source):
            raise ValueError("a bug in making parts")

        monkeypatch.setattr(PartSource, "part", broken)
        stopped_batch(tmp_path / "bug", ValueError, "a bug in making parts")
        assert capfd.readouterr().err == ""
        assert left_in(tmp_path / "bug") == [".lock", "manifest.json"]

    def test_store_that_dies_is_told(self, tmp_path: pathlib.Path, monkeypatch) -> None:
        """The store process killed mid-run: RunAborted with its exit code, the parts it
        answered for counted, and the half-written battles.parquet removed."""
        real = LocalStore.add_part

        def die_on_second(self, part, source, battles):
            if self.stored == 25:
                os._exit(9)
            real(self, part, source, battles)

        monkeypatch.setattr(LocalStore, "add_part", die_on_second)
        batch = stopped_batch(tmp_path / "dead", RunAborted,
                              r"the process storing the run's parts stopped \(exit 9\)")
        assert batch.stored == 25 and len(journal_records(tmp_path / "dead")) == 1
        assert left_in(tmp_path / "dead") == JOURNAL_ONLY

    def test_at_most_a_window_of_parts_in_flight(self, tmp_path: pathlib.Path, monkeypatch) -> None:
        """The batch waits for the store's answers beyond WINDOW parts: a slow store holds the
        batch back instead of its parts piling up in memory."""
        seen = []
        real = StoreProcess._send

        def send(self, message):
            if message[0] == "add":
                seen.append(len(self._sent))
            real(self, message)

        monkeypatch.setattr(StoreProcess, "_send", send)
        slow = LocalStore.add_part

        def add_part(self, *args):  # in the store process: slower than a chunk here
            __import__("time").sleep(0.05)
            slow(self, *args)

        monkeypatch.setattr(LocalStore, "add_part", add_part)
        run_batch(tmp_path / "slow", True)
        assert max(seen) == WINDOW - 1 and len(seen) == 5
