"""Real `sim` processes for tests of locks and signals: start, watch, and find leftovers."""

from __future__ import annotations

import os
import pathlib
import select
import subprocess
import sys
import time
from collections.abc import Callable, Iterator

ROOT = pathlib.Path(__file__).parent.parent
LIMIT_S = 90  # "did not hang": generous, for a loaded 2-core machine


def start_sim(*args: str) -> subprocess.Popen:
    """`python -m sim ARGS` in a session of its own (its pid is its process group's id)."""
    return subprocess.Popen([sys.executable, "-m", "sim", *args], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)


def run_sim(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sim", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=LIMIT_S, check=False)


def wait_until(condition: Callable[[], bool], what: str, limit: float = LIMIT_S) -> None:
    deadline = time.monotonic() + limit
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def _live() -> Iterator[tuple[int, int, int]]:
    """(pid, parent pid, process group) of every live (non-zombie) process, from /proc
    (no psutil)."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = pathlib.Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        state, ppid, pgrp = stat[stat.rindex(")") + 2:].split()[:3]
        if state != "Z":
            yield int(entry), int(ppid), int(pgrp)


def group_alive(pgid: int) -> list[int]:
    """Live processes of a process group."""
    return [pid for pid, _, group in _live() if group == pgid]


def children(pid: int) -> list[int]:
    """Live processes whose parent is ``pid``."""
    return [child for child, parent, _ in _live() if parent == pid]


def pool_workers(main: int) -> list[int]:
    """The pool workers of a sim process: the children of its forkserver."""
    servers = [child for child in children(main)
               if b"forkserver" in pathlib.Path(f"/proc/{child}/cmdline").read_bytes()]
    return [worker for server in servers for worker in children(server)]


def read_stream_until(stream, wanted: bytes | None, limit: float = LIMIT_S) -> bytes:
    """Read a pipe until ``wanted`` appears (or until EOF when None); fails past ``limit``."""
    got = b""
    deadline = time.monotonic() + limit
    while True:
        left = deadline - time.monotonic()
        assert left > 0, f"timed out reading; got {got[-300:]!r}"
        ready, _, _ = select.select([stream], [], [], left)
        if not ready:
            continue
        chunk = os.read(stream.fileno(), 65536)
        got += chunk
        if not chunk:
            assert wanted is None, f"EOF before {wanted!r}; got {got[-300:]!r}"
            return got
        if wanted is not None and wanted in got:
            return got
