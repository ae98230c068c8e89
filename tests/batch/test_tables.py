"""Parts and battles.parquet rows: coded parts decode to the same rows, and a part that
could not come from this program is named, never read out of bounds."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import pyarrow as pa
import pytest

from sim.batch.tables import (
    battles_part,
    day_part,
    full_table,
    parquet_schema,
    part_bytes,
    part_problem,
    part_rows,
    part_table,
)
from sim.day.play import StepResult
from sim.tally.columns import BattleColumns
from tests.builders import BATTLE_ROWS

ROSTER = [("Aria", "heroes"), ("ghoul", "ghouls")]
ROOT = pathlib.Path(__file__).resolve().parents[2]


def part() -> pa.Table:
    return part_table(part_bytes(battles_part(BattleColumns.of_rows(BATTLE_ROWS, 2))))


def holed(table: pa.Table, column: str) -> pa.Table:
    """The table with the first value of ``column`` missing."""
    position = table.schema.get_field_index(column)
    field = table.schema.field(column)
    values = table.column(column).to_pylist()
    return table.set_column(position, field, pa.array([None, *values[1:]], field.type))


class TestParts:
    def test_part_gives_its_rows_back(self) -> None:
        """A part read back gives the rows it was made of, and passes the checks."""
        assert part_problem(part(), 2) is None
        assert part_rows(part()) == BATTLE_ROWS

    def test_full_table_names_each_fighter(self) -> None:
        """battles.parquet rows: each fighter decoded, with its name and side from the roster."""
        table = full_table(part(), ROSTER)
        assert table.schema.equals(parquet_schema())
        second = table.to_pylist()[1]
        assert (second["index"], second["seed"], second["winner"], second["rounds"]) == (8, 102, None, 9)
        assert second["combatants"] == [
            {"name": "Aria", "side": "heroes", "hp": 0, "status": "unconscious", "cause": None,
             "knocked_out": True, "morale": "demoralized", "learned": ["melee"], "items_used": 1},
            {"name": "ghoul", "side": "ghouls", "hp": 0, "status": "dead", "cause": "weapon",
             "knocked_out": False, "morale": None, "learned": [], "items_used": 0}]

    def test_full_table_of_a_slice_keeps_its_own_battles(self) -> None:
        """A slice of a part (a table that does not start at its first row) decodes to its own
        battles."""
        assert full_table(part().slice(1), ROSTER).to_pylist() == full_table(part(), ROSTER).to_pylist()[1:]

    def test_decoding_loads_no_compute_module(self) -> None:
        """Storing a part imports no ``pyarrow.compute`` (about 25 ms of every run's time)."""
        probe = ("import sys; from tests.batch.test_tables import part, ROSTER;"
                 " from sim.batch.tables import full_table; full_table(part(), ROSTER);"
                 " print('pyarrow.compute' in sys.modules)")
        result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                                check=True, cwd=ROOT)
        assert result.stdout.strip() == "False"

    def test_day_part_keeps_steps_and_ends(self) -> None:
        """A day part gives back its steps and whether the party survived and completed it."""
        step = StepResult(0, True, True, "heroes", 3, False, False, 20, 1, 0)
        rows = [(*row, (step,), True, index == 0) for index, row in enumerate(BATTLE_ROWS)]
        table = part_table(part_bytes(day_part(rows, 2)))
        assert part_problem(table, 2) is None
        assert part_rows(table) == rows
        assert full_table(table, ROSTER).column("completed").to_pylist() == [True, False, False]

    def test_other_width_is_named(self) -> None:
        """A part whose battles have another number of combatants than the run's is refused."""
        assert part_problem(part(), 3) == "its battles do not have 3 combatants each"

    @pytest.mark.parametrize("column", ["index", "seed", "rounds"])
    def test_missing_value_is_named(self, column: str) -> None:
        """A part with a missing index, seed or rounds value is refused."""
        table = part()
        assert part_problem(holed(table, column), 2) == "a value is missing"

    def test_other_schema_is_named(self) -> None:
        """battles.parquet's own schema (decoded fighters) is not a part."""
        assert part_problem(full_table(part(), ROSTER), 2) == "not a part of this program"

    def test_code_out_of_range_is_refused_on_reading(self) -> None:
        """A code past the distinct fighter rows fails full validation when the part is read."""
        table = battles_part(BattleColumns.of_rows(BATTLE_ROWS, 2))
        coded = table.column("fighters").combine_chunks()
        bad_codes = pa.DictionaryArray.from_arrays(pa.array([0, 1, 2, 1, 0, 7], pa.int32()),
                                                   coded.flatten().dictionary, safe=False)
        bad = table.set_column(4, table.schema.field("fighters"),
                               pa.ListArray.from_arrays(coded.offsets, bad_codes))
        with pytest.raises(pa.ArrowException):
            part_table(part_bytes(bad))

    def test_missing_fighter_row_is_named(self) -> None:
        """A distinct fighter row that is missing altogether (not one of its fields) is refused."""
        table = battles_part(BattleColumns.of_rows(BATTLE_ROWS, 2))
        coded = table.column("fighters").combine_chunks()
        codes = coded.flatten()
        rows = codes.dictionary
        holed = pa.StructArray.from_arrays(rows.flatten(), fields=list(rows.type),
                                           mask=pa.array([False, True, False]))
        bad = table.set_column(4, table.schema.field("fighters"), pa.ListArray.from_arrays(
            coded.offsets, pa.DictionaryArray.from_arrays(codes.indices, holed)))
        assert part_problem(part_table(part_bytes(bad)), 2) == "a value is missing"

    @pytest.mark.parametrize("column", ["survived", "steps"])
    def test_missing_day_value_is_named(self, column: str) -> None:
        """A day part with a missing end or steps, or a step missing a value, is refused; a
        step's winner may be empty (a draw)."""
        step = StepResult(0, True, True, None, 3, False, False, 20, 1, 0)
        table = day_part([(*row, (step,), True, True) for row in BATTLE_ROWS], 2)
        assert part_problem(table, 2) is None
        assert part_problem(holed(table, column), 2) == "a value is missing"
        no_step_number = [(*row, (step._replace(step=None),), True, True) for row in BATTLE_ROWS]
        assert part_problem(day_part(no_step_number, 2), 2) == "a value is missing"
