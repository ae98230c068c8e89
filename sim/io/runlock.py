"""The run folder's lock: one process at a time may write a run, for the run's whole life.

An OS lock (``flock``) on ``RUN_DIR/.lock`` is taken before anything else is
written and released when the process ends, however it ends (kill -9
included: the kernel drops it), so a stale lock never blocks a resume. The
file keeps the holder's pid so that the process turned away can name it. The
lock file is never deleted: unlinking it while another process waits on it
would let two processes hold "the" lock at once.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import pathlib

from sim.errors import InputError

LOCK = ".lock"
# What the process turned away is told after "another sim (pid N)".
RUNNING = "is running this run; wait for it, stop it, or pick another --out"


class RunLock:
    """An exclusive lock on a run folder, held until ``release`` (or the process ends).

    ``name`` and ``busy`` serve other locks of the same kind: a report page's (one
    process at a time writes it), named beside the page, ``busy`` saying who holds it."""

    def __init__(self, folder: pathlib.Path, name: str = LOCK, busy: str = RUNNING) -> None:
        self.folder = folder
        self.name = name
        self.busy = busy
        self._fd: int | None = None

    def acquire(self) -> RunLock:
        """Take the lock now or raise InputError naming the process that holds it."""
        path = self.folder / self.name
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as exc:
            msg = f"{self.folder}:0:0: (run folder): cannot lock it ({exc.strerror})"
            raise InputError(msg) from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            holder = _holder(fd)
            os.close(fd)
            if exc.errno not in (errno.EAGAIN, errno.EACCES, errno.EWOULDBLOCK):
                msg = f"{self.folder}:0:0: (run folder): cannot lock it ({exc.strerror})"
                raise InputError(msg) from exc
            msg = f"{self.folder}:0:0: (run folder): another sim ({holder}) {self.busy}"
            raise InputError(msg) from None
        # Best effort: the pid only serves the message of the process turned away.
        with contextlib.suppress(OSError):
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd = fd
        return self

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor drops the flock
            self._fd = None

    def __enter__(self) -> RunLock:
        return self

    def __exit__(self, *_: object) -> None:
        self.release()


def _holder(fd: int) -> str:
    """'pid N' from the lock file, or a vaguer phrase when it holds no pid yet."""
    try:
        text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
    except OSError:
        text = ""
    return f"pid {text}" if text.isdigit() else "another process"
