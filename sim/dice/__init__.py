"""Dice notation ("2d6+3", "2d20kh1", "1d6!") parsed once and compiled into fast samplers.

The package is split by concept: ``notation`` (parsing, limits, rendering, the ``Dice``
value), ``terms`` (the parsed terms), ``samplers`` (the hot-path ``roll`` closures and
``roll_die``), ``detailed`` (``roll_dice``: every natural die per term) and ``exact`` (bounds,
exact mean and distribution). The public API is re-exported here: ``dice.parse(...)``.

May import only ``sim.errors`` (and ``sim.terminal`` through it): the lowest layer
of the game.
"""

from sim.dice.exact import MAX_DISTRIBUTION_WORK
from sim.dice.notation import MAX_DICE, MAX_SIDES, MAX_TERMS, MAX_TEXT_LENGTH, Dice, constant, parse
from sim.dice.samplers import roll_die
from sim.dice.terms import MAX_EXPLOSIONS

__all__ = [
    "MAX_DICE",
    "MAX_DISTRIBUTION_WORK",
    "MAX_EXPLOSIONS",
    "MAX_SIDES",
    "MAX_TERMS",
    "MAX_TEXT_LENGTH",
    "Dice",
    "constant",
    "parse",
    "roll_die",
]
