"""Detailed rolls: ``roll_dice(rng) -> (total, naturals)``, every natural die shown per term.

Not specialised: it runs once per hit for the log, and must simply mirror the compiled
sampler draw for draw (same dice, same order, same number of ``rng.random()`` calls).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from sim.dice.samplers import roll_die
from sim.dice.terms import MAX_EXPLOSIONS, Constant, Roll, Term

DetailedSampler = Callable[[random.Random], tuple[int, tuple[int, ...]]]
_TermDetail = Callable[[random.Random, list[int]], int]  # appends natural dice, returns the value


def compile_roll_dice(terms: tuple[Term, ...]) -> DetailedSampler:
    """A sampler returning the total and every natural die, in the order rolled."""
    parts = tuple(_term_detail(term) for term in terms)

    def roll_dice(rng: random.Random) -> tuple[int, tuple[int, ...]]:
        naturals: list[int] = []
        total = 0
        for part in parts:
            total += part(rng, naturals)
        return total, tuple(naturals)

    return roll_dice


def _term_detail(term: Term) -> _TermDetail:
    """One term's detailed sampler: appends its natural dice, returns its signed value."""
    if isinstance(term, Constant):
        value = term.value

        def fixed(rng: random.Random, naturals: list[int]) -> int:
            return value

        return fixed
    draw = _exploding_draw(term.sides) if term.explode else _plain_draw(term.sides)
    count, sign = term.count, term.sign
    score = _keep_score(term) if term.keep else sum

    def detailed(rng: random.Random, naturals: list[int]) -> int:
        faces = [face for _ in range(count) for face in draw(rng)]
        naturals.extend(faces)
        return sign * score(faces)

    return detailed


def _plain_draw(sides: int) -> Callable[[random.Random], tuple[int, ...]]:
    """One ordinary die, as a 1-tuple of its face."""

    def draw(rng: random.Random) -> tuple[int, ...]:
        return (roll_die(rng, sides),)

    return draw


def _exploding_draw(sides: int) -> Callable[[random.Random], tuple[int, ...]]:
    """One exploding die, as every face it showed (each explosion adds one)."""

    def draw(rng: random.Random) -> tuple[int, ...]:
        faces = [roll_die(rng, sides)]
        while faces[-1] == sides and len(faces) <= MAX_EXPLOSIONS:
            faces.append(roll_die(rng, sides))
        return tuple(faces)

    return draw


def _keep_score(term: Roll) -> Callable[[list[int]], int]:
    """The value of a keep term from all its natural dice."""
    start, stop = (term.count - term.kept, term.count) if term.keep == "h" else (0, term.kept)

    def score(faces: list[int]) -> int:
        return sum(sorted(faces)[start:stop])

    return score
