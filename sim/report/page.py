"""The self-contained HTML lethality report of a batch run: tables, inline SVG plots, a battle viewer.

This module gathers what the page says (the verdict, the lethality tables, the day's steps);
plots.py draws the figures and viewer.py embeds the picked battles. ``templates/report.html``
lays them out with the stylesheet and the viewer's script inlined (one file, nothing loaded
from the network) and escapes every value: a name in a scenario is text, never markup.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import os
import pathlib
from collections.abc import Sequence
from typing import Any

import attrs

from sim import __version__
from sim.batch import SUMMARY, RunFolder, load_run_scenario, write_atomic
from sim.batch.manifest import read_json
from sim.batch.summary_file import check_run_summary
from sim.errors import InputError, RunAborted
from sim.io.runlock import RunLock
from sim.model import Scenario
from sim.odds.attacks import attack_table
from sim.report.plots import attrition_plot, figures, resources_plot
from sim.report.render import environment, render
from sim.report.terminal import (
    ATTACK_CAPTION,
    ATTACK_HEAD,
    STEP_COLUMNS,
    anyone_left_behind,
    attack_rows,
    headline,
    item_rows,
    morale_cells,
    outcome_rows,
    pct,
    resource_columns,
    resource_rows,
    step_rows,
    unit,
)
from sim.report.viewer import viewer

REPORT = "report.html"
SCRIPT = "static/viewer.js"
Summary = dict[str, Any]
# A cell is a text, or lines of text shown one under the other.
Cell = str | tuple[str, ...]


@attrs.frozen
class Table:
    """A table of the page; the template escapes every caption, heading and cell."""

    caption: str
    head: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]


@attrs.frozen
class Day:
    """The day section of a run of adventuring days: its step table and attrition plot (SVG)."""

    table: Table
    plot: str
    resources: Table  # what the party has left as each fight begins
    resources_plot: str | None  # drawn when it has more than HP (which the attrition plot draws)


def write_report(run_dir: pathlib.Path, bestiary: Sequence[pathlib.Path] = (), force: bool = False,
                 locked: bool = False) -> pathlib.Path:
    """Write ``run_dir/report.html`` atomically (one file, loads nothing from the network); its path.

    ``bestiary``: extra folders searched first when the run's scenario is loaded again. A
    report already there is refused unless ``force``: two reports of one folder both said
    "report: ..." and one was silently replaced. The run's lock is held while the page is
    written (``locked``: the caller holds it already, as a batch does)."""
    run_dir = pathlib.Path(run_dir)
    target = run_dir / REPORT
    summary = _read_summary(run_dir)  # first: a folder that is no run is told as such
    with contextlib.ExitStack() as stack:
        if not locked:
            stack.enter_context(RunLock(run_dir, busy="is using this run; wait for it").acquire())
        if target.exists() and not target.is_file():  # renamed over, a FIFO or a device would go
            msg = f"{target}:0:0: (document): not a regular file: the report would replace it"
            raise InputError(msg)
        if os.path.lexists(target) and not force:
            msg = f"{target}:0:0: (document): already there; sim report --force {run_dir} replaces it"
            raise InputError(msg)
        page = render_page(run_dir, summary, bestiary)
        try:
            write_atomic(target, page.encode("utf-8"))
        except OSError as exc:  # a full disk: which file could not be written
            raise RunAborted.cannot_write(target, exc) from exc
    return target


def render_page(run_dir: pathlib.Path, summary: Summary, bestiary: Sequence[pathlib.Path] = ()) -> str:
    """The whole page as text."""
    scenario = _scenario(run_dir, bestiary)
    return render(
        "report.html", script_hash=_script_hash(), scenario=summary.get("scenario"),
        rules=summary.get("rules"), battles=summary.get("battles"), unit=unit(summary),
        seed=summary.get("seed"),
        verdict=_verdict(summary, _party_side(scenario)), day=_day(summary),
        tables=[*_tables(summary), *_attacks(scenario)], figures=figures(run_dir, summary),
        viewer=viewer(run_dir, bestiary),
        version=__version__, run_name=run_dir.name, stopped_early=summary.get("stopped_by") == "precision")


def _script_hash() -> str:
    """The viewer script's SHA-256 for the page's Content-Security-Policy: only that script,
    exactly as the template inlines it, may run."""
    script = environment().get_template(SCRIPT).render()
    return base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")


# -- input -----------------------------------------------------------------------------------


def _read_summary(run_dir: pathlib.Path) -> Summary:
    """The run's summary.json; a missing or damaged one is an input error."""
    path = run_dir / SUMMARY
    summary = read_json(path, "summary", f"no {SUMMARY}: not a finished batch run folder")
    return check_run_summary(path, summary, RunFolder(run_dir).read_manifest())


def _scenario(run_dir: pathlib.Path, bestiary: Sequence[pathlib.Path]) -> Any:
    """The run's scenario (or day: sim.day.file.Day) loaded again, or None when it cannot be."""
    folder = RunFolder(run_dir)
    try:
        return load_run_scenario(folder, folder.read_manifest(), bestiary)
    except InputError:
        return None


def _party_side(scenario: Any) -> str | None:
    """The party side's name, or None when the scenario has no party or cannot be loaded."""
    if scenario is None:
        return None
    return next((side.name for side in scenario.sides if side.party), None)


def _attacks(scenario: Any) -> list[Table]:
    """One attack's exact odds for every attacker and target (sim.odds); none for a day."""
    if not isinstance(scenario, Scenario):
        return []
    return [Table(ATTACK_CAPTION, ATTACK_HEAD, tuple(attack_rows(attack_table(scenario))))]


# -- text ------------------------------------------------------------------------------------


def _verdict(summary: Summary, party: str | None) -> str:
    """The headline sentence (``sim.report.headline``); a summary older than ``party`` gets
    the party's win rate and TPK, or every side's win rate without a party."""
    if "party" in summary:
        return headline(summary)
    sides = summary.get("sides", {})
    tpk = summary.get("tpk")
    if tpk is not None:
        name = party if party in sides else next(iter(sides), "the party")
        win = sides.get(name, {}).get("win_rate")
        return f"{name} win {pct(win)} of battles; total party kill {pct(tpk)}."
    wins = [f"{side} win {pct(stats['win_rate'])}" for side, stats in sides.items()]
    return "; ".join([*wins, f"draw {pct(summary.get('draw_rate'))}"]) + "."


# -- tables ----------------------------------------------------------------------------------


def _tables(summary: Summary) -> list[Table]:
    """The lethality section: outcomes, battle length, who falls, and morale when it mattered."""
    tables = [Table("Outcomes", ("outcome", "rate (95% CI)"), tuple(outcome_rows(summary))),
              _rounds_table(summary), _people_table(summary)]
    items = item_rows(summary)
    if items:
        tables.append(Table(f"Items used (mean per {unit(summary)[:-1]})", ("combatant", "items used"),
                            tuple(items)))
    morale = _morale_table(summary)
    return tables if morale is None else [*tables, morale]


def _rounds_table(summary: Summary) -> Table:
    r = summary["rounds"]
    row = (f"{r['mean']:.1f}", str(r["p50"]), str(r["p90"]), str(r["max"]))
    caption = "Rounds of fighting in a day" if summary.get("steps") else "Battle length (rounds)"
    return Table(caption, ("mean", "median (p50)", "p90", "max"), (row,))


def _people_table(summary: Summary) -> Table:
    behind = anyone_left_behind(summary)  # a column only where someone was (rules §5)
    head = ("combatant", "side", "dies (95% CI)", "goes down (95% CI)", "knocked out, survives (95% CI)",
            *(("left behind (95% CI)",) if behind else ()),
            "causes of death", "HP left: mean (p10 / p50 / p90)")
    rows = tuple((name, c["side"], pct(c["death"]), pct(c.get("down")), pct(c["knocked_out"]),
                  *((pct(c["left_behind"]),) if behind else ()),
                  _causes(c), _hp_left(c["hp_left"])) for name, c in summary["combatants"].items())
    return Table("Who falls, and of what", head, rows)


def _causes(c: dict[str, Any]) -> Cell:
    """One line per cause of death, with its interval when the summary has one."""
    intervals = c.get("death_causes_ci") or {}
    lines = tuple(f"{cause} {pct(intervals[cause]) if cause in intervals else f'{p * 100:.1f}%'}"
                  for cause, p in c["death_causes"].items())
    return lines or "-"


def _hp_left(hp: dict[str, Any]) -> str:
    spread = " / ".join(str(hp.get(key, "-")) for key in ("p10", "p50", "p90"))
    return f"{hp['mean']:.1f} ({spread})"


def _morale_table(summary: Summary) -> Table | None:
    """Who ends demoralized or despairing, and which skills get a learning tick; None when nobody."""
    rows = morale_cells(summary, pct)
    if not rows:
        return None
    head = ("combatant", "ends demoralized", "ends despairing", "learning tick (95% CI)")
    return Table("Morale and learning", head, tuple(rows))


def _day(summary: Summary) -> Day | None:
    """Attrition over an adventuring day: per step, who gets there and with how much left; None
    for a run of single battles."""
    if not summary.get("steps"):
        return None
    table = Table("Each step of the day (95% intervals; HP as p10 / p50 / p90 of the days that"
                  " reached it)", STEP_COLUMNS, tuple(step_rows(summary)))
    columns = resource_columns(summary)
    resources = Table("What the party has left as each fight begins: mean (p10-p90 of the days that"
                      " reached it)", ("fight", *(label for _, label in columns)),
                      tuple(resource_rows(summary)))
    drawn = resources_plot(summary, columns[1:]) if len(columns) > 1 else None
    return Day(table, attrition_plot(summary), resources, drawn)
