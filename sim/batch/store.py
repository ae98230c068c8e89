"""Where a run's chunks are stored: each part appended to the journal, its battles to
battles.parquet, strictly in index order, in this process or in a process of its own.

Storing is Arrow work (the part, its IPC bytes, Parquet's encoding) and needs
pyarrow, whose import alone takes about a tenth of a second. With a core to spare,
a fresh run forks a store process before its first chunk: it imports pyarrow while
the first battles are played, and then stores each chunk while the next one plays.
The batch's own process never imports pyarrow, and a chunk played here leaves its
part to the store (its columns travel instead: ``ChunkResult.source``).

The store acknowledges each part once it is in the journal; ``stored`` counts
those battles, what an interrupted or failed run reports and resumes from. At most
``WINDOW`` parts are in flight, so a store slower than the battles holds the batch
back instead of its memory growing. A run that resumes stored parts, or a machine
with one core, stores in this process (``LocalStore``): the parts end the same,
byte for byte.
"""

from __future__ import annotations

import collections
import contextlib
import multiprocessing
import multiprocessing.connection
import os
import signal
from typing import Any, Protocol

import attrs

from sim.batch.battles_file import BattlesWriter
from sim.batch.chunk import ChunkResult, PartSource
from sim.batch.folder import RunFolder
from sim.batch.tables import load_arrow, part_table
from sim.errors import RunAborted

WINDOW = 2  # parts sent to the store process and not yet acknowledged
JOIN_S = 10.0  # how long the store process may take to exit once it has answered its last


class Store(Protocol):
    stored: int  # battles whose parts are in the journal
    apart: bool  # whether it stores in a process of its own

    def add(self, result: ChunkResult) -> None: ...
    def finish(self, battles: int) -> None: ...
    def discard(self) -> None: ...


@attrs.define
class LocalStore:
    """Storing in this process: the journal, then battles.parquet."""

    folder: RunFolder
    battles: BattlesWriter
    stored: int = 0
    apart: bool = False

    def add(self, result: ChunkResult) -> None:
        self.add_part(result.part, result.source, result.battles)

    def add_part(self, part: bytes, source: PartSource | None, battles: int) -> None:
        """A chunk's part (its bytes, or the rows to make them from) into the journal, then its
        battles into battles.parquet (read back from the bytes: checked by building them)."""
        data = part if source is None else source.part()
        self.folder.append_part(data)
        self.stored += battles
        self.battles.add(part_table(data))

    def replayed(self, table: Any) -> None:
        """A part the journal already holds (a resumed run): into battles.parquet only."""
        self.stored += len(table)
        self.battles.add(table)

    def finish(self, battles: int) -> None:
        self.battles.finish(battles)

    def discard(self) -> None:
        self.battles.discard()


def can_store_apart() -> bool:
    """Whether a store process would run beside the battles, not take turns with them: a
    second core this process may use, and fork (Linux) to start it without a new interpreter."""
    return (hasattr(os, "sched_getaffinity") and len(os.sched_getaffinity(0)) >= 2
            and "fork" in multiprocessing.get_all_start_methods())


class StoreProcess:
    """A ``LocalStore`` run by a forked process; this side sends parts and counts answers."""

    apart = True

    def __init__(self, local: LocalStore) -> None:
        context = multiprocessing.get_context("fork")
        self._conn, theirs = context.Pipe()
        self._process = context.Process(target=_serve, args=(local, theirs, self._conn, os.getpid()),
                                        name="combat-sim store", daemon=True)
        self._process.start()
        theirs.close()
        self._where = local.folder.journal_path
        self._tmp = local.battles.tmp
        self._sent: collections.deque[int] = collections.deque()  # battles of each unanswered part
        self.stored = local.stored

    def add(self, result: ChunkResult) -> None:
        while len(self._sent) >= WINDOW or (self._sent and self._conn.poll()):
            self._answer()  # a failure is told at the next chunk, not at the end
        self._send(("add", result.part, result.source, result.battles))
        self._sent.append(result.battles)

    def finish(self, battles: int) -> None:
        self._send(("finish", battles))
        self._until("finished")

    def discard(self) -> None:
        """Wait for the parts in flight to be stored (the run resumes from them), then drop
        battles.parquet. A store that failed or died is past waiting for, and what stopped
        the run is what is told: this runs as it stops."""
        try:
            self._send(("discard",))
            self._until("discarded")
        except Exception:
            pass
        finally:
            self._end()
            self._tmp.unlink(missing_ok=True)

    def _send(self, message: tuple[Any, ...]) -> None:
        try:
            self._conn.send(message)
        except OSError as exc:  # a broken pipe: the store process is gone
            self._end()
            raise self._gone() from exc

    def _until(self, last: str) -> None:
        while self._answer() != last:
            pass
        self._end()

    def _answer(self) -> str:
        """The store's next answer: a part stored, its last one, or its failure raised here."""
        try:
            answer = self._conn.recv()
        except (EOFError, OSError) as exc:
            self._end()
            raise self._gone() from exc
        if answer[0] == "failed":
            self._end()
            raise answer[1]
        if answer[0] == "stored":
            self.stored += self._sent.popleft()
        return answer[0]

    def _gone(self) -> RunAborted:
        code = self._process.exitcode
        return RunAborted(f"{self._where}:0:0: (document): the process storing the run's parts"
                          f" stopped{f' (exit {code})' if code is not None else ''}")

    def _end(self) -> None:
        self._conn.close()
        self._process.join(JOIN_S)
        if self._process.is_alive():
            self._process.kill()
            self._process.join()


def _serve(local: LocalStore, conn: multiprocessing.connection.Connection,
           batch_end: multiprocessing.connection.Connection, batch: int) -> None:
    """The store process: store what the batch (process ``batch``) sends, in order, and
    answer each. Nothing it meets is printed: a failure is the batch's to tell."""
    batch_end.close()  # the batch's end, inherited: closed, so that its death reads as the end
    for signum in (signal.SIGINT, signal.SIGTERM):  # the batch stops us when it has stored
        signal.signal(signum, signal.SIG_IGN)
    try:
        load_arrow()  # now, while the first chunk plays; not when it arrives
        _store_all(local, conn, batch)
    except OSError:  # the pipe broke: the batch is gone
        local.discard()
    except Exception as exc:  # a bug here, or a message cut short: the batch raises it
        local.discard()
        with contextlib.suppress(OSError):
            conn.send(("failed", _sendable(exc)))


def _store_all(local: LocalStore, conn: multiprocessing.connection.Connection, batch: int) -> None:
    failed = False
    while True:
        try:
            message = conn.recv()
        except EOFError:  # the batch is gone: a resume remakes what it did not send
            message = ("gone",)
        if os.getppid() != batch or message[0] == "gone":  # killed: store no part it left behind
            local.discard()  # (this process holds the run's lock until it exits: no resume yet)
            return
        if message[0] == "discard":
            local.discard()
            conn.send(("discarded",))
            return
        if failed:
            continue  # parts after a failed one are never stored: the journal stays in order
        try:
            if message[0] == "add":
                local.add_part(*message[1:])
                conn.send(("stored",))
            else:
                local.finish(message[1])
                conn.send(("finished",))
                return
        except Exception as exc:  # a full disk, say: told to the batch, which raises it
            failed = True
            conn.send(("failed", _sendable(exc)))


def _sendable(exc: Exception) -> Exception:
    """``exc`` if it survives pickling (RunAborted does), else a RuntimeError that tells it."""
    import pickle

    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:
        return RuntimeError(f"storing the run's parts failed: {exc!r}")
    return exc
