"""What happened to the party in one battle: the per-battle facts behind the GM metrics.

The batch summary, ``sim compare`` and ``sim tune`` all count the same things
per battle, so they read them from here: did the party win, did it die to the
last member (TPK), how many of its members went down at some moment, and how
many are dead at the end. Mounts never count (they make no TPK, see rules §5).
The difficulty verdict built on those counts lives here too (README, "Party metrics").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from sim.engine.outcome import FighterRow
    from sim.model import Scenario

# Final statuses that mean the member went down at some moment: dead members
# reached 0 HP first, a broken mind stays broken to the end of the battle, and the left
# behind lay unconscious or broken when their side lost.
# Members who went down and came back carry the "knocked out" flag of their row.
_DOWN_STATUSES = frozenset({"dead", "broken", "left_behind"})


class PartyOutcome(NamedTuple):
    """The party's fate in one battle."""

    won: bool
    tpk: bool
    downs: int  # members who reached 0 HP, were knocked out or broken, at any moment
    deaths: int  # members dead at the end

    @classmethod
    def from_counts(cls, won: bool, deaths: int, downs: int, size: int) -> PartyOutcome:
        """The fate of a party of ``size`` members from its counts: a TPK is every member
        dead, and a party with no member (mounts only) never has one."""
        return cls(won, size > 0 and deaths == size, downs, deaths)


def party_side(scenario: Scenario) -> str | None:
    """The name of the side with ``party: true``, or None."""
    return next((s.name for s in scenario.sides if s.party), None)


def party_indexes(scenario: Scenario) -> tuple[int, ...]:
    """Positions, in the battle row, of the party's members (mounts left out)."""
    party = party_side(scenario)
    return tuple(i for i, c in enumerate(scenario.combatants)
                 if c.side == party and c.rider is None)


def went_down(fighter: FighterRow) -> bool:
    """Whether a combatant reached 0 HP, was knocked out or had its mind broken, at any moment."""
    return fighter[3] or fighter[1] in _DOWN_STATUSES


def left_behind(fighter: FighterRow) -> bool:
    """Whether a combatant was left behind, alive, when its side lost while one of it got
    away (rules §5)."""
    return fighter[1] == "left_behind"


def party_outcome(winner: str | None, fighters: Sequence[FighterRow], party: str | None,
                  members: Sequence[int]) -> PartyOutcome:
    """Read the party's fate off one battle's fighter rows (see ``sim.tally.stats.FighterRow``)."""
    downs = deaths = 0
    for index in members:
        fighter = fighters[index]
        deaths += fighter[1] == "dead"
        downs += went_down(fighter)
    return PartyOutcome.from_counts(winner is not None and winner == party, deaths, downs, len(members))


# The difficulty bands, easiest first, and what keeps a battle inside each (all strict "<").
# Each band asks at most as much as the next, so a band never gets easier when any_down or
# any_death grows: the bands of an interval's two ends bracket the band of its estimate.
DIFFICULTIES = ("trivial", "easy", "medium", "hard", "deadly", "overwhelming")


def difficulty(any_down: float, any_death: float) -> str:
    """The difficulty band of a party's chances that someone goes down and that someone dies."""
    if any_down < 0.05:
        return "trivial"
    if any_down < 0.25 and any_death < 0.01:
        return "easy"
    for band, limit in (("medium", 0.05), ("hard", 0.15), ("deadly", 0.50)):
        if any_death < limit:
            return band
    return "overwhelming"
