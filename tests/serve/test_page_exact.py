"""The page of ``sim serve`` shows "exact" beside a small fight's figures (issue 38), in
Chromium at 390 and 1280 px: the exact figure sim odds computes, beside the batch's; a fight
too big to solve shows none. Every wait is for what the test reads."""

from __future__ import annotations

from typing import Any

import pytest

from sim.odds.summary import exact_party
from sim.scenario import load_scenario
from tests.serve.conftest import ROOT
from tests.serve.test_page import CHROMIUM, address, no_overflow, opened  # noqa: F401

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's Chromium at /usr/bin/chromium")
if CHROMIUM.exists():
    from playwright.sync_api import expect

DUEL = ROOT / "tests" / "data" / "odds" / "d20_heroism_duel.yaml"


@pytest.mark.parametrize("width", [390, 1280])
def test_a_small_fight_shows_its_exact_figures(browser: Any, address: str, width: int  # noqa: F811
                                               ) -> None:
    exact = exact_party(load_scenario(DUEL))
    page, errors = opened(browser, address, width)
    try:
        page.locator("#yaml").fill(DUEL.read_text(encoding="utf-8"))
        cells = page.locator("#headline td.exact")
        expect(cells.first).to_contain_text(f"exact {100 * exact['win']:.1f}%", timeout=120_000)
        assert cells.first.is_visible()
        box = cells.first.bounding_box()
        assert box is not None and box["x"] + box["width"] <= width
        no_overflow(page)
        assert errors == []
    finally:
        page.close()


def test_a_fight_too_big_to_solve_shows_none(browser: Any, address: str) -> None:  # noqa: F811
    """The page's starting encounter (four heroes, six goblins) is past the solver's bound:
    its final figures come with no exact cell."""
    page, errors = opened(browser, address, 1280)
    try:
        expect(page.locator("#battles")).to_contain_text("final figures", timeout=120_000)
        assert page.locator("#headline td.exact").count() == 0
        assert errors == []
    finally:
        page.close()
