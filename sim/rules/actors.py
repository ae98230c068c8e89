"""What the rules read and write of a fighter and of a battle's table, as Protocols.

The rules are a layer below the engine, whose ``Fighter`` (sim.engine.state) and ``Table``
(sim.engine.table) they are handed: naming those classes here would make the two packages
import each other, even if only for type hints. These Protocols list what a rule system
touches instead; the engine's classes satisfy them.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from sim.model import Combatant
    from sim.rules import CheckResult


class Fighter(Protocol):
    """A combatant in a battle, as the rules see it."""

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


class Table(Protocol):
    """A battle's dice, clock and log, as the rules see them."""

    rng: random.Random
    log: list[dict[str, Any]] | None
    round: int
    t: float
    surprising: str | None
    despair_disadvantage: bool
    on_check: Callable[[Fighter, str, CheckResult, Callable[[str], CheckResult]], CheckResult] | None

    def emit(self, event: str, **fields: object) -> None: ...
