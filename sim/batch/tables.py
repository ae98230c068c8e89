"""Schemas of a run's rows (parts and battles.parquet), and rows to Arrow tables and back.

In battles.parquet a battle row (``sim.tally.columns.BattleRow``) becomes one table row:
index, seed, winner, rounds and a list of combatants (name, side, and the
fighter's row); a day row (``sim.day.stats.DayRow``) adds its steps and whether
the party survived and completed the day. A part (a chunk's rows, an Arrow IPC
file) holds the same, its fighters dictionary-coded as the worker counted them
and without names and sides (the roster gives them back), and carries who it is
(run, chunk, battles) in the schema's metadata under ``PART_KEY``.

pyarrow is imported inside the functions: it takes a noticeable share of a
second to import, and most commands (and ``sim --help``) never touch a table.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from typing import Any

from sim.day.file import MAX_STEPS
from sim.day.play import StepResult
from sim.day.stats import DayRow
from sim.io.arrow import load_arrow
from sim.scenario.limits import MAX_ROUNDS
from sim.tally.columns import BattleColumns, BattleRow

PART_KEY = b"combat-sim"  # the schema metadata key of a part's identity


# Schemas are immutable Arrow objects, built once: a chunk asks for several, and building
# one costs more than converting a small column.
@functools.cache
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


@functools.cache
def fighter_type() -> Any:
    """A fighter row (``sim.tally.columns.FighterRow``): the combatant's struct after name and side."""
    import pyarrow as pa

    return pa.struct(list(parquet_schema().field("combatants").type.value_type)[2:])


@functools.cache
def part_schema(days: bool = False) -> Any:
    """A part's table: a battle per row, its fighters dictionary-coded (a list of codes into the
    chunk's few dozen distinct fighter rows); names and sides are the scenario's roster."""
    import pyarrow as pa

    schema = pa.schema([
        ("index", pa.int64()), ("seed", pa.int64()), ("winner", pa.string()), ("rounds", pa.int32()),
        ("fighters", pa.list_(pa.dictionary(pa.int32(), fighter_type()))),
    ])
    return _with_day_fields(schema) if days else schema


def battles_part(battles: BattleColumns) -> Any:
    """A chunk's battles as a part: its columns, copied into Arrow as they are."""
    load_arrow()  # a worker's first part: pyarrow loads here
    import pyarrow as pa

    codes = pa.DictionaryArray.from_arrays(pa.array(battles.codes, pa.int32()),
                                           pa.array(battles.distinct(), fighter_type()))
    offsets = pa.array(range(0, len(battles.codes) + 1, battles.width), pa.int32())
    return pa.table([
        pa.array(battles.indexes, pa.int64()),
        pa.array(battles.seeds, pa.int64()),
        pa.array(battles.winners, pa.string()),
        pa.array(battles.rounds, pa.int32()),
        pa.ListArray.from_arrays(offsets, codes),
    ], schema=part_schema())


def full_table(part: Any, roster: Sequence[tuple[str, str]]) -> Any:
    """A part's battles as battles.parquet rows: each fighter's row decoded, with its name and
    side (the part must have passed ``part_problem``)."""
    import pyarrow as pa

    days = "steps" in part.column_names
    schema = day_schema() if days else parquet_schema()
    fields = list(schema.field("combatants").type.value_type)
    coded = _arrow("list_flatten", part.column("fighters").combine_chunks())
    fighters = _arrow("take", coded.dictionary, coded.indices).flatten()
    names, sides, offsets = _roster_columns(tuple(roster), len(part))
    combatants = pa.ListArray.from_arrays(
        offsets, pa.StructArray.from_arrays([names, sides, *fighters], fields=fields))
    return pa.table([combatants if name == "combatants" else part.column(name) for name in schema.names],
                    schema=schema)


def _arrow(function: str, *args: Any) -> Any:
    """Arrow's compute ``function`` called through its registry. ``Array.take`` and
    ``ListArray.flatten`` import ``pyarrow.compute``, which wraps and documents every
    Arrow function on import: about 25 ms of every run, for the two a run needs."""
    from pyarrow._compute import call_function

    return call_function(function, list(args))


def part_problem(part: Any, width: int) -> str | None:
    """What makes a part's table unusable for a run of ``width`` combatants, or None: its
    schema read back and fully validated says nothing of missing values or list lengths."""
    import pyarrow.compute as pc

    if not part.schema.equals(part_schema("steps" in part.column_names)):
        return "not a part of this program"
    fighters = part.column("fighters").combine_chunks()
    lengths = pc.min_max(pc.list_value_length(fighters)).as_py()
    if len(part) and lengths != {"min": width, "max": width}:
        return f"its battles do not have {width} combatants each"
    if any(_missing(part.column(name).combine_chunks(), name) for name in part.column_names):
        return "a value is missing"
    return None


# The only values a row may leave empty: a draw's winner, a survivor's cause of death, a
# fighter's morale state, a step's winner (one not reached, or a draw).
MAY_BE_EMPTY = frozenset({"winner", "fighters.cause", "fighters.morale", "steps.winner",
                          "combatants.cause", "combatants.morale"})
MAX_RUN_ROUNDS = MAX_ROUNDS * MAX_STEPS  # a day's rounds are its fights' rounds


def battles_problem(table: Any) -> str | None:
    """What makes columns read from battles.parquet unusable, or None: a type other than
    this program writes, a value missing where none may be, rounds out of range."""
    import pyarrow.compute as pc

    written = day_schema()  # a battle row's columns, and a day's
    for name in table.column_names:
        if name not in written.names or not table.schema.field(name).type.equals(written.field(name).type):
            return f"its column {name!r} is not what this program writes"
        if _missing(table.column(name).combine_chunks(), name):
            return f"a value is missing in {name!r}"
    if "rounds" in table.column_names and len(table):
        bounds = pc.min_max(table.column("rounds")).as_py()
        if not 0 <= bounds["min"] <= bounds["max"] <= MAX_RUN_ROUNDS:
            return f"its rounds must be 0 to {MAX_RUN_ROUNDS} (got {bounds['min']}..{bounds['max']})"
    return None


def count_problem(rows: int, battles: int) -> str | None:
    """What makes battles.parquet's row count other than the run's ``battles``, or None: rows
    cut off or pasted twice (with the run id kept) were read as the run's, and sim replay
    --worst blamed a --battle nobody gave for an index out of range."""
    if rows != battles:
        return f"it holds {rows} battles where the run played {battles}"
    return None


def index_problem(table: Any, start: int, battles: int) -> str | None:
    """What makes a batch of battles.parquet's rows other than battles ``start``,
    ``start + 1``... of the run's ``battles``, in order, or None (checked only when the index
    column was read)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if "index" in table.column_names and len(table) and not pc.all(
            pc.equal(table.column("index"), pa.array(range(start, start + len(table)), pa.int64()))).as_py():
        return f"its index must run from 0 to {battles - 1}, each battle once, in order"
    return None


def _missing(array: Any, path: str) -> bool:
    """Whether a value is missing anywhere in ``array`` (its nested values too) where
    MAY_BE_EMPTY allows none."""
    import pyarrow as pa

    if array.null_count and path not in MAY_BE_EMPTY:
        return True
    kind = array.type
    if pa.types.is_dictionary(kind):
        return _missing(array.indices, path) or _missing(array.dictionary, path)
    if pa.types.is_list(kind):
        return _missing(array.flatten(), path)
    if pa.types.is_struct(kind):
        return any(_missing(array.field(k), f"{path}.{field.name}") for k, field in enumerate(kind))
    return False


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
        ("potions_start", pa.int64()), ("destiny_start", pa.int64()), ("fatigue_start", pa.int64()),
        ("down_start", pa.int64()),
    ])


def _with_day_fields(schema: Any) -> Any:
    """A day's row: a battle row of the day as a whole (the party's members at its end), then
    its steps in order, and whether the party survived and completed the day."""
    import pyarrow as pa

    return schema.append(pa.field("steps", pa.list_(_step_type()))).append(
        pa.field("survived", pa.bool_())).append(pa.field("completed", pa.bool_()))


@functools.cache
def day_schema() -> Any:
    return _with_day_fields(parquet_schema())


def day_part(rows: Sequence[DayRow], width: int) -> Any:
    """A chunk's days as a part: the battle part of their rows, then steps and ends."""
    import pyarrow as pa

    table = battles_part(BattleColumns.of_rows(rows, width))
    steps = pa.array([[s._asdict() for s in r[5]] for r in rows], pa.list_(_step_type()))
    table = table.append_column("steps", steps)
    table = table.append_column("survived", pa.array([r[6] for r in rows], pa.bool_()))
    return table.append_column("completed", pa.array([r[7] for r in rows], pa.bool_()))


def part_bytes(table: Any) -> bytes:
    """A chunk's table as the bytes of an Arrow IPC file: a copy of its buffers, no encoding.
    Parts are only read back by this program (resume, battles.parquet), so they skip
    Parquet's encode and decode; battles.parquet encodes each battle once."""
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


def part_rows(part: Any) -> list[BattleRow | DayRow]:
    """Rows back from a part (which passed ``part_problem``): battle rows
    (``sim.tally.columns.BattleRow``) or day rows (``sim.day.stats.DayRow``)."""
    coded = part.column("fighters").combine_chunks()
    distinct = [(f["hp"], f["status"], f["cause"], f["knocked_out"], f["morale"], tuple(f["learned"]),
                 f["items_used"]) for f in coded.flatten().dictionary.to_pylist()]
    codes = coded.flatten().indices.to_pylist()
    width = len(codes) // len(part) if len(part) else 0
    heads = zip(*(part.column(name).to_pylist() for name in ("index", "seed", "winner", "rounds")),
                strict=True)
    rows: list[BattleRow | DayRow] = [
        (*head, tuple(map(distinct.__getitem__, codes[b * width:(b + 1) * width])))
        for b, head in enumerate(heads)]
    if "steps" not in part.column_names:
        return rows
    ends = zip(part.column("steps").to_pylist(), part.column("survived").to_pylist(),
               part.column("completed").to_pylist(), strict=True)
    return [(*row, tuple(StepResult(**s) for s in steps), survived, completed)
            for row, (steps, survived, completed) in zip(rows, ends, strict=True)]


def part_identity_of(table: Any) -> dict[str, Any] | None:
    """The identity a part (or battles.parquet) carries in its metadata; None if unreadable."""
    raw = (table.schema.metadata or {}).get(PART_KEY)
    try:
        identity = json.loads(raw) if raw is not None else None
    except (ValueError, RecursionError):
        return None
    return identity if isinstance(identity, dict) else None

