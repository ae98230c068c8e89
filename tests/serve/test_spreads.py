"""The page's "How much does it hang on play?" box: a spread job refined step by step, whose
figures are sim spread's, and the box in Chromium at 390 and 1280 px."""

from __future__ import annotations

import time

import pytest

from sim.decide.paired import HEADLINE
from tests.serve.conftest import ROOT, scenario_text
from tests.serve.test_app import cli_json, finished, goblin_day, without
from tests.serve.test_page import CHROMIUM, address, browser, no_overflow, opened  # noqa: F401

AMBUSH = "road_ambush.yaml"


def test_a_spread_job_answers_what_sim_spread_json_prints(client) -> None:
    started = client.post("/api/jobs", json={"kind": "spread", "scenario": scenario_text(AMBUSH),
                                             "n": 400, "seed": 5})
    assert started.status_code == 202
    partials = []
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        view = client.get(f"/api/jobs/{started.json()['id']}").json()
        if view["partial"] and (not partials or partials[-1]["battles"] != view["partial"]["battles"]):
            partials.append(view["partial"])
        if view["status"] != "running":
            break
        time.sleep(0.02)
    assert view["status"] == "done"
    result = view["result"]
    cli = cli_json("spread", str(ROOT / "scenarios" / AMBUSH), "-n", "400", "--seed", "5", "--json",
                   "--no-progress", "--workers", "1")
    served = result["spread"]
    assert without(served["as_written"], "elapsed_s") == without(cli["as_written"], "elapsed_s")
    assert served["range"] == cli["range"]
    assert [without(p["summary"], "elapsed_s") for p in served["presets"]] == [
        without(p["summary"], "elapsed_s") for p in cli["presets"]]
    assert set(served["corners"]) == {"best", "worst"} == set(cli["corners"])
    assert {k: without(c["summary"], "elapsed_s") for k, c in served["corners"].items()} == {
        k: without(c["summary"], "elapsed_s") for k, c in cli["corners"].items()}
    assert result["sentence"].startswith("From ") and "someone dies" in result["sentence"]
    assert set(result["range"]) == set(HEADLINE) and result["corners"] is True
    # Refined as the steps finished: 200 battles a play, then the last step with the corners.
    assert partials and all(p["battles"] < 400 and not p["corners"] for p in partials)


def test_a_spread_job_refuses_an_unknown_side(client) -> None:
    answer = client.post("/api/jobs", json={"kind": "spread", "scenario": scenario_text(AMBUSH),
                                            "side": "orcs"})
    assert answer.status_code == 400
    assert "no side 'orcs'" in answer.json()["error"]


def test_a_day_spreads_too(client, server_app) -> None:
    home = server_app[0].workspace.home
    for name in ("road_ambush.yaml", "hobgoblin_warband.yaml"):
        (home / name).write_text(scenario_text(name), encoding="utf-8")
    started = client.post("/api/jobs", json={"kind": "spread", "scenario": goblin_day(), "n": 60,
                                             "side": "party"})
    assert started.status_code == 202
    view = finished(client, started.json()["id"])
    assert view["status"] == "done"
    result = view["result"]["spread"]
    assert result["as_written"]["steps"] and {p["side"] for p in result["presets"]} == {"party"}


def test_a_spread_gives_way_to_the_pages_other_jobs(client) -> None:
    """While a batch runs the spread plays no battle; it goes on once the batch is over, and a
    cancel stops it before its next chunk."""
    batch = client.post("/api/jobs", json={"kind": "batch", "scenario": scenario_text(AMBUSH),
                                           "n": 100_000}).json()
    spread = client.post("/api/jobs", json={"kind": "spread", "scenario": scenario_text(AMBUSH),
                                            "n": 2000}).json()
    deadline = time.monotonic() + 60
    while client.get(f"/api/jobs/{batch['id']}").json()["done"] < 6000 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert client.get(f"/api/jobs/{spread['id']}").json()["done"] == 0
    client.delete(f"/api/jobs/{batch['id']}")
    assert finished(client, batch["id"])["status"] == "cancelled"
    while client.get(f"/api/jobs/{spread['id']}").json()["done"] == 0 and time.monotonic() < deadline:
        time.sleep(0.02)
    assert client.get(f"/api/jobs/{spread['id']}").json()["done"] > 0
    client.delete(f"/api/jobs/{spread['id']}")
    assert finished(client, spread["id"], timeout=30)["status"] == "cancelled"


@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's Chromium at /usr/bin/chromium")
@pytest.mark.parametrize("width", [390, 1280])
def test_the_box_gives_the_sentence_and_the_range(browser, address: str, width: int) -> None:  # noqa: F811
    """Once the page's batch finishes, the box says how much the odds move with play, and its
    final figures name the corners; an edit hides it until the next batch finishes."""
    from playwright.sync_api import expect

    page, errors = opened(browser, address, width)
    expect(page.locator("#battles")).to_contain_text("final figures", timeout=120_000)
    expect(page.locator("#spread-box")).to_be_visible()
    expect(page.locator("#spread-text")).to_contain_text("someone dies", timeout=120_000)
    expect(page.locator("#spread-note")).to_contain_text("final figures", timeout=180_000)
    # The box plays 1,000 battles a play, the table above 4,000: the note says so.
    expect(page.locator("#spread-note")).to_contain_text("the table above: 4000 battles")
    rows = page.locator("#spread-table tbody tr")
    expect(rows).to_have_count(4)
    assert "someone dies" in rows.first.inner_text()
    no_overflow(page)
    page.locator("#destiny").fill("1")
    page.locator("#destiny").press("Tab")
    expect(page.locator("#spread-box")).to_be_hidden(timeout=10_000)
    page.close()
    assert errors == []
