"""Stopping cleanly: Ctrl-C and SIGTERM in the main process, and workers that never outlive it.

A terminal's Ctrl-C reaches every process of the foreground group: the main
process, the forkserver, the resource tracker, the workers and the store
process (sim.batch.store). Only the main process acts on it. The first SIGINT
or SIGTERM asks the batch to stop after the chunks in flight (their parts are
kept, the run resumes from there) and exit 130; a second one kills the workers
and the store process and exits 130 at once, without joining anything that
could hang. Workers ignore SIGINT and watch their parent: if it disappears
(kill -9 of the main process takes the forkserver with it), they exit within a
second instead of holding the terminal. The store process is born ignoring
SIGINT and SIGTERM (the batch stops it once its parts are stored) and stops at
its next message once the batch is gone.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from types import FrameType

from sim.terminal import safe

EXIT_INTERRUPTED = 130
WATCH_EVERY_S = 0.5
STOPPED_AT_ONCE = "stopped at once"


class StopSignals:
    """SIGINT and SIGTERM handlers for the life of a batch (in the main thread only).

    ``requested`` turns true on the first signal (which raises KeyboardInterrupt with
    ``raise_first``: then only the workers' chunks in flight are waited for); the second
    calls ``hard_exit``.
    """

    def __init__(self, told: Callable[[str], None], on_hard_exit: str = "",
                 raise_first: bool = False) -> None:
        self.requested = False
        self._told = told
        self._on_hard_exit = on_hard_exit
        self._raise_first = raise_first  # no parts to keep (compare, tune): stop right away
        self._previous: dict[int, object] = {}

    def _handle(self, signum: int, _frame: FrameType | None) -> None:
        if self.requested:
            hard_exit(self._on_hard_exit)
        self.requested = True
        if self._raise_first:
            self._told("stopping (Ctrl-C again to stop at once)")
            raise KeyboardInterrupt
        self._told("stopping after the battles in flight (Ctrl-C again to stop at once)")

    def __enter__(self) -> StopSignals:
        if threading.current_thread() is threading.main_thread():
            for signum in (signal.SIGINT, signal.SIGTERM):
                self._previous[signum] = signal.signal(signum, self._handle)
        return self

    def __exit__(self, *_: object) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)  # type: ignore[arg-type]
        self._previous.clear()


def hard_exit(message: str) -> None:
    """Kill our worker processes and the store process, and leave now: nothing is joined,
    nothing can hang."""
    for child in multiprocessing.active_children():
        with contextlib.suppress(OSError, ValueError):
            child.kill()
    with contextlib.suppress(OSError, ValueError):
        if sys.stderr.isatty():
            sys.stderr.write("\x1b[?25h")  # the progress bar hid the cursor
        # The message names the run folder, a user's path: made safe for the terminal.
        sys.stderr.write(safe(f"{STOPPED_AT_ONCE}{'; ' + message if message else ''}") + "\n")
        sys.stderr.flush()
    os._exit(EXIT_INTERRUPTED)


def start_pool_helpers(context: multiprocessing.context.BaseContext) -> None:
    """Start the forkserver and the resource tracker with Ctrl-C ignored.

    Both are fresh interpreters that ignore Ctrl-C only once their own code runs: a
    Ctrl-C reaching the process group while one is still starting would kill it with a
    traceback. An ignored SIGINT survives exec, and Python then installs no
    KeyboardInterrupt handler, so they start deaf to it. The main process ignores it too
    for the few milliseconds the two spawns take (a Ctrl-C just then is lost, not
    half-handled), in the main thread only, where handlers may be set. SIGTERM is left
    alone: a worker deaf to it would hang a pool that terminates its workers (one lost
    while the pool starts); a forkserver ended by a SIGTERM to the group is a worker
    pool lost (``sim.batch.runners``), which a stop asked for makes the stop.
    """
    if context.get_start_method() != "forkserver":
        return
    from multiprocessing import forkserver, resource_tracker

    with signals_ignored():
        resource_tracker.ensure_running()
        forkserver.ensure_running()


@contextlib.contextmanager
def signals_ignored(*signums: int) -> Iterator[None]:
    """These signals (SIGINT when none is named) ignored meanwhile, in the main thread only,
    so that processes started now are born ignoring them."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {signum: signal.signal(signum, signal.SIG_IGN) for signum in signums or (signal.SIGINT,)}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


@contextlib.contextmanager
def signals_deferred() -> Iterator[None]:
    """SIGINT and SIGTERM held back meanwhile, then delivered (in the main thread only).

    For a pool starting a worker: a KeyboardInterrupt raised while the forkserver forks
    it leaves a worker the pool does not know. Its parent then frees the pool's queues
    under it (the newborn prints a ``SemLock._rebuild`` FileNotFoundError) or shuts the
    pool down with one sentinel too few (the known worker waits for it: a hang). Held
    back, the signal acts once the worker is the pool's: a stop waits for it, a second
    Ctrl-C kills it. Unlike ``signals_ignored``, nothing is lost.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = {signum: signal.signal(signum, lambda signum, _frame: caught.append(signum))
                for signum in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        _deliver(caught)


def _deliver(signums: list[int]) -> None:
    """Raise these signals again, in the order they came, each even when the one before
    raised (KeyboardInterrupt): a second Ctrl-C is still a second."""
    if signums:
        try:
            signal.raise_signal(signums[0])
        finally:
            _deliver(signums[1:])


# -- in a worker process -----------------------------------------------------------------


def worker_init(main_pid: int) -> None:
    """Pool initializer: leave Ctrl-C to the main process; exit when the parent goes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = os.getppid()
    threading.Thread(target=_watch, args=(parent, main_pid), name="parent-watch",
                     daemon=True).start()


def _watch(parent: int, main_pid: int) -> None:
    """Poll: a changed parent pid means ours died (we were re-parented); so does a dead main.

    Both are needed: with the forkserver our parent is the server, which stays up as long
    as any worker holds the descriptor it watches, so workers must notice the main
    process themselves, even as a zombie nobody has reaped yet.
    """
    stop = threading.Event()
    while not stop.wait(WATCH_EVERY_S):
        if os.getppid() != parent or not alive(main_pid):
            os._exit(1)


def alive(pid: int) -> bool:
    """Whether ``pid`` still runs: a zombie (dead, not yet reaped) counts as gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            stat = handle.read()
    except FileNotFoundError:
        return False
    except OSError:  # no /proc: ask the kernel, which cannot tell a zombie apart
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except OSError:
            return True
        return True
    state = stat[stat.rindex(b")") + 2:][:1]
    return state not in (b"Z", b"X")
