"""The files of a run folder: atomic writes, the manifest, parts, and their merge.

A run folder holds ``manifest.json`` (what was asked), ``parts.journal`` (each
finished chunk of battles, appended in index order: see ``sim.batch.journal``),
``logs/`` (event logs asked for with ``--logs``: one JSONL file per chunk,
the battles one after another, each opening with its ``battle_started``; a file
per battle would cost more in file-system work than the battles), and at the end
``battles.parquet`` (the parts merged, a few at a time) and ``summary.json``.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import pathlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import attrs

from sim.batch import journal
from sim.batch.tables import PART_KEY, full_table, parquet_schema, part_identity_of, part_problem, part_table
from sim.errors import InputError, RunAborted
from sim.infile import open_regular
from sim.manifest import check_manifest, manifest_text, read_json
from sim.runlock import RunLock

MANIFEST = "manifest.json"
SUMMARY = "summary.json"
BATTLES = "battles.parquet"
JOURNAL = "parts.journal"
LEGACY_PARTS = "parts"  # a folder of Parquet parts, one per chunk, before the journal
LOGS = "logs"
# battles.parquet gets a row group per this many battles or more (whole parts): larger groups
# encode faster and smaller, and the merge holds no more than one group in memory.
ROW_GROUP = 8192


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


def write_run_file(path: pathlib.Path, data: bytes) -> None:
    """A file of the run folder; a full disk or a read-only folder is one clear line, exit 2.

    Nothing half-written is left: parts and the manifest are renamed into place.
    """
    try:
        write_atomic(path, data)
    except OSError as exc:
        msg = f"{path}:0:0: (document): cannot write ({exc.strerror or exc})"
        raise RunAborted(msg) from exc




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

    def read_summary(self) -> dict[str, Any]:
        """A finished run's summary.json; a damaged one is an input error saying so."""
        path = self.path / SUMMARY
        summary = read_json(path, "summary", f"no {SUMMARY}: the run is marked complete but its"
                            " summary is gone; start it again in another --out")
        if not isinstance(summary, dict) or summary.get("schema") != 1:
            msg = f"{path}:1:1: (document): damaged: not a schema 1 summary of this program"
            raise InputError(msg)
        return summary

    @property
    def journal_path(self) -> pathlib.Path:
        return self.path / JOURNAL

    def completed_parts(self) -> int:
        """How many chunks are safely on disk: the whole records at the start of the journal."""
        try:
            return sum(1 for _ in journal.records(self.journal_path))
        except OSError as exc:
            raise InputError(f"{self.journal_path}:0:0: (document): unreadable ({exc})") from exc

    def append_part(self, data: bytes) -> None:
        """Store the next chunk's part (chunks are stored strictly in index order)."""
        try:
            journal.append(self.journal_path, data)
        except OSError as exc:
            msg = f"{self.journal_path}:0:0: (document): cannot write ({exc.strerror or exc})"
            raise RunAborted(msg) from exc

    def read_parts(self, identity: Callable[[int], dict[str, Any]], width: int) -> Iterator[Any]:
        """The stored chunks' tables in order, chunk k checked to be ``identity(k)`` of battles
        of ``width`` combatants; a damaged part, or one of another run or chunk, is an input
        error, not a crash and never mixed in."""
        try:
            for number, payload in enumerate(journal.records(self.journal_path)):
                yield self._checked_part(number, payload, identity(number), width)
        except OSError as exc:
            raise InputError(f"{self.journal_path}:0:0: (document): unreadable ({exc})") from exc

    def _checked_part(self, number: int, payload: bytes, identity: dict[str, Any], width: int) -> Any:
        import pyarrow as pa

        where = f"{self.journal_path}:0:0: (part {number})"
        try:
            table = part_table(payload)
            problem = part_problem(table, width)
        except pa.ArrowException as exc:
            msg = f"{where}: unreadable ({exc}); delete {JOURNAL} and --resume plays its battles again"
            raise InputError(msg) from exc
        if problem is not None:
            msg = f"{where}: {problem}; delete {JOURNAL} and --resume plays its battles again"
            raise InputError(msg)
        if part_identity_of(table) != identity:
            msg = (f"{where}: not chunk {number} of this run (run {identity['run_id']},"
                   f" seed {identity['seed']}, battles {identity['start']} to"
                   f" {identity['stop'] - 1}); it is not used")
            raise InputError(msg)
        return table

    def merge_parts(self, identities: Sequence[dict[str, Any]], roster: Sequence[tuple[str, str]]) -> None:
        """Write every part into battles.parquet, in order, a row group of ROW_GROUP battles
        or more at a time (never the whole run in memory); ``roster`` names the combatants."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        target = self.path / BATTLES
        tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        run_id = identities[0]["run_id"] if identities else ""
        parts = list(itertools.islice(self.read_parts(identities.__getitem__, len(roster)), 1))
        # The parts' own kind: a run of battles, or of days (which add their steps).
        schema = full_table(parts[0], roster).schema if parts else parquet_schema()
        schema = schema.with_metadata({PART_KEY: json.dumps({"run_id": run_id})})
        merged = 0
        try:
            with pq.ParquetWriter(tmp, schema, **encoding(schema)) as writer:
                group: list[Any] = []  # parts (their metadata dropped, so that they concatenate)
                for part in itertools.islice(self.read_parts(identities.__getitem__, len(roster)),
                                             len(identities)):
                    group.append(full_table(part, roster))
                    merged += 1
                    if sum(map(len, group)) >= ROW_GROUP or merged == len(identities):
                        rows = pa.concat_tables(group)
                        writer.write_table(rows, row_group_size=max(1, len(rows)))
                        group = []
            if merged != len(identities):  # the lock keeps others out; never merge a short run
                msg = (f"{self.journal_path}:0:0: (document): holds {merged} of the run's"
                       f" {len(identities)} chunks")
                raise InputError(msg)
            os.replace(tmp, target)
        except OSError as exc:
            msg = f"{target}:0:0: (document): cannot write ({exc.strerror or exc})"
            raise RunAborted(msg) from exc
        finally:
            tmp.unlink(missing_ok=True)

    def read_battles(self, columns: Sequence[str], run_id: str) -> Any:
        """Columns of battles.parquet, which must be this run's (merged under its run id)."""
        import pyarrow.parquet as pq

        path = self.path / BATTLES
        try:
            with open_regular(path) as handle:  # refuses a FIFO or a device at once
                table = pq.read_table(handle, columns=list(columns))
        except Exception as exc:  # pyarrow raises several types for a missing or bad file
            msg = f"{path}:0:0: (document): cannot read the run's battles ({exc})"
            raise InputError(msg) from exc
        if part_identity_of(table) != {"run_id": run_id}:
            msg = f"{path}:0:0: (document): not this run's battles (run {run_id}); it is not used"
            raise InputError(msg)
        return table

    def remove_parts(self) -> None:
        self.journal_path.unlink(missing_ok=True)

    def remove_stale_temporaries(self) -> None:
        """What a process killed mid-write leaves (only the lock holder may call this): a torn
        journal tail, and half-written files; and the parts/ folder of an earlier version
        (one Parquet file per chunk), whose battles resuming plays again."""
        for stale in (*(self.path / LEGACY_PARTS).glob(".part-*.tmp"),
                      *(self.path / LEGACY_PARTS).glob("part-*.parquet")):
            stale.unlink(missing_ok=True)
        with contextlib.suppress(OSError):
            (self.path / LEGACY_PARTS).rmdir()
        try:
            journal.trim(self.journal_path)
        except OSError as exc:
            raise InputError(f"{self.journal_path}:0:0: (document): unreadable ({exc})") from exc

    def release(self) -> None:
        if self.lock is not None:
            self.lock.release()


def encoding(schema: Any) -> dict[str, Any]:
    """How battles.parquet is encoded: no dictionary for the index and the seed (never
    repeated: trying one costs a sixth of the encoding for nothing), statistics for the
    battle's own columns (what a reader filters on), none for each combatant's."""
    import pyarrow as pa

    def leaves(name: str, kind: Any) -> list[str]:
        if pa.types.is_list(kind):
            return leaves(f"{name}.list.element", kind.value_type)
        if pa.types.is_struct(kind):
            return [leaf for field in kind for leaf in leaves(f"{name}.{field.name}", field.type)]
        return [name]

    columns = [leaf for field in schema for leaf in leaves(field.name, field.type)]
    return {"use_dictionary": [name for name in columns if name not in ("index", "seed")],
            "write_statistics": [field.name for field in schema if not pa.types.is_nested(field.type)]}
