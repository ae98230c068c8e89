"""The page of ``sim serve`` on a phone (390 px) and a desktop (1280 px), in Chromium (issue
40, section 2): the odds stay in view while a GM edits, the gutter's numbers sit beside their
lines, no word is cut, descriptions show code, "What if?" plays the table's battles, the saved
YAML says how to get the page's figures again, and a link carries the scenario in its
fragment. Every wait is for what the test reads, never a fixed sleep."""

from __future__ import annotations

import io
import json
import pathlib
import re
import shlex
from contextlib import redirect_stdout
from typing import Any

import pytest

from sim.cli import main
from tests.serve.conftest import ROOT, TOKEN
from tests.serve.test_page import CHROMIUM, address, changed, no_overflow, opened  # noqa: F401

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's Chromium at /usr/bin/chromium")
if CHROMIUM.exists():
    from playwright.sync_api import Page, expect

WIDTHS = (390, 1280)
BATTLES = 1000
PERCENT = re.compile(r"\d+\.\d%")

# What the screen shows: the text of every element drawn wholly inside the viewport.
VISIBLE_TEXT = """() => [...document.querySelectorAll('body *')].filter((node) => {
    if (node.children.length || !node.textContent.trim()) return false;
    const r = node.getBoundingClientRect();
    return r.height > 0 && r.top >= 0 && r.bottom <= innerHeight && r.left >= 0 && r.right <= innerWidth;
}).map((node) => node.textContent).join(' | ')"""


def final_figures(page: Page, battles: int = BATTLES) -> dict[str, str]:
    """Ask for ``battles`` battles and wait for their final figures: the table's rows by label."""
    changed(page, "#n", str(battles))
    expect(page.locator("#battles")).to_contain_text(f"{battles} battles, seed 1: final figures",
                                                     timeout=120_000)
    rows = page.locator("#headline tbody tr").all()
    return {row.locator("th").inner_text(): row.locator("td").first.inner_text() for row in rows}


def difficulty(page: Page) -> str:
    return page.locator("#difficulty").inner_text().removeprefix("Difficulty: ").split(" ")[0]


def scroll_to_editor(page: Page) -> None:
    page.evaluate("document.getElementById('yaml').scrollIntoView({block: 'start'})")
    page.locator("#yaml").click(position={"x": 40, "y": 10})


@pytest.mark.parametrize("width", WIDTHS)
def test_the_odds_stay_in_view_while_editing(browser: Any, address: str, width: int) -> None:  # noqa: F811
    """At 390 px the odds were 1,600 px above the editor: with the editor at the top of the
    screen, the difficulty word, the party's win and someone dies are on screen, and stay there
    after an edit."""
    page, errors = opened(browser, address, width)
    figures = final_figures(page)
    scroll_to_editor(page)
    assert page.evaluate("document.getElementById('yaml').getBoundingClientRect().top") < 600
    if width == 390:  # the table of odds is off screen: only the summary can show them
        assert page.locator("#headline").bounding_box()["y"] < 0
    shown = page.evaluate(VISIBLE_TEXT)
    assert difficulty(page) in shown.lower()
    assert f"wins {figures['the party wins']}" in shown
    assert f"dies {figures['someone dies']}" in shown

    editor = page.locator("#yaml")
    editor.press("End")
    # An edit: once the page has checked it (after a pause in typing), it posts a new batch,
    # and the summary says "Playing the first battles..." until that job's figures are back.
    with page.expect_response(lambda r: r.request.method == "POST" and r.url.endswith("/api/jobs")
                              and '"kind":"batch"' in (r.request.post_data or ""),
                              timeout=30_000) as posted:
        editor.type(" ")
    job = posted.value.json()["id"]
    with page.expect_response(lambda r: r.request.method == "GET" and r.url.endswith(f"/api/jobs/{job}")
                              and r.json()["status"] != "running", timeout=120_000):
        pass
    summary = page.locator("#summary")
    expect(summary).to_contain_text(f"dies {figures['someone dies']}", timeout=30_000)
    box = summary.bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= 900
    assert f"dies {figures['someone dies']}" in page.evaluate(VISIBLE_TEXT)
    no_overflow(page)
    page.close()
    assert errors == []


# Where each number of the gutter is against where its line of the editor is drawn.
GUTTER_OFFSETS = """() => {
    const editor = document.getElementById('yaml');
    const style = getComputedStyle(editor);
    const line = parseFloat(style.lineHeight);
    const first = editor.getBoundingClientRect().top + parseFloat(style.borderTopWidth)
                  + parseFloat(style.paddingTop) - editor.scrollTop;
    const shown = Math.floor((editor.clientHeight - parseFloat(style.paddingTop)) / line);
    return [...document.getElementById('gutter').children]
        .filter((node) => /^\\d+$/.test(node.textContent.trim()))
        .map((node) => [Number(node.textContent), node.getBoundingClientRect().top
                        - (first + (Number(node.textContent) - 1) * line)])
        .filter(([number]) => number <= shown);
}"""


@pytest.mark.parametrize("width", WIDTHS)
def test_the_gutter_numbers_sit_beside_their_lines(browser: Any, address: str, width: int) -> None:  # noqa: F811
    """An error marker pushed every number below it down a row ("5" beside line 6)."""
    page, errors = opened(browser, address, width)
    editor = page.locator("#yaml")
    lines = editor.input_value().splitlines()
    typo = next(k for k, x in enumerate(lines) if x.startswith("distance:"))
    lines[typo] = lines[typo].replace("distance:", "distanse:")
    editor.fill("\n".join(lines))
    expect(page.locator("#gutter .bad")).to_have_text(str(typo + 1), timeout=10_000)
    offsets = page.evaluate(GUTTER_OFFSETS)
    assert len(offsets) >= typo + 3  # lines below the marker are measured too
    assert all(abs(offset) <= 2 for _, offset in offsets), offsets
    page.close()
    assert errors == []


# Every word of the figures' tables, drawn on one line: a word the browser cut spans two.
CUT_WORDS = """() => {
    const cut = [];
    for (const cell of document.querySelectorAll('#results table th, #results table td')) {
        for (const text of [...cell.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE)) {
            for (const match of text.textContent.matchAll(/\\S+/g)) {
                const range = document.createRange();
                range.setStart(text, match.index);
                range.setEnd(text, match.index + match[0].length);
                const rows = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
                if (rows.size > 1) cut.push(match[0]);
            }
        }
    }
    return cut;
}"""


def test_no_word_of_the_figures_is_cut_on_a_phone(browser: Any, address: str) -> None:  # noqa: F811
    """"chance" broke as "chanc/e" at 390 px."""
    page, errors = opened(browser, address, 390)
    final_figures(page)
    page.locator("#foes li").first.get_by_role("button", name="one more / one fewer?").click()
    expect(page.locator("#whatif-table tbody tr").first).to_be_visible(timeout=120_000)
    assert page.evaluate(CUT_WORDS) == []
    page.close()
    assert errors == []


def test_descriptions_show_code_not_backticks(browser: Any, address: str) -> None:  # noqa: F811
    """The priest's description quotes YAML between backticks: shown as code."""
    page, errors = opened(browser, address, 390)
    priest = page.locator("#party li", has_text="priest").locator(".desc")
    expect(priest.locator("code").first).to_be_visible()
    assert "`" not in page.locator("#build").inner_text()
    page.close()
    assert errors == []


def test_what_if_plays_the_tables_battles(browser: Any, address: str) -> None:  # noqa: F811
    """"What if?" said someone dies 3.1% (2,000 battles) under a table saying 2.9% (4,000):
    it now plays the table's battles on its seeds, so "as written" is the table's figure."""
    page, errors = opened(browser, address, 1280)
    figures = final_figures(page)
    page.locator("#foes li").first.get_by_role("button", name="one more / one fewer?").click()
    expect(page.locator("#whatif-text")).to_contain_text(f"({BATTLES} battles each, as the table above",
                                                         timeout=120_000)
    name, as_written = page.locator("#whatif-table tbody tr").first.locator("td").all_inner_texts()[:2]
    assert name == "as written (4 wolves)"  # was "(4 wolf)"
    assert as_written == figures["someone dies"]
    assert f"someone dies {figures['someone dies']} ->" in page.locator("#whatif-text").inner_text()
    page.close()
    assert errors == []


def test_the_saved_yaml_says_how_to_get_the_pages_figures(browser: Any, address: str,  # noqa: F811
                                                          tmp_path: pathlib.Path) -> None:
    """The saved file names the battles and seed behind the page's figures and the command
    that gives them: run as written, it gives the page's figures."""
    page, errors = opened(browser, address, 390)
    figures = final_figures(page)
    with page.expect_download() as download:
        page.get_by_role("button", name="Save as YAML").click()
    name = download.value.suggested_filename
    saved = tmp_path / name
    download.value.save_as(saved)
    head = saved.read_text(encoding="utf-8").splitlines()[:2]
    assert head[0] == (f"# The page's figures: {BATTLES} battles, seed 1: the party wins"
                       f" {figures['the party wins']}, someone dies {figures['someone dies']}.")
    command = head[1].removeprefix("# The same figures: ")
    assert command == f"sim batch {name} -n {BATTLES} --seed 1"
    argv = [str(saved) if word == name else word for word in shlex.split(command)[1:]]
    out = io.StringIO()
    with redirect_stdout(out):
        assert main([*argv, "--json", "--no-progress", "--workers", "1", "--bestiary", str(ROOT / "bestiary"),
                     "--out", str(tmp_path / "run")]) == 0
    party = json.loads(out.getvalue())["party"]
    assert f"{100 * party['any_death']['p']:.1f}%" == figures["someone dies"]
    assert f"{100 * party['win']['p']:.1f}%" == figures["the party wins"]
    page.close()
    assert errors == []


@pytest.mark.parametrize("width", WIDTHS)
def test_a_link_carries_the_scenario_and_the_page_opens_it(browser: Any, address: str,  # noqa: F811
                                                           width: int) -> None:
    """The scenario rides in the fragment, which no request carries; the token stays out; the
    page opened with the link shows the scenario and plays it."""
    context = browser.new_context(viewport={"width": width, "height": 900})
    try:
        first = context.new_page()
        first.goto(address)
        expect(first.locator("#headline tbody tr").first).to_be_visible(timeout=30_000)
        editor = first.locator("#yaml")
        text = re.sub(r"(?m)^name: .*$", "name: Wolves at the mill é", editor.input_value())
        assert "Wolves" in text
        editor.fill(text)
        first.get_by_role("button", name="Link to share").click()
        link = first.locator("#share-link").input_value()
        origin = address.split("/?")[0]
        assert link.startswith(f"{origin}/#scenario=")
        assert TOKEN not in link and "token" not in link

        second = context.new_page()
        asked: list[str] = []
        second.on("request", lambda request: asked.append(request.url))
        second.goto(link)
        expect(second.locator("#yaml")).to_have_value(text, timeout=30_000)
        expect(second.locator("#name")).to_have_value("Wolves at the mill é")
        expect(second.locator("#headline tbody tr").first).to_be_visible(timeout=60_000)
        assert asked and not any("scenario=" in url or "Wolves" in url for url in asked)
        no_overflow(second)
    finally:
        context.close()


def test_names_are_counted_as_a_gm_says_them(browser: Any, address: str) -> None:  # noqa: F811
    """"At most 3 wolf keep...", "as written (3 wolf)": the page's sentences count in plurals."""
    page, errors = opened(browser, address, 390)
    names = ["wolf", "goblin", "man-at-arms", "militiaman", "mummy", "huntress", "vampire spawn",
             "warhorse of Sir Bors", "lynx", "dire wolf", "brigand chief", "draugr", "fire-raiser"]
    assert page.evaluate("(names) => names.map((name) => plural(name))", names) == [
        "wolves", "goblins", "men-at-arms", "militiamen", "mummies", "huntresses", "vampire spawn",
        "warhorses of Sir Bors", "lynxes", "dire wolves", "brigand chiefs", "draugar", "fire-raisers"]
    assert page.evaluate("[counted(1, 'wolf'), counted(3, 'wolf')]") == ["1 wolf", "3 wolves"]
    page.close()
    assert errors == []
