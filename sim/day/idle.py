"""What a day's fights leave idle: the warnings a day tells (valid data it does not use)."""

from __future__ import annotations

from collections.abc import Sequence

from sim.errors import Problem

Where = tuple[str, int, int, str]


def fights_warnings(day_file: str, told: Sequence[Sequence[Problem]]) -> list[Problem]:
    """The warnings of a day's fights (``told``: each encounter's, in order), each key once.

    An encounter's own keys are its own. A key of the day's party (in ``day_file``, under
    ``party``) fights in every encounter, so it is idle only when every one of them leaves it
    idle: a bow idle in a fight at 0 m still shoots in the one at 20 m, and a warning there
    would ask to delete what that fight needs (and --strict would refuse the day)."""
    first: dict[Where, Problem] = {}
    fights: dict[Where, int] = {}  # how many encounters told each key
    for warnings in told:
        for where in {w.where() for w in warnings}:
            fights[where] = fights.get(where, 0) + 1
        for warning in warnings:
            first.setdefault(warning.where(), warning)
    return [w for where, w in first.items()
            if not (w.file == day_file and w.path.startswith("party")) or fights[where] == len(told)]
