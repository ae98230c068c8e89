"""Where chunks run: one or two worker processes, a Dask cluster, a Dask scheduler."""

from __future__ import annotations

import json
import os
import pathlib
import signal
import threading
import time
import types

import pytest

import sim.batch.runners
from sim import cli
from sim.batch import ChunkTask, LogPlan, kept_pool, run_chunk
from sim.batch.runners import DaskRunner, ProcessRunner, max_local_workers
from sim.errors import RunAborted
from sim.scenario import load_scenario
from tests.batch.helpers import DUEL, SKIRMISH, batch, comparable, journal_records, rows
from tests.cli.helpers import PROBLEM_LINE
from tests.processes import pool_workers, wait_until


class TestExecutors:
    """Identical results for every number of workers and every executor."""

    def test_one_and_two_workers(self, tmp_path: pathlib.Path) -> None:
        """1 worker (in process) and 2 worker processes give the same summary and rows."""
        args = [str(SKIRMISH), "-n", "300", "--seed", "5", "--chunk", "40"]
        one = batch(tmp_path, "one", *args, "--workers", "1")
        two = batch(tmp_path, "two", *args, "--workers", "2")
        assert comparable(one) == comparable(two)
        assert rows(tmp_path / "one") == rows(tmp_path / "two")

    def test_dask_local_cluster(self, tmp_path: pathlib.Path) -> None:
        """The Dask executor on a LocalCluster gives the same results."""
        distributed = pytest.importorskip("distributed")
        args = [str(SKIRMISH), "-n", "120", "--seed", "5", "--chunk", "25"]
        local = batch(tmp_path, "local", *args, "--workers", "1")
        with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                      dashboard_address=None) as cluster:
            remote = batch(tmp_path, "dask", *args, "--executor", "dask",
                           "--scheduler", cluster.scheduler_address)
        assert comparable(local) == comparable(remote)
        assert rows(tmp_path / "local") == rows(tmp_path / "dask")


class TestScheduler:
    """--scheduler: anything but a reachable Dask scheduler exits 2 within seconds, in one
    ``ADDRESS:0:0: --scheduler: reason`` line, the shape of every other bad-input line."""

    @staticmethod
    def refused(tmp_path: pathlib.Path, capsys, address: str, *more: str) -> str:
        out = tmp_path / "run"
        code = cli.main(["batch", str(DUEL), "-n", "10", "--executor", "dask", "--scheduler",
                         address, "--out", str(out), "--no-progress", *more])
        err = capsys.readouterr().err
        assert code == 2 and "Traceback" not in err and len(err.splitlines()) == 1, err
        assert PROBLEM_LINE.match(err), err
        assert not out.exists()  # refused before any run folder is made
        return err.rstrip("\n")

    @pytest.mark.parametrize("address", ["not-a-url", "tcp://a..b:1", "tcp://" + "a" * 64 + ":1"])
    def test_malformed_address(self, tmp_path: pathlib.Path, capsys, address: str) -> None:
        """`not-a-url` is not an address, nor a host name with an empty or 64-letter label
        (the socket cannot encode it)."""
        pytest.importorskip("distributed")
        err = self.refused(tmp_path, capsys, address)
        assert err.startswith(f"{address}:0:0: --scheduler: not an address like tcp://host:8786 (")

    def test_unreachable_address(self, tmp_path: pathlib.Path, capsys) -> None:
        """A port nobody listens on (port 1 of loopback) is refused at once."""
        pytest.importorskip("distributed")
        err = self.refused(tmp_path, capsys, "tcp://127.0.0.1:1")
        assert err == "tcp://127.0.0.1:1:0:0: --scheduler: cannot reach it (Connection refused)"

    def test_a_long_address_is_cut(self, tmp_path: pathlib.Path, capsys) -> None:
        """An address of 10,000 characters is shown by its first 79 and an ellipsis, not whole."""
        pytest.importorskip("distributed")
        address = "tcp://" + "a" * 10_000 + ":1"
        err = self.refused(tmp_path, capsys, address)
        assert err.startswith(f"{address[:79]}…:0:0: --scheduler: not an address like")
        assert len(err) < 300

    def test_http_server_is_not_a_scheduler(self, tmp_path: pathlib.Path, capsys,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
        """A server that accepts the connection but never speaks Dask is refused (no hang)."""
        import http.server
        import threading

        pytest.importorskip("distributed")
        monkeypatch.setattr(sim.batch.runners, "DASK_CONNECT_S", 0.5)  # its greeting never comes
        server = http.server.HTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        address = f"127.0.0.1:{server.server_address[1]}"
        try:
            err = self.refused(tmp_path, capsys, address)
        finally:
            server.shutdown()
            server.server_close()
        assert err == f"{address}:0:0: --scheduler: answered, but not as a Dask scheduler"

    def test_scheduler_without_dask_executor(self, tmp_path: pathlib.Path, capsys) -> None:
        """--scheduler with the process executor is refused, not ignored."""
        code = cli.main(["batch", str(DUEL), "--scheduler", "tcp://127.0.0.1:1",
                         "--out", str(tmp_path / "run")])
        err = capsys.readouterr().err
        assert code == 2 and err == "tcp://127.0.0.1:1:0:0: --scheduler: needs --executor dask\n"

    def test_workers_with_a_scheduler(self, tmp_path: pathlib.Path, capsys) -> None:
        """--workers beside --scheduler is refused in the same shape, naming --workers."""
        err = self.refused(tmp_path, capsys, "tcp://127.0.0.1:1", "--workers", "3")
        assert err.startswith("3:0:0: --workers: would do nothing with --scheduler (")

    def test_without_dask_installed(self, tmp_path: pathlib.Path, capsys,
                                    monkeypatch: pytest.MonkeyPatch) -> None:
        """Without dask.distributed (a plain ``pip install``), --scheduler is one line saying
        what to install: its import failing was a traceback (exit 1)."""
        import sys

        monkeypatch.setitem(sys.modules, "distributed.comm.addressing", None)  # import fails
        err = self.refused(tmp_path, capsys, "tcp://127.0.0.1:1")
        assert err == "dask:0:0: --executor: needs dask.distributed: pip install 'combat-sim[dask]'"

    def test_scheduler_dying_leaves_a_resumable_run(self, tmp_path: pathlib.Path, capsys) -> None:
        """The scheduler goes away mid-run: exit 2, and --resume (here without Dask) finishes
        to the same rows as an uninterrupted run."""
        distributed = pytest.importorskip("distributed")
        run = tmp_path / "run"
        cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                           dashboard_address=None, protocol="tcp")

        def close_after_first_part() -> None:
            while len(journal_records(run)) < 1:
                time.sleep(0.02)
            cluster.close()

        closer = threading.Thread(target=close_after_first_part, daemon=True)
        closer.start()
        args = [str(SKIRMISH), "-n", "3000", "--seed", "2", "--chunk", "50"]
        code = cli.main(["batch", *args, "--executor", "dask", "--scheduler",
                         cluster.scheduler_address, "--out", str(run), "--no-progress"])
        closer.join(timeout=60)
        err = capsys.readouterr().err
        assert code == 2 and err.startswith(f"{cluster.scheduler_address}:0:0: --scheduler: lost the"
                                            " Dask scheduler or its workers (")
        assert f"sim batch --resume {run}" in err and not (run / "summary.json").exists()
        resumed = cli.main(["batch", "--resume", str(run), "--workers", "1", "--json",
                            "--no-progress"])
        assert resumed == 0
        batch(tmp_path, "whole", *args, "--workers", "1")
        assert rows(run) == rows(tmp_path / "whole")

    def test_killed_worker_leaves_a_resumable_run(self, tmp_path: pathlib.Path, capsys,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
        """A chunk that got every worker killed (KilledWorker) was an internal error with a
        traceback and exit 1: it is exit 2 with the --resume command, as a lost scheduler."""
        distributed = pytest.importorskip("distributed")
        from sim.batch import runners

        def killing(task):  # type: ignore[no-untyped-def]
            if task.start >= 100:
                last = types.SimpleNamespace(address="tcp://127.0.0.1:1")
                raise distributed.KilledWorker("run_chunk-1", last, 3)
            return run_chunk(task)

        monkeypatch.setattr(runners, "run_chunk", killing)
        cluster = distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                           dashboard_address=None, protocol="tcp")
        run = tmp_path / "run"
        try:
            code = cli.main(["batch", str(SKIRMISH), "-n", "300", "--seed", "2", "--chunk", "50",
                             "--executor", "dask", "--scheduler", cluster.scheduler_address,
                             "--out", str(run), "--no-progress"])
        finally:
            cluster.close()
        err = capsys.readouterr().err
        assert code == 2 and "internal error" not in err and "Traceback" not in err
        assert err.startswith(f"{cluster.scheduler_address}:0:0: --scheduler: a chunk's task lost every"
                              " worker that ran it (KilledWorker")
        assert f"finish with: sim batch --resume {run}" in err
        monkeypatch.undo()
        assert cli.main(["batch", "--resume", str(run), "--workers", "1", "--no-progress", "--json"]) == 0


class TestWorkerLimit:
    """How many worker processes a local pool or cluster may start."""

    @pytest.mark.parametrize("cores", [1, 2, 3])
    def test_eight_a_usable_core(self, monkeypatch: pytest.MonkeyPatch, cores: int) -> None:
        """The limit follows the cores this process may use (its affinity), not the machine's."""
        monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(cores)), raising=False)
        assert max_local_workers() == 8 * cores


class TestKeptPool:
    """compare and tune play in steps: one pool serves them all, and ends with them."""

    def count_starts(self, monkeypatch, kind: type = ProcessRunner) -> list[int]:
        starts: list[int] = []
        real = kind._start

        def counted(self):
            starts.append(self.workers)
            return real(self)

        monkeypatch.setattr(kind, "_start", counted)
        return starts

    def test_one_pool_for_every_call(self, monkeypatch) -> None:
        starts = self.count_starts(monkeypatch)
        runner, scenario = ProcessRunner(2), load_scenario(DUEL)

        def chunks(first: int) -> list:
            tasks = [ChunkTask(scenario, 7, i, i + 5, LogPlan(), rows_only=True)
                     for i in range(first, first + 20, 5)]
            return sorted(r.start for r in runner(iter(tasks), 4))

        with kept_pool(runner):
            assert chunks(0) == [0, 5, 10, 15] and chunks(20) == [20, 25, 30, 35]
            assert starts == [2]
        assert runner._pool is None  # ended with the block
        chunks(40)
        assert starts == [2, 2] and runner._pool is None  # not kept: a pool for the call

    @pytest.mark.parametrize("executor", ["process", "dask"])
    def test_compare_steps_share_one_pool(self, monkeypatch, capsys, executor: str) -> None:
        """--precision plays 1000 battles a variant a step: 3 steps here, one pool (or one
        local Dask cluster), ended with the command."""
        if executor == "dask":
            pytest.importorskip("distributed")
        starts = self.count_starts(monkeypatch, ProcessRunner if executor == "process" else DaskRunner)
        assert cli.main(["compare", str(DUEL), str(SKIRMISH), "-n", "3000", "--precision", "0.0001",
                         "--workers", "2", "--executor", executor, "--json", "--no-progress"]) == 0
        assert json.loads(capsys.readouterr().out)["battles"] == 3000 and starts == [2]

    def test_a_worker_lost_between_calls_is_one_error(self) -> None:
        """A kept pool whose worker died while it waited for the next step: the next call is
        a RunAborted (one line, exit 2), not the pool's own error (a traceback, exit 1)."""
        runner, scenario = ProcessRunner(2), load_scenario(DUEL)
        tasks = [ChunkTask(scenario, 7, i, i + 5, LogPlan(), rows_only=True) for i in range(0, 20, 5)]
        with kept_pool(runner):
            assert len(list(runner(iter(tasks), 4))) == 4
            os.kill(pool_workers(os.getpid())[0], signal.SIGKILL)
            wait_until(lambda: runner._pool._broken, "the pool to see its worker gone")
            with pytest.raises(RunAborted, match="a worker process died"):
                list(runner(iter(tasks), 4))  # refused at its first submit
            assert runner._pool is None  # dropped: a broken pool serves no further call


class TestWedgedPool:
    """A worker killed halfway through sending its result leaves the pool's own thread waiting
    for the rest of the message: the pool never breaks, and the batch hung (seen in CI under
    load, about 1 in 12 of test_a_dead_worker_stops_the_run). The runner watches the workers
    itself (sim.batch.runners._wait_watched)."""

    class _Process:
        def __init__(self) -> None:
            self.killed = False

        def kill(self) -> None:
            self.killed = True

    class _Writer:
        def __init__(self) -> None:
            self.closed = False

        def close(self) -> None:
            self.closed = True

    def _pool(self, dead: int, living: int) -> types.SimpleNamespace:
        queue = types.SimpleNamespace(_writer=self._Writer())
        return types.SimpleNamespace(_processes={dead: self._Process(), living: self._Process()},
                                     _result_queue=queue)

    @staticmethod
    def _dead_pid() -> int:
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)  # reaped: no /proc entry, as a worker the forkserver reaped
        return pid

    def test_a_worker_dead_for_two_looks_aborts_and_frees_the_pool(self, monkeypatch) -> None:
        monkeypatch.setattr(sim.batch.runners, "WATCH_S", 0.01)
        dead = self._dead_pid()
        pool = self._pool(dead, os.getpid())
        with pytest.raises(RunAborted, match=rf"^a worker process died \(process {dead}\)$"):
            sim.batch.runners._wait_watched(pool, {sim.batch.runners.cf.Future()})
        assert all(p.killed for p in pool._processes.values())  # the other may wait on a lock
        assert pool._result_queue._writer.closed  # the half message meets the pipe's end

    def test_living_workers_are_waited_for(self, monkeypatch) -> None:
        """No false alarm: with living workers, a chunk finishing after many looks is waited
        for and returned as cf.wait does, and nobody is stopped."""
        monkeypatch.setattr(sim.batch.runners, "WATCH_S", 0.01)
        pool = self._pool(os.getpid(), os.getppid())
        later, pending = sim.batch.runners.cf.Future(), sim.batch.runners.cf.Future()
        timer = threading.Timer(0.2, later.set_result, (None,))  # some 20 looks from now
        timer.start()
        try:
            assert sim.batch.runners._wait_watched(pool, {later, pending}) == ({later}, {pending})
        finally:
            timer.cancel()
        assert not any(p.killed for p in pool._processes.values())
        assert not pool._result_queue._writer.closed
