"""battles.parquet, written as the run goes: each part is decoded and encoded once, in
index order, a row group of ROW_GROUP battles or more at a time.

The file grows beside its final name and takes it only when the run is complete,
so a reader never sees half of it. A run stopped before then leaves the journal
(and, when killed, the half-written file, which resuming deletes): resuming
replays the stored parts into a new file, then goes on (a finished run that lost
the file gets it back the same way while its journal is left: ``Batch.rebuild``). Writing
as the parts are stored (not reading them all back at the end) spares a read and a
check of every part, and the store (sim.batch.store: a process of its own when a
core is free) encodes while the battles play.
"""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
from collections.abc import Sequence
from typing import Any

from sim.batch.tables import PART_KEY, full_table, parquet_schema
from sim.errors import RunAborted

BATTLES = "battles.parquet"
# A row group per this many battles or more (whole parts): larger groups encode faster and
# smaller, and the writer holds no more than one group in memory.
ROW_GROUP = 8192
# Parts held apart before they are joined into one table: each holds a few kilobytes of
# Arrow bookkeeping besides its rows, which small chunks (--chunk 1) would multiply.
JOIN_PARTS = 64


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


class BattlesWriter:
    """The run's battles.parquet, fed part by part (``add``), named at ``finish``."""

    def __init__(self, folder: pathlib.Path, run_id: str, roster: Sequence[tuple[str, str]]) -> None:
        self.target = folder / BATTLES
        self.tmp = self.target.with_name(f".{BATTLES}.{os.getpid()}.tmp")
        self.metadata = {PART_KEY: json.dumps({"run_id": run_id})}
        self.roster = roster
        self.writer: Any = None  # opened with the first part: battles, or days (with steps)
        self.group: list[Any] = []
        self.in_group = 0  # battles in ``group``
        self.battles = 0

    def add(self, part: Any) -> None:
        """The next part's battles (a part table that passed ``tables.part_problem``)."""
        rows = full_table(part, self.roster)
        if self.writer is None:
            self._open(rows.schema)
        self.group.append(rows)
        self.in_group += len(rows)
        self.battles += len(rows)
        if self.in_group >= ROW_GROUP:
            self._flush()
        elif len(self.group) >= JOIN_PARTS:
            self.group = [_joined(self.group)]

    def finish(self, battles: int) -> None:
        """Close the file and give it its name, once it holds the run's ``battles``."""
        if self.writer is None:
            self._open(parquet_schema())
        self._flush()
        self._attempt(self.writer.close)
        self.writer = None
        if self.battles != battles:  # never name a file that is not the whole run
            msg = f"{self.target}:0:0: (document): holds {self.battles} of the run's {battles} battles"
            raise RunAborted(msg)
        self._attempt(lambda: os.replace(self.tmp, self.target))

    def discard(self) -> None:
        """Drop what was written (the run stopped; the journal keeps its parts). It runs as
        the run stops: a folder that refuses it leaves the file to ``--resume``, which removes
        it, and what stopped the run is what is told."""
        if self.writer is not None:
            with contextlib.suppress(OSError):  # a full disk: the half-written file goes anyway
                self.writer.close()
            self.writer = None
        with contextlib.suppress(OSError):
            self.tmp.unlink(missing_ok=True)

    def _open(self, schema: Any) -> None:
        import pyarrow.parquet as pq

        schema = schema.with_metadata(self.metadata)
        self.writer = self._attempt(lambda: pq.ParquetWriter(self.tmp, schema, **encoding(schema)))

    def _flush(self) -> None:
        import pyarrow as pa

        if self.group:
            rows = pa.concat_tables(self.group)
            self.group, self.in_group = [], 0
            self._attempt(lambda: self.writer.write_table(rows, row_group_size=max(1, len(rows))))

    def _attempt(self, write: Any) -> Any:
        """A write; a full disk or a read-only folder is one clear line, exit 2."""
        try:
            return write()
        except OSError as exc:
            raise RunAborted.cannot_write(self.target, exc) from exc


def _joined(tables: Sequence[Any]) -> Any:
    """Tables of the same schema as one, its columns in one piece each."""
    import pyarrow as pa

    return pa.concat_tables(tables).combine_chunks()
