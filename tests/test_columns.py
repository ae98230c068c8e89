"""A chunk's battles as columns: equal fighter rows share a code, and the rows come back."""

from __future__ import annotations

from sim.columns import BattleColumns, BattleRow

ALIVE = (12, "active", None, False, None, (), 0)
DEAD = (0, "dead", "weapon", False, None, (), 0)
OUT = (0, "unconscious", None, True, "demoralized", ("melee",), 1)
ROWS: list[BattleRow] = [
    (7, 101, "heroes", 3, (ALIVE, DEAD)),
    (8, 102, None, 9, (OUT, DEAD)),
    (9, 103, "heroes", 4, (ALIVE, ALIVE)),
]


class TestBattleColumns:
    def test_rows_come_back_in_order(self) -> None:
        """Rows coded into columns are the same rows again, in the same order."""
        battles = BattleColumns.of_rows(ROWS, 2)
        assert len(battles) == 3
        assert battles.rows() == ROWS

    def test_equal_fighter_rows_share_a_code(self) -> None:
        """Each distinct fighter row gets one code, in order of first appearance."""
        battles = BattleColumns.of_rows(ROWS, 2)
        assert battles.distinct() == [ALIVE, DEAD, OUT]
        assert battles.codes == [0, 1, 2, 1, 0, 0]

    def test_column_is_one_combatant_battle_after_battle(self) -> None:
        """column(k) holds the codes of the k-th combatant of every battle."""
        battles = BattleColumns.of_rows(ROWS, 2)
        assert battles.column(0) == [0, 2, 0]
        assert battles.column(1) == [1, 1, 0]
        assert battles.fighters(1, battles.distinct()) == (OUT, DEAD)

    def test_day_rows_keep_their_battle_part(self) -> None:
        """A day row (a battle row followed by its steps and ends) is coded by its battle part."""
        day_rows = [(*row, (), True, True) for row in ROWS]
        assert BattleColumns.of_rows(day_rows, 2).rows() == ROWS

    def test_no_battles(self) -> None:
        """An empty chunk has no codes and no rows."""
        battles = BattleColumns(3)
        assert len(battles) == 0 and battles.rows() == [] and battles.column(2) == []
