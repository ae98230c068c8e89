"""The parsed form of dice notation: the terms every dice module works on.

A ``Dice`` holds a tuple of these terms; the samplers, the detailed rolls and the exact
statistics each compile or evaluate that tuple.
"""

from __future__ import annotations

import attrs

MAX_EXPLOSIONS = 100  # extra rolls one exploding die may add: a safety valve, not a rule


@attrs.frozen
class Constant:
    """A whole-number term; ``value`` carries its sign."""

    value: int


@attrs.frozen
class Roll:
    """A dice term: ``count`` dice of ``sides`` faces, maybe keeping some or exploding."""

    sign: int  # +1 or -1
    count: int
    sides: int
    keep: str = ""  # "" (keep all), "h" (highest) or "l" (lowest)
    kept: int = 0  # how many dice are kept when ``keep`` is set
    explode: bool = False


Term = Constant | Roll
