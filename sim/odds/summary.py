"""A solved fight as a summary shaped like ``sim batch --json``'s (docs, summary JSON):
the same keys where they apply, each figure an interval with ``lo = hi = p``, and
``"exact": true``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sim.errors import InputError
from sim.model import Scenario
from sim.odds.attacks import AttackOdds
from sim.odds.fight import Result, Solver, TooBig
from sim.odds.support import check
from sim.tally.party import difficulty

QUICK_STATES = 20_000  # the bound of a solve beside a batch (sim serve): seconds at most

FIGURES = ("party.win", "party.any_down", "party.any_death", "party.tpk", "draw", "rounds.mean")


def point(p: float) -> dict[str, float]:
    """An exact figure in the shape of an interval."""
    p = min(1.0, max(0.0, p))
    return {"p": p, "lo": p, "hi": p}


def _counts(dist: list[float]) -> dict[str, Any]:
    return {"mean": sum(k * p for k, p in enumerate(dist)), "dist": dist}


def summary(scenario: Scenario, result: Result, table: list[AttackOdds]) -> dict[str, Any]:
    """The summary of an exact solution."""
    out: dict[str, Any] = {
        "schema": 1, "scenario": scenario.name, "rules": scenario.rules, "exact": True,
        "draw_rate": point(result.draw),
        "sides": {side: {"win_rate": point(p)} for side, p in result.wins.items()},
        "tpk": None, "party": None,
        "combatants": {name: {"death": point(result.death[name]), "down": point(result.down[name])}
                       for name in result.down},
        "rounds": {"mean": result.rounds_mean},
        "states": result.peak_states, "residual": result.residual,
        "attacks": [row.as_json() for row in table],
    }
    if result.party is not None:
        any_down, any_death = 1.0 - result.party_downs[0], 1.0 - result.party_deaths[0]
        tpk = result.party_deaths[-1] if len(result.party_deaths) > 1 else 0.0
        band = difficulty(any_down, any_death)
        out["tpk"] = point(tpk)
        out["party"] = {
            "side": result.party, "win": point(result.wins[result.party]), "tpk": point(tpk),
            "any_down": point(any_down), "any_death": point(any_death), "left_behind": point(0.0),
            "deaths": _counts(result.party_deaths), "downs": _counts(result.party_downs),
            "difficulty": band, "difficulty_range": {"lo": band, "hi": band},
        }
    return out


def figure(summary_: dict[str, Any], name: str) -> float | None:
    """A figure of FIGURES read off a summary (exact or a batch's); None where it does not apply."""
    if name == "rounds.mean":
        return summary_["rounds"]["mean"]
    if name == "draw":
        return summary_["draw_rate"]["p"]
    party = summary_.get("party")
    if party is None:
        return None
    return party[name.removeprefix("party.")]["p"]


def exact_party(subject: object, max_states: int = QUICK_STATES,
                cancelled: Callable[[], bool] | None = None) -> dict[str, float] | None:
    """The party's exact figures (``win``, ``any_down``, ``any_death``, ``tpk``) when the
    fight is small enough to solve within ``max_states`` and nobody ``cancelled`` it
    meanwhile (asked once a turn); None otherwise (a day, no party side, something the
    solver refuses, too big, cancelled). A bound of states, not of time: the same fight
    gets the same answer on any machine."""
    try:
        scenario = check(subject)
        result = Solver(scenario, max_states, cancelled).solve()
    except (InputError, TooBig):
        return None
    party = summary(scenario, result, [])["party"]
    keys = ("win", "any_down", "any_death", "tpk")
    return None if party is None else {key: party[key]["p"] for key in keys}
