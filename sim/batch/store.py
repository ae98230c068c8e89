"""Where a run's chunks are stored: each part appended to the journal, its battles to
battles.parquet, strictly in index order, in this process or in a process of its own.

Storing is Arrow work (the part, its IPC bytes, Parquet's encoding) and needs
pyarrow, whose import alone takes about a tenth of a second. With a core to spare,
a fresh run forks a store process before its first chunk: it imports pyarrow while
the first battles are played, and then stores each chunk while the next one plays.
The batch's own process never imports pyarrow, and a chunk played here leaves its
part to the store (its columns travel instead: ``ChunkResult.source``).

The store answers each part once it is stored (the journal, then battles.parquet),
and every answer carries its count of battles in the journal (``stored``): what an
interrupted or failed run reports and resumes from. At most ``WINDOW`` parts are in
flight, so a store slower than the battles holds the batch back instead of its
memory growing. A run that resumes stored parts, a machine with one core, or one
without fork (macOS, Windows), stores in this process (``LocalStore``): the parts
end the same, byte for byte.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.connection
import os
import pickle
import signal
import traceback
from typing import Any, ClassVar, Protocol

import attrs

from sim.batch.battles_file import BattlesWriter
from sim.batch.chunk import ChunkResult, PartSource
from sim.batch.folder import RunFolder
from sim.batch.tables import part_table
from sim.errors import RunAborted
from sim.io.arrow import load_arrow, own_process
from sim.io.shutdown import signals_ignored

# Parts sent to the store process and not yet acknowledged. Enough for the battles to go on
# while the store imports pyarrow (0.1-0.2 s, about 8 chunks of a d20 skirmish): with 2, every
# run stalled there, 0.1 s, half of a 2,000-battle run. A part is a chunk's columns (tens of kB).
WINDOW = 8
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
    apart: ClassVar[bool] = False

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


class StoreTraceback(Exception):
    """Where an error raised in the store process came from: its traceback, as text (the
    cause of the error the batch raises, as concurrent.futures does for its workers)."""


class StoreProcess:
    """A ``LocalStore`` run by a forked process; this side sends parts and counts answers.

    Every answer is ``(kind, stored, failure)``: ``stored`` is the store's count of
    battles in the journal, ``failure`` the error it met and its traceback as text (the
    kind is then "failed"), else None.
    """

    apart = True

    def __init__(self, local: LocalStore) -> None:
        context = multiprocessing.get_context("fork")
        self._conn, theirs = context.Pipe()
        self._process = context.Process(target=_serve, args=(local, theirs, self._conn, os.getpid()),
                                        name="combat-sim store", daemon=True)
        with signals_ignored(signal.SIGINT, signal.SIGTERM):  # born deaf to them: the batch stops it
            self._process.start()
        theirs.close()
        self._where = local.folder.journal_path
        self._tmp = local.battles.tmp
        self._in_flight = 0  # parts sent, not yet answered
        self.stored = local.stored

    def add(self, result: ChunkResult) -> None:
        while self._in_flight >= WINDOW or (self._in_flight and self._conn.poll()):
            self._answer()  # a failure is told at the next chunk, not at the end
        self._send(("add", result.part, result.source, result.battles))
        self._in_flight += 1

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
            with contextlib.suppress(OSError):  # a read-only folder: resume removes it
                self._tmp.unlink(missing_ok=True)

    def _send(self, message: tuple[Any, ...]) -> None:
        try:
            self._conn.send(message)
        except OSError as exc:  # a broken pipe: the store process is gone, maybe telling why
            while self._conn.poll():
                self._answer()
            self._end()
            raise self._gone() from exc

    def _until(self, last: str) -> None:
        while self._answer() != last:
            pass
        self._end()

    def _answer(self) -> str:
        """The store's next answer: a part stored, its last one, or its failure raised here."""
        try:
            kind, self.stored, failure = self._conn.recv()
        except (EOFError, OSError) as exc:
            self._end()
            raise self._gone() from exc
        if kind == "stored":
            self._in_flight -= 1
        if failure is not None:
            self._end()
            error, where = failure
            raise error from StoreTraceback(where)
        return kind

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
    for signum in (signal.SIGINT, signal.SIGTERM):  # again: a batch run from a thread other
        signal.signal(signum, signal.SIG_IGN)  # than the main one forks it unable to ignore them
    failure = None
    own_process()  # this process stores for sim and exits: its pyarrow needs no numpy
    try:
        load_arrow()  # now, while the first chunk plays; not when it arrives
    except Exception as exc:  # a broken install: told at the first part
        failure = _told(exc)
    try:
        store_parts(local, conn, batch, failure)
    except Exception:  # the pipe broke (the batch is gone), or the folder fails us on the way out
        with contextlib.suppress(Exception):
            local.discard()


def store_parts(local: LocalStore, conn: multiprocessing.connection.Connection, batch: int,
               failure: tuple[Exception, str] | None) -> None:
    """Store and answer each part until the batch finishes, discards or is gone. After a
    failure no part is stored (the journal stays in order): it is told once, and the
    batch, which raises it, then discards."""
    told = False
    while True:
        try:
            message = conn.recv()
        except EOFError:  # the batch is gone: a resume remakes what it did not send
            message = None
        except Exception as exc:  # a message cut short: nothing after it can be read
            message, failure = None, failure or _told(exc)
        if message is None or os.getppid() != batch:  # gone: store nothing it left behind
            if failure is not None and not told:
                with contextlib.suppress(OSError):
                    conn.send(("failed", local.stored, failure))
            local.discard()  # (this process holds the run's lock until it exits: no resume yet)
            return
        kind = message[0]
        if kind == "discard":
            local.discard()
            conn.send(("discarded", local.stored, None))
            return
        if failure is None:
            try:
                if kind == "add":
                    local.add_part(*message[1:])
                else:
                    local.finish(message[1])
            except Exception as exc:  # a full disk, say: the batch raises it
                failure = _told(exc)
        if failure is None:
            conn.send(("stored" if kind == "add" else "finished", local.stored, None))
            if kind == "finish":
                return
        elif not told:
            conn.send(("failed", local.stored, failure))
            told = True


def _told(exc: Exception) -> tuple[Exception, str]:
    """What the batch raises for ``exc`` (``exc``, or a RuntimeError naming it when it does
    not survive pickling), and this process's traceback, its cause (a cause is not pickled)."""
    where = "".join(traceback.format_exception(exc))
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:
        exc = RuntimeError(f"storing the run's parts failed: {exc!r}")
    return exc, where
