"""The HTML lethality report: one self-contained, injection-safe page with tables, plots and a viewer."""

from __future__ import annotations

import base64
import hashlib
import json
import pathlib
import re
import shutil
from collections.abc import Callable
from typing import TYPE_CHECKING

import pytest
from markupsafe import escape

from sim import cli
from sim.errors import InputError
from sim.replay.load import regenerate
from sim.replay.picks import PICKS, pick_battles
from sim.replay.state import BattleView
from sim.report import difficulty_text, explain, pct, viewer_states, write_report
from sim.report.page import _verdict
from sim.report.viewer import viewer_lines
from tests.conftest import CHROMIUM

if TYPE_CHECKING:
    from playwright.sync_api import Page

EVIL = "<script>alert(1)</script>"
ZOE = 'Zoë "the" <b>Bold</b> & co'
SCENARIO = """\
name: 'Tiny <i>brawl</i> & co'
rules: d20
max_rounds: 30
sides:
  - name: heroes
    party: true
    members:
      - {name: '<script>alert(1)</script>', level: 2, hp: 9, armor: 2, heroism: 2,
         weapons: [{name: 'sword </script><script>alert(2)</script>', damage: 1d6}]}
      - {name: 'Zoë "the" <b>Bold</b> & co', level: 1, hp: 7, armor: 1,
         weapons: [{name: dagger, damage: 1d4}], items: [{heal: 1d4, count: 2}]}
  - name: beasts
    members:
      - {name: Wolf, level: 1, hp: 7, attack_threshold: 11, defense_threshold: 12,
         weapons: [{name: bite, damage: 1d6}]}
      - {name: Bear, level: 2, hp: 10, attack_threshold: 12, defense_threshold: 12,
         weapons: [{name: claws, damage: 1d6}]}
"""
PLOTS = {"win", "deaths", "party", "rounds", "hp"}


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    """A 60-battle run of the tiny scenario."""
    base = tmp_path_factory.mktemp("html_report")
    scenario = base / "tiny.yaml"
    scenario.write_text(SCENARIO, encoding="utf-8")
    out = base / "run"
    code = cli.main(["batch", str(scenario), "-n", "60", "--workers", "1", "--out", str(out),
                     "--json", "--no-progress"])
    assert code == 0
    return out


@pytest.fixture(scope="module")
def report(run: pathlib.Path) -> pathlib.Path:
    return write_report(run)


@pytest.fixture(scope="module")
def page(report: pathlib.Path) -> str:
    return report.read_text(encoding="utf-8")


def embedded(page: str, element_id: str) -> object:
    """The JSON inside the <script type="application/json"> of that id."""
    found = re.search(rf'<script type="application/json" id="{element_id}"[^>]*>(.*?)</script>', page,
                      re.DOTALL)
    assert found is not None, element_id
    return json.loads(found.group(1))


def rows_with(run: pathlib.Path, tmp_path: pathlib.Path, change: Callable[[dict], None]) -> list[str]:
    """The table rows of the report of a copy of ``run`` whose summary ``change`` edited."""
    copy = tmp_path / "run"
    shutil.copytree(run, copy)
    summary = json.loads((copy / "summary.json").read_text(encoding="utf-8"))
    change(summary)
    (copy / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    return re.findall(r"<tr>(.*?)</tr>", write_report(copy, force=True).read_text(encoding="utf-8"))


def shown_after(states: list[dict], k: int) -> dict[str, dict]:
    """What the viewer shows of each combatant after event k: state-KEY's changes applied in order."""
    cast = dict(states[0]["cast"])
    for state in states[1 : k + 1]:
        cast.update(dict(state["cast"]))
    return cast


def hp_after(events: list[dict], k: int) -> dict[str, int]:
    """Each combatant's HP after events 0..k: battle_started's HP, then every damage_dealt's
    (and item_used's) hp_after."""
    hp = {c["name"]: c["hp"] for c in events[0]["combatants"]}
    for event in events[1 : k + 1]:
        if event["event"] in ("damage_dealt", "item_used") and event["target"] in hp:
            hp[event["target"]] = event["hp_after"]
    return hp


class TestFile:
    """write_report writes one deterministic file, atomically, and refuses folders without a summary."""

    def test_written_beside_the_run(self, run: pathlib.Path, report: pathlib.Path) -> None:
        """The report is run/report.html and no temporary file is left beside it."""
        assert report == run / "report.html"
        assert report.is_file()
        assert not [p for p in run.iterdir() if p.name.endswith(".tmp")]

    def test_deterministic(self, run: pathlib.Path, page: str) -> None:
        """Writing the report again gives the same bytes (fixed SVG ids, no dates)."""
        assert write_report(run, force=True).read_text(encoding="utf-8") == page

    def test_missing_summary(self, tmp_path: pathlib.Path) -> None:
        """A folder without summary.json is an InputError in file:0:0: (document): form."""
        with pytest.raises(InputError, match=r"summary\.json:0:0: \(document\): "):
            write_report(tmp_path)

    def test_damaged_summary(self, tmp_path: pathlib.Path) -> None:
        """A summary.json that is not JSON is an InputError, not a traceback."""
        (tmp_path / "summary.json").write_text("{oops", encoding="utf-8")
        with pytest.raises(InputError, match=r":1:2: \(document\): unreadable summary"):
            write_report(tmp_path)

    def test_nothing_from_the_network(self, page: str) -> None:
        """No URL at all, no src attribute, only in-page or data: hrefs, and a CSP forbidding the rest."""
        assert re.search(r"https?:", page, re.IGNORECASE) is None
        assert re.search(r"\ssrc\s*=", page, re.IGNORECASE) is None
        hrefs = re.findall(r'href="([^"]*)"', page)
        assert hrefs and all(h.startswith(("#", "data:")) for h in hrefs)
        assert "default-src 'none'" in page


class TestTables:
    """The header, the verdict and the lethality tables, with their 95% intervals."""

    def test_header(self, run: pathlib.Path, page: str) -> None:
        """The header names the scenario (escaped), the rules, the number of battles and the seed."""
        assert "<h1>Tiny &lt;i&gt;brawl&lt;/i&gt; &amp; co</h1>" in page
        assert "rules d20 &middot; 60 battles &middot; seed 1" in page

    def test_verdict(self, run: pathlib.Path, page: str) -> None:
        """The page leads with the headline: difficulty, win, someone down, someone dead, TPK."""
        summary = json.loads((run / "summary.json").read_text(encoding="utf-8"))
        party = summary["party"]
        sentence = (f"Difficulty {difficulty_text(party)}: heroes win {pct(party['win'])};"
                    f" someone goes down in {pct(party['any_down'])}, someone dies in"
                    f" {pct(party['any_death'])}, total party kill in {pct(party['tpk'])} of battles.")
        header = page[page.index("<header>"):page.index("</header>")]
        assert f'<p class="verdict">{escape(sentence)}</p>' in header

    def test_verdict_of_an_older_summary(self) -> None:
        """A summary written before ``party`` existed keeps the old verdict: win rate and TPK."""
        summary = {"sides": {"heroes": {"win_rate": {"p": 0.5, "lo": 0.4, "hi": 0.6}}},
                   "tpk": {"p": 0.1, "lo": 0.05, "hi": 0.2}}
        assert _verdict(summary, "heroes") == ("heroes win 50.0% (40.0-60.0) of battles;"
                                               " total party kill 10.0% (5.0-20.0).")

    def test_party_rows(self, run: pathlib.Path, tmp_path: pathlib.Path) -> None:
        """The outcome table shows someone down, someone dead, both distributions and the difficulty,
        written out by hand from a summary of known figures (not with the page's own helpers)."""
        def known_party(summary: dict) -> None:
            summary["party"].update(
                any_down={"p": 0.4, "lo": 0.31, "hi": 0.52}, any_death={"p": 0.05, "lo": 0.02, "hi": 0.11},
                deaths={"mean": 0.07, "dist": [0.94, 0.05, 0.01]},
                downs={"mean": 0.55, "dist": [0.6, 0.25, 0.15]},
                difficulty="hard", difficulty_range={"lo": "medium", "hi": "deadly"})

        rows = rows_with(run, tmp_path, known_party)
        expected = {"someone in the party goes down": "40.0% (31.0-52.0)",
                    "someone in the party dies": "5.0% (2.0-11.0)",
                    "party members dead": "mean 0.07; 0: 94.0%, 1: 5.0%, 2: 1.0%",
                    "party members down": "mean 0.55; 0: 60.0%, 1: 25.0%, 2: 15.0%",
                    "difficulty": "hard (medium to deadly)"}
        for label, value in expected.items():
            assert f"<td>{label}</td><td>{value}</td>" in rows

    def test_draw_reasons_and_items_as_in_the_terminal(self, run: pathlib.Path,
                                                       tmp_path: pathlib.Path) -> None:
        """The report shows what stopped the draws and the items used, as the terminal does
        (both build these rows with report.terminal's outcome_rows and item_rows)."""
        first = next(iter(json.loads((run / "summary.json").read_text(encoding="utf-8"))["combatants"]))

        def draws_and_items(summary: dict) -> None:
            summary["draws_by"] = {"stalemate": 3, "max_rounds": 1}
            summary["combatants"][first]["items_used"] = {"mean": 0.25}

        rows = rows_with(run, tmp_path, draws_and_items)
        assert "<td>  draws stopped by</td><td>stalemate 3, round limit 1</td>" in rows
        assert f"<td>{escape(first)}</td><td>0.25</td>" in rows

    def test_every_combatant_row(self, run: pathlib.Path, page: str) -> None:
        """Each combatant has its escaped name, death and knock-out intervals and mean HP left."""
        summary = json.loads((run / "summary.json").read_text(encoding="utf-8"))
        rows = re.findall(r"<tr>(.*?)</tr>", page)
        for name, c in summary["combatants"].items():
            row = next(r for r in rows if r.startswith(f"<td>{escape(name)}</td>"))
            assert pct(c["death"]) in row and pct(c["knocked_out"]) in row
            assert f"<td>{pct(c['death'])}</td><td>{pct(c['down'])}</td>" in row
            assert f"{c['hp_left']['mean']:.1f}" in row
        assert "Battle length (rounds)" in page and f"<td>{summary['rounds']['p90']}</td>" in page


class TestPlots:
    """Five inline SVG plots made with matplotlib, each in a figure with a caption."""

    def test_five_figures(self, page: str) -> None:
        """Figures win, deaths, party, rounds and hp each hold an <svg> and a <figcaption>."""
        figures = dict(re.findall(r'<figure data-plot="(\w+)">(.*?)</figure>', page, re.DOTALL))
        assert set(figures) == PLOTS
        for body in figures.values():
            assert body.startswith("<svg") and re.search(r"</svg>\s*<figcaption>", body)
        assert "<?xml" not in page and "<metadata>" not in page

    def test_ids_unique(self, page: str) -> None:
        """Every id in the page is unique: each SVG's ids carry its plot's prefix."""
        ids = re.findall(r'\sid="([^"]*)"', page)
        assert len(ids) == len(set(ids))


class TestSafety:
    """Names from the scenario are text, in HTML and in the embedded JSON."""

    def test_names_escaped(self, page: str) -> None:
        """The hostile names appear escaped and never raw."""
        assert escape(EVIL) in page and escape(ZOE) in page
        assert EVIL not in page and "<b>Bold</b>" not in page and "<i>brawl" not in page
        assert "<script>alert" not in page and "</script><script>" not in page

    def test_only_our_scripts(self, page: str) -> None:
        """The page has exactly its own script plus three JSON blocks per picked battle."""
        assert len(re.findall(r"<script\b", page)) == 1 + 3 * len(PICKS)
        assert len(re.findall(r"</script>", page)) == 1 + 3 * len(PICKS)

    def test_policy_allows_exactly_the_inline_script(self, page: str) -> None:
        """The Content-Security-Policy names the SHA-256 of the page's one script as inlined."""
        script = re.search(r"<script>(.*?)</script>", page, re.DOTALL)
        assert script is not None
        digest = base64.b64encode(hashlib.sha256(script.group(1).encode("utf-8")).digest()).decode("ascii")
        assert f"script-src 'sha256-{digest}';" in page

    def test_json_cannot_end_its_script(self, page: str) -> None:
        """Inside the JSON blocks <, > and & only appear as \\u escapes."""
        blocks = re.findall(r'<script type="application/json"[^>]*>(.*?)</script>', page, re.DOTALL)
        assert len(blocks) == 3 * len(PICKS)
        assert all(not set(block) & set("<>&") for block in blocks)
        assert any("\\u003cscript\\u003ealert(1)\\u003c/script\\u003e" in block for block in blocks)


class TestViewer:
    """The worst, median and best battles embedded as their event logs, with a line of text per event."""

    def test_events_parse_back(self, run: pathlib.Path, page: str) -> None:
        """Each battle-KEY block parses back to regenerate()'s events of the picked battle."""
        picks = pick_battles(run)
        for key in PICKS:
            events = json.loads(json.dumps(regenerate(run, picks[key])))
            assert embedded(page, f"battle-{key}") == events
            assert f'id="battle-{key}" data-index="{picks[key]}"' in page

    def test_narration_per_event(self, page: str) -> None:
        """narration-KEY has one line per event: the narration's, or explain() of it."""
        for key in PICKS:
            events = embedded(page, f"battle-{key}")
            assert embedded(page, f"narration-{key}") == viewer_lines(events)
            lines = [explain(e) for e in events]
            assert sum(a == b for a, b in zip(viewer_lines(events), lines, strict=True)) > len(events) / 2

    def test_states_replay_the_terminal_view(self, page: str) -> None:
        """Applying state-KEY's changes up to event k gives BattleView's combatants after event k."""
        for key in PICKS:
            events, states = embedded(page, f"battle-{key}"), embedded(page, f"state-{key}")
            assert len(states) == len(events)
            view = BattleView(events)
            for k in range(len(events)):
                view.goto(k)
                assert shown_after(states, k) == {
                    name: {"hp": c.hp, "max": c.max_hp, "status": c.status, "details": c.details()}
                    for name, c in view.combatants.items()}

    def test_states_carry_the_shared_pool(self, tmp_path: pathlib.Path) -> None:
        """Destiny points the party shares appear in the state of the event that spends them."""
        from sim.engine import run_battle
        from sim.scenario import load_scenario

        path = tmp_path / "destiny.yaml"
        path.write_text(SCENARIO.replace("max_rounds: 30", "max_rounds: 30\noptions: {destiny_points: 2}"),
                        encoding="utf-8")
        scenario = load_scenario(path)
        for seed in range(60):
            _, events = run_battle(scenario, seed, log=True)
            spent = [k for k, e in enumerate(events)
                     if e["event"] == "resource_spent" and e["resource"] == "destiny"]
            if spent:
                break
        states = viewer_states(events)
        view = BattleView(events)
        view.goto(spent[0])
        assert states[spent[0]]["shared"] == view.shared == {"destiny": 1}
        assert all("shared" not in state for state in states[1 : spent[0]])

    def test_states_of_a_mounted_battle(self) -> None:
        """Riders: [mounted], then [prone] when thrown, PSY and fatigue as the terminal tells them."""
        from sim.engine import run_battle
        from sim.scenario import load_scenario

        scenarios = pathlib.Path(__file__).parent.parent.parent / "scenarios"
        scenario = load_scenario(scenarios / "mounted_charge.yaml")
        for seed in range(40):
            _, events = run_battle(scenario, seed, log=True)
            states = viewer_states(events)
            view = BattleView(events)
            for k in range(len(events)):
                view.goto(k)
                assert {n: s["details"] for n, s in shown_after(states, k).items()} == {
                    n: c.details() for n, c in view.combatants.items()}
            if any(e["event"] == "effect_ended" and e["effect"] == "mounted" for e in events):
                break
        details = {d for state in states for _, shown in state["cast"] for d in shown["details"]}
        assert {"[mounted]", "[prone]"} <= details

    def test_explain(self) -> None:
        """Narrated events use narrate's line; others get a plain line of their fields."""
        damage = {"event": "damage_dealt", "round": 1, "t": 0.5, "target": "Wolf", "amount": 3,
                  "source": "Bear", "kind": "weapon", "hp_before": 7, "hp_after": 4}
        assert explain(damage) == "Wolf takes 3 weapon damage from Bear (7 -> 4 HP)."
        assert explain({"event": "turn_started", "round": 1, "t": 0.2, "actor": "Wolf"}) == "Wolf's turn."
        assert explain({"event": "howled", "round": 2, "t": 1.0, "actor": "Wolf"}) == "Howled: actor Wolf."
        assert explain({"event": "died", "round": 2, "t": 1.0}) == "Died."


def tags_after(states: list[dict], k: int) -> dict[str, str]:
    """The text under each HP bar after event k: status (unless active), then the details."""
    return {name: " \u00b7 ".join([*([] if c["status"] == "active" else [c["status"]]), *c["details"]])
            for name, c in shown_after(states, k).items()}


@pytest.mark.skipif(not CHROMIUM.exists(), reason="needs Debian's Chromium at /usr/bin/chromium")
class TestBrowser:
    """The page in headless Chromium: no alert, no error, working plots and step-by-step viewer."""

    def test_steps_and_hp(self, browser, report: pathlib.Path, page: str) -> None:
        """Right x3, the last button and the battle select show the HP the log gives, with no alert."""
        self._check(browser.new_page(), report, page)

    @pytest.mark.parametrize("width", [390, 1280])
    def test_fits_the_screen(self, browser, report: pathlib.Path, width: int) -> None:
        """On a 390 px phone and a desktop, the page never scrolls sideways; wide tables scroll
        inside their own box and the battle picker stays on screen."""
        tab = browser.new_page(viewport={"width": width, "height": 800})
        tab.goto(report.resolve().as_uri())
        assert tab.evaluate("document.documentElement.scrollWidth") <= width
        picker = tab.locator("#pick").bounding_box()
        assert picker is not None and picker["x"] + picker["width"] <= width
        for button in ("#first", "#prev", "#next", "#last"):
            box = tab.locator(button).bounding_box()
            assert box is not None and box["x"] + box["width"] <= width
        if width == 390:  # the widest table is wider than a phone: its box scrolls, not the page
            assert tab.evaluate("Math.max(...[...document.querySelectorAll('.table-box')]"
                                ".map(b => b.scrollWidth - b.clientWidth))") > 0

    def test_home_and_end(self, browser, report: pathlib.Path, page: str) -> None:
        """End shows the last event, Home the first; the buttons say so."""
        tab = browser.new_page()
        tab.goto(report.resolve().as_uri())
        worst = embedded(page, "battle-worst")
        tab.keyboard.press("End")
        self._assert_state(tab, page, "worst", worst, len(worst) - 1)
        tab.keyboard.press("ArrowLeft")
        self._assert_state(tab, page, "worst", worst, len(worst) - 2)
        tab.keyboard.press("Home")
        self._assert_state(tab, page, "worst", worst, 0)
        assert "(Home)" in (tab.get_attribute("#first", "title") or "")

    def test_resources_shown(self, browser, report: pathlib.Path, page: str) -> None:
        """Under each bar: the status, effects and resources the terminal replay shows."""
        tab = browser.new_page()
        tab.goto(report.resolve().as_uri())
        states = embedded(page, "state-worst")
        with_heroism = [k for k, state in enumerate(states) if any(
            any(d.startswith("heroism") for d in c["details"]) for _, c in state["cast"])]
        assert with_heroism  # heroism is shown from the first event on
        last = len(states) - 1
        for k in (0, min(20, last), last):
            tab.keyboard.press("Home")
            for _ in range(k if k < last else 0):
                tab.keyboard.press("ArrowRight")
            if k == last:
                tab.keyboard.press("End")
            shown = tab.eval_on_selector_all(
                "#roster .fighter", "rows => rows.map(r => [r.querySelector('.name').textContent,"
                " r.querySelector('.tags').textContent])")
            assert dict(shown) == tags_after(states, k)

    def _check(self, tab: Page, report: pathlib.Path, page: str) -> None:
        dialogs: list[str] = []
        errors: list[str] = []
        requests: list[str] = []
        tab.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        tab.on("pageerror", lambda e: errors.append(str(e)))
        tab.on("request", lambda r: requests.append(r.url))
        tab.goto(report.resolve().as_uri())
        assert tab.locator("figure[data-plot] svg").count() == len(PLOTS)
        worst = embedded(page, "battle-worst")
        for _ in range(3):
            tab.keyboard.press("ArrowRight")
        self._assert_state(tab, page, "worst", worst, 3)
        tab.click("#last")
        self._assert_state(tab, page, "worst", worst, len(worst) - 1)
        tab.select_option("#pick", "median")
        median = embedded(page, "battle-median")
        hit = next(i for i, e in enumerate(median) if e["event"] == "damage_dealt")
        for _ in range(hit):
            tab.click("#next")
        self._assert_state(tab, page, "median", median, hit)
        tab.click("#prev")
        self._assert_state(tab, page, "median", median, hit - 1)
        assert dialogs == [] and errors == []
        assert all(url.startswith("file:") for url in requests), requests

    def _assert_state(self, tab: Page, page: str, key: str, events: list[dict], k: int) -> None:
        """The HP bars and the event text are those after events 0..k."""
        shown = tab.eval_on_selector_all(
            "#roster .hp", "els => els.map(e => [e.dataset.name, e.dataset.hp, e.textContent])")
        expected = hp_after(events, k)
        assert {name: int(hp) for name, hp, _ in shown} == expected
        assert all(text.startswith(f"{hp} / ") for _, hp, text in shown)
        assert tab.text_content("#event-text") == embedded(page, f"narration-{key}")[k]
        assert tab.text_content("#step").startswith(f"event {k + 1} of {len(events)}")


class TestLeftBehind:
    """Left behind is not dead (rules §5): the page says so where it happens."""

    def test_left_behind_in_the_page(self, tmp_path: pathlib.Path) -> None:
        """A rout that leaves fallen heroes behind: the verdict, the outcome table and the
        who-falls table say "left behind", with the summary's intervals."""
        raiders = pathlib.Path(__file__).parent.parent.parent / "scenarios" / "raiders_rout.yaml"
        out = tmp_path / "run"
        assert cli.main(["batch", str(raiders), "-n", "40", "--workers", "1", "--out", str(out),
                         "--json", "--no-progress"]) == 0
        summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
        behind = summary["party"]["left_behind"]
        assert behind["p"] > 0
        html = write_report(out).read_text(encoding="utf-8")
        header = html[html.index("<header>"):html.index("</header>")]
        assert f"someone is left behind in {pct(behind)}" in header
        assert "someone in the party is left behind" in html and "left behind (95% CI)" in html
