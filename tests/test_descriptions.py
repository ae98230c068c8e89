"""The win rates that scenario descriptions state hold for the scenarios as they play now.

Each claim is read from the description's own prose (a regular expression per claim in
``CLAIMS``), so editing a figure without re-measuring it, or a rule change that moves the
odds, fails here. The figures in the prose are measured with
``sim batch FILE -n 4000 --seed 1 [--set PATH=VALUE]``; this test plays the first 600 of
those battles (same master seed, same battle seeds) through the batch's own chunk runner.
"""

from __future__ import annotations

import math
import pathlib
import re
from typing import NamedTuple

import pytest
import yaml

from sim.batch import ChunkTask, LogPlan, run_chunk
from sim.scenario import load_scenario

SCENARIOS = pathlib.Path(__file__).parent.parent / "scenarios"
SEED = 1  # the seed the descriptions' figures were measured with
BATTLES = 600
Z = 3.0  # standard errors of a 600-battle estimate
ROUNDING = 0.01  # "about N%" is the 4000-battle figure rounded to a whole percent
ABOUT = re.compile(r"about (\d+)%")  # how the descriptions state a share


class Claim(NamedTuple):
    """A win rate a description states: which side, where in the prose, under which --set."""

    scenario: str
    side: str
    pattern: str  # a regular expression whose one group is the claimed percentage
    overrides: tuple[str, ...] = ()


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
)


def description(name: str) -> str:
    """The description of ``scenarios/NAME.yaml``, its line breaks folded into single spaces."""
    data = yaml.safe_load((SCENARIOS / f"{name}.yaml").read_text(encoding="utf-8"))
    return " ".join(str(data.get("description", "")).split())


def claimed(claim: Claim) -> float:
    """The share the prose states, as a proportion; the phrase must be there exactly once."""
    found = re.findall(claim.pattern, description(claim.scenario))
    assert len(found) == 1, f"{claim.scenario}: {claim.pattern!r} matches {len(found)} times"
    return int(found[0]) / 100


def measured(claim: Claim) -> float:
    """The side's win rate over the first BATTLES battles of ``sim batch --seed SEED``."""
    scenario = load_scenario(SCENARIOS / f"{claim.scenario}.yaml", overrides=claim.overrides)
    result = run_chunk(ChunkTask(scenario, SEED, 0, BATTLES, LogPlan(), rows_only=True))
    assert result.battles == BATTLES
    return sum(row[2] == claim.side for row in result.rows) / BATTLES


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
        f"{claim.scenario}: the description says {claim.side} win about {p:.0%}, but "
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
