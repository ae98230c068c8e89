"""Tests of sim.dice.exact: bounds, the exact mean and the distribution against icepool."""

from __future__ import annotations

from fractions import Fraction

import icepool
import pytest

from sim.dice import MAX_EXPLOSIONS, constant, parse


def exact(die: icepool.Die) -> dict[int, Fraction]:
    """An icepool die as {outcome: probability}, dropping impossible outcomes."""
    return {o: Fraction(q, die.denominator()) for o, q in die.items() if q}


class TestStatistics:
    """min, max and the exact mean."""

    @pytest.mark.parametrize(
        ("text", "low", "high", "mean"),
        [
            ("1d6", 1, 6, Fraction(7, 2)),
            ("2d6+3", 5, 15, Fraction(10)),
            ("d%", 1, 100, Fraction(101, 2)),
            ("2d20kh1", 1, 20, Fraction(553, 40)),
            ("2d20kl1", 1, 20, Fraction(287, 40)),
            ("4d6kh3", 3, 18, Fraction(15869, 1296)),
            ("3d6-1d4", -1, 17, Fraction(8)),
            ("-1d4+2", -2, 1, Fraction(-1, 2)),
            ("7", 7, 7, Fraction(7)),
            (
                "1d6!",
                1,
                6 * (MAX_EXPLOSIONS + 1),
                Fraction(7, 2) * sum(Fraction(1, 6**j) for j in range(101)),
            ),
        ],
    )
    def test_min_max_mean(self, text: str, low: int, high: int, mean: Fraction) -> None:
        """The bounds and the exact mean match hand-computed values."""
        dice = parse(text)
        assert (dice.min, dice.max, dice.mean_fraction) == (low, high, mean)
        assert dice.mean == float(mean)

    @pytest.mark.parametrize(
        "text", ["7d6kh5", "7d6kh2", "7d6kl5", "7d6kl2", "5d10kh4-2", "3d8kh3", "6d4kl1"]
    )
    def test_keep_mean_matches_distribution(self, text: str) -> None:
        """The closed-form keep mean (both the direct and the complement route) matches the DP."""
        dice = parse(text)
        from_distribution = sum(value * p for value, p in dice.distribution().items())
        assert dice.mean_fraction == from_distribution

    def test_is_constant(self) -> None:
        """Only expressions without dice are constant; a d1 still counts as a die."""
        assert parse("3+4").is_constant
        assert constant(-2).is_constant
        assert not parse("1d1").is_constant
        assert not parse("1d6+0").is_constant


class TestDistribution:
    """distribution() is exact: it equals icepool's for the same expression."""

    @pytest.mark.parametrize(
        ("text", "die"),
        [
            ("1d6", icepool.d6),
            ("2d6+3", (2 @ icepool.d6) + 3),
            ("1d20", icepool.d20),
            ("2d20kh1", icepool.d20.highest(2, 1)),
            ("2d20kl1", icepool.d20.lowest(2, 1)),
            ("3d6-1d4", (3 @ icepool.d6) - icepool.d4),
            ("d%", icepool.d100),
            ("4d6kh3", icepool.d6.highest(4, 3)),
            ("6d8kl2+1", icepool.d8.lowest(6, 2) + 1),
            ("5d10kh4-1d6", icepool.d10.highest(5, 4) - icepool.d6),
            ("-1d4+2", 2 - icepool.d4),
            ("1d6!", icepool.d6.explode(depth=MAX_EXPLOSIONS)),
            ("2d4!", 2 @ icepool.d4.explode(depth=MAX_EXPLOSIONS)),
        ],
    )
    def test_matches_icepool(self, text: str, die: icepool.Die) -> None:
        """Every total has exactly icepool's probability, and values come sorted."""
        distribution = parse(text).distribution()
        assert distribution == exact(die)
        assert list(distribution) == sorted(distribution)

    def test_constant(self) -> None:
        """A constant has one outcome with probability 1."""
        assert constant(7).distribution() == {7: Fraction(1)}

    def test_returns_a_fresh_dict(self) -> None:
        """Mutating a returned distribution does not corrupt the next call."""
        dice = parse("2d6")
        dice.distribution()[7] = Fraction(0)
        assert dice.distribution()[7] == Fraction(1, 6)
