"""What the rules read and write of a fighter and of a battle's table: the base classes the
engine's ``Fighter`` (sim.engine.state) and ``Table`` (sim.engine.table) extend.

The rules are a layer below the engine, which hands them its fighters and its table: naming
the engine's classes here would make the two packages import each other, even if only for
type hints. These classes hold the fields a rule system touches, and no logic but the log's
``emit``; the engine's classes add what only the engine touches and fill every field. Plain
slotted classes on the pure path; in a compiled build (actors.pxd) extension types whose
fields the compiled rules read in place (docs/contributing/architecture.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import random
    from collections.abc import Callable

    from sim.model import Combatant
    from sim.rules import CheckResult


class Fighter:
    """A combatant in a battle, as the rules see it."""

    __slots__ = ("able", "attack_threshold", "defended_round", "defense_threshold", "despairing",
                 "fatigue", "heroism", "hp", "max_hp", "max_spirit", "name", "party", "side",
                 "skip_turns", "social_lost", "spec", "spirit", "weakened")

    spec: Combatant
    name: str
    side: str
    party: bool
    hp: int
    max_hp: int
    able: bool
    heroism: int
    fatigue: int
    weakened: bool
    despairing: bool
    social_lost: int
    spirit: int | None  # d20 with options.spirit only
    max_spirit: int | None
    skip_turns: int
    attack_threshold: int
    defense_threshold: int
    defended_round: int


class Table:
    """A battle's dice, clock and log, as the rules see them."""

    __slots__ = ("despair_disadvantage", "log", "on_check", "rng", "round", "surprising", "t")

    rng: random.Random
    log: list[dict[str, Any]] | None
    round: int
    t: float
    surprising: str | None
    despair_disadvantage: bool
    on_check: Callable[[Fighter, str, CheckResult, Callable[[str], CheckResult]], CheckResult] | None

    def emit(self, event: str, **fields: object) -> None:
        """Append one event; callers guard with ``if table.log is not None``."""
        self.log.append({"event": event, "round": self.round, "t": self.t, **fields})  # type: ignore[union-attr]
