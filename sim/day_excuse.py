"""Which idle keys of a day's party a day excuses: the party is one for the whole day.

Each encounter of a day is validated as a scenario with the day's party as its party side,
and refuses the keys it leaves idle (sim.scenario.unused). A key of the party that one
encounter leaves idle (a member's spirit where that fight has no terror) but another reads
does matter: the day refuses it only where every encounter refuses it. Only idle-key
refusals are excused; any other problem of the party (a side name an encounter also uses)
stands wherever it is found.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence, Set

from sim.errors import Problem


def party_excuse(day_file: str, fights: Sequence[Sequence[Problem]], idle: Set[Problem]
                 ) -> Callable[[Problem], bool]:
    """Whether a problem found in one encounter (``fights``: each encounter's problems;
    ``idle``: those that refuse an idle key) is an idle key of the party that some other
    encounter reads, so that it is not reported."""

    def at_party(p: Problem) -> bool:
        return p in idle and p.file == day_file and (p.path == "party" or p.path.startswith("party."))

    where = [{(p.line, p.col, p.path) for p in fight if at_party(p)} for fight in fights]
    everywhere = set.intersection(*where) if where else set()

    def excused(p: Problem) -> bool:
        return at_party(p) and (p.line, p.col, p.path) not in everywhere

    return excused
