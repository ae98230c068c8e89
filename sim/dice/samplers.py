"""Compiled samplers: the hot-path ``roll(rng) -> total`` closures, and ``roll_die``.

Each expression is compiled once into the tightest closure its shape allows (``NdM+C``,
advantage, keep, explode, sums of terms); calling it does no parsing and no dispatch.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from sim.dice.terms import MAX_EXPLOSIONS, Constant, Roll, Term

Sampler = Callable[[random.Random], int]


def roll_die(rng: random.Random, sides: int) -> int:
    """Roll one die with ``sides`` faces (1..sides, uniform), drawing only from ``rng``."""
    # One float draw is several times faster than randrange(); scaling a 53-bit float biases a
    # face by less than sides / 2**53, far below any sampling error a simulation could see.
    # The compiled samplers inline this exact formula, so both draw identical sequences.
    return int(rng.random() * sides) + 1


# Every sampler below inlines roll_die as int(r() * sides), adding the +1 of each die in one go.


def compile_roll(terms: tuple[Term, ...]) -> Sampler:
    """The fastest total-only sampler for ``terms``."""
    # Constants are folded; dice terms keep their order, so the rng is consumed as in roll_dice.
    const = sum(term.value for term in terms if isinstance(term, Constant))
    rolls = [term for term in terms if isinstance(term, Roll)]
    if not rolls:
        return _constant_sampler(const)
    if len(rolls) == 1 and rolls[0].sign > 0:
        special = _specialised(rolls[0], const)
        if special is not None:
            return special
    return _summing_sampler(tuple(_term_sampler(term) for term in rolls), const)


def _constant_sampler(const: int) -> Sampler:
    def roll(rng: random.Random) -> int:
        return const

    return roll


def _specialised(term: Roll, const: int) -> Sampler | None:
    """A tight closure for the common shapes ``NdM+C`` and ``2dMkh1`` / ``2dMkl1``, else None."""
    if not term.keep and not term.explode:
        return _plain_sampler(term.count, term.sides, const)
    if term.keep and term.count == 2 and term.kept == 1:
        return _pair_sampler(term.sides, const, highest=term.keep == "h")
    return None


def _plain_sampler(count: int, sides: int, const: int) -> Sampler:
    """``count``d``sides`` + ``const`` with no list and no generator."""
    base = const + count  # the +1 of every die, folded into one addition

    def one(rng: random.Random) -> int:
        return int(rng.random() * sides) + base

    def two(rng: random.Random) -> int:
        draw = rng.random
        return int(draw() * sides) + int(draw() * sides) + base

    def many(rng: random.Random) -> int:
        draw = rng.random
        total = base
        for _ in range(count):
            total += int(draw() * sides)
        return total

    return one if count == 1 else two if count == 2 else many


def _pair_sampler(sides: int, const: int, *, highest: bool) -> Sampler:
    """Advantage (``2dMkh1``) or disadvantage (``2dMkl1``) plus ``const``."""
    base = const + 1

    def best(rng: random.Random) -> int:
        first, second = int(rng.random() * sides), int(rng.random() * sides)
        return (first if first > second else second) + base

    def worst(rng: random.Random) -> int:
        first, second = int(rng.random() * sides), int(rng.random() * sides)
        return (first if first < second else second) + base

    return best if highest else worst


def _term_sampler(term: Roll) -> Sampler:
    """The signed value of one dice term."""
    if term.explode:
        body = _exploding_sampler(term.count, term.sides)
    elif term.keep:
        body = _keeping_sampler(term.count, term.sides, term.kept, highest=term.keep == "h")
    else:
        body = _plain_sampler(term.count, term.sides, 0)
    if term.sign > 0:
        return body

    def negated(rng: random.Random) -> int:
        return -body(rng)

    return negated


def _keeping_sampler(count: int, sides: int, kept: int, *, highest: bool) -> Sampler:
    """The sum of the highest (or lowest) ``kept`` of ``count`` dice."""
    # Sorting needs the dice in a list: the one allocation the general keep case cannot avoid.
    start, stop = (count - kept, count) if highest else (0, kept)

    def keep(rng: random.Random) -> int:
        draw = rng.random
        faces = sorted([int(draw() * sides) for _ in range(count)])
        return sum(faces[start:stop]) + kept

    return keep


def _exploding_sampler(count: int, sides: int) -> Sampler:
    """``count`` exploding dice: a top face rolls again, at most MAX_EXPLOSIONS extra times."""
    top = sides - 1  # the top face, zero-based as drawn

    def explode(rng: random.Random) -> int:
        draw = rng.random
        total = count  # the +1 of each die's first roll
        for _ in range(count):
            face = int(draw() * sides)
            total += face
            extra = 0
            while face == top and extra < MAX_EXPLOSIONS:
                face = int(draw() * sides)
                total += face + 1
                extra += 1
        return total

    return explode


def _summing_sampler(samplers: tuple[Sampler, ...], const: int) -> Sampler:
    """The sum of several term samplers, in order, plus ``const``."""
    if len(samplers) == 1:
        only = samplers[0]

        def single(rng: random.Random) -> int:
            return only(rng) + const

        return single

    def summed(rng: random.Random) -> int:
        total = const
        for sampler in samplers:
            total += sampler(rng)
        return total

    return summed
