"""Where chunks run: in this process, in a local process pool, or on a Dask cluster.

A runner takes an iterator of ``ChunkTask`` and a window (how many chunks may be
in flight) and yields ``ChunkResult`` in the order they finish; the batch puts
them back in index order. Losing a worker or the scheduler is a ``RunAborted``:
what is stored is kept, and the run resumes from it.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import itertools
import logging
import multiprocessing
import os
import socket
import sys
from collections.abc import Callable, Iterator
from typing import Any

from sim.batch.chunk import ChunkResult, ChunkTask, run_chunk
from sim.errors import InputError, RunAborted, option_problem
from sim.io.shutdown import alive, signals_deferred, signals_ignored, start_pool_helpers, worker_init

Runner = Callable[[Iterator[ChunkTask], int], Iterator[ChunkResult]]


def run_serial(tasks: Iterator[ChunkTask], _window: int) -> Iterator[ChunkResult]:
    """Run chunks one after another in this process."""
    for task in tasks:
        yield run_chunk(task)


def _windowed(submit: Callable[[ChunkTask], Any], wait_one: Callable[[set], tuple[set, set]],
              result: Callable[[Any], ChunkResult], cancel: Callable[[set], None],
              tasks: Iterator[ChunkTask], window: int) -> Iterator[ChunkResult]:
    """Keep at most ``window`` chunks in flight; yield results as they finish."""
    pending: set = set()
    try:
        for task in tasks:
            # A submit may start a pool worker: a Ctrl-C waits until the pool knows it, and
            # until its chunk is pending here (cancelled, not played, by a stop).
            with signals_deferred():
                pending.add(submit(task))
            while len(pending) >= window:
                done, pending = wait_one(pending)
                for future in done:
                    yield result(future)
        while pending:
            done, pending = wait_one(pending)
            for future in done:
                yield result(future)
    finally:
        cancel(pending)


def _pool_context() -> multiprocessing.context.BaseContext:
    """forkserver where there is one (workers fork from a clean server that has imported
    the engine already: fast start, no state or threads inherited), else spawn."""
    _quiet_resource_tracker()
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["sim.forkserver_preload"])
        return context
    return multiprocessing.get_context("spawn")


class _Keepable:
    """A runner whose workers (a pool, a Dask client) start with its first chunk and end
    with the call, unless ``kept``: compare and tune play in steps (--precision), and
    workers started for each step would cost their start every step."""

    _kept = False

    @contextlib.contextmanager
    def kept(self) -> Iterator[Runner]:
        """The same workers for every call in the block, ended with it."""
        self._kept = True
        try:
            yield self  # type: ignore[misc]
        finally:
            self._kept = False
            self._end()

    def _results(self, submit: Callable[[ChunkTask], Any], wait_one: Callable[[set], tuple[set, set]],
                 result: Callable[[Any], ChunkResult], cancel: Callable[[set], None],
                 tasks: Iterator[ChunkTask], window: int) -> Iterator[ChunkResult]:
        """``_windowed``'s results; workers that failed (a RunAborted) serve no further call,
        and workers not kept end with the call."""
        try:
            yield from _windowed(submit, wait_one, result, cancel, tasks, window)
        except RunAborted:
            self._end()
            raise
        finally:
            if not self._kept:
                self._end()

    def _end(self) -> None:
        raise NotImplementedError


class ProcessRunner(_Keepable):
    """A process pool of ``workers`` (a Runner; a pool starts in about 0.2 s); workers
    ignore Ctrl-C and exit if this process dies."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._pool: cf.ProcessPoolExecutor | None = None

    def __call__(self, tasks: Iterator[ChunkTask], window: int) -> Iterator[ChunkResult]:
        first = next(tasks, None)
        if first is None:  # nothing to play: no pool to start
            return
        if self._pool is None:
            self._pool = self._start()
        pool = self._pool
        yield from self._results(lambda t: _submit(pool, t), lambda p: _wait_watched(pool, p),
                                 _pool_result, _cancel, itertools.chain([first], tasks), window)

    def _start(self) -> cf.ProcessPoolExecutor:
        context = _pool_context()
        start_pool_helpers(context)
        return cf.ProcessPoolExecutor(max_workers=self.workers, mp_context=context,
                                      initializer=worker_init, initargs=(os.getpid(),))

    def _end(self) -> None:
        if self._pool is not None:
            pool, self._pool = self._pool, None
            pool.shutdown(wait=True)


def kept_pool(runner: Runner) -> contextlib.AbstractContextManager[Runner]:
    """``runner`` with its pool (or Dask client) kept for the block, when it has one."""
    if isinstance(runner, _Keepable):
        return runner.kept()
    return contextlib.nullcontext(runner)


# A worker killed while it sends a result (kill -9, the OOM killer) leaves half a message in the
# pool's result pipe: the pool's own thread then waits for the rest of it forever and never
# finds the pool broken, and the batch hung. So the runner waits a second at a time and looks at
# the workers itself; a worker dead for two looks while nothing finished is a dead pool.
WATCH_S = 1.0


def _wait_watched(pool: cf.ProcessPoolExecutor, pending: set) -> tuple[set, set]:
    """The first chunks to finish (and those still pending) in a local pool, noticing a
    worker that died unseen."""
    seen_dead: set[int] = set()
    while True:
        done, rest = cf.wait(pending, timeout=WATCH_S, return_when=cf.FIRST_COMPLETED)
        if done:
            return set(done), set(rest)
        # By pid, through /proc: a worker's own handle would read its exit code from a pipe
        # the pool's thread reads too.
        dead = {pid for pid in dict(getattr(pool, "_processes", None) or {}) if not alive(pid)}
        if dead & seen_dead:
            _unwedge(pool)
            raise RunAborted(f"a worker process died (process {min(dead & seen_dead)})")
        seen_dead = dead


def _unwedge(pool: cf.ProcessPoolExecutor) -> None:
    """Free a pool whose worker died halfway through sending a result: end the other workers
    (one may wait for the lock the dead one held) and close this process's end of the result
    pipe, so that the pool's thread reading the half message meets the pipe's end, finds the
    pool broken and lets it shut down."""
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        with contextlib.suppress(OSError, ValueError):
            process.kill()
    result_queue = getattr(pool, "_result_queue", None)
    if result_queue is not None:
        with contextlib.suppress(OSError):
            result_queue._writer.close()


def _cancel(pending: set) -> None:
    for future in pending:
        future.cancel()


def _submit(pool: cf.ProcessPoolExecutor, task: ChunkTask) -> cf.Future:
    try:
        return pool.submit(run_chunk, task)
    except cf.process.BrokenProcessPool as exc:  # a kept pool that lost a worker between calls
        raise _worker_died(exc) from exc
    except (EOFError, OSError) as exc:  # its server ended while it started a worker (a SIGTERM
        raise _worker_died(exc) from exc  # to the process group)


def _pool_result(future: cf.Future) -> ChunkResult:
    try:
        return future.result()
    except cf.process.BrokenProcessPool as exc:
        raise _worker_died(exc) from exc


def _quiet_resource_tracker() -> None:
    """Start multiprocessing's resource tracker with its stderr on /dev/null. It removes the
    pool's semaphores when this process ends however it ends (kill -9, a second Ctrl-C), as
    it should, and then warned "There appear to be 5 leaked semaphore objects to clean up at
    shutdown" on the GM's terminal, after the command had told how it stopped."""
    from multiprocessing import resource_tracker

    try:
        saved = os.dup(2)
    except OSError:  # no stderr at all: nothing to keep quiet
        return
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            sys.stderr.flush()
            os.dup2(devnull, 2)
            resource_tracker.ensure_running()
        finally:
            os.dup2(saved, 2)
            os.close(devnull)
    finally:
        os.close(saved)


def _worker_died(exc: BaseException) -> RunAborted:
    return RunAborted(f"a worker process died ({exc})")


DASK_CONNECT_S = 5  # a scheduler answers at once: 5 s to connect, 5 more for its greeting


def check_scheduler(address: str) -> None:
    """Refuse at once an address that is malformed, unreachable, or not a Dask scheduler.

    Dask's own client waits for minutes on a server that accepts the connection
    but never answers as a scheduler (an HTTP server, say). A Dask scheduler
    speaks first: it sends its handshake as soon as a connection opens, so a TCP
    address is probed for that. Other protocols (tls://, ...) go straight to Dask.
    Each refusal is one ``ADDRESS:0:0: --scheduler: reason`` line (``scheduler_problem``).
    """
    # distributed (Dask) is heavy and optional: imported only when a scheduler is named.
    try:
        from distributed.comm.addressing import parse_address, parse_host_port
    except ImportError as exc:
        raise _no_dask() from exc

    try:
        protocol, location = parse_address(address)
        if protocol != "tcp":
            return
        host, port = parse_host_port(location)
    except ValueError as exc:
        raise _malformed(address, exc) from None
    try:
        with socket.create_connection((host, port), timeout=DASK_CONNECT_S) as probe:
            probe.settimeout(DASK_CONNECT_S)
            greeting = probe.recv(64)
    except TimeoutError:
        greeting = b""
    except OSError as exc:
        raise InputError(scheduler_problem(address, f"cannot reach it ({exc.strerror or exc})")) from None
    except (ValueError, OverflowError) as exc:  # a host name IDNA cannot encode, a port past 65535
        raise _malformed(address, exc) from None
    if b"compression" not in greeting:  # a key of the scheduler's handshake
        raise InputError(scheduler_problem(address, "answered, but not as a Dask scheduler"))


def scheduler_problem(address: str | None, message: str) -> str:
    """A --scheduler problem, the address where a file's name stands (sim.errors.option_problem);
    without --scheduler, the local cluster that ``--executor dask`` started is the subject."""
    if address is None:
        return option_problem("dask", "--executor", f"local cluster: {message}")
    return option_problem(address, "--scheduler", message)


def _no_dask() -> InputError:
    return InputError(option_problem("dask", "--executor",
                                     "needs dask.distributed: pip install 'combat-sim[dask]'"))


def _malformed(address: str, exc: Exception) -> InputError:
    return InputError(scheduler_problem(address, f"not an address like tcp://host:8786 ({exc})"))


class DaskRunner(_Keepable):
    """Chunks as tasks of a Dask cluster at ``scheduler`` (a local cluster when None), a
    Runner; its client is what is kept."""

    def __init__(self, scheduler: str | None, workers: int) -> None:
        self.scheduler = scheduler
        self.workers = workers
        self._client: Any = None
        self._cluster: Any = None

    def __call__(self, tasks: Iterator[ChunkTask], window: int) -> Iterator[ChunkResult]:
        try:  # heavy and optional: imported only for --executor dask
            from distributed import wait
        except ImportError as exc:
            raise _no_dask() from exc
        if self._client is None:
            self._start()
        client, lost = self._client, _dask_lost()

        def wait_one(pending: set) -> tuple[set, set]:
            try:
                done_and_not = wait(list(pending), return_when="FIRST_COMPLETED")
            except lost as exc:
                raise _dask_gone(self.scheduler, exc) from exc
            return set(done_and_not.done), set(done_and_not.not_done)

        def cancel(pending: set) -> None:
            if pending:
                with contextlib.suppress(*lost):
                    client.cancel(list(pending))

        def result(future: Any) -> ChunkResult:
            try:
                return future.result()
            except lost as exc:
                raise _dask_gone(self.scheduler, exc) from exc

        yield from self._results(lambda t: client.submit(run_chunk, t, pure=False), wait_one,
                                 result, cancel, tasks, window)

    def _start(self) -> None:
        from distributed import Client, LocalCluster

        if self.scheduler is None:
            with signals_ignored():  # its worker processes leave Ctrl-C to us, as pool workers do
                self._cluster = LocalCluster(n_workers=self.workers, threads_per_worker=1,
                                             dashboard_address=None)
        else:  # the command checked it answers as a Dask scheduler (cli.common.check_execution_options)
            # Losing the scheduler is reported in one line: not as Dask's tracebacks.
            logging.getLogger("distributed.client").setLevel(logging.CRITICAL)
        try:
            self._client = Client(self._cluster if self._cluster is not None else self.scheduler,
                                  timeout=DASK_CONNECT_S)
        except (OSError, ValueError, TypeError) as exc:
            self._end()
            msg = scheduler_problem(self.scheduler, f"cannot reach a Dask scheduler there ({exc})")
            raise InputError(msg) from exc

    def _end(self) -> None:
        """The client and local cluster closed. The run is over (done, interrupted or lost,
        each already told in one line): what Dask logs while it tears down is noise,
        tracebacks of cancelled comms."""
        client, cluster, self._client, self._cluster = self._client, self._cluster, None, None
        if client is None and cluster is None:
            return
        logging.getLogger("distributed").setLevel(logging.CRITICAL)
        if client is not None:
            with contextlib.suppress(*_dask_lost()):
                client.close(timeout=DASK_CONNECT_S)
        if cluster is not None:
            cluster.close()


def _dask_lost() -> tuple[type[BaseException], ...]:
    """What losing the scheduler or its workers raises (distributed is imported already)."""
    from distributed import KilledWorker
    from distributed.client import FutureCancelledError, FuturesCancelledError

    return (OSError, TimeoutError, cf.CancelledError, FutureCancelledError, FuturesCancelledError,
            KilledWorker)


def _dask_gone(address: str | None, exc: BaseException) -> RunAborted:
    from distributed import KilledWorker

    if isinstance(exc, KilledWorker):  # the scheduler gave up on a chunk: the folder is fine
        return RunAborted(scheduler_problem(address, "a chunk's task lost every worker that ran it"
                                                     " (KilledWorker: out of memory, or killed)"))
    return RunAborted(scheduler_problem(address, f"lost the Dask scheduler or its workers"
                                                 f" ({type(exc).__name__})"))


def make_runner(executor: str, workers: int, scheduler: str | None) -> Runner:
    if executor == "dask":
        return DaskRunner(scheduler, workers)
    if workers <= 1:
        return run_serial
    return ProcessRunner(workers)


def default_workers() -> int:
    """The cores this process may use (its CPU affinity where the system has one)."""
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
               else (os.cpu_count() or 1))


# Battles only compute: past one worker a core they take turns on the same cores and end no
# sooner, while each worker is an interpreter with the engine loaded (about 50 MB resident),
# so --workers 1024 on two cores only exhausted memory. A few a core are still let through
# (a test or a benchmark may oversubscribe on purpose).
WORKERS_PER_CORE = 8


def max_local_workers() -> int:
    """The most worker processes a local pool or a local Dask cluster may start."""
    return WORKERS_PER_CORE * default_workers()

