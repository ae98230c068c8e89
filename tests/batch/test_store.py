"""Where a run's chunks are stored: in this process, or in a store process beside the battles."""

from __future__ import annotations

import json
import os
import pathlib
import pickle
import subprocess
import sys
import time

import pytest

import sim.batch.run
from sim.batch import Batch, BatchSpec, RunFolder, journal, run_serial, start_run
from sim.batch.battles_file import BATTLES, BattlesWriter
from sim.batch.chunk import PartSource
from sim.batch.store import (
    WINDOW,
    LocalStore,
    StoreProcess,
    StoreTraceback,
    can_store_apart,
    store_parts,
)
from sim.day.file import load_input
from sim.errors import RunAborted
from sim.scenario import load_scenario
from tests.batch.helpers import SKIRMISH, comparable, journal_records, rows, stopping_after
from tests.day_files import WARREN
from tests.processes import ROOT

SPEC = BatchSpec(n=120, seed=5, chunk=25)
JOURNAL_ONLY = [".lock", "manifest.json", "parts.journal"]  # a stopped run: no battles.parquet, no .tmp


def left_in(folder: pathlib.Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def run_batch(folder: pathlib.Path, apart: bool | None, subject: pathlib.Path = SKIRMISH,
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


class TestBothStores:
    @pytest.mark.parametrize("subject", [SKIRMISH, WARREN], ids=["battles", "days"])
    def test_same_run_either_way(self, tmp_path: pathlib.Path, subject: pathlib.Path) -> None:
        """A store process and this process store the same battles.parquet rows and summary,
        and count every battle stored."""
        spec = BatchSpec(n=12, seed=3, chunk=5) if subject == WARREN else SPEC
        apart = run_batch(tmp_path / "apart", True, subject, spec)
        here = run_batch(tmp_path / "here", False, subject, spec)
        assert isinstance(apart.store, StoreProcess) and isinstance(here.store, LocalStore)
        assert rows(tmp_path / "apart") == rows(tmp_path / "here")
        summaries = [json.loads((tmp_path / name / "summary.json").read_text()) for name in ("apart", "here")]
        assert comparable(summaries[0]) == comparable(summaries[1])
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
                              cwd=ROOT)
        assert done.stdout.split() == ["0", "False"]
        assert (tmp_path / "run" / BATTLES).exists()


class TestChoice:
    def test_one_core_stores_here(self, tmp_path: pathlib.Path, monkeypatch) -> None:
        """Where this process may use one core, the run stores in it (no process to take
        turns with the battles)."""
        monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0}, raising=False)
        assert not can_store_apart()
        batch = run_batch(tmp_path / "one", None)
        assert isinstance(batch.store, LocalStore) and batch.stored == SPEC.n

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
        with the store's traceback as its cause; the store process prints nothing of it."""
        batch_pid = os.getpid()

        def broken(_source):
            assert os.getpid() != batch_pid, "a part was made in the batch's process"
            raise ValueError("a bug in making parts")

        monkeypatch.setattr(PartSource, "part", broken)
        scenario = load_scenario(SKIRMISH)
        run = start_run(tmp_path / "bug", scenario, SPEC, ["batch"])
        with pytest.raises(ValueError, match="a bug in making parts") as raised:
            Batch(scenario, SPEC, run, run_serial, store_apart=True).run()
        run.release()
        assert isinstance(raised.value.__cause__, StoreTraceback)
        assert "in broken" in str(raised.value.__cause__)
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
                seen.append(self._in_flight)
            real(self, message)

        monkeypatch.setattr(StoreProcess, "_send", send)
        slow = LocalStore.add_part

        def add_part(self, *args):  # in the store process: slower than a chunk here
            time.sleep(0.05)
            slow(self, *args)

        monkeypatch.setattr(LocalStore, "add_part", add_part)
        chunks = WINDOW + 4
        run_batch(tmp_path / "slow", True, spec=BatchSpec(n=25 * chunks, seed=5, chunk=25))
        assert max(seen) == WINDOW - 1 and len(seen) == chunks

    @pytest.mark.parametrize("apart", [True, False], ids=["store process", "here"])
    def test_folder_turned_read_only_at_the_end_is_one_error(self, tmp_path: pathlib.Path, monkeypatch,
                                                             capfd, apart: bool) -> None:
        """battles.parquet cannot take its name, nor its half-written file be removed (the folder
        turned read-only): the naming's error is raised, every battle counted, and nothing printed
        besides (the store process has no traceback to show)."""
        def refused(*_args, **_kwargs):
            raise PermissionError(13, "Permission denied")

        scenario = load_scenario(SKIRMISH)
        run = start_run(tmp_path / "ro", scenario, SPEC, ["batch"])
        batch = Batch(scenario, SPEC, run, run_serial, store_apart=apart)
        monkeypatch.setattr(os, "replace", refused)  # once the run's manifest is written
        monkeypatch.setattr(pathlib.Path, "unlink", refused)
        with pytest.raises(RunAborted, match=r"battles\.parquet:0:0: .*cannot write \(Permission"):
            batch.run()
        run.release()
        assert batch.stored == SPEC.n and capfd.readouterr().err == ""

    @pytest.mark.parametrize("apart", [True, False], ids=["store process", "here"])
    def test_parquet_failure_counts_the_part_journaled(self, tmp_path: pathlib.Path, monkeypatch,
                                                       apart: bool) -> None:
        """battles.parquet failing on the second part, after its journal record: that part
        is stored (the run resumes from it), and both stores count it."""
        real, calls = BattlesWriter.add, []

        def fail_second(self, part):
            calls.append(part)
            if len(calls) == 2:
                raise RunAborted("battles.parquet:0:0: (document): cannot write (No space left on device)")
            real(self, part)

        monkeypatch.setattr(BattlesWriter, "add", fail_second)
        scenario = load_scenario(SKIRMISH)
        run = start_run(tmp_path / "full", scenario, SPEC, ["batch"])
        batch = Batch(scenario, SPEC, run, run_serial, store_apart=apart)
        with pytest.raises(RunAborted, match="No space left"):
            batch.run()
        run.release()
        assert batch.stored == 50 and len(journal_records(tmp_path / "full")) == 2


class FakeConnection:
    """The store's end of the pipe: the batch's messages (an exception is raised as read),
    then EOF; what the store answers."""

    def __init__(self, *messages) -> None:
        self.messages, self.answers = list(messages), []

    def recv(self):
        if not self.messages:
            raise EOFError
        message = self.messages.pop(0)
        if isinstance(message, Exception):
            raise message
        return message

    def send(self, answer) -> None:
        self.answers.append(answer)


class FakeLocal:
    """A LocalStore that keeps what it is given; a part b"bad" fails as a full disk does."""

    def __init__(self) -> None:
        self.stored, self.parts, self.discarded = 0, [], False

    def add_part(self, part, _source, battles) -> None:
        if part == b"bad":
            raise RunAborted("parts.journal:0:0: (document): cannot write (No space left on device)")
        self.parts.append(part)
        self.stored += battles

    def discard(self) -> None:
        self.discarded = True


def kinds(conn: FakeConnection) -> list[tuple[str, int]]:
    return [(kind, stored) for kind, stored, _ in conn.answers]


class TestStoreLoop:
    """The store process's loop (``store_parts``), on a fake pipe."""

    def test_nothing_more_is_stored_once_the_batch_is_gone(self) -> None:
        """Parts the batch left in the pipe when it died are not stored (a resume plays them)."""
        local, conn = FakeLocal(), FakeConnection(("add", b"a", None, 5), ("add", b"b", None, 5))
        store_parts(local, conn, batch=-1, failure=None)  # -1: never this process's parent
        assert local.parts == [] and local.discarded and conn.answers == []

    def test_after_a_failure_nothing_is_stored_and_it_is_told_once(self) -> None:
        local = FakeLocal()
        conn = FakeConnection(("add", b"a", None, 5), ("add", b"bad", None, 5), ("add", b"c", None, 5),
                              ("discard",))
        store_parts(local, conn, batch=os.getppid(), failure=None)
        assert local.parts == [b"a"] and local.discarded
        assert kinds(conn) == [("stored", 5), ("failed", 5), ("discarded", 5)]
        error, where = conn.answers[1][2]
        assert isinstance(error, RunAborted) and "add_part" in where

    def test_a_failure_before_the_first_part_is_told_at_it(self) -> None:
        """pyarrow that cannot load: the first part is answered with it, none is stored."""
        local, conn = FakeLocal(), FakeConnection(("add", b"a", None, 5), ("discard",))
        failure = (ImportError("no pyarrow"), "Traceback ...")
        store_parts(local, conn, batch=os.getppid(), failure=failure)
        assert local.parts == [] and kinds(conn) == [("failed", 0), ("discarded", 0)]
        assert conn.answers[0][2] == failure

    def test_a_message_cut_short_is_told_and_ends_the_store(self) -> None:
        local = FakeLocal()
        conn = FakeConnection(("add", b"a", None, 5), pickle.UnpicklingError("pickle data was truncated"),
                              ("add", b"b", None, 5))
        store_parts(local, conn, batch=os.getppid(), failure=None)
        assert local.parts == [b"a"] and local.discarded
        assert kinds(conn) == [("stored", 5), ("failed", 5)]
        assert isinstance(conn.answers[1][2][0], pickle.UnpicklingError)


class BrokenPipe:
    """The batch's end of a pipe whose store process told a failure, then exited."""

    def __init__(self, *answers) -> None:
        self.answers = list(answers)

    def send(self, _message) -> None:
        raise BrokenPipeError(32, "Broken pipe")

    def poll(self) -> bool:
        return bool(self.answers)

    def recv(self):
        if not self.answers:
            raise EOFError
        return self.answers.pop(0)

    def close(self) -> None:
        pass


class Exited:
    exitcode = 0

    def join(self, _timeout=None) -> None:
        pass

    def is_alive(self) -> bool:
        return False


class TestStoreProcessEnd:
    """The batch's side when the store process has gone (``StoreProcess._send``)."""

    def store(self, conn: BrokenPipe) -> StoreProcess:
        store = StoreProcess.__new__(StoreProcess)  # no process: its end is what is tested
        store._conn, store._process, store._in_flight, store.stored = conn, Exited(), 1, 0
        store._where = pathlib.Path("run/parts.journal")
        return store

    def test_a_failure_told_before_the_pipe_broke_is_raised(self) -> None:
        error = RunAborted("run/parts.journal:0:0: (document): cannot write (No space left on device)")
        store = self.store(BrokenPipe(("failed", 25, (error, "Traceback ..."))))
        with pytest.raises(RunAborted, match="No space left on device"):
            store.finish(120)
        assert store.stored == 25

    def test_a_store_gone_without_a_word_is_told_as_gone(self) -> None:
        store = self.store(BrokenPipe())
        with pytest.raises(RunAborted, match=r"stopped \(exit 0\)"):
            store.finish(120)
