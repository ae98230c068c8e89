"""battles.parquet written as the run goes: named only when whole, dropped when the run stops."""

from __future__ import annotations

import errno
import pathlib

import pyarrow.parquet as pq
import pytest

from sim.batch.battles_file import BATTLES, BattlesWriter
from sim.batch.tables import battles_part
from sim.errors import RunAborted
from sim.tally.columns import BattleColumns

ROWS = [(0, 11, "heroes", 3, ((5, "active", None, False, None, (), 0),)),
        (1, 12, None, 9, ((0, "dead", "weapon", False, None, (), 0),))]
ROSTER = [("Aria", "heroes")]


def writer(tmp_path: pathlib.Path) -> BattlesWriter:
    battles = BattlesWriter(tmp_path, "run-1", ROSTER)
    battles.add(battles_part(BattleColumns.of_rows(ROWS, 1)))
    return battles


class TestBattlesWriter:
    def test_named_when_whole(self, tmp_path: pathlib.Path) -> None:
        """finish gives the file its name, with the run's id and every battle, and leaves no
        temporary file."""
        writer(tmp_path).finish(2)
        table = pq.read_table(tmp_path / BATTLES)
        assert table.column("index").to_pylist() == [0, 1]
        assert table.schema.metadata[b"combat-sim"] == b'{"run_id": "run-1"}'
        assert sorted(p.name for p in tmp_path.iterdir()) == [BATTLES]

    def test_short_file_is_never_named(self, tmp_path: pathlib.Path) -> None:
        """A file holding fewer battles than the run counted is an error, and is not named."""
        with pytest.raises(RunAborted, match="holds 2 of the run's 3 battles"):
            writer(tmp_path).finish(3)
        assert not (tmp_path / BATTLES).exists()

    def test_discard_leaves_nothing(self, tmp_path: pathlib.Path) -> None:
        """A stopped run drops the half-written file (the journal keeps the parts)."""
        writer(tmp_path).discard()
        assert list(tmp_path.iterdir()) == []

    def test_full_disk_is_one_line(self, tmp_path: pathlib.Path, monkeypatch) -> None:
        """ENOSPC while naming the file: RunAborted naming battles.parquet, nothing named."""
        battles = writer(tmp_path)

        def full(*args: object) -> None:
            raise OSError(errno.ENOSPC, "No space left on device")

        monkeypatch.setattr("sim.batch.battles_file.os.replace", full)
        with pytest.raises(RunAborted, match=r"battles.parquet:0:0: \(document\): cannot write"):
            battles.finish(2)
        battles.discard()
        assert list(tmp_path.iterdir()) == []

    def test_small_parts_are_joined_as_they_come(self, tmp_path: pathlib.Path, monkeypatch) -> None:
        """Parts of one battle (--chunk 1) are joined every JOIN_PARTS, not held apart until
        the row group is full; the file holds every battle, in order, in one row group."""
        monkeypatch.setattr("sim.batch.battles_file.JOIN_PARTS", 3)
        battles = BattlesWriter(tmp_path, "run-1", ROSTER)
        rows = [(i, 10 + i, "heroes", 3, ((5, "active", None, False, None, (), 0),)) for i in range(10)]
        for row in rows:
            battles.add(battles_part(BattleColumns.of_rows([row], 1)))
            assert len(battles.group) < 3
        battles.finish(10)
        file = pq.ParquetFile(tmp_path / BATTLES)
        assert file.read().column("index").to_pylist() == list(range(10))
        assert file.metadata.num_row_groups == 1
