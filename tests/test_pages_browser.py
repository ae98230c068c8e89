"""Every kind of page the tool writes, opened in headless Chromium at a phone's and a desktop's width.

A battle report, a day's report with and without kept logs, compare.html and tune.html:
no console or page error, no sideways scroll of the page, legible plot text on a phone, and
a viewer that shows a battle and a day and moves through them.
"""

from __future__ import annotations

import pathlib
from typing import Any

import pytest

from sim import cli
from sim.report import write_report
from tests.conftest import CHROMIUM

ROOT = pathlib.Path(__file__).parent.parent
AMBUSH = ROOT / "scenarios" / "road_ambush.yaml"
WARREN = ROOT / "scenarios" / "days" / "goblin_warren.yaml"
WIDTHS = (390, 1280)
SMALLEST_TEXT_PX = 11  # the smallest plot text a phone may show, in CSS pixels

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's Chromium at /usr/bin/chromium")


def _batch(scenario: pathlib.Path, out: pathlib.Path, *extra: str) -> pathlib.Path:
    code = cli.main(["batch", str(scenario), "-n", "40", "--workers", "1", "--out", str(out), "--json",
                     "--no-progress", *extra])
    assert code == 0
    write_report(out)
    return out / "report.html"


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, pathlib.Path]:
    """One page of each kind the tool writes."""
    base = tmp_path_factory.mktemp("pages")
    found = {
        "battle": _batch(AMBUSH, base / "battle"),
        "day": _batch(WARREN, base / "day"),
        "day_logs": _batch(WARREN, base / "day_logs", "--logs", "all"),
    }
    assert cli.main(["compare", str(AMBUSH), "--vary", "sides[goblins].members[goblin].count=4,6",
                     "-n", "200", "--workers", "1", "--no-progress", "--json",
                     "--report", str(base / "compare")]) == 0
    found["compare"] = base / "compare" / "compare.html"
    assert cli.main(["tune", str(AMBUSH), "--vary", "sides[goblins].members[goblin].count=1..3",
                     "--target", "party.any_death<=0.10", "-n", "250", "--workers", "1", "--no-progress",
                     "--json", "--report", str(base / "tune")]) == 0
    found["tune"] = base / "tune" / "tune.html"
    return found


class Opened:
    """A page opened at a width, with every console error and page error it raised."""

    def __init__(self, browser: Any, page: pathlib.Path, width: int) -> None:
        self.errors: list[str] = []
        self.tab = browser.new_page(viewport={"width": width, "height": 900})
        self.tab.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.tab.on("pageerror", lambda e: self.errors.append(str(e)))
        self.tab.on("dialog", lambda d: (self.errors.append(f"dialog: {d.message}"), d.dismiss()))
        self.tab.goto(page.resolve().as_uri())
        self.width = width

    def shown(self) -> dict[str, Any]:
        """What the viewer shows: the counter, the event's text and each visible HP bar."""
        return self.tab.evaluate("""() => ({
            step: document.getElementById('step').textContent,
            text: document.getElementById('event-text').textContent,
            hp: [...document.querySelectorAll('#roster .fighter')].filter(r => !r.hidden)
                 .map(r => [r.querySelector('.name').textContent, r.querySelector('.hp').dataset.hp])})""")


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("kind", ["battle", "day", "day_logs", "compare", "tune"])
def test_page_opens_clean_and_fits(browser: Any, pages: dict[str, pathlib.Path], kind: str,
                                   width: int) -> None:
    """No console error, no page error, and the page never scrolls sideways."""
    opened = Opened(browser, pages[kind], width)
    try:
        assert opened.errors == []
        assert opened.tab.evaluate("document.documentElement.scrollWidth") <= width
        assert opened.tab.locator("figure svg").count() >= 1
        if kind == "battle":  # a batch's report ends with one attack's exact odds (sim odds)
            table = opened.tab.locator('table[aria-label^="One attack, exactly"]')
            assert table.count() == 1 and table.locator("tbody tr").count() >= 2
            box = opened.tab.locator(".table-box", has=table).bounding_box()  # it scrolls inside
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width
    finally:
        opened.tab.close()


@pytest.mark.parametrize("kind", ["battle", "day", "day_logs", "compare", "tune"])
def test_plot_text_legible_on_a_phone(browser: Any, pages: dict[str, pathlib.Path], kind: str) -> None:
    """At 390 px every plot's text is at least 11 CSS px tall, and plots are one per row."""
    opened = Opened(browser, pages[kind], 390)
    try:
        # data-smallest-font: the smallest text of the figure in SVG units (pt), scaled as drawn.
        smallest = opened.tab.evaluate("""() => Math.min(...[...document.querySelectorAll('figure svg')]
            .map(svg => Number(svg.dataset.smallestFont) * svg.getBoundingClientRect().width
                        / svg.viewBox.baseVal.width))""")
        assert smallest >= SMALLEST_TEXT_PX
        lefts = opened.tab.evaluate("[...document.querySelectorAll('figure')].map(f =>"
                                    " Math.round(f.getBoundingClientRect().left))")
        assert len(set(lefts)) == 1
    finally:
        opened.tab.close()


@pytest.mark.parametrize("kind", ["battle", "day", "day_logs"])
@pytest.mark.parametrize("width", WIDTHS)
def test_viewer_steps(browser: Any, pages: dict[str, pathlib.Path], kind: str, width: int) -> None:
    """The viewer shows its fighters; next, previous and last change the shown HP and event."""
    opened = Opened(browser, pages[kind], width)
    tab = opened.tab
    try:
        start = opened.shown()
        assert start["hp"] and all(hp not in (None, "") for _, hp in start["hp"])
        assert start["text"] and start["step"].find("event 1 of") >= 0
        tab.click("#next")
        after_next = opened.shown()
        assert after_next["text"] != start["text"]
        assert "event 2 of" in after_next["step"]
        tab.click("#prev")
        assert opened.shown() == start
        tab.click("#last")
        end = opened.shown()
        assert end["hp"] != start["hp"]
        assert end["text"] != start["text"]
        assert tab.is_disabled("#next") and not tab.is_disabled("#prev")
        assert opened.errors == []
    finally:
        tab.close()


def test_day_viewer_moves_through_the_steps(browser: Any, pages: dict[str, pathlib.Path]) -> None:
    """A day's viewer names the step in its counter and, once a later fight starts, shows its
    cast instead of the first fight's (the best day picked reaches past the first fight)."""
    opened = Opened(browser, pages["day"], 1280)
    tab = opened.tab
    try:
        assert "goblin warren" in opened.shown()["step"]
        tab.select_option("#pick", "best")
        tab.click("#next")
        first = opened.shown()
        assert first["step"].startswith("step 1: Road ambush")
        tab.click("#last")
        last = opened.shown()
        assert not last["step"].startswith("step 1:")
        assert {name for name, _ in last["hp"]} != {name for name, _ in first["hp"]}
        assert opened.errors == []
    finally:
        tab.close()


@pytest.mark.parametrize("kind", ["battle", "day", "day_logs"])
def test_the_battle_picker_is_not_cut_on_a_phone(browser: Any, pages: dict[str, pathlib.Path],
                                                 kind: str) -> None:
    """At 390 px the picker showed "raiders win after 8 rounc": every choice's text fits in
    the select (its width less its padding and arrow)."""
    opened = Opened(browser, pages[kind], 390)
    try:
        room, widths = opened.tab.evaluate("""() => {
            const pick = document.getElementById('pick');
            const style = getComputedStyle(pick);
            const pen = document.createElement('canvas').getContext('2d');
            pen.font = style.font;
            const room = pick.clientWidth - parseFloat(style.paddingLeft)
                         - parseFloat(style.paddingRight) - 20;
            return [room, [...pick.options].map((o) => pen.measureText(o.text).width)];
        }""")
        assert widths and max(widths) <= room, opened.tab.evaluate(
            "[...document.getElementById('pick').options].map((o) => o.text)")
        # The whole outcome is on the page, under the picker.
        assert opened.tab.locator("#pick-note").inner_text().startswith(("battle ", "day "))
        assert opened.errors == []
    finally:
        opened.tab.close()
