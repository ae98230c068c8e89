"""The round clock and initiative: rounds on the SimPy clock, group initiative, the surprise
round, and each turn at its own time.

Round r starts at t = r - 1; turn i of n at t = r - 1 + (i + 1) / (n + 1). Ongoing
effects are SimPy processes waiting on their owner's turn: the clock steps SimPy to a
turn only when something waits on it. Owns ``round``/``t`` on the table, the turn
orders and ``surprising``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import simpy

from sim.dice import roll_die
from sim.engine.timeline import run_timeline
from sim.engine.turn import Turns

if TYPE_CHECKING:
    from collections.abc import Generator

    from sim.engine.outcome import BattleOutcome
    from sim.engine.state import Fighter

INITIATIVE_WINS_ON = 4  # 4-6 on the d6: the party acts first


class Clock(Turns):
    """A layer of ``Battle`` (on ``Turns``): the round clock (``run``) and initiative. Its state (set up in
    ``Battle.__init__`` under "Clock"): the surprise side and the two turn orders; it moves
    ``table.round``, ``table.t`` and ``table.surprising``."""

    def _roll_surprise(self) -> None:
        """Settle who (if anyone) gets the surprise round, by group check if asked."""
        surprise = self.scenario.surprise
        if surprise is None:
            return
        if surprise.group_check is None:
            self.surprise_side = surprise.side
            return
        members = [f for f in self.fighters if f.side == surprise.side and f.able]
        if self.rules.group_check(self.table, members, surprise.group_check):
            self.surprise_side = surprise.side

    @property
    def env(self) -> simpy.Environment:
        """The battle's SimPy environment, made when first asked for: when an effect starts
        (most battles start none, and making one costs 3% of such a battle's time)."""
        if self._env is None:
            self._env = simpy.Environment()
        return self._env

    def _waiting(self) -> bool:
        """Whether anything is scheduled on the SimPy clock. Its schedule (a heap, one list for
        the environment's life) is read in place: ``env.peek()`` raises and catches an
        IndexError when it is empty, the common case, once a round."""
        return self._env is not None and bool(self._env._queue)

    def run(self) -> BattleOutcome:
        """Play the battle to its end and return its outcome."""
        self._setup()
        self._roll_surprise()
        clock = self._clock()
        if self._waiting():  # set-up started a process (a hazard): SimPy runs the clock
            self.env.process(clock)
            self.env.run()
        else:
            # Nothing scheduled: play the clock here, as SimPy would, until it first waits on
            # SimPy (an effect started): a process then goes on with it from that wait. SimPy's
            # process, its start and its run cost a battle with no effect 4% of its time.
            wait = next(clock, None)
            if wait is not None:
                self.env.process(_resumed(clock, wait))
                self.env.run()
        if not self.ended:  # max_rounds reached: a draw
            self.table.t = float(self.table.round)
            self._finish(None, stopped="max_rounds")
        return self._outcome()

    def _clock(self) -> Generator[simpy.Event, object, None]:
        """Round r starts at t = r - 1; turn i of n at t = r - 1 + (i + 1) / (n + 1).

        SimPy is stepped to a round's start only when some event is scheduled (an effect
        process starting, say): with nothing waiting, a timeout would wake the clock alone,
        so it is skipped; the next one that matters catches ``env.now`` up to the time.
        """
        table = self.table
        slots = len(self.fighters) + 1
        # Bound once, not once a round: the system's round hook and what it may call back.
        round_started, lose_spirit = self.rules.round_started, self.lose_spirit
        timeline, max_rounds = self.scenario.timeline, self.scenario.max_rounds
        for number in range(1, max_rounds + 1):
            table.round = number
            table.t = start = float(number - 1)
            if self._waiting():
                env = self.env
                yield env.timeout(max(0.0, start - env.now))
            surprise = number == 1 and self.surprise_side is not None
            table.surprising = self.surprise_side if surprise else None
            if self.log is not None:
                fields = {"surprise": self.surprise_side} if surprise else {}
                self.emit("round_started", **fields)
            order = self._surprise_order() if surprise else self._initiative()
            round_started(table, self.fighters, lose_spirit)
            if timeline:
                run_timeline(self, self.fighters, timeline, number)
            if self._standing <= 1 and self._decided():
                return
            if self._armed == 0 and number < max_rounds and self._stalemate():
                self._finish(None, stopped="stalemate")
                return
            i = self._turns(order, 0, number, slots)
            while 0 <= i < len(order):
                # Something waits on this turn: bring the SimPy clock to it so the effect
                # processes tick at the turn's own time, before it acts.
                table.t = round(number - 1 + (i + 1) / slots, 6)
                env = self.env
                yield env.timeout(max(0.0, table.t - env.now))
                yield from self._tick_effects(order[i])
                if self._standing <= 1 and self._decided():
                    return
                i = self._turns(order, i + 1, number, slots)
            if i < 0:
                return

    def _turns(self, order: list[Fighter], start: int, number: int, slots: int) -> int:
        """Take round ``number``'s turns from ``order[start]`` on while nothing waits on them:
        the index of the first fighter with effects waiting on its turn (the clock steps SimPy
        to it), -1 once the battle is decided, else the order's length. A method, not the
        clock's generator, so a compiled build types its loop (clock.pxd)."""
        log = self.log
        for i in range(start, len(order)):
            fighter = order[i]
            effects = fighter.effects
            if not (fighter.able or effects):
                continue  # dead, fled, or unconscious with nothing ticking
            if effects:
                return i
            if log is not None:  # the turn's time is only logged
                self.table.t = round(number - 1 + (i + 1) / slots, 6)
            self._take_turn(fighter)
            if self._standing <= 1 and self._decided():
                return -1
        return len(order)

    def _surprise_order(self) -> list[Fighter]:
        return [f for f in self.fighters if f.side == self.surprise_side]

    def _initiative(self) -> list[Fighter]:
        """Group initiative: the party (else the first side) rolls 1d6, 1d8 with the gift."""
        gifted = any([f.able for f in self._gifted])  # a list: compiled, ``f`` is typed (clock.pxd)
        die = 8 if gifted else 6
        roll = roll_die(self.table.rng, die)
        won = roll >= INITIATIVE_WINS_ON
        if self.log is not None:
            first = self._roller.name if won else self._others_first[0].side
            self.emit("initiative_rolled", side=self._roller.name, die=die, roll=roll, first=first)
        return self._roller_first if won else self._others_first

    def _tick_effects(self, fighter: Fighter) -> Generator[simpy.Event, object, None]:
        """Fire the fighter's turn event, let its effects tick, then take the turn."""
        if self.log is not None:
            self.emit("turn_started", actor=fighter.name)
        if fighter.start_turn():
            self.table.ticking = fighter
            yield self.env.timeout(0)  # effect processes waiting on the turn run first
            self.table.ticking = None
            if self._decided():
                return
        self._take_turn(fighter, announced=True)


def _resumed(clock: Generator[simpy.Event, object, None],
             wait: simpy.Event) -> Generator[simpy.Event, object, None]:
    """The clock's process once it first waits: the wait, then the rest of the clock."""
    yield wait
    yield from clock

