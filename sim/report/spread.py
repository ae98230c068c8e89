"""Showing a ``sim spread``: the sentence and the table on the terminal (80 columns), and a
page (``spread.html``) with the same table and a plot of "someone dies" under each play.

The page is the compare and tune pages' template (``templates/decision.html``): autoescape
on, every name is text; only the SVG matplotlib drew is raw.
"""

from __future__ import annotations

import pathlib
import textwrap

from sim import __version__
from sim.decide.paired import HEADLINE
from sim.decide.spread import AS_WRITTEN, Row, Spread, describe, sentence
from sim.report.decision import Grid, plain, write_html
from sim.report.decision import Row as GridRow
from sim.report.plots import name_ticks, new_figure, percent_axis, to_svg, wrapped_label
from sim.report.render import render

PAGE = "spread.html"
WIDTH = 80  # the terminal table's columns at most
FIGURE = 16  # "18.2 [15.1,21.8]": four such columns and a space between two
LABEL = WIDTH - 4 * (FIGURE + 1)  # what is left for the plays' names
SHOWN = ("party.any_death", "party.any_down", "party.tpk", "party.win")  # in the table's order
_SHORT = {"party.any_death": "someone dies", "party.any_down": "someone down", "party.tpk": "TPK",
          "party.win": "party wins"}
LEGEND = (
    ("each figure", "its percentage in the plays' battles, with its 95% Wilson interval in brackets"),
    ("vs as written", "the difference from as written in percentage points, with its 95% interval from"
                 " the battles played in pairs on the same seeds ('same battles': the play fights"
                 " exactly the battles of the row it names)"),
)


def label(row: Row) -> str:
    """A row's name in the table: ``as written``, ``goblins: weakest``, ``best corner``."""
    if row.play.label.endswith("corner") or not row.play.chosen:
        return row.play.label
    group, preset = row.play.chosen[0]
    return f"{group.label}: {preset.name}"


def _figure(row: Row, metric: str) -> str:
    ci = row.summary["party"][metric.removeprefix("party.")]
    return f"{ci['p'] * 100:.1f} [{ci['lo'] * 100:.1f},{ci['hi'] * 100:.1f}]"


def _difference(result: Spread, row: Row, metric: str) -> str:
    """The paired difference in points: ``+24.6 ±5.0`` (its interval is the mean's normal
    interval, symmetric by construction, ``paired``)."""
    if row is result.rows[0]:
        return ""
    if row.play.same_as is not None:
        return "same battles"
    d = row.diffs[metric]
    return f"{d['d'] * 100:+.1f} ±{(d['hi'] - d['lo']) * 50:.1f}"


def _same_note(result: Spread, row: Row) -> str:
    """Which play a row fights the same battles as, unless as written (its cells say so)."""
    if row.play.same_as in (None, 0):
        return ""
    return f" (= {label(result.rows[row.play.same_as])})"


def grid(result: Spread, two_lines: bool) -> Grid:
    """One row per play: each headline figure with its interval and, under it (beside it on the
    page), the paired difference from as written. On the terminal the presets are named under
    a line of their side, and a play that fights as written's battles says so in one line."""
    unit = result.unit
    if two_lines:
        head = ("play", *("day through" if m == "party.win" and unit == "days" else _SHORT[m]
                          for m in SHOWN))
    else:
        head = ("play", *(h for m in SHOWN for h in (plain(m, unit), "vs as written")))
    rows = []
    group = None
    for row in result.rows:
        name = label(row) + _same_note(result, row)
        corner = row.play.label.endswith("corner")
        if two_lines and row.play.chosen and not corner:
            if row.play.chosen[0][0] != group:
                group = row.play.chosen[0][0]
                rows.append(GridRow((f"{group.label}:", "", "", "", ""), "side"))
            name = f" {row.play.chosen[0][1].name}{_same_note(result, row)}"
        if two_lines and row.play.same_as is not None:
            cells = ["same battles"] * len(SHOWN)
        elif two_lines:
            cells = [f"{_figure(row, m)}\n{_difference(result, row, m)}".rstrip() for m in SHOWN]
        else:
            cells = [c for m in SHOWN for c in (_figure(row, m), _difference(result, row, m))]
        rows.append(GridRow((name, *cells), "corner" if corner else ""))
    caption = (f"{result.name}: {result.battles:,} {unit} a play, seed {result.seed}, the same seeds for"
               f" every play; figures in % [95% interval]")
    return Grid(caption, head, tuple(rows))


def corner_lines(result: Spread) -> list[str]:
    lines = [f"{result.rows[k].play.label.capitalize()}: {describe(result.rows[k])}." for k in result.corners]
    if any(r.play.same_as is not None for r in result.rows):
        lines.append("Same battles: the play fights exactly the battles of as written, or of the play"
                     " named beside it (every fighter acts on the same tactics: the file plays that way"
                     " already, or nobody there reads the key).")
    return lines


def _fitted(cell: str) -> list[str]:
    """A cell's lines, each within FIGURE columns: a rare wide figure (``100.0 [99.3,100.0]``)
    goes over two lines, its interval under it."""
    out = []
    for line in cell.split("\n"):
        out += line.split(" ", 1) if len(line) > FIGURE else [line]
    return out


def table_lines(result: Spread) -> list[str]:
    """The table as lines of at most 80 columns: names wrap in their column, never cut."""
    table_of = grid(result, two_lines=True)
    lines = textwrap.wrap(table_of.caption, WIDTH)
    lines.append(f"{table_of.head[0]:<{LABEL}}" + "".join(f" {h:>{FIGURE}}" for h in table_of.head[1:]))
    lines.append("-" * WIDTH)
    for row in table_of.rows:
        name = row.cells[0]
        indent = " " * (len(name) - len(name.lstrip()))
        names = textwrap.wrap(name.strip(), LABEL, initial_indent=indent,
                              subsequent_indent=indent + " ", break_on_hyphens=False) or [""]
        cells = [_fitted(cell) for cell in row.cells[1:]]
        for i in range(max(len(names), *map(len, cells))):
            line = f"{names[i] if i < len(names) else '':<{LABEL}}"
            line += "".join(f" {cell[i] if i < len(cell) else '':>{FIGURE}}" for cell in cells)
            lines.append(line.rstrip())
    return lines


def spread_lines(result: Spread) -> list[str]:
    """The sentence, then the table, in 80 columns (the command prints them terminal-safe)."""
    notes = ["Under each figure: the paired difference from as written, in points (±: its 95%"
             " interval).", *corner_lines(result)]
    return [*textwrap.wrap(sentence(result), WIDTH), *table_lines(result),
            *(wrapped for note in notes for wrapped in textwrap.wrap(note, WIDTH))]


def _plot(result: Spread) -> str:
    """Someone dies under each play, with its interval; a line at as written."""
    rows = result.rows
    fig = new_figure(1.2 + 0.32 * len(rows))
    ax = fig.add_subplot()
    ys = list(range(len(rows)))
    ps = [r.p("party.any_death") for r in rows]
    cis = [r.summary["party"]["any_death"] for r in rows]
    colours = ["#d62728" if r.play.label.endswith("corner") else "#1f77b4" for r in rows]
    for y, p, ci, colour in zip(ys, ps, cis, colours, strict=True):
        ax.errorbar([p], [y], xerr=[[p - ci["lo"]], [ci["hi"] - p]], fmt="o", capsize=3, color=colour)
    ax.axvline(ps[0], color="#777", linewidth=1, linestyle="--")
    name_ticks(ax, "y", ys, [label(r) for r in rows], lambda n: wrapped_label(n, 24, 1))
    ax.invert_yaxis()
    ax.set_xlabel(wrapped_label(f"{plain('party.any_death', result.unit)} (dashed: {AS_WRITTEN})", 40))
    percent_axis(ax, "x")
    ax.grid(axis="x", alpha=0.3)
    return to_svg(fig, "spread")


def render_page(result: Spread) -> str:
    answers = [sentence(result), *corner_lines(result)]
    shown = [f"{plain(m, result.unit)}: {result.range()[m]['lo'] * 100:.1f}% to"
             f" {result.range()[m]['hi'] * 100:.1f}%" for m in HEADLINE]
    return render("decision.html", title=f"How much does it hang on play? {result.name}", answers=answers,
                  variants=[f"Range: {'; '.join(shown)}."], tables=[grid(result, two_lines=False)],
                  legend=LEGEND, plot=_plot(result), plot_key="spread",
                  plot_caption="Someone dies under each play, with its 95% interval",
                  version=__version__, seed=result.seed,
                  battles=result.battles * sum(r.play.same_as is None for r in result.rows),
                  unit=result.unit)


def write_page(result: Spread, folder: pathlib.Path) -> pathlib.Path:
    """Write ``folder/spread.html`` atomically; its path."""
    return write_html(folder, PAGE, render_page(result))
