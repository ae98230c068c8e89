"""The figures that scenario descriptions state hold for the scenarios as they play now.

Each claim (a side's win rate, or the party's chance that someone goes down or dies) is read
from the description's own prose (a regular expression per claim in ``CLAIMS``), and so is
the difficulty a description says it rates, so editing a figure without re-measuring it, or a
rule change that moves the odds, fails here. The figures in the prose are measured with
``sim batch FILE -n 4000 --seed 1 [--set PATH=VALUE]``; this test plays the first 600 of
those battles (same master seed, same battle seeds) through the batch's own chunk runner.
"""

from __future__ import annotations

import functools
import math
import pathlib
import re
from typing import Any, NamedTuple

import pytest
import yaml

from sim.batch import ChunkTask, LogPlan, run_chunk
from sim.model import RULE_SYSTEMS
from sim.scenario import load_scenario
from sim.tally.party import DIFFICULTIES

SCENARIOS = pathlib.Path(__file__).parent.parent / "scenarios"
SEED = 1  # the seed the descriptions' figures were measured with
BATTLES = 600
Z = 3.0  # standard errors of a 600-battle estimate
ROUNDING = 0.01  # "about N%" is the 4000-battle figure rounded to a whole percent
ABOUT = re.compile(r"about (\d+(?:\.\d)?)%")  # how the descriptions state a share
RATES = re.compile(r"it rates (\w+)")  # how a description states its difficulty


class Claim(NamedTuple):
    """A share a description states: of what, where in the prose, under which --set."""

    scenario: str
    side: str  # whose win rate; the party side's name for the party metrics
    pattern: str  # a regular expression whose one group is the claimed percentage
    overrides: tuple[str, ...] = ()
    metric: str = "win"  # or a party metric of the summary: any_down, any_death


def calibration(scenario: str, side: str, win: str) -> tuple[Claim, ...]:
    """The three figures of a calibration example: its side's win rate, someone down, someone dead."""
    return (Claim(scenario, side, rf"{win} about ([\d.]+)%"),
            Claim(scenario, side, r"someone goes down in about ([\d.]+)%", metric="any_down"),
            Claim(scenario, side, r"someone dies in about ([\d.]+)%", metric="any_death"))



CLAIMS = (
    Claim("bear_den", "hunters", r"The hunters win about (\d+)%"),
    Claim("bear_den", "hunters", r"the same hunters 20 m away, [^%]* win about (\d+)%",
          ("distance=20",)),
    Claim("masters_duel", "champions", r"Gunther, wins about (\d+)% of the duels"),
    Claim("raiders_rout", "heroes", r"the heroes win about (\d+)%"),
    Claim("poisoned_darts", "heroes", r"the heroes win about (\d+)%"),
    Claim("smoky_cellar", "heroes", r"without the smoke and the fall they win about (\d+)%",
          ("hazards=[]", "timeline=[]")),
    Claim("smoky_cellar", "heroes", r"with them about (\d+)%"),
    Claim("toll_bridge_brawl", "company", r"at 20 m the company wins about (\d+)%",
          ("distance=20",)),
    Claim("toll_bridge_brawl", "company", r"at 0 m \([^)]*\) about (\d+)%", ("distance=0",)),
    Claim("wolf_winter", "travellers", r"The travellers win about (\d+)%"),
    # The calibration examples, an easy (or trivial) one and a medium one in each system.
    *calibration("cellar_rats", "heroes", "the heroes win"),
    *calibration("kobold_den", "heroes", "the heroes win"),
    *calibration("sheepfold_wolves", "farmhands", "the farmhands win"),
    *calibration("troll_bridge", "farmhands", "the farmhands win"),
    *calibration("barrow_draugr", "wardens", "the wardens win"),
    *calibration("graveyard_ghouls", "wardens", "the wardens win"),
    *calibration("crypt_skeletons", "company", "the company wins"),
    *calibration("highway_robbery", "company", "the company wins"),
)


def description(name: str) -> str:
    """The description of ``scenarios/NAME.yaml``, its line breaks folded into single spaces."""
    data = yaml.safe_load((SCENARIOS / f"{name}.yaml").read_text(encoding="utf-8"))
    return " ".join(str(data.get("description", "")).split())


def claimed(claim: Claim) -> float:
    """The share the prose states, as a proportion; the phrase must be there exactly once."""
    found = re.findall(claim.pattern, description(claim.scenario))
    assert len(found) == 1, f"{claim.scenario}: {claim.pattern!r} matches {len(found)} times"
    return float(found[0]) / 100


@functools.cache
def played(name: str, overrides: tuple[str, ...] = ()) -> dict[str, Any]:
    """The summary of the first BATTLES battles of ``sim batch --seed SEED``."""
    scenario = load_scenario(SCENARIOS / f"{name}.yaml", overrides=overrides)
    result = run_chunk(ChunkTask(scenario, SEED, 0, BATTLES, LogPlan(), rows_only=True))
    assert result.battles == BATTLES
    return result.aggregate.summary({"rules": scenario.rules})


def measured(claim: Claim) -> float:
    """The claimed share over the first BATTLES battles of ``sim batch --seed SEED``."""
    summary = played(claim.scenario, claim.overrides)
    if claim.metric == "win":
        return summary["sides"][claim.side]["wins"] / BATTLES
    assert summary["party"]["side"] == claim.side
    return summary["party"][claim.metric]["p"]


def tolerance(p: float) -> float:
    """Z standard errors of a BATTLES-battle estimate of p, plus the claim's rounding."""
    return Z * math.sqrt(p * (1 - p) / BATTLES) + ROUNDING


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: f"{c.scenario}{list(c.overrides) or ''}")
def test_stated_win_rate_matches_play(claim: Claim) -> None:
    """A win rate a description states is within a few standard errors of the battles played."""
    p = claimed(claim)
    got = measured(claim)
    sets = "".join(f" --set {text}" for text in claim.overrides)
    assert abs(got - p) <= tolerance(p), (
        f"{claim.scenario}: the description says {claim.metric} of {claim.side} about {p:.1%}, but "
        f"{BATTLES} battles give {got:.1%} (tolerance +-{tolerance(p):.1%}): re-measure with "
        f"`sim batch scenarios/{claim.scenario}.yaml -n 4000 --seed {SEED}{sets}` and fix the prose"
    )


def test_every_stated_share_is_checked() -> None:
    """Every "about N%" in a shipped scenario's or day's description has its claim here."""
    files = sorted(SCENARIOS.glob("*.yaml")) + sorted(SCENARIOS.glob("days/*.yaml"))
    names = [path.relative_to(SCENARIOS).with_suffix("").as_posix() for path in files]
    assert "days/goblin_warren" in names and "bear_den" in names
    stated = {name: len(ABOUT.findall(description(name))) for name in names}
    checked = dict.fromkeys(names, 0)
    for claim in CLAIMS:
        checked[claim.scenario] += 1
    assert stated == checked


def stated_difficulties() -> dict[str, str]:
    """The difficulty each shipped scenario's description says it rates, by scenario."""
    names = [path.stem for path in sorted(SCENARIOS.glob("*.yaml"))]
    found = {name: RATES.findall(description(name)) for name in names}
    assert all(len(words) <= 1 for words in found.values()), found
    return {name: words[0] for name, words in found.items() if words}


@pytest.mark.parametrize(("name", "band"), sorted(stated_difficulties().items()))
def test_stated_difficulty_matches_play(name: str, band: str) -> None:
    """A description's "it rates WORD" is the difficulty its first battles give."""
    assert band in DIFFICULTIES
    assert played(name)["party"]["difficulty"] == band, (
        f"{name}: re-measure with `sim batch scenarios/{name}.yaml -n 4000 --seed {SEED}`")


def test_every_system_has_calibration_examples() -> None:
    """Each system ships an example that rates trivial or easy and one that rates medium, so a
    GM has something to calibrate "easy" and "medium" against."""
    bands: dict[str, set[str]] = {rules: set() for rules in RULE_SYSTEMS}
    for name, band in stated_difficulties().items():
        rules = yaml.safe_load((SCENARIOS / f"{name}.yaml").read_text(encoding="utf-8"))["rules"]
        bands[rules].add("easy" if band == "trivial" else band)
    assert {rules: {"easy", "medium"} <= found for rules, found in bands.items()} == \
        dict.fromkeys(RULE_SYSTEMS, True)
