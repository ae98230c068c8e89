"""Tests of sim.dice.samplers: roll() and roll_die draw from the given rng, with the exact law."""

from __future__ import annotations

import math
import random
from collections import Counter
from fractions import Fraction

import pytest

from sim.dice import parse, roll_die
from tests.dice.references import REFERENCE, Fixed


def assert_frequencies(counts: Counter[int], distribution: dict[int, Fraction], n: int) -> None:
    """Each total's frequency is within 4 standard errors of its exact probability.

    Totals expected fewer than 10 times are pooled into one "rare" bucket, where the normal
    approximation behind "4 standard errors" still holds.
    """
    assert set(counts) <= set(distribution), "a total the distribution calls impossible"
    rare = [value for value, p in distribution.items() if n * p < 10]
    buckets = [[value] for value in distribution if value not in rare] + ([rare] if rare else [])
    for bucket in buckets:
        p = float(sum(distribution[value] for value in bucket))
        observed = sum(counts[value] for value in bucket) / n
        assert abs(observed - p) <= 4 * math.sqrt(p * (1 - p) / n), bucket[:3]


class TestSampling:
    """roll() draws from the given rng, reproducibly, with the exact law."""

    @pytest.mark.parametrize("text", ["2d20kh1", "3d6+2"])
    def test_frequencies_match_distribution(self, text: str) -> None:
        """200k rolls land within 4 standard errors of the exact probability of every total."""
        dice, rng, n = parse(text), random.Random(20240601), 200_000
        counts = Counter(dice.roll(rng) for _ in range(n))
        assert_frequencies(counts, dice.distribution(), n)

    @pytest.mark.parametrize("text", ["1d6!", "2d4!+1"])
    def test_exploding_frequencies_match_distribution(self, text: str) -> None:
        """Exploding dice sample the truncated distribution distribution() reports."""
        dice, rng, n = parse(text), random.Random(77), 40_000
        counts = Counter(dice.roll(rng) for _ in range(n))
        assert_frequencies(counts, dice.distribution(), n)

    @pytest.mark.parametrize("text", list(REFERENCE))
    def test_roll_matches_reference(self, text: str) -> None:
        """The compiled sampler equals a naive roll_die implementation draw for draw."""
        dice = parse(text)
        for seed in range(100):
            assert dice.roll(random.Random(seed)) == REFERENCE[text](random.Random(seed)), seed

    def test_same_seed_same_sequence(self) -> None:
        """Two rngs with one seed give one sequence; another seed gives another."""
        dice = parse("1d20+1d6")
        first, second, other = random.Random(11), random.Random(11), random.Random(12)
        sequence = [dice.roll(first) for _ in range(50)]
        assert sequence == [dice.roll(second) for _ in range(50)]
        assert sequence != [dice.roll(other) for _ in range(50)]

    def test_global_random_untouched(self) -> None:
        """Samplers never draw from the module-level random generator."""
        random.seed(123)
        before = random.getstate()
        rng = random.Random(1)
        for text in REFERENCE:
            parse(text).roll(rng)
            parse(text).roll_dice(rng)
        assert random.getstate() == before

    @pytest.mark.parametrize(
        "text",
        ["1d6", "1d20+5", "2d6+3", "3d6+2", "2d20kh1", "2d20kl1-1", "4d6kh3", "5d8kl2", "-1d4+2"],
    )
    def test_extremes_reachable(self, text: str) -> None:
        """Pinned rngs (every die 1, every die top) reach exactly min and max."""
        dice = parse(text)
        low, high = dice.roll(Fixed(0.0)), dice.roll(Fixed(0.9999999999))
        assert sorted((low, high)) == [dice.min, dice.max]


class TestRollDie:
    """roll_die is a uniform 1..sides from rng.random()."""

    @pytest.mark.parametrize(
        ("value", "sides", "face"),
        [(0.0, 6, 1), (0.9999999999999999, 6, 6), (0.5, 6, 4), (0.5, 20, 11), (0.3, 1, 1)],
    )
    def test_formula(self, value: float, sides: int, face: int) -> None:
        """The face is int(random() * sides) + 1."""
        assert roll_die(Fixed(value), sides) == face

    def test_covers_every_face(self) -> None:
        """A d8 shows each face 1..8 and nothing else."""
        rng = random.Random(8)
        assert {roll_die(rng, 8) for _ in range(500)} == set(range(1, 9))
