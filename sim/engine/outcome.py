"""What one battle leaves for the batch: the winner, the rounds, a row per combatant."""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

if TYPE_CHECKING:
    from sim.tally.columns import FighterRow


@attrs.frozen
class BattleOutcome:
    """The result of one battle, small enough to aggregate by the thousand.

    ``rows`` holds one plain tuple per combatant, in scenario order: cheap to
    build and to send between processes.
    """

    seed: int
    winner: str | None
    rounds: int
    rows: tuple[FighterRow, ...]
