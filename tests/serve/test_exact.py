"""A batch job of a fight small enough to solve carries the exact figures (sim.odds) beside its own."""

from __future__ import annotations

import pytest

from sim.odds.summary import exact_party
from sim.scenario import load_scenario
from tests.serve.conftest import ROOT, scenario_text
from tests.serve.test_app import finished

DUEL = ROOT / "tests" / "data" / "odds" / "d20_heroism_duel.yaml"


def test_a_small_fight_gets_exact_figures(client) -> None:
    started = client.post("/api/jobs", json={"kind": "batch", "scenario": DUEL.read_text(encoding="utf-8"),
                                             "n": 200, "seed": 1})
    view = finished(client, started.json()["id"])
    assert view["status"] == "done"
    assert view["exact"] == exact_party(load_scenario(DUEL))
    assert view["exact"]["win"] == pytest.approx(0.6621, abs=1e-4)


def test_a_fight_too_big_to_solve_gets_none(client) -> None:
    started = client.post("/api/jobs", json={"kind": "batch", "scenario": scenario_text("wolf_ford.yaml"),
                                             "n": 50, "seed": 1})
    view = finished(client, started.json()["id"])
    assert view["status"] == "done" and view["exact"] is None


def test_a_cancelled_solve_gives_way() -> None:
    """The solve beside a page's batch asks, once a turn, whether the job was cancelled (an
    edit): that ends it with no exact figure, never a stale one; it holds no worker after."""
    duel = load_scenario(DUEL)
    asked: list[int] = []

    def cancelled() -> bool:
        asked.append(1)
        return len(asked) > 3  # cancelled during the fourth turn's check

    assert exact_party(duel, cancelled=cancelled) is None and len(asked) == 4
    assert exact_party(duel)["win"] == pytest.approx(0.6621, abs=1e-4)  # otherwise solved
