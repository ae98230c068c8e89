"""Schemas of a run's rows (parts and battles.parquet), and rows to Arrow tables and back.

A battle row (``sim.stats.BattleRow``) becomes one table row: index, seed, winner,
rounds and a list of combatants (name, side, and the fighter's row); a day row
(``sim.day_stats.DayRow``) adds its steps and whether the party survived and
completed the day. Parts are Arrow IPC files and carry who they are (run, chunk,
battles) in the schema's metadata under ``PART_KEY``.

pyarrow is imported inside the functions: it takes a noticeable share of a
second to import, and most commands (and ``sim --help``) never touch a table.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator, Sequence
from typing import Any

from sim.columns import BattleColumns, BattleRow
from sim.day import StepResult
from sim.day_stats import DayRow

PART_KEY = b"combat-sim"  # the schema metadata key of a part's identity


def parquet_schema() -> Any:
    import pyarrow as pa

    fighter = pa.struct([
        ("name", pa.string()), ("side", pa.string()), ("hp", pa.int32()),
        ("status", pa.string()), ("cause", pa.string()), ("knocked_out", pa.bool_()),
        ("morale", pa.string()), ("learned", pa.list_(pa.string())),
        ("items_used", pa.int32()),
    ])
    return pa.schema([
        ("index", pa.int64()), ("seed", pa.int64()), ("winner", pa.string()),
        ("rounds", pa.int32()), ("combatants", pa.list_(fighter)),
    ])


def rows_table(rows: Sequence[BattleRow], roster: Sequence[tuple[str, str]]) -> Any:
    """Battle rows as an Arrow table (see ``columns_table``)."""
    return columns_table(BattleColumns.of_rows(rows, len(roster)), roster)


def columns_table(battles: BattleColumns, roster: Sequence[tuple[str, str]]) -> Any:
    """Battles as an Arrow table, built column by column (no dict per combatant): the
    distinct fighter rows are converted once, then taken by code."""
    import pyarrow as pa

    schema = parquet_schema()
    fields = list(schema.field("combatants").type.value_type)
    # Fighter rows are tuples in the order of the struct's fields after name and side.
    distinct = pa.array(battles.distinct(), pa.struct(fields[2:]))
    fighters = distinct.take(pa.array(battles.codes, pa.int32())).flatten()
    names, sides, offsets = _roster_columns(tuple(roster), len(battles))
    struct = pa.StructArray.from_arrays([names, sides, *fighters], fields=fields)
    return pa.table([
        pa.array(battles.indexes, pa.int64()),
        pa.array(battles.seeds, pa.int64()),
        pa.array(battles.winners, pa.string()),
        pa.array(battles.rounds, pa.int32()),
        pa.ListArray.from_arrays(offsets, struct),
    ], schema=schema)


@functools.lru_cache(maxsize=4)
def _roster_columns(roster: tuple[tuple[str, str], ...], battles: int) -> tuple[Any, Any, Any]:
    """The name and side columns of ``battles`` battles of a roster, and their list offsets:
    the same for every full chunk, so converted once (Arrow arrays are immutable)."""
    import pyarrow as pa

    k = len(roster)
    return (pa.array([name for name, _ in roster] * battles, pa.string()),
            pa.array([side for _, side in roster] * battles, pa.string()),
            pa.array(range(0, battles * k + 1, k), pa.int32()))


def _step_type() -> Any:
    import pyarrow as pa

    return pa.struct([
        ("step", pa.int32()), ("reached", pa.bool_()), ("won", pa.bool_()), ("winner", pa.string()),
        ("rounds", pa.int32()), ("any_down", pa.bool_()), ("any_death", pa.bool_()),
        ("hp_start", pa.int64()), ("heroism_start", pa.int64()), ("psy_start", pa.int64()),
    ])


def day_schema() -> Any:
    """A day's row: a battle row of the day as a whole (the party's members at its end), then
    its steps in order, and whether the party survived and completed the day."""
    import pyarrow as pa

    base = parquet_schema()
    return base.append(pa.field("steps", pa.list_(_step_type()))).append(
        pa.field("survived", pa.bool_())).append(pa.field("completed", pa.bool_()))


def day_rows_table(rows: Sequence[DayRow], roster: Sequence[tuple[str, str]]) -> Any:
    import pyarrow as pa

    base = rows_table([r[:5] for r in rows], roster)
    steps = pa.array([[s._asdict() for s in r[5]] for r in rows], pa.list_(_step_type()))
    table = base.append_column("steps", steps)
    table = table.append_column("survived", pa.array([r[6] for r in rows], pa.bool_()))
    return table.append_column("completed", pa.array([r[7] for r in rows], pa.bool_()))


def part_bytes(table: Any) -> bytes:
    """A chunk's table as the bytes of an Arrow IPC file: a copy of its buffers, no encoding.
    Parts are only read back by this program (resume, merge), so they skip Parquet's
    encode and decode; battles.parquet is encoded once, when the parts are merged."""
    import pyarrow as pa

    sink = pa.BufferOutputStream()
    with pa.ipc.new_file(sink, table.schema) as writer:
        writer.write_table(table)
    return sink.getvalue().to_pybytes()


def part_table(data: bytes) -> Any:
    """The table of a part's bytes, fully validated (a damaged part raises ArrowException,
    never reads out of bounds)."""
    import pyarrow as pa

    table = pa.ipc.open_file(pa.BufferReader(data)).read_all()
    table.validate(full=True)
    return table


def table_rows(table: Any) -> Iterator[BattleRow | DayRow]:
    """Rows back from a part, in the shape workers send them (battles or days)."""
    days = "steps" in table.column_names
    for record in table.to_pylist():
        # A part written before items were counted has no items_used: none were.
        fighters = tuple((c["hp"], c["status"], c["cause"], c["knocked_out"], c["morale"],
                          tuple(c["learned"]), c.get("items_used") or 0)
                         for c in record["combatants"])
        row = (record["index"], record["seed"], record["winner"], record["rounds"], fighters)
        if days:
            steps = tuple(StepResult(**s) for s in record["steps"])
            yield (*row, steps, record["survived"], record["completed"])
        else:
            yield row




def part_identity_of(table: Any) -> dict[str, Any] | None:
    """The identity a part (or battles.parquet) carries in its metadata; None if unreadable."""
    raw = (table.schema.metadata or {}).get(PART_KEY)
    try:
        identity = json.loads(raw) if raw is not None else None
    except (ValueError, RecursionError):
        return None
    return identity if isinstance(identity, dict) else None

