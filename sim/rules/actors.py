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

    from sim.dice.samplers import Sampler
    from sim.model import Combatant, Weapon
    from sim.rules import CheckResult


class Fighter:
    """A combatant in a battle, as the rules see it."""

    __slots__ = ("able", "armor", "attack_threshold", "defended_round", "defense_threshold",
                 "despairing", "fatigue", "heroism", "hp", "level", "max_hp", "max_spirit", "name",
                 "party", "side", "skip_turns", "social_lost", "spec", "spirit", "weakened")

    spec: Combatant
    name: str
    side: str
    party: bool
    hp: int
    max_hp: int
    able: bool
    heroism: int
    level: int  # its stat block's, read on every d20 attack
    armor: int  # its stat block's, read on every d20 defense
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


class Arm:
    """A weapon as an attack reads it: what its frozen spec says, copied once per stat block
    (in a fighter's arsenal, sim.engine.tactics), and its damage sampler, so a compiled build
    reads them in place instead of through the spec's attributes."""

    __slots__ = ("armor_piercing", "bonus", "plain", "psy", "reach", "roll", "suited", "weapon")

    def __init__(self, weapon: Weapon) -> None:
        self.weapon = weapon
        self.bonus: int = weapon.bonus
        self.psy: int = weapon.psy
        self.plain: bool = weapon.plain
        self.armor_piercing: bool = weapon.armor_piercing
        self.reach: float = weapon.reach  # metres (read on every weapon choice at a distance)
        self.suited: bool = bool(weapon.suited)  # made for some creatures (d20's +1d4)
        self.roll: Sampler = weapon.damage.roll


class Table:
    """A battle's dice, clock and log, as the rules see them."""

    __slots__ = ("despair_disadvantage", "draw", "log", "on_check", "rng", "round", "surprising", "t")

    rng: random.Random
    draw: Callable[[], float]  # rng.random, bound once (the engine's Table.use sets both)
    log: list[dict[str, Any]] | None
    round: int
    t: float
    surprising: str | None
    despair_disadvantage: bool
    on_check: Callable[[Fighter, str, CheckResult, Callable[[str], CheckResult]], CheckResult] | None

    def emit(self, event: str, **fields: object) -> None:
        """Append one event; callers guard with ``if table.log is not None``."""
        self.log.append({"event": event, "round": self.round, "t": self.t, **fields})  # type: ignore[union-attr]
