"""The files of a run folder: atomic writes, the manifest, and the stored parts.

A run folder holds ``manifest.json`` (what was asked), ``parts.journal`` (each
finished chunk of battles, appended in index order: see ``sim.batch.journal``),
``logs/`` (event logs asked for with ``--logs``: one JSONL file per chunk,
the battles one after another, each opening with its ``battle_started``; a file
per battle would cost more in file-system work than the battles), and at the end
``battles.parquet`` (written as the parts are stored: see ``sim.batch.battles_file``)
and ``summary.json``.
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import stat
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import attrs

from sim.batch import journal
from sim.batch.battles_file import BATTLES
from sim.batch.manifest import check_manifest, manifest_text, read_json
from sim.batch.summary_file import check_run_summary
from sim.batch.tables import (
    battles_problem,
    count_problem,
    index_problem,
    part_identity_of,
    part_problem,
    part_table,
)
from sim.errors import InputError, RunAborted
from sim.io.arrow import load_arrow
from sim.io.infile import open_regular
from sim.io.runlock import RunLock

MANIFEST = "manifest.json"
SUMMARY = "summary.json"
JOURNAL = "parts.journal"
LEGACY_PARTS = "parts"  # a folder of Parquet parts, one per chunk, before the journal
LOGS = "logs"
# Battles a reader of battles.parquet holds at once (a few MB of a 10-combatant scenario).
READ_BATCH = 8192
# What to do about a damaged part: while a run is not finished, its battles can be played again.
PLAY_AGAIN = f"delete {JOURNAL} and --resume plays its battles again"
# A finished run whose battles.parquet cannot be made again from its journal: its seed and
# scenario give the same battles to a new run.
START_AGAIN = "start the run again in another --out (the same seed plays the same battles)"


def write_atomic(path: pathlib.Path, data: bytes, durable: bool = True) -> None:
    """Write beside the target, then rename: readers never see half a file.

    ``durable`` also flushes it to disk first; event logs skip that (they can be
    regenerated from their seed, and an fsync per battle would dominate a run).
    """
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as handle:
            handle.write(data)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)  # never leave a stray temporary file behind
        raise


def write_run_file(path: pathlib.Path, data: bytes, durable: bool = True) -> None:
    """A file of the run folder; a full disk or a read-only folder is one clear line, exit 2.

    Nothing half-written is left: the file is renamed into place (see ``write_atomic``).
    """
    try:
        write_atomic(path, data, durable)
    except OSError as exc:
        raise RunAborted.cannot_write(path, exc) from exc


@attrs.define
class RunFolder:
    """The files of one batch run, written atomically and readable after any crash.

    Whoever writes a run holds its lock (``lock``) from start to end.
    """

    path: pathlib.Path
    lock: RunLock | None = None

    @property
    def manifest_path(self) -> pathlib.Path:
        return self.path / MANIFEST

    def read_manifest(self) -> dict[str, Any]:
        """The run's manifest, checked key by key and against its seal: a hand-edited one is an
        input error."""
        manifest = read_json(self.manifest_path, "manifest",
                             f"no {MANIFEST}: {self.path} is not a batch run folder")
        return check_manifest(self.manifest_path, manifest)

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        write_run_file(self.manifest_path, manifest_text(manifest).encode("ascii"))

    def read_summary(self, manifest: dict[str, Any]) -> dict[str, Any]:
        """A finished run's summary.json; a damaged one, or another run's (``manifest`` is
        this run's), is an input error saying so."""
        path = self.path / SUMMARY
        summary = read_json(path, "summary", f"no {SUMMARY}: the run is marked complete but its"
                            " summary is gone; start it again in another --out")
        return check_run_summary(path, summary, manifest)

    @property
    def journal_path(self) -> pathlib.Path:
        return self.path / JOURNAL

    def append_part(self, data: bytes) -> None:
        """Store the next chunk's part (chunks are stored strictly in index order)."""
        try:
            journal.append(self.journal_path, data)
        except OSError as exc:
            raise RunAborted.cannot_write(self.journal_path, exc) from exc

    def read_parts(self, identity: Callable[[int], dict[str, Any]], width: int,
                   remedy: str = PLAY_AGAIN) -> Iterator[Any]:
        """The stored chunks' tables in order, chunk k checked to be ``identity(k)`` of battles
        of ``width`` combatants; a damaged part, or one of another run or chunk, is an input
        error (ending with ``remedy``, what to do), not a crash and never mixed in."""
        try:
            for number, payload in enumerate(journal.records(self.journal_path)):
                yield self._checked_part(number, payload, identity(number), width, remedy)
        except OSError as exc:
            raise InputError(f"{self.journal_path}:0:0: (document): unreadable ({exc})") from exc

    def _checked_part(self, number: int, payload: bytes, identity: dict[str, Any], width: int,
                      remedy: str) -> Any:
        load_arrow()
        import pyarrow as pa

        where = f"{self.journal_path}:0:0: (part {number})"
        try:
            table = part_table(payload)
            problem = part_problem(table, width)
        except pa.ArrowException as exc:
            raise InputError(f"{where}: unreadable ({exc}); {remedy}") from exc
        if problem is not None:
            raise InputError(f"{where}: {problem}; {remedy}")
        if part_identity_of(table) != identity:
            msg = (f"{where}: not chunk {number} of this run (run {identity['run_id']},"
                   f" seed {identity['seed']}, battles {identity['start']} to"
                   f" {identity['stop'] - 1}); {remedy}")
            raise InputError(msg)
        if table.column("index").to_pylist() != list(range(identity["start"], identity["stop"])):
            msg = (f"{where}: does not hold battles {identity['start']} to {identity['stop'] - 1},"
                   f" as it says; {remedy}")
            raise InputError(msg)
        return table

    def battles_missing(self, manifest: dict[str, Any]) -> str:
        """What to tell of a run whose battles.parquet is not there, and what to do: a run not
        finished writes it at its end; a finished one had it, and only the parts journal
        (which a finished run removes, unless stopped just before) can give it back."""
        path = self.path / BATTLES
        if manifest["status"] != "complete":
            return (f"{path}:0:0: (document): missing: the run is not finished;"
                    f" sim batch --resume {self.path} finishes it")
        if os.path.lexists(self.journal_path):
            return (f"{path}:0:0: (document): missing; sim batch --resume {self.path}"
                    f" rebuilds it from {JOURNAL}")
        return (f"{path}:0:0: (document): missing, and so is {JOURNAL}, which could rebuild it"
                f" (a finished run removes it); {START_AGAIN}")

    def battle_batches(self, columns: Sequence[str], manifest: dict[str, Any]) -> Iterator[Any]:
        """Columns of battles.parquet, a table of at most ``READ_BATCH`` battles at a time, in
        order: a reader holds one batch, never the whole run (a million battles decoded at
        once took 4 GB). The file must be this run's (merged under the run id of its
        ``manifest``, one row per battle it played, in order); each batch is checked as it is
        read, and a missing file says what gives it back (``battles_missing``)."""
        load_arrow()
        import pyarrow as pa
        import pyarrow.parquet as pq

        path = self.path / BATTLES
        if not os.path.lexists(path):
            raise InputError(self.battles_missing(manifest))
        where = f"{path}:0:0: (document)"
        with open_regular(path) as handle:  # refuses a FIFO or a device at once
            try:
                parquet = pq.ParquetFile(handle)
                batches = parquet.iter_batches(batch_size=READ_BATCH, columns=list(columns),
                                               use_threads=False)
            except Exception as exc:  # pyarrow raises several types for a missing or bad file
                raise InputError(f"{where}: cannot read the run's battles ({exc})") from exc
            _check_battles_file(parquet, where, manifest)
            start = 0
            while True:
                try:
                    batch = next(batches, None)
                except (pa.ArrowException, OSError, ValueError) as exc:
                    raise InputError(f"{where}: cannot read the run's battles ({exc})") from exc
                if batch is None:
                    return
                table = pa.Table.from_batches([batch])
                problem = battles_problem(table) or index_problem(table, start, manifest["battles_done"])
                if problem is not None:
                    raise InputError(f"{where}: {problem}")
                start += len(table)
                yield table

    def remove_parts(self) -> None:
        self.journal_path.unlink(missing_ok=True)

    def remove_stale_temporaries(self) -> None:
        """What a process killed mid-write leaves (only the lock holder may call this): a torn
        journal tail, half-written files (battles.parquet, the manifest, a summary, a log),
        and the parts/ folder of an earlier version (one Parquet file per chunk), whose
        battles resuming plays again. A journal that is not a regular file is refused: it
        could be read but never written."""
        for stale in (*self.path.glob(".*.tmp"), *(self.path / LOGS).glob(".*.tmp"),
                      *(self.path / LEGACY_PARTS).glob(".part-*.tmp"),
                      *(self.path / LEGACY_PARTS).glob("part-*.parquet")):
            stale.unlink(missing_ok=True)
        with contextlib.suppress(OSError):
            (self.path / LEGACY_PARTS).rmdir()
        try:
            mode = os.lstat(self.journal_path).st_mode
        except FileNotFoundError:
            return
        except OSError as exc:
            raise InputError(f"{self.journal_path}:0:0: (document): unreadable ({exc})") from exc
        if not stat.S_ISREG(mode):
            msg = (f"{self.journal_path}:0:0: (document): not a regular file; delete it and --resume"
                   " plays its battles again")
            raise InputError(msg)
        try:
            journal.trim(self.journal_path)
        except OSError as exc:
            raise InputError(f"{self.journal_path}:0:0: (document): unreadable ({exc})") from exc

    def release(self) -> None:
        if self.lock is not None:
            self.lock.release()


def _check_battles_file(parquet: Any, where: str, manifest: dict[str, Any]) -> None:
    """What the footer of battles.parquet tells before a row is read: whose battles, how many."""
    run_id = manifest["run_id"]
    if part_identity_of(parquet.schema_arrow.empty_table()) != {"run_id": run_id}:
        raise InputError(f"{where}: not this run's battles (run {run_id}); it is not used")
    problem = count_problem(parquet.metadata.num_rows, manifest["battles_done"])
    if problem is not None:
        raise InputError(f"{where}: {problem}")

