"""The table one battle is played on: its dice, its event log, where the clock stands,
and who listens to the checks rolled.

Rule systems, effects, morale, tactics and items take a ``Table`` and the fighters
they act on, never the whole ``Battle``: the engine moves the clock, they read it.
Every emit sits behind ``if table.log is not None``: with logging off no event is
even built.
"""

from __future__ import annotations

import _random
import random
from typing import TYPE_CHECKING

from sim.rules import actors

if TYPE_CHECKING:
    from collections.abc import Callable

    from sim.engine.state import Fighter
    from sim.rules import CheckResult

    # (who, skill, result, again) -> the final result; ``again(purpose)`` rolls the check anew.
    CheckListener = Callable[[Fighter, str, CheckResult, Callable[[str], CheckResult]], CheckResult]


_NEW = random.Random.__new__
_SEED = _random.Random.seed  # the C seeding: an int seed is used as is (random.seed's docs)


def seeded(seed: int) -> random.Random:
    """``random.Random(seed)``, the same generator in the same state, without the two Python
    layers it goes through (``Random.__init__``, then ``Random.seed``, which for an int hands
    it to the C seeding below as is): a battle is 1% faster. tests/engine/test_table.py holds
    them equal."""
    rng = _NEW(random.Random)
    _SEED(rng, seed)
    rng.gauss_next = None  # what Random.seed leaves: no Gaussian value pending
    return rng


class Table(actors.Table):
    """One battle's ``random.Random(seed)``, its event list (None: no log), the round and
    time (``t``) events are stamped with, the side whose surprise round this is, and the
    listener every check passes through once rolled (morale's reroll, when morale is on)."""

    __slots__ = ("despair_again", "ticking")

    def __init__(self, seed: int, log: bool, sink: list[dict] | None = None) -> None:
        self.use(seeded(seed))
        # ``sink``: the list to log to (a day's, or one that streams to a file: sim.events)
        self.log: list[dict] | None = (sink if sink is not None else []) if log else None
        self.round = 0
        self.t = 0.0
        self.surprising: str | None = None  # the surprise side, during round 1 only
        self.on_check: CheckListener | None = None
        # Morale (rules §4, Convention): a despairing combatant rolls every check at a
        # disadvantage and cannot despair again; the options ``despair_disadvantage: false``
        # and ``despair_again: true`` set these aside. Read only once a fighter despairs
        # (``who.despairing and ...``), so they cost nothing otherwise.
        self.despair_disadvantage = True
        self.despair_again = False
        # The fighter whose ongoing effects are ticking at the start of its turn, else None:
        # a serious wound dealt by such a tick costs that very turn (sim.engine.effects.KnockedOut).
        self.ticking: Fighter | None = None

    def use(self, rng: random.Random) -> None:
        """Roll with ``rng`` (a test's scripted dice): ``draw`` is its ``random``, bound once
        for the hot path (a bound method saves a lookup on every die; rules §1's dice are
        still this one ``random.Random``)."""
        self.rng = rng
        self.draw = rng.random
