"""Exact distributions of one check in each system (rules §1), as (probability, Roll) pairs.

Floats, not fractions: a fight multiplies thousands of them, and a double's 16 digits are
far beyond what any batch can tell apart. Every function is memoised: a fight asks the
same few questions millions of times.
"""

from __future__ import annotations

import functools
from collections import defaultdict

import attrs

from sim.dice import Dice

CRIT_FAIL, FAIL, SUCCESS, CRIT = -2, -1, 1, 2
OPEN_D10_EPSILON = 1e-18  # a chain's tail below this probability is dropped (cap: 100 dice)


@attrs.frozen
class Roll:
    """What one kept roll means: success, degree, margin, and (d20) the natural die."""

    success: bool
    degree: int
    margin: int
    natural: int = 0


Dist = tuple[tuple[float, Roll], ...]


def _merge(pairs: dict[Roll, float]) -> Dist:
    return tuple((p, roll) for roll, p in pairs.items() if p > 0)


@functools.cache
def dice_dist(dice: Dice) -> tuple[tuple[int, float], ...]:
    """A dice expression's exact law, as (total, probability) pairs."""
    return tuple((total, float(p)) for total, p in dice.distribution().items())


@functools.cache
def _keep(sides: int, advantage: int) -> tuple[float, ...]:
    """P(kept die = k) for k = 1..sides: one die, the higher of two (+1), the lower (-1)."""
    n = sides
    if advantage > 0:
        return tuple((k * k - (k - 1) ** 2) / n**2 for k in range(1, n + 1))
    if advantage < 0:
        return tuple(((n - k + 1) ** 2 - (n - k) ** 2) / n**2 for k in range(1, n + 1))
    return tuple(1 / n for _ in range(n))


def d20_degree(natural: int, margin: int) -> int:
    """rules §1, d20: success iff total > target (margin = total - target > 0); a natural 20
    that succeeds or a margin of 10 or more is critical; a natural 1 that fails or a margin of
    -10 or less is a critical failure."""
    if margin > 0:
        return CRIT if natural == 20 or margin >= 10 else SUCCESS
    return CRIT_FAIL if natural == 1 or margin <= -10 else FAIL


@functools.cache
def d20(modifier: int, target: int, advantage: int) -> Dist:
    """1d20 (2d20 keep the higher / lower) + modifier against ``target``."""
    out: dict[Roll, float] = defaultdict(float)
    for k, p in enumerate(_keep(20, advantage), start=1):
        margin = k + modifier - target
        out[Roll(margin > 0, d20_degree(k, margin), margin, k)] += p
    return _merge(out)


@functools.cache
def d100(target: int, advantage: int) -> Dist:
    """1d100 under ``target`` (margin left out); 1-5 always a critical success, 96-100
    always a critical failure. Advantage keeps the better (lower) of two rolls."""
    out: dict[Roll, float] = defaultdict(float)
    for k, p in enumerate(_keep(100, -advantage), start=1):
        # The margin is left out (0): no d100 rule reads it, and fewer outcomes are cheaper.
        if k <= 5:
            roll = Roll(True, CRIT, 0)
        elif k >= 96:
            roll = Roll(False, CRIT_FAIL, 0)
        else:
            roll = Roll(k <= target, SUCCESS if k <= target else FAIL, 0)
        out[roll] += p
    return _merge(out)


@functools.cache
def _sum_of_two(sides: int) -> tuple[tuple[int, float], ...]:
    return tuple((r, (sides - abs(r - sides - 1)) / sides**2) for r in range(2, 2 * sides + 1))


@functools.cache
def quality(score: int, advantage: int) -> Dist:
    """rules §1, 2d10: R = 2d10 (advantage 2d8, disadvantage 2d12), Q = SR - R, success iff
    Q >= 0; Q > 7 an exploit, Q < -7 a disaster (margin left out)."""
    sides = 10 if advantage == 0 else 8 if advantage > 0 else 12
    out: dict[Roll, float] = defaultdict(float)
    for r, p in _sum_of_two(sides):
        q = score - r
        degree = CRIT if q > 7 else SUCCESS if q >= 0 else FAIL if q >= -7 else CRIT_FAIL
        out[Roll(q >= 0, degree, 0)] += p  # no 2d10 rule reads the margin: left out
    return _merge(out)


@functools.cache
def open_chain() -> tuple[tuple[int, bool, bool, float], ...]:
    """The open-ended d10 (rules §1): (sum, held a 10, held a 1, probability)."""
    out: dict[tuple[int, bool, bool], float] = defaultdict(float)
    frontier = {(0, 1, False, False): 1.0}
    for _ in range(100):
        nxt: dict[tuple[int, int, bool, bool], float] = defaultdict(float)
        for (total, sign, ten, one), p in frontier.items():
            q = p / 10
            for die in range(2, 10):
                out[(total + sign * die, ten, one)] += q
            nxt[(total + sign * 10, sign, True, one)] += q
            nxt[(total + sign, -sign, ten, True)] += q
        frontier = {k: p for k, p in nxt.items() if p > OPEN_D10_EPSILON}
        if not frontier:
            break
    return tuple((total, ten, one, p) for (total, ten, one), p in sorted(out.items()))


@functools.cache
def _kept_chain(advantage: int) -> tuple[tuple[int, bool, bool, float], ...]:
    """The chain kept with advantage (the larger of two sums) or disadvantage (the smaller);
    on equal sums the first chain is kept."""
    chain = open_chain()
    if advantage == 0:
        return chain
    out: dict[tuple[int, bool, bool], float] = defaultdict(float)
    for first in chain:
        for second in chain:
            keep_first = first[0] >= second[0] if advantage > 0 else first[0] <= second[0]
            kept = first if keep_first else second
            out[kept[:3]] += first[3] * second[3]
    return tuple((t, ten, one, p) for (t, ten, one), p in out.items())


@functools.cache
def open_d10(base: int, difficulty: int, advantage: int, tie_succeeds: bool) -> Dist:
    """rules §1, d10: base + open d10 against ``difficulty``; a tie succeeds by default; a chain
    that held a 10 and succeeded is critical, one that held a 1 and failed a critical failure."""
    out: dict[Roll, float] = defaultdict(float)
    for total, ten, one, p in _kept_chain(advantage):
        margin = base + total - difficulty
        success = margin > 0 or (margin == 0 and tie_succeeds)
        degree = (CRIT if ten else SUCCESS) if success else (CRIT_FAIL if one else FAIL)
        # Only floor(margin / 5) of a hit is read (its damage): margins are kept to that step,
        # and a failure's not at all, so a fight meets tens of outcomes, not hundreds.
        out[Roll(success, degree, margin - margin % 5 if success else 0)] += p
    return _merge(out)
