"""Wilson intervals, percentiles and the streaming aggregate."""

from __future__ import annotations

import pytest

from sim.stats import Aggregate, percentile, wilson


class TestWilson:
    """95% Wilson score intervals against published values."""

    @pytest.mark.parametrize(
        ("k", "n", "lo", "hi"),
        [
            (0, 10, 0.0, 0.2775),  # Brown, Cai & DasGupta (2001); also R's prop.test(correct=F)
            (10, 10, 0.7225, 1.0),
            (5, 10, 0.2366, 0.7634),
            (81, 263, 0.2553, 0.3662),
            (1, 1000, 0.000177, 0.005649),
        ],
    )
    def test_known_values(self, k: int, n: int, lo: float, hi: float) -> None:
        """The interval matches the textbook values to 4 decimals."""
        p, got_lo, got_hi = wilson(k, n)
        assert p == k / n
        assert got_lo == pytest.approx(lo, abs=5e-5) and got_hi == pytest.approx(hi, abs=5e-5)

    def test_no_trials(self) -> None:
        """With no trial the interval is the whole [0, 1]."""
        assert wilson(0, 0) == (0.0, 0.0, 1.0)


class TestPercentile:
    """Nearest-rank percentiles of a histogram."""

    def test_nearest_rank(self) -> None:
        """p50 and p90 of 1..10 are 5 and 9."""
        from collections import Counter

        h = Counter(range(1, 11))
        assert (percentile(h, 0.5), percentile(h, 0.9), percentile(h, 1.0)) == (5, 9, 10)


def f(hp: int, status: str, cause: str | None, knocked_out: bool) -> tuple:
    """A fighter row with no morale state and no learning tick."""
    return (hp, status, cause, knocked_out, None, ())


class TestAggregate:
    """Counting battles into the summary."""

    def _agg(self) -> Aggregate:
        return Aggregate.for_roster([("A", "party"), ("B", "party"), ("M", "foe")],
                                    ["party", "foe"], "party")

    def test_tpk_needs_every_party_member_dead(self) -> None:
        """TPK counts only battles where every party member died."""
        agg = self._agg()
        agg.add((0, 1, "foe", 3, (f(0, "dead", "weapon", False), f(0, "dead", "fire", False),
                                  f(5, "active", None, False))))
        agg.add((1, 2, "foe", 3, (f(0, "dead", "weapon", False), f(3, "unconscious", None, True),
                                  f(5, "active", None, False))))
        agg.add((2, 3, "party", 4, (f(9, "active", None, False), f(0, "unconscious", None, True),
                                    f(0, "dead", "weapon", False))))
        s = agg.summary({"scenario": "x"})
        assert s["tpk"]["p"] == pytest.approx(1 / 3)
        assert s["sides"]["foe"]["wins"] == 2 and s["draws"] == 0
        assert s["combatants"]["A"]["death"]["p"] == pytest.approx(2 / 3)
        assert s["combatants"]["B"]["death_causes"] == {"fire": pytest.approx(1 / 3)}
        assert s["combatants"]["B"]["knocked_out"]["p"] == pytest.approx(2 / 3)
        assert s["rounds"] == {"mean": pytest.approx(10 / 3, abs=1e-4), "p50": 3, "p90": 4, "max": 4}

    def test_halfwidth_shrinks(self) -> None:
        """The headline half-width shrinks as battles accumulate."""
        agg = self._agg()
        row = (0, 1, "party", 2, (f(5, "active", None, False),) * 2 + (f(0, "dead", "weapon", False),))
        widths = []
        for _ in range(3):
            for _ in range(100):
                agg.add(row)
            widths.append(agg.headline_halfwidth())
        assert widths[0] > widths[1] > widths[2] > 0


class TestMounts:
    """Mounts are combatants, but a party is wiped out when its people are."""

    def test_tpk_ignores_mounts(self) -> None:
        """A surviving horse does not prevent a TPK (RULES: tpk = every party member dies)."""
        agg = Aggregate.for_roster([("Knight", "party"), ("horse", "party"), ("Foe", "foe")],
                                   ["party", "foe"], "party", mounts=["horse"])
        agg.add((0, 1, "foe", 5, (f(0, "dead", "weapon", False), f(12, "active", None, False),
                                  f(3, "active", None, False))))
        assert agg.summary({})["tpk"]["p"] == 1.0
