"""Reference rolls for the dice tests: a pinned rng and naive implementations on roll_die."""

from __future__ import annotations

import random
from collections.abc import Callable

from sim.dice import MAX_EXPLOSIONS, roll_die


class Fixed(random.Random):
    """A Random whose random() always returns one value, to pin die faces."""

    def __init__(self, value: float) -> None:
        super().__init__(0)
        self.value = value

    def random(self) -> float:
        return self.value


def explode_ref(rng: random.Random, sides: int) -> int:
    """One exploding die, written naively from the rules, for comparison with the sampler."""
    total = face = roll_die(rng, sides)
    extra = 0
    while face == sides and extra < MAX_EXPLOSIONS:
        face = roll_die(rng, sides)
        total += face
        extra += 1
    return total


def dice_ref(rng: random.Random, count: int, sides: int) -> list[int]:
    """``count`` natural dice in order."""
    return [roll_die(rng, sides) for _ in range(count)]


# Expression -> a naive implementation of its meaning on top of roll_die. Covers every
# specialised closure (NdM, NdM+C, 2dMkh1/kl1) and the general path (keep, explode, signs, mixes).
REFERENCE: dict[str, Callable[[random.Random], int]] = {
    "1d6": lambda r: roll_die(r, 6),
    "1d20+5": lambda r: roll_die(r, 20) + 5,
    "2d6+3": lambda r: sum(dice_ref(r, 2, 6)) + 3,
    "3d6+2": lambda r: sum(dice_ref(r, 3, 6)) + 2,
    "2d20kh1": lambda r: max(dice_ref(r, 2, 20)),
    "2d20kl1-1": lambda r: min(dice_ref(r, 2, 20)) - 1,
    "4d6kh3": lambda r: sum(sorted(dice_ref(r, 4, 6))[1:]),
    "5d8kl2": lambda r: sum(sorted(dice_ref(r, 5, 8))[:2]),
    "3d6kh1": lambda r: max(dice_ref(r, 3, 6)),
    "-1d4+2": lambda r: 2 - roll_die(r, 4),
    "3d6-1d4": lambda r: sum(dice_ref(r, 3, 6)) - roll_die(r, 4),
    "2+1d8+1d6": lambda r: 2 + roll_die(r, 8) + roll_die(r, 6),
    "1d6!": lambda r: explode_ref(r, 6),
    "2d4!+1": lambda r: explode_ref(r, 4) + explode_ref(r, 4) + 1,
    "-2d20kh1+5": lambda r: 5 - max(dice_ref(r, 2, 20)),
}
