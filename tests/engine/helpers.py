"""What the engine tests share: picking events from a log, a small brawl."""

from __future__ import annotations

from sim.engine.effects import OngoingEffect
from tests.builders import fighter, scenario, side


def brawl(**options: object):
    """Two heroes against three goblins, everyone fragile enough to end quickly."""
    return scenario(
        side("heroes", fighter("A", level=3, hp=12), fighter("B", level=3, hp=12), party=True),
        side("goblins", *(fighter(f"g{i}", hp=5, attack_threshold=12, defense_threshold=11)
                          for i in range(3))),
        **options,
    )


def unarmed(name: str, **fields: object):
    return fighter(name, weapons=(), **fields)


class Counting(OngoingEffect):
    """A test effect: 1 damage a tick, ends after three ticks."""

    name = "bleeding"

    def tick(self) -> None:
        self.host.deal_damage(self.owner, 1, None, "bleeding")
        if self.ticks == 3:
            self.end("stopped")
