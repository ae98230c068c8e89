"""Common random numbers: per-battle metrics and the paired interval, checked by hand."""

from __future__ import annotations

import math

import pytest

from sim.decide.paired import Moments, Paired
from sim.tally.stats import Z95


class TestMoments:
    """Exact integer sums: identical inputs give exactly the same statistics."""

    def test_mean_and_sample_variance(self):
        """Mean and (n - 1) variance of 1, 0, 1, 1."""
        m = Moments()
        for v in (1, 0, 1, 1):
            m.add(v)
        assert m.mean == 0.75
        assert m.variance == pytest.approx(0.25)  # ((3 * 4) - 9) / (4 * 3)

    def test_constant_has_zero_width(self):
        """All-equal values: variance 0, half-width exactly 0."""
        m = Moments()
        for _ in range(10):
            m.add(0)
        assert m.variance == 0.0 and m.halfwidth() == 0.0


class TestPairedInterval:
    """The interval of the mean of per-battle differences, against a hand computation."""

    def test_hand_computed_case(self):
        """A wins 1,0,1,1 and B wins 1,1,1,0: d = 0,1,0,-1, mean 0, sd^2 = 2/3."""
        paired = Paired(("party.win",), 2)
        for a, b in ((1, 1), (0, 1), (1, 1), (1, 0)):
            paired.add([(a,), (b,)])
        diff = paired.diff(0, 0)
        half = Z95 * math.sqrt((2 / 3) / 4)
        assert diff["d"] == 0.0
        assert diff["lo"] == pytest.approx(-half, abs=1e-6)
        assert diff["hi"] == pytest.approx(half, abs=1e-6)
        # independent runs: var(A) = var(B) = 0.25, so z * sqrt(0.5 / 4)
        assert diff["independent_halfwidth"] == pytest.approx(Z95 * math.sqrt(0.5 / 4), abs=1e-6)

    def test_identical_variants_are_exactly_zero(self):
        """Two variants that agree on every battle differ by exactly 0, with zero width; two
        independent runs would not: wins 1, 0, 1 have sample variance 1/3 and rounds 5, 7, 6
        variance 1, so their half-widths are z * sqrt(2/3 / 3) and z * sqrt(2 / 3)."""
        paired = Paired(("party.win", "rounds.mean"), 2)
        for a, r in ((1, 5), (0, 7), (1, 6)):
            paired.add([(a, r), (a, r)])
        for m, variance in enumerate((1 / 3, 1.0)):
            assert paired.diff(0, m) == {"d": 0.0, "lo": 0.0, "hi": 0.0,
                                         "independent_halfwidth": round(Z95 * math.sqrt(2 * variance / 3), 6)}

    def test_values_are_wilson_and_rounds_a_mean(self):
        """A proportion's value is its Wilson interval; rounds.mean a mean with its interval."""
        paired = Paired(("party.win", "rounds.mean"), 2)
        for a, r in ((1, 4), (1, 6)):
            paired.add([(a, r), (0, r)])
        assert paired.value(0, 0)["p"] == 1.0 and paired.value(1, 0)["p"] == 0.0
        assert paired.value(0, 1)["mean"] == 5.0
        assert paired.diff(0, 0)["d"] == -1.0
