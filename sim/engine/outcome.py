"""What one battle leaves for the batch: the winner, the rounds, a row per combatant."""

from __future__ import annotations

from typing import NamedTuple

# A fighter at the end of one battle: (final hp, status, cause of death or None, knocked
# out and survived, morale state at the end: demoralized / despairing / None, skills with
# a learning tick, items used). The batch counts these (sim.tally).
FighterRow = tuple[int, str, str | None, bool, str | None, tuple[str, ...], int]


class BattleOutcome(NamedTuple):
    """The result of one battle, small enough to aggregate by the thousand.

    ``rows`` holds one plain tuple per combatant, in scenario order: cheap to
    build and to send between processes. A named tuple, immutable, built in C: one a battle.
    """

    seed: int
    winner: str | None
    rounds: int
    rows: tuple[FighterRow, ...]
