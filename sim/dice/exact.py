"""Exact statistics of dice terms: bounds, the exact mean and the exact distribution.

The distribution is built as integer weight tables (``_Table``) convolved term by term;
``estimated_work`` bounds its cost so callers can refuse expressions too big to enumerate.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections import defaultdict
from collections.abc import Iterable
from fractions import Fraction

import attrs

from sim.dice.terms import MAX_EXPLOSIONS, Constant, Roll, Term

MAX_DISTRIBUTION_WORK = 2_000_000  # estimated arithmetic steps distribution() may spend


# --- exact statistics ------------------------------------------------------------------------


def bounds(term: Term) -> tuple[int, int]:
    """The lowest and highest signed value of one term."""
    if isinstance(term, Constant):
        return term.value, term.value
    dice = term.kept if term.keep else term.count
    faces = term.sides * (MAX_EXPLOSIONS + 1) if term.explode else term.sides
    low, high = dice, dice * faces
    return (low, high) if term.sign > 0 else (-high, -low)


def term_mean(term: Term) -> Fraction:
    """The exact mean of one signed term."""
    if isinstance(term, Constant):
        return Fraction(term.value)
    return term.sign * _roll_mean(term)


def _roll_mean(term: Roll) -> Fraction:
    """The exact mean of one unsigned dice term."""
    one_die = Fraction(term.sides + 1, 2)
    if term.explode:
        # Roll j happens with probability sides**-j, for j = 0..MAX_EXPLOSIONS.
        rolls = sum(Fraction(1, term.sides**j) for j in range(MAX_EXPLOSIONS + 1))
        return term.count * one_die * rolls
    if term.keep == "h":
        return _mean_highest(term.count, term.sides, term.kept)
    if term.keep == "l":
        # The lowest K of X are K*(sides+1) minus the highest K of (sides+1-X), same dice.
        return term.kept * (term.sides + 1) - _mean_highest(term.count, term.sides, term.kept)
    return term.count * one_die


def _mean_highest(count: int, sides: int, kept: int) -> Fraction:
    """Mean of the sum of the highest ``kept`` of ``count`` dice, at cost sides*min(K, N-K)."""
    dropped = count - kept
    if dropped < kept:
        # top K = all - bottom J, and bottom J = J*(sides+1) - top J by symmetry: do the small side.
        everything = Fraction(count * (sides + 1), 2)
        if dropped == 0:
            return everything
        return everything - dropped * (sides + 1) + _mean_highest(count, sides, dropped)
    return Fraction(_top_sum_weight(count, sides, kept), sides**count)


def _top_sum_weight(count: int, sides: int, kept: int) -> int:
    """sides**count times E[sum of the top ``kept``], as an exact integer.

    The top K dice sum to sum over x of min(K, #dice >= x); #dice >= x is binomial, so
    E[min(K, B)] = K - sum_{t<K} (K-t) P(B=t), done with integer weights C(N,t) s^t f^(N-t).
    """
    total = kept * sides**count  # x = 1: every die is >= 1
    for x in range(2, sides + 1):
        at_least, below = sides - x + 1, x - 1
        weight = below**count  # t = 0
        shortfall = 0
        for t in range(kept):
            shortfall += (kept - t) * weight
            # Next binomial weight; the division is exact because the result is an integer.
            weight = weight * (count - t) * at_least // ((t + 1) * below)
        total += kept * sides**count - shortfall
    return total


# --- exact distribution ----------------------------------------------------------------------


@attrs.frozen
class _Table:
    """Integer weights of consecutive totals from ``offset``, out of ``denominator``."""

    offset: int
    weights: tuple[int, ...]
    denominator: int

    def negated(self) -> _Table:
        last = self.offset + len(self.weights) - 1
        return _Table(-last, self.weights[::-1], self.denominator)


def estimated_work(terms: tuple[Term, ...]) -> int:
    """An estimate (upper bound) of the arithmetic steps exact_distribution will take."""
    work, size = 0, 1
    for term in terms:
        low, high = bounds(term)
        width = high - low + 1
        work += _term_work(term) + size * width  # building the term, then one convolution
        size += width - 1
    return work


def _term_work(term: Term) -> int:
    """Steps to build one term's table."""
    if isinstance(term, Constant):
        return 0
    n, m = term.count, term.sides
    if term.explode:
        die = m * (MAX_EXPLOSIONS + 1)
        return die * die * n * (n - 1) // 2
    if term.keep:
        return m * term.kept * (term.kept * m + 1) * (n + 1)
    return n * (n * (m - 1) + 1)


@functools.lru_cache(maxsize=256)
def exact_distribution(terms: tuple[Term, ...]) -> tuple[tuple[int, Fraction], ...]:
    """Exact (total, probability) pairs, sorted; the caller has checked the work estimate."""
    table = _Table(0, (1,), 1)
    for term in terms:
        table = _convolve(table, _term_table(term))
    return tuple(
        (table.offset + index, Fraction(weight, table.denominator))
        for index, weight in enumerate(table.weights)
        if weight
    )


def _term_table(term: Term) -> _Table:
    """The signed distribution of one term."""
    if isinstance(term, Constant):
        return _Table(term.value, (1,), 1)
    if term.explode:
        die = _exploding_die_table(term.sides)
        table = functools.reduce(_convolve, [die] * term.count)
    elif term.keep:
        table = _keep_table(term.count, term.sides, term.kept, highest=term.keep == "h")
    else:
        table = _uniform_sum_table(term.count, term.sides)
    return table if term.sign > 0 else table.negated()


def _convolve(first: _Table, second: _Table) -> _Table:
    """The distribution of the sum of two independent tables."""
    outer, inner = sorted((first.weights, second.weights), key=len)
    width = len(inner)
    out = [0] * (len(outer) + width - 1)
    for shift, weight in enumerate(outer):
        if weight:  # exploding tables are full of impossible totals
            window = out[shift : shift + width]
            out[shift : shift + width] = [o + weight * w for o, w in zip(window, inner, strict=True)]
    return _Table(first.offset + second.offset, tuple(out), first.denominator * second.denominator)


def _uniform_sum_table(count: int, sides: int) -> _Table:
    """``count``d``sides``: each die added as a sliding-window sum, O(size) per die."""
    weights = [1]
    for _ in range(count):
        prefix = [0, *itertools.accumulate(weights)]
        size = len(weights)
        weights = [prefix[min(i + 1, size)] - prefix[max(0, i - sides + 1)] for i in range(size + sides - 1)]
    return _Table(count, tuple(weights), sides**count)


def _exploding_die_table(sides: int) -> _Table:
    """One exploding die, truncated after MAX_EXPLOSIONS extra rolls exactly like the sampler."""
    cap = MAX_EXPLOSIONS
    weights: list[int] = []
    for explosions in range(cap):
        # j top faces then a lower one: probability sides**-(j+1), i.e. weight sides**(cap-j).
        weights += [sides ** (cap - explosions)] * (sides - 1) + [0]
    weights += [1] * sides  # the last allowed roll stands whatever it shows
    return _Table(1, tuple(weights), sides ** (cap + 1))


def _keep_table(count: int, sides: int, kept: int, *, highest: bool) -> _Table:
    """Highest or lowest ``kept`` of ``count`` dice."""
    table = _dict_table(_keep_highest_weights(count, sides, kept), sides**count)
    if highest:
        return table
    # Lowest K of X = K*(sides+1) - highest K of (sides+1-X): mirror the totals.
    mirrored = table.negated()
    return _Table(mirrored.offset + kept * (sides + 1), mirrored.weights, table.denominator)


def _dict_table(weights: dict[int, int], denominator: int) -> _Table:
    low, high = min(weights), max(weights)
    return _Table(low, tuple(weights.get(v, 0) for v in range(low, high + 1)), denominator)


def _keep_highest_weights(count: int, sides: int, kept: int) -> dict[int, int]:
    """Ordered outcomes per sum of the highest ``kept`` dice, placing faces from the top down.

    A state is (dice placed so far, sum of the kept ones); once ``kept`` dice are placed the
    sum is final and the remaining dice may show any lower face, so the state is retired.
    """
    finished: dict[int, int] = defaultdict(int)
    states: dict[tuple[int, int], int] = {(0, 0): 1}
    for face in range(sides, 0, -1):
        states = _place_face(states, face, count, kept, finished)
    return finished


def _place_face(
    states: dict[tuple[int, int], int], face: int, count: int, kept: int, finished: dict[int, int]
) -> dict[tuple[int, int], int]:
    """Put 0..all free dice on ``face``; retire the states that have kept enough dice."""
    following: dict[tuple[int, int], int] = defaultdict(int)
    for (placed, total), ways in states.items():
        free = count - placed
        for here in _choices(free, face):
            reach = ways * math.comb(free, here)
            now = placed + here
            score = total + min(here, kept - placed) * face
            if now >= kept:
                finished[score] += reach * (face - 1) ** (count - now)
            else:
                following[(now, score)] += reach
    return following


def _choices(free: int, face: int) -> Iterable[int]:
    """How many free dice may show ``face``: all of them on the last face, 1, else any number."""
    return range(free, free + 1) if face == 1 else range(free + 1)
