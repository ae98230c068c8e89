"""Showing ``sim compare`` and ``sim tune`` results: terminal tables and an HTML page.

The page is a Jinja2 template (``templates/decision.html``, see render.py) with
autoescape on, so every name is escaped by default; the only raw value is the SVG
plot that matplotlib drew from numbers and escaped labels (plots.py).
"""

from __future__ import annotations

import pathlib
from typing import Any

import attrs
from rich.console import Console
from rich.table import Table

from sim import __version__
from sim.batch import write_atomic
from sim.errors import InputError
from sim.report.plots import new_figure, percent_axis, plot_label, to_svg
from sim.report.render import render
from sim.report.terminal import TableConsole
from sim.terminal import markup

PAGES = {"compare": "compare.html", "tune": "tune.html"}
Result = dict[str, Any]


@attrs.frozen
class Row:
    cells: tuple[str, ...]
    flag: str = ""


@attrs.frozen
class Grid:
    caption: str
    head: tuple[str, ...]
    rows: tuple[Row, ...]


def _pct(x: float) -> str:
    return f"{x * 100:.1f}%"


def _value(metric: str, ci: dict[str, float]) -> str:
    if "mean" in ci:
        return f"{ci['mean']:.2f} ({ci['lo']:.2f}-{ci['hi']:.2f})"
    return f"{_pct(ci['p'])} ({_pct(ci['lo'])}-{_pct(ci['hi'])})"


def _diff(metric: str, d: dict[str, float]) -> str:
    if metric.startswith("rounds"):
        return f"{d['d']:+.2f} ({d['lo']:+.2f} to {d['hi']:+.2f})"
    return f"{d['d'] * 100:+.1f} pts ({d['lo'] * 100:+.1f} to {d['hi'] * 100:+.1f})"


def _narrower(d: dict[str, float]) -> str:
    paired = (d["hi"] - d["lo"]) / 2
    independent = d["independent_halfwidth"]
    if paired <= 0:
        return "exact" if independent <= 0 else "paired: 0"
    return f"{independent / paired:.1f}x"


def compare_grids(result: Result) -> list[Grid]:
    """One table per variant after the first: both values, the paired difference, and how
    many times wider the interval of two independent runs would have been."""
    names = result["variants"]
    grids = []
    for j, name in enumerate(names[1:]):
        rows = []
        for metric, m in result["metrics"].items():
            d = m["diffs"][j]
            rows.append(Row((metric, _value(metric, m["values"][0]), _value(metric, m["values"][j + 1]),
                             _diff(metric, d), _narrower(d))))
        caption = (f"{name} vs {names[0]}: {result['battles']} battles each on common seeds"
                   f" (seed {result['seed']})")
        head = ("metric", "first", "this one", "difference (95%, paired)", "independent / paired")
        grids.append(Grid(caption, head, tuple(rows)))
    return grids


def compare_lead(result: Result) -> str:
    names = result["variants"]
    death = result["metrics"]["party.any_death"]
    parts = [f"{n}: someone dies {_pct(v['p'])}" for n, v in zip(names, death["values"], strict=True)]
    return "; ".join(parts) + "."


def tune_grids(result: Result) -> list[Grid]:
    head = ("value", result["target"].split("<")[0].split(">")[0] + " (95%)", "battles", "meets target")
    rows = []
    for point in result["points"]:
        meets = "yes" if point["meets"] else "no"
        if point["straddles"]:
            meets += " (interval straddles the target)"
        rows.append(Row((str(point["value"]), _value("", point["metric"]), str(point["battles"]),
                         meets), "straddles" if point["straddles"] else ""))
    return [Grid(f"target {result['target']}, vary {result['vary']}", head, tuple(rows))]


def tune_lead(result: Result) -> str:
    if result["largest_ok"] is None:
        return f"No value meets {result['target']} ({result['battles']} battles)."
    return (f"Values meeting {result['target']}: largest {result['largest_ok']}, smallest"
            f" {result['smallest_ok']} ({result['battles']} battles in all).")


def print_result(result: Result, kind: str, console: Console | None = None) -> None:
    """The tables on the terminal, names escaped (data, never markup, emoji codes or controls)."""
    console = console or TableConsole()
    grids = compare_grids(result) if kind == "compare" else tune_grids(result)
    for grid in grids:
        table = Table(title=markup(grid.caption), title_justify="left")
        for column in grid.head:
            table.add_column(markup(column), justify="left")
        for row in grid.rows:
            table.add_row(*(markup(cell) for cell in row.cells))
        console.print(table)
    console.print(markup(compare_lead(result) if kind == "compare" else tune_lead(result)))


def _compare_plot(result: Result) -> str:
    names = result["variants"]
    metrics = result["headline"]
    fig = new_figure(0.8 + 0.35 * len(metrics) * (len(names) - 1))
    ax = fig.add_subplot()
    labels, y = [], 0
    for metric in metrics:
        for j, d in enumerate(result["metrics"][metric]["diffs"]):
            ax.errorbar([d["d"] * 100], [y], xerr=[[(d["d"] - d["lo"]) * 100], [(d["hi"] - d["d"]) * 100]],
                        fmt="o", color="#1f77b4", capsize=3)
            labels.append(plot_label(f"{metric}: {names[j + 1]}", 40))
            y += 1
    ax.axvline(0, color="#777", linewidth=1)
    ax.set_yticks(range(len(labels)), labels)
    ax.invert_yaxis()
    ax.set_xlabel(f"difference to {plot_label(names[0], 30)} (percentage points, 95% paired interval)")
    return to_svg(fig, "compare")


def _tune_plot(result: Result) -> str:
    points = result["points"]
    fig = new_figure(3.2)
    ax = fig.add_subplot()
    xs = [p["value"] for p in points]
    ps = [p["metric"]["p"] for p in points]
    ax.errorbar(xs, ps, yerr=[[p - q["metric"]["lo"] for p, q in zip(ps, points, strict=True)],
                              [q["metric"]["hi"] - p for p, q in zip(ps, points, strict=True)]],
                fmt="o-", color="#1f77b4", capsize=3)
    bound = float(result["target"].replace("<=", " ").replace(">=", " ").split()[-1])
    ax.axhline(bound, color="#d62728", linestyle="--", linewidth=1, label=f"target {result['target']}")
    ax.set_xlabel("value")
    percent_axis(ax, "y")
    ax.legend(loc="best")
    return to_svg(fig, "tune")


def render_page(result: Result, kind: str) -> str:
    """The compare or tune page as text."""
    if kind == "compare":
        title = "Comparison: " + " vs ".join(result["variants"])
        grids, lead, plot = compare_grids(result), compare_lead(result), _compare_plot(result)
        caption = "Paired differences to the first variant"
        battles = result["battles"] * len(result["variants"])
    else:
        title = f"Tuning {result['vary']} for {result['target']}"
        grids, lead, plot = tune_grids(result), tune_lead(result), _tune_plot(result)
        caption = "The metric against the value, with 95% intervals and the target"
        battles = result["battles"]
    return render("decision.html", title=title, lead=lead, tables=grids, plot=plot, plot_caption=caption,
                  version=__version__, seed=result["seed"], battles=battles)


def write_page(result: Result, kind: str, folder: pathlib.Path) -> pathlib.Path:
    """Write ``folder/compare.html`` or ``folder/tune.html`` atomically; its path."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / PAGES[kind]
        write_atomic(target, render_page(result, kind).encode("utf-8"))
    except OSError as exc:
        msg = f"{folder}:0:0: --report: cannot write ({exc.strerror})"
        raise InputError(msg) from exc
    return target
