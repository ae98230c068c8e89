"""Stopping a batch with real signals: exit 130, parts kept, nothing left running, no hang."""

from __future__ import annotations

import json
import os
import pathlib
import signal
import subprocess
import sys

import pytest

from sim import cli
from sim.batch.store import can_store_apart
from tests.batch.helpers import journal_records
from tests.processes import LIMIT_S, ROOT, group_alive, pool_workers, read_stream_until, start_sim, wait_until

DATA = pathlib.Path(__file__).parent.parent / "data"
SKIRMISH = DATA / "golden" / "skirmish.yaml"
CHUNK = 300
POOL = 5  # main, resource tracker, forkserver, 2 workers (the tests stop a pool at work;
# a Ctrl-C while a worker is born: test_ctrl_c_while_a_worker_is_born)
STORE = int(can_store_apart())  # a batch's store process, where it has one
BATCH = {"2": POOL + STORE, "1": 1 + STORE}  # a batch's processes by --workers


def started_batch(run: pathlib.Path, n: int = 1_000_000, workers: str = "2") -> subprocess.Popen:
    """A batch (2 workers), returned once its first part is on disk (signal handlers are up)
    and all its processes are born."""
    process = start_sim("batch", str(SKIRMISH), "-n", str(n), "--chunk", str(CHUNK), "--seed", "5",
                        "--workers", workers, "--out", str(run), "--no-progress")
    wait_until(lambda: (len(journal_records(run)) >= 1
                        and len(group_alive(process.pid)) >= BATCH[workers]) or process.poll() is not None,
               "the first part and the whole pool")
    assert process.poll() is None, process.stderr.read()
    return process


def finish(process: subprocess.Popen) -> tuple[int, str]:
    """Exit code and stderr; then every process of its group must be gone."""
    try:
        _, err = process.communicate(timeout=LIMIT_S)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        pytest.fail("sim batch hung after the signal")
    wait_until(lambda: not group_alive(process.pid), "every process of the batch to exit")
    return process.returncode, err.decode()


class TestSignals:
    """Ctrl-C, SIGTERM and kill -9 during a batch with worker processes."""

    @pytest.mark.parametrize("workers", ["1", "2"])
    def test_one_ctrl_c_finishes_the_chunks_in_flight(self, tmp_path: pathlib.Path, workers: str) -> None:
        """One SIGINT to the process group (a terminal's Ctrl-C): exit 130, a resumable run, and
        one "stopping" line (the store process is deaf to it)."""
        run = tmp_path / "run"
        process = started_batch(run, n=4000, workers=workers)
        os.killpg(process.pid, signal.SIGINT)
        code, err = finish(process)
        assert code == 130, err
        assert "Traceback" not in err and f"sim batch --resume {run}" in err
        assert err.count("stopping after the battles in flight") == 1, err
        manifest = json.loads((run / "manifest.json").read_text())
        done = len(journal_records(run))
        assert manifest["status"] == "interrupted" and manifest["battles_done"] == done * CHUNK
        assert not list(run.glob(".*.tmp"))
        assert cli.main(["batch", "--resume", str(run), "--workers", "1", "--json",
                         "--no-progress"]) == 0
        assert json.loads((run / "summary.json").read_text())["battles"] == 4000

    def test_a_dead_worker_stops_the_run(self, tmp_path: pathlib.Path) -> None:
        """A pool worker killed (the OOM killer, a crash): exit 2 with one line and the resume
        command, the run marked interrupted, nothing left running (the pool terminates the
        other worker with SIGTERM: workers must not ignore it)."""
        run = tmp_path / "run"
        process = started_batch(run)
        os.kill(pool_workers(process.pid)[0], signal.SIGKILL)
        code, err = finish(process)
        assert code == 2 and "a worker process died" in err and "Traceback" not in err, err
        assert err.count("\n") == 1 and f"sim batch --resume {run}" in err
        manifest = json.loads((run / "manifest.json").read_text())
        assert manifest["status"] == "interrupted"
        assert manifest["battles_done"] == len(journal_records(run)) * CHUNK

    def test_second_ctrl_c_stops_at_once(self, tmp_path: pathlib.Path) -> None:
        """A second SIGINT while the first waits for the workers exits 130 at once."""
        process = started_batch(tmp_path / "run")
        os.killpg(process.pid, signal.SIGINT)
        read_stream_until(process.stderr, b"Ctrl-C again to stop at once")
        os.killpg(process.pid, signal.SIGINT)
        code, err = finish(process)
        assert code == 130 and "stopped at once" in err and "Traceback" not in err

    def test_sigterm_is_like_ctrl_c(self, tmp_path: pathlib.Path) -> None:
        """SIGTERM to the main process alone stops the batch like Ctrl-C (exit 130)."""
        run = tmp_path / "run"
        process = started_batch(run)
        os.kill(process.pid, signal.SIGTERM)
        code, err = finish(process)
        assert code == 130 and "interrupted after" in err, err
        assert json.loads((run / "manifest.json").read_text())["status"] == "interrupted"

    def test_kill_9_leaves_no_process_behind(self, tmp_path: pathlib.Path) -> None:
        """kill -9 of the main process: workers, forkserver and resource tracker all exit,
        so a pipe from `sim batch | tee` reaches its end."""
        process = started_batch(tmp_path / "run")
        assert len(group_alive(process.pid)) > 2  # the pool is there to leave behind
        os.kill(process.pid, signal.SIGKILL)
        read_stream_until(process.stdout, None)  # EOF: no process holds the pipe any more
        assert process.wait(timeout=LIMIT_S) == -signal.SIGKILL
        wait_until(lambda: not group_alive(process.pid), "the workers to notice and exit")

    @pytest.mark.parametrize("twice", [False, True])
    def test_ctrl_c_during_compare(self, twice: bool) -> None:
        """compare has no parts to keep: Ctrl-C exits 130 once the workers' chunks return;
        a second Ctrl-C exits at once. Nothing is left running either way."""
        # Chunks long enough (about a second) that the second Ctrl-C comes while the first
        # still waits for them: with short ones the pool could end first (exit 130 either way).
        process = start_sim("compare", str(SKIRMISH), str(DATA / "duel" / "duel.yaml"),
                            "-n", "1000000", "--chunk", "5000", "--workers", "2", "--no-progress")
        wait_until(lambda: len(group_alive(process.pid)) >= POOL or process.poll() is not None,
                   "the worker pool")
        assert process.poll() is None, process.stderr.read()
        os.killpg(process.pid, signal.SIGINT)
        if twice:
            read_stream_until(process.stderr, b"Ctrl-C again to stop at once")
            os.killpg(process.pid, signal.SIGINT)
        code, err = finish(process)
        assert code == 130 and "Traceback" not in err, err
        assert ("stopped at once" in err) == twice

    @pytest.mark.parametrize("twice", [False, True])
    @pytest.mark.parametrize("worker", [1, 2])
    def test_ctrl_c_while_a_worker_is_born(self, worker: int, twice: bool) -> None:
        """A Ctrl-C while the forkserver forks a worker, before the pool knows its pid (a
        user's early Ctrl-C; under load, the tests' too): exit 130 with no traceback from
        the newborn (its queues freed under it) and no hang (a shutdown one sentinel short)."""
        probe = ("import os, signal, sys\n"
                 "from multiprocessing import forkserver\n"
                 "real, born = forkserver.read_signed, []\n"
                 "def read_signed(fd):\n"
                 "    born.append(fd)\n"
                 f"    if len(born) == {worker}:  # forked, its pid not yet read\n"
                 f"        for _ in range({1 + twice}):\n"
                 "            os.killpg(os.getpid(), signal.SIGINT)\n"
                 "    return real(fd)\n"
                 "forkserver.read_signed = read_signed\n"
                 "import sim.launch\n"
                 "raise SystemExit(sim.launch.main())\n")
        process = subprocess.Popen(
            [sys.executable, "-c", probe, "compare", str(SKIRMISH), str(DATA / "duel" / "duel.yaml"),
             "-n", "1000000", "--chunk", "5000", "--workers", "2", "--no-progress"],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        code, err = finish(process)
        assert code == 130 and "Traceback" not in err, err
        assert ("stopped at once" in err) == twice, err

    def test_ctrl_c_with_a_local_dask_cluster(self, tmp_path: pathlib.Path) -> None:
        """--executor dask without --scheduler: the local cluster's workers leave Ctrl-C to
        the main process, which stops like the process pool does (no hang, exit 130)."""
        pytest.importorskip("distributed")
        run = tmp_path / "run"
        process = start_sim("batch", str(SKIRMISH), "-n", "1000000", "--chunk", str(CHUNK),
                            "--workers", "2", "--executor", "dask", "--out", str(run),
                            "--no-progress")
        wait_until(lambda: len(journal_records(run)) >= 1
                   or process.poll() is not None, "the first part")
        os.killpg(process.pid, signal.SIGINT)
        code, err = finish(process)
        assert code == 130 and "interrupted after" in err and "Traceback" not in err, err
