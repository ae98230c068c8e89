"""What happened to the party in one battle: the per-battle facts behind the GM metrics.

The batch summary, ``sim compare`` and ``sim tune`` all count the same things
per battle, so they read them from here: did the party win, did it die to the
last member (TPK), how many of its members went down at some moment, and how
many are dead at the end. Mounts never count (they make no TPK, see RULES 5).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from sim.model import Scenario
    from sim.stats import FighterRow

# Final statuses that mean the member went down at some moment: dead members
# reached 0 HP first, and a broken mind stays broken to the end of the battle.
# Members who went down and came back carry the "knocked out" flag of their row.
_DOWN_STATUSES = frozenset({"dead", "broken"})


class PartyOutcome(NamedTuple):
    """The party's fate in one battle."""

    won: bool
    tpk: bool
    downs: int  # members who reached 0 HP, were knocked out or broken, at any moment
    deaths: int  # members dead at the end


def party_side(scenario: Scenario) -> str | None:
    """The name of the side with ``party: true``, or None."""
    return next((s.name for s in scenario.sides if s.party), None)


def party_indexes(scenario: Scenario) -> tuple[int, ...]:
    """Positions, in the battle row, of the party's members (mounts left out)."""
    party = party_side(scenario)
    return tuple(i for i, c in enumerate(scenario.combatants)
                 if c.side == party and c.rider is None)


def party_outcome(winner: str | None, fighters: Sequence[FighterRow], party: str | None,
                  members: Sequence[int]) -> PartyOutcome:
    """Read the party's fate off one battle's fighter rows (see ``sim.stats.FighterRow``)."""
    downs = deaths = 0
    for index in members:
        _, status, _, knocked_out, _, _ = fighters[index]
        deaths += status == "dead"
        downs += knocked_out or status in _DOWN_STATUSES
    tpk = bool(members) and deaths == len(members)
    return PartyOutcome(winner is not None and winner == party, tpk, downs, deaths)
