"""Ongoing effects as SimPy processes that tick at the start of their owner's turns."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from collections.abc import Generator

    import simpy

    from sim.engine import Battle
    from sim.state import Fighter


class OngoingEffect:
    """An effect owned by one fighter: started, ticked each of its turns, ended.

    Subclasses set ``name`` (the ``effect`` field of the log) and implement
    ``tick``. The tick runs at the start of the owner's turn, before it acts,
    even when it is unconscious (RULES.md §2: a burning body keeps burning).
    """

    name: ClassVar[str] = "effect"

    def __init__(self, battle: Battle, owner: Fighter) -> None:
        self.battle = battle
        self.owner = owner
        self.active = False
        self.ticks = 0
        self._process: simpy.Process | None = None

    def start(self, **fields: object) -> None:
        """Attach to the owner, log ``effect_started`` and begin waiting for its turns."""
        self.active = True
        self.owner.effects.append(self)
        if self.battle.log is not None:
            self.battle.emit("effect_started", target=self.owner.name, effect=self.name, **fields)
        self._process = self.battle.env.process(self._run())

    def end(self, reason: str) -> None:
        """Detach from the owner and log ``effect_ended`` with why it ended."""
        if not self.active:
            return
        self.active = False
        self.owner.effects.remove(self)
        if self.battle.log is not None:
            self.battle.emit("effect_ended", target=self.owner.name, effect=self.name, reason=reason)

    def _run(self) -> Generator[simpy.Event, object, None]:
        while self.active:
            yield self.owner.next_turn(self.battle.env)
            if self.active and self.owner.present and not self.battle.ended:
                self.ticks += 1
                self.tick()

    def tick(self) -> None:
        """One tick at the start of the owner's turn; subclasses say what it does."""
        raise NotImplementedError
