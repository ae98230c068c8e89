"""Idle keys excused where another use of the same key reads it.

A scenario refuses the keys it leaves idle (sim.scenario.unused). Where one written key
is validated in several fights, it matters if any of them reads it: a day's party in
each of its encounters (a member's spirit where only one fight has terror), a file's
variants in a comparison (a target policy in a sweep of count=1..6: one enemy at 1). It
is refused only where every use refuses it. A key is known by where it is written (file,
line, column, path), not by the message, which may say how it is idle there. Only
idle-key refusals are excused; any other problem stands wherever it is found.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence, Set

from sim.errors import Problem

Where = tuple[str, int, int, str]


def where(problem: Problem) -> Where:
    """Where a problem's key is written: the same key in two uses."""
    return problem.file, problem.line, problem.col, problem.path


def read_elsewhere(uses: Sequence[Iterable[Problem]]) -> Callable[[Problem], bool]:
    """Whether a problem refuses a key idle in one of ``uses`` (each use's idle-key refusals)
    that another use does not refuse, so that it is not reported."""
    keys = [{where(p) for p in use} for use in uses]
    everywhere = set.intersection(*keys) if keys else set()
    idle_somewhere = set().union(*keys)
    return lambda p: where(p) in idle_somewhere and where(p) not in everywhere


def party_excuse(day_file: str, fights: Sequence[Sequence[Problem]], idle: Set[Problem]
                 ) -> Callable[[Problem], bool]:
    """A day's: an idle key of its party (``fights``: each encounter's problems; ``idle``:
    those that refuse an idle key) that some other encounter reads."""

    def at_party(p: Problem) -> bool:
        return p in idle and p.file == day_file and (p.path == "party" or p.path.startswith("party."))

    elsewhere = read_elsewhere([[p for p in fight if at_party(p)] for fight in fights])
    return lambda p: at_party(p) and elsewhere(p)
