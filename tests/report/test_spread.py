"""Showing a sim spread: the sentence and table in 80 columns, and spread.html in Chromium."""

from __future__ import annotations

import pathlib
from typing import Any

import pytest

from sim import cli
from sim.batch import run_serial
from sim.day.file import load_input
from sim.decide.presets import groups
from sim.decide.spread import spread
from sim.report import spread as shown
from tests.cli.helpers import run
from tests.conftest import CHROMIUM
from tests.test_pages_browser import SMALLEST_TEXT_PX, WIDTHS, Opened

ROOT = pathlib.Path(__file__).parent.parent.parent
AMBUSH = ROOT / "scenarios" / "road_ambush.yaml"
WARREN = ROOT / "scenarios" / "days" / "goblin_warren.yaml"


@pytest.fixture(scope="module")
def ambush() -> Any:
    subject = load_input(AMBUSH, ())
    return spread(subject, groups(subject, None), 1, 200, run_serial, 2, 100)


@pytest.mark.parametrize("path", [AMBUSH, WARREN], ids=["encounter", "day"])
def test_terminal_fits_80_columns(capsys, path):
    """The sentence first, then the table: no line wider than 80 columns, a row per play."""
    code, out, _ = run(capsys, "spread", str(path), "-n", "100", "--workers", "1", "--no-progress")
    assert code == 0
    lines = out.splitlines()
    assert max(map(len, lines)) <= 80
    assert lines[0].startswith("From ") or lines[0].startswith("Play does not move it")
    text = " ".join(lines)
    assert "someone dies" in text and "as written" in text
    for play in ("as written", " weakest", " strongest", " focus", " spread", " drink-early", " medic",
                 "best corner", "worst corner"):
        assert any(line.startswith(play) for line in lines), play


def test_a_wide_name_wraps_and_never_widens_the_table(ambush):
    """A long side name wraps in the play column; figures keep their columns."""
    long = ambush.groups[0]
    renamed = type(long)(long.role, long.side, "the heroes of the long road home", long.names)
    rows = tuple(r if not r.play.chosen else type(r)(
        type(r.play)(r.play.label, tuple((renamed if g == long else g, p) for g, p in r.play.chosen),
                     r.play.subject, r.play.same_as), r.summary, r.diffs) for r in ambush.rows)
    wide = type(ambush)(ambush.name, ambush.unit, ambush.seed, ambush.battles, (renamed, ambush.groups[1]),
                        rows, ambush.corners)
    lines = shown.spread_lines(wide)
    assert max(map(len, lines)) <= 80
    assert "the heroes of the long road home" in " ".join(" ".join(lines).split())


def test_same_battles_rows_say_so(ambush):
    """A preset that plays as written (the goblins already spread their blows) is shown as the
    same battles, not as a difference of zero."""
    lines = shown.table_lines(ambush)
    goblins = lines.index("goblins:")
    spread_line = next(line for line in lines[goblins:] if line.startswith(" spread"))
    assert spread_line.split()[1:3] == ["same", "battles"]


def test_page_names_the_range_and_the_plot(ambush, tmp_path):
    path = shown.write_page(ambush, tmp_path)
    text = path.read_text()
    assert path.name == "spread.html"
    assert "How much does it hang on play?" in text
    assert 'data-plot="spread"' in text and "<svg" in text
    assert "best corner" in text and "worst corner" in text


def test_report_is_refused_when_there_without_force(capsys, tmp_path):
    argv = ["spread", str(AMBUSH), "-n", "30", "--workers", "1", "--no-progress", "--report", str(tmp_path)]
    assert run(capsys, *argv)[0] == 0
    code, _, err = run(capsys, *argv)
    assert code == 2 and "--force replaces it" in err
    assert run(capsys, *argv, "--force")[0] == 0


pytestmark_browser = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's Chromium")


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    folder = tmp_path_factory.mktemp("spread")
    assert cli.main(["spread", str(WARREN), "-n", "60", "--workers", "1", "--no-progress", "--json",
                     "--report", str(folder)]) == 0
    return folder / "spread.html"


@pytestmark_browser
@pytest.mark.parametrize("width", WIDTHS)
def test_page_opens_clean_and_fits(browser, page, width):
    """No console or page error, no sideways scroll, a plot with a point per play."""
    opened = Opened(browser, page, width)
    try:
        assert opened.errors == []
        assert opened.tab.evaluate("document.documentElement.scrollWidth") <= width
        assert opened.tab.locator("figure[data-plot=spread] svg").count() == 1
        assert "someone dies" in opened.tab.locator(".answer").first.text_content()
    finally:
        opened.tab.close()


@pytestmark_browser
def test_plot_text_legible_on_a_phone(browser, page):
    opened = Opened(browser, page, 390)
    try:
        smallest = opened.tab.evaluate("""() => { const svg = document.querySelector('figure svg');
            return Number(svg.dataset.smallestFont) * svg.getBoundingClientRect().width
                   / svg.viewBox.baseVal.width; }""")
        assert smallest >= SMALLEST_TEXT_PX
    finally:
        opened.tab.close()


def test_the_guide_shows_a_real_run(capsys):
    """docs/guide/spread.md's road ambush: every line it shows (but its "...") is what
    `sim spread scenarios/road_ambush.yaml` prints."""
    guide = (ROOT / "docs" / "guide" / "spread.md").read_text()
    block = guide.split("$ sim spread scenarios/road_ambush.yaml\n", 1)[1].split("```", 1)[0]
    code, out, _ = run(capsys, "spread", str(AMBUSH), "--workers", "1", "--no-progress")
    assert code == 0
    printed = out.splitlines()
    shown = [line for line in block.splitlines() if line.strip() != "..."]
    assert all(line in printed for line in shown), [line for line in shown if line not in printed]
    assert printed[:len(shown)][:8] == shown[:8]
