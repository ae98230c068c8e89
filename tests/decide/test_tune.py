"""sim tune: the values that meet a risk target, on a duel whose answer is known exactly."""

from __future__ import annotations

import math
import pathlib
from fractions import Fraction

import pytest

from sim import cli
from sim.decide.tune import STEP, parse_target, parse_vary
from sim.errors import InputError
from tests.cli.helpers import answer

DUEL = pathlib.Path(__file__).parent.parent / "data" / "duel" / "duel.yaml"
VARY = "sides[beast].members[Beast].defense_threshold"


def exact_win(threshold: int) -> float:
    """P(hero wins) of tests/data/duel/duel.yaml with the beast's defense threshold set.

    The hero hits iff d20 + 2 > threshold; the beast hits iff the hero's d20 + 3 <= 12
    (9/20); 1 HP each, so the first hit ends it; the party acts first half the time;
    100 rounds at most (see tests/batch/test_run.py::exact_duel_win).
    """
    a = Fraction(max(0, min(20, 22 - threshold)), 20)
    b = Fraction(9, 20)
    half = Fraction(1, 2)
    win_round = half * a + half * (1 - b) * a
    go_on = (1 - a) * (1 - b)
    return float(win_round * (1 - go_on**100) / (1 - go_on))


def tune(capsys, *args: str) -> dict:
    return answer(capsys, "tune", *args, "--workers", "1")


class TestMonotoneDuel:
    """Tuning the beast's defense on an enumerable duel finds the exact answer."""

    def test_finds_the_exact_boundary(self, capsys):
        """party.win >= 0.40 holds exactly for thresholds 10..15 (exact 0.596 .. 0.422; 16 gives 0.378)."""
        result = tune(capsys, str(DUEL), "--vary", f"{VARY}=10..20", "--target", "party.win>=0.40",
                      "--precision", "0.01")
        assert [p["value"] for p in result["points"]] == list(range(10, 21))
        assert (result["smallest_ok"], result["largest_ok"]) == (10, 15)
        for point in result["points"]:
            exact = exact_win(point["value"])
            assert point["meets"] == (exact >= 0.40)
            se = math.sqrt(exact * (1 - exact) / point["battles"])
            assert abs(point["metric"]["p"] - exact) <= 4 * se + 1e-9
        assert result["battles"] == sum(p["battles"] for p in result["points"])

    def test_battles_go_where_it_is_uncertain(self, capsys):
        """Values far from the target stop after one step; the nearest ones get the most."""
        result = tune(capsys, str(DUEL), "--vary", f"{VARY}=10..20", "--target", "party.win>=0.40",
                      "--precision", "0.01")
        battles = {p["value"]: p["battles"] for p in result["points"]}
        assert battles[20] == battles[10] == 250
        assert max(battles, key=battles.get) in (15, 16)

    def test_straddling_value_is_flagged(self, capsys):
        """Threshold 13 wins exactly half the time: against >= 0.5 it straddles at +-0.05."""
        result = tune(capsys, str(DUEL), "--vary", f"{VARY}=13..13", "--target", "party.win>=0.5",
                      "--precision", "0.05")
        (point,) = result["points"]
        assert point["straddles"]
        assert (point["metric"]["hi"] - point["metric"]["lo"]) / 2 <= 0.05

    def test_stops_at_the_first_step_whose_half_width_is_within_precision(self, capsys):
        """The stopping rule is the half-width: near p = 0.5 the 95% interval is +-0.062 after
        one step of 250 battles and +-0.044 after two, so a straddling value stops at 500
        (a full width within 0.05 would take 1750). The same seeds cut one step earlier (-n)
        give an interval still wider than +-precision."""
        args = (str(DUEL), "--vary", f"{VARY}=13..13", "--target", "party.win>=0.5", "--precision", "0.05")
        (point,) = tune(capsys, *args)["points"]
        assert point["straddles"] and point["battles"] == 2 * STEP
        (earlier,) = tune(capsys, *args, "-n", str(point["battles"] - STEP))["points"]
        assert earlier["battles"] == STEP and earlier["straddles"]
        assert (earlier["metric"]["hi"] - earlier["metric"]["lo"]) / 2 > 0.05


class TestParsing:
    """--target and --vary are refused with one clear line when malformed."""

    def test_target(self):
        """METRIC<=X and >=X, in proportions or percent."""
        assert str(parse_target("party.any_death<=0.10")) == "party.any_death<=0.1"
        assert parse_target("party.win >= 90%").bound == pytest.approx(0.9)
        for bad in ("party.deaths<=0.1", "party.win<0.5", "party.win<=2"):
            with pytest.raises(InputError):
                parse_target(bad)

    @pytest.mark.parametrize("vacuous", ["party.any_death<=1", "party.win>=0", "party.tpk<=100%",
                                         "party.win >= 0%"])
    def test_target_every_value_meets_is_refused(self, vacuous):
        """A target no proportion can miss (<=1, >=0) was accepted and decided nothing: every
        value met it, whatever the battles."""
        with pytest.raises(InputError, match=r"is met by every value whatever the battles"):
            parse_target(vacuous)

    def test_vary(self):
        """PATH=LO..HI with LO <= HI and at most 100 values."""
        assert parse_vary("a.b=1..3") == ("a.b", [1, 2, 3])
        for bad in ("a.b=3..1", "a.b=1..500", "a.b=1,2", "=1..2", "a.b=1.." + "9" * 5000):
            with pytest.raises(InputError):
                parse_vary(bad)

    def test_bad_path_exit_2(self, capsys):
        """A --vary path that does not exist is exit 2 with a did-you-mean."""
        code = cli.main(["tune", str(DUEL), "--vary", "sides[beasts].members[Beast].hp=1..3",
                         "--target", "party.win>=0.5", "--workers", "1"])
        assert code == 2
        assert "did you mean 'beast'?" in capsys.readouterr().err


class TestLeftBehindTarget:
    """`--target party.left_behind<=X` (rules §5): tuned like the headline metrics."""

    def test_each_value_counts_what_its_batch_counts(self, capsys):
        """Each value's share of battles that leave a member behind is the batch's on the same
        seeds and as many battles."""
        raiders = pathlib.Path(__file__).parent.parent.parent / "scenarios" / "raiders_rout.yaml"
        vary = "sides[raiders].members[thrall].count"
        result = tune(capsys, str(raiders), "--vary", f"{vary}=1..3", "--target",
                      "party.left_behind<=0.3", "-n", "500", "--seed", "3", "--no-progress")
        assert result["target"] == "party.left_behind<=0.3"
        for point in result["points"]:
            summary = answer(capsys, "batch", str(raiders), "--set", f"{vary}={point['value']}",
                             "-n", str(point["battles"]), "--seed", "3", "--workers", "1",
                             "--no-progress")
            assert point["metric"] == summary["party"]["left_behind"]
            assert point["headline"]["party.left_behind"] == point["metric"]
            assert point["meets"] == (point["metric"]["p"] <= 0.3)
