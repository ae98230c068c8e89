"""A chunk's battles as columns, its fighter rows dictionary-coded: what counting and
the Arrow part read.

A worker keeps no object per battle: it appends each battle's winner and rounds
(shared objects) and a code per fighter row. A chunk of 500 battles of ten
combatants ends in a few dozen distinct fighter rows, so equal rows share one
code: counting hashes small ints instead of tuples, the Arrow part is a ``take``
of the distinct rows, and the battles' own row tuples are freed as soon as they
are coded (kept, they spread a chunk over fresh memory and slow the next battles).
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Sequence

import attrs

from sim.engine.outcome import FighterRow

# One battle as workers send it: (index, seed, winner, rounds, fighters), each fighter
# an engine.outcome.FighterRow, in the scenario's combatant order.
BattleRow = tuple[int, int, str | None, int, tuple[FighterRow, ...]]


def _coder() -> defaultdict[FighterRow, int]:
    """Fighter row -> code, a new row getting the next code (all in C: no Python call)."""
    return defaultdict(itertools.count().__next__)


@attrs.define
class BattleColumns:
    """Battles ``indexes`` with their seeds, winners, rounds and ``width`` fighter codes each."""

    width: int  # combatants per battle
    indexes: list[int] = attrs.Factory(list)
    seeds: list[int] = attrs.Factory(list)
    winners: list[str | None] = attrs.Factory(list)
    rounds: list[int] = attrs.Factory(list)
    codes: list[int] = attrs.Factory(list)  # battle after battle, ``width`` each
    # Fighter row -> code, in code order (a plain dict once ``sendable``)
    coder: dict[FighterRow, int] = attrs.Factory(_coder)

    def add(self, index: int, seed: int, winner: str | None, rounds: int,
            fighters: Sequence[FighterRow]) -> None:
        self.indexes.append(index)
        self.seeds.append(seed)
        self.winners.append(winner)
        self.rounds.append(rounds)
        self.codes.extend(map(self.coder.__getitem__, fighters))

    @classmethod
    def of_rows(cls, rows: Sequence[BattleRow], width: int) -> BattleColumns:
        columns = cls(width)
        for row in rows:
            columns.add(*row[:5])  # a day row adds its steps after these
        return columns

    def sendable(self) -> BattleColumns:
        """These columns with a plain dict for a coder, to send to another process: the
        coder's factory (an itertools counter) does not pickle, and no row is added now."""
        return attrs.evolve(self, coder=dict(self.coder))

    def __len__(self) -> int:
        return len(self.indexes)

    def distinct(self) -> list[FighterRow]:
        """Code -> fighter row."""
        return list(self.coder)

    def column(self, position: int) -> list[int]:
        """The codes of the combatant at ``position``, battle after battle."""
        return self.codes[position::self.width]

    def fighters(self, battle: int, distinct: Sequence[FighterRow]) -> tuple[FighterRow, ...]:
        """The fighter rows of the ``battle``-th battle (0 is the first of these columns)."""
        return tuple(map(distinct.__getitem__, self.codes[battle * self.width:(battle + 1) * self.width]))

    def rows(self) -> list[BattleRow]:
        """The battles as rows again."""
        distinct = self.distinct()
        return [(index, seed, winner, rounds, self.fighters(b, distinct))
                for b, (index, seed, winner, rounds)
                in enumerate(zip(self.indexes, self.seeds, self.winners, self.rounds, strict=True))]
