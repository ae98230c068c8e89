"""A chunk's battles as columns: equal fighter rows share a code, and the rows come back."""

from __future__ import annotations

from sim.tally.columns import BattleColumns
from tests.builders import ALIVE_ROW, BATTLE_ROWS, DEAD_ROW, OUT_ROW


class TestBattleColumns:
    def test_rows_come_back_in_order(self) -> None:
        """Rows coded into columns are the same rows again, in the same order."""
        battles = BattleColumns.of_rows(BATTLE_ROWS, 2)
        assert len(battles) == 3
        assert battles.rows() == BATTLE_ROWS

    def test_equal_fighter_rows_share_a_code(self) -> None:
        """Each distinct fighter row gets one code, in order of first appearance."""
        battles = BattleColumns.of_rows(BATTLE_ROWS, 2)
        assert battles.distinct() == [ALIVE_ROW, DEAD_ROW, OUT_ROW]
        assert battles.codes == [0, 1, 2, 1, 0, 0]

    def test_column_is_one_combatant_battle_after_battle(self) -> None:
        """column(k) holds the codes of the k-th combatant of every battle."""
        battles = BattleColumns.of_rows(BATTLE_ROWS, 2)
        assert battles.column(0) == [0, 2, 0]
        assert battles.column(1) == [1, 1, 0]
        assert battles.fighters(1, battles.distinct()) == (OUT_ROW, DEAD_ROW)

    def test_day_rows_keep_their_battle_part(self) -> None:
        """A day row (a battle row followed by its steps and ends) is coded by its battle part."""
        day_rows = [(*row, (), True, True) for row in BATTLE_ROWS]
        assert BattleColumns.of_rows(day_rows, 2).rows() == BATTLE_ROWS

    def test_no_battles(self) -> None:
        """An empty chunk has no codes and no rows."""
        battles = BattleColumns(3)
        assert len(battles) == 0 and battles.rows() == [] and battles.column(2) == []
