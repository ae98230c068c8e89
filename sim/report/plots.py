"""The report's plots: matplotlib figures as inline SVG, from the summary and battles.parquet.

An SVG here is safe to put in the page unescaped (the templates say ``|safe``): matplotlib
draws it from numbers, every name in it is text it escapes, and ``to_svg`` strips the
prolog, metadata and comments and prefixes the ids so several plots share one page.
"""

from __future__ import annotations

import collections
import html
import io
import math
import pathlib
import re
import textwrap
from typing import Any

import attrs

from sim.batch import RunFolder

Summary = dict[str, Any]
_CAUSE_COLOURS = {"weapon": "#8c564b", "fire": "#d62728", "poison": "#2ca02c", "drowning": "#1f77b4",
                  "fall": "#7f7f7f", "explosion": "#ff7f0e", "spell": "#9467bd", "unknown": "#bcbd22"}
_SIDE_COLOURS = ("#1f77b4", "#ff7f0e", "#9467bd", "#17becf", "#8c564b")


@attrs.frozen
class Plot:
    """One plot of the page: its key (``data-plot``, the SVG's id prefix), the SVG, a caption."""

    key: str
    svg: str
    caption: str


@attrs.frozen
class Counts:
    """What the plots need of battles.parquet, counted a batch at a time (memory flat in the
    number of battles): battles per number of rounds, and each combatant's battles per HP left."""

    rounds: collections.Counter[int]
    hp: dict[str, collections.Counter[int]]


def battle_counts(run_dir: pathlib.Path) -> Counts:
    """The counts of a run's battles; the file must be this run's (its manifest's run id), as
    every reader of it checks."""
    import pyarrow as pa
    import pyarrow.compute as pc

    folder = RunFolder(run_dir)
    rounds: collections.Counter[int] = collections.Counter()
    hp: dict[str, collections.Counter[int]] = collections.defaultdict(collections.Counter)
    for table in folder.battle_batches(["rounds", "combatants"], folder.read_manifest()):
        rounds.update(_value_counts(table.column("rounds")))
        flat = pc.list_flatten(table.column("combatants"))
        flat = flat.combine_chunks() if isinstance(flat, pa.ChunkedArray) else flat
        pairs = pa.table({"name": flat.field("name"), "hp": flat.field("hp")})
        for name, value, count in zip(*(pairs.group_by(["name", "hp"]).aggregate([("hp", "count")])
                                        .column(key).to_pylist() for key in ("name", "hp", "hp_count")),
                                      strict=True):
            hp[name][value] += count
    return Counts(rounds, dict(hp))


def _value_counts(column: Any) -> dict[int, int]:
    import pyarrow.compute as pc

    counted = pc.value_counts(column)
    return dict(zip(counted.field("values").to_pylist(), counted.field("counts").to_pylist(), strict=True))


def percentile(counts: collections.Counter[int], q: float) -> float:
    """numpy's default (linear) percentile of the values ``counts`` holds (value -> how many)."""
    values = sorted(counts)
    position = q / 100 * (sum(counts.values()) - 1)
    below = math.floor(position)

    def nth(k: int) -> int:
        for value in values:
            if k < counts[value]:
                return value
            k -= counts[value]
        return values[-1]

    low = nth(below)
    return low + (position - below) * (nth(below + 1) - low) if position > below else float(low)


def box_stats(counts: collections.Counter[int], whis: tuple[float, float] = (5, 95)) -> dict[str, float]:
    """matplotlib's ``cbook.boxplot_stats`` of the values ``counts`` holds, without fliers (the
    plot hides them): what ``Axes.bxp`` draws, from counts instead of every value."""
    counts = counts or collections.Counter({0: 1})
    n = sum(counts.values())
    q1, med, q3 = (percentile(counts, q) for q in (25, 50, 75))
    low, high = (percentile(counts, q) for q in whis)
    inside_high = [v for v in counts if v <= high]
    inside_low = [v for v in counts if v >= low]
    whishi = q3 if not inside_high or max(inside_high) < q3 else max(inside_high)
    whislo = q1 if not inside_low or min(inside_low) > q1 else min(inside_low)
    mean = sum(value * count for value, count in counts.items()) / n
    return {"mean": mean, "med": med, "q1": q1, "q3": q3, "whislo": whislo, "whishi": whishi,
            "fliers": []}


def attrition_plot(summary: Summary) -> str:
    """The day section's plot: the party's HP as each fight begins (deciles) over the share of
    days that end at each fight."""
    fights = [s for s in summary["steps"] if s["kind"] == "encounter"]
    fig = new_figure(3.4)
    hp_ax = fig.add_subplot(2, 1, 1)
    xs = list(range(len(fights)))
    deciles = [s["hp_start"].get("deciles") or [s["hp_start"]["p10"]] * 9 for s in fights]
    hp_ax.fill_between(xs, [d[0] for d in deciles], [d[8] for d in deciles], color="#1f77b4", alpha=0.2,
                       step="mid")
    hp_ax.fill_between(xs, [d[2] for d in deciles], [d[6] for d in deciles], color="#1f77b4", alpha=0.4,
                       step="mid")
    hp_ax.plot(xs, [d[4] for d in deciles], "o-", color="#1f77b4")
    hp_ax.set_ylabel("party HP at start")
    hp_ax.tick_params(labelbottom=False)
    end_ax = fig.add_subplot(2, 1, 2, sharex=hp_ax)
    ended = [s["ended_here"] for s in fights]
    end_ax.bar(xs, [e["p"] for e in ended], color="#d62728",
               yerr=[[e["p"] - e["lo"] for e in ended], [e["hi"] - e["p"] for e in ended]])
    end_ax.set_ylabel("day ends here")
    percent_axis(end_ax, "y")
    _fight_ticks(end_ax, fights)
    return to_svg(fig, "attrition")


def _fight_ticks(ax: Any, fights: list[dict[str, Any]]) -> None:
    """The fights of a day under the x axis: ``1. Road ambush``, wrapped to share the width
    (at most 3 lines, the whole name as a tooltip when shortened)."""
    width = max(8, 40 // max(1, len(fights)))
    name_ticks(ax, "x", list(range(len(fights))), [f"{s['step'] + 1}. {s['name']}" for s in fights],
               lambda name: wrapped_label(name, width, 3))


def resources_plot(summary: Summary, columns: list[tuple[str, str]]) -> str:
    """A panel per resource (heroism dice, potions, ...) the party has as each fight begins:
    the mean over the p10 to p90 band of the days that reach it."""
    fights = [s for s in summary["steps"] if s["kind"] == "encounter"]
    xs = list(range(len(fights)))
    fig = new_figure(0.9 + 1.1 * len(columns))
    axes = fig.subplots(len(columns), 1, sharex=True, squeeze=False)[:, 0]
    for ax, (key, label) in zip(axes, columns, strict=True):
        spreads = [s.get(key) or {"mean": 0, "p10": 0, "p90": 0} for s in fights]
        ax.fill_between(xs, [d["p10"] for d in spreads], [d["p90"] for d in spreads], color="#9467bd",
                        alpha=0.25)
        ax.plot(xs, [d["mean"] for d in spreads], "o-", color="#9467bd")
        ax.set_ylabel(wrapped_label(label, 10), rotation=0, ha="right", va="center")
        ax.set_ylim(bottom=0)
        ax.yaxis.get_major_locator().set_params(integer=True, nbins=3)
        ax.grid(axis="y", alpha=0.3)
    _fight_ticks(axes[-1], fights)
    return to_svg(fig, "resources")


def figures(run_dir: pathlib.Path, summary: Summary) -> list[Plot]:
    """The five plots of the Plots section (four without a party side), with their captions."""
    counts = battle_counts(run_dir)
    return [
        Plot("win", _win_plot(summary),
             "Win, draw and total-party-kill rates; bars show the 95% Wilson interval."),
        Plot("deaths", _deaths_plot(summary),
             "Each combatant's chance to die, split by cause, and to be knocked out and survive"
             " (95% intervals)."),
        *_party_figure(summary),
        Plot("rounds", _rounds_plot(summary, counts.rounds),
             "How many rounds of fighting a day holds (share of days)." if summary.get("steps")
             else "How many rounds battles last (share of battles)."),
        Plot("hp", _hp_plot(summary, counts.hp),
             f"HP left at the end of {_of_a(summary)}: box from p25 to p75, whiskers p5 to p95,"
             " triangle the mean."),
    ]


# Plots are drawn this wide and their text this large: on a 390 px phone a plot is about
# 350 CSS px wide, so a point is about 1.06 px there and no text is under 11 px.
FIGURE_WIDTH_IN = 4.6
SMALLEST_FONT_PT = 11.0


def _unit(summary: Summary) -> str:
    return "days" if summary.get("steps") else "battles"


def _of_a(summary: Summary) -> str:
    """``a day`` (its fights together) or ``a battle``."""
    return "a day's fights" if summary.get("steps") else "a battle"


def plot_label(name: str, width: int = 16) -> str:
    """A name as a plot label: shortened, and ``$`` escaped so mathtext never reads it."""
    short = name if len(name) <= width else name[: width - 1] + "\u2026"
    return short.replace("$", r"\$")


def wrapped_label(name: str, width: int = 14, lines: int = 2) -> str:
    """A name over at most ``lines`` lines of ``width`` characters, shortened past them."""
    rows = textwrap.wrap(name, width, break_long_words=True) or [""]
    if len(rows) > lines:
        rows = [*rows[: lines - 1], plot_label(" ".join(rows[lines - 1:]), width)]
    return "\n".join(row.replace("$", r"\$") for row in rows)


def name_ticks(ax: Any, axis: str, positions: Any, names: list[str], label: Any = plot_label) -> None:
    """Tick labels of names, each shortened by ``label``; a shortened one carries its whole
    name as a tooltip (an SVG title: see to_svg)."""
    shown = [label(name) for name in names]
    getattr(ax, f"set_{axis}ticks")(positions, shown)
    tips = ax.figure.__dict__.setdefault("tooltips", {})
    ticks = getattr(ax, f"{axis}axis").get_major_ticks()
    for tick, name, short in zip(ticks, names, shown, strict=False):
        if short.replace("\n", " ").replace(r"\$", "$") != name:
            gid = f"tip{len(tips)}"
            tick.set_gid(gid)
            tips[gid] = name


def new_figure(height: float) -> Any:
    """A blank matplotlib figure as wide as a plot of the page."""
    from matplotlib.figure import Figure

    return Figure(figsize=(FIGURE_WIDTH_IN, height), layout="constrained")


def _legible(fig: Any) -> float:
    """Raise every text of the figure to the smallest legible size; that size, or the
    smallest text drawn when larger."""
    from matplotlib.text import Text

    for ax in fig.axes:
        ax.tick_params(labelsize=SMALLEST_FONT_PT)
    texts = [t for t in fig.findobj(Text) if t.get_text() and t.get_visible()]
    for text in texts:
        text.set_fontsize(max(text.get_fontsize(), SMALLEST_FONT_PT))
    return min((t.get_fontsize() for t in texts), default=SMALLEST_FONT_PT)


def to_svg(fig: Any, key: str) -> str:
    """The figure as inline SVG: no prolog, metadata or comments, ids prefixed by ``key``,
    tooltips on shortened names, and ``data-smallest-font``: its smallest text (pt, the
    SVG's unit) for a check that the page shows it large enough."""
    import matplotlib

    smallest = _legible(fig)
    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": f"combat-sim-{key}", "svg.fonttype": "path"}):
        fig.savefig(buffer, format="svg", metadata={"Date": None})
    svg = buffer.getvalue()
    svg = svg[svg.index("<svg"):]
    svg = re.sub(r"<metadata>.*?</metadata>|<!--.*?-->", "", svg, flags=re.DOTALL)
    svg = re.sub(r'\s+xmlns(:xlink)?="[^"]*"', "", svg)
    for gid, name in fig.__dict__.get("tooltips", {}).items():
        svg = svg.replace(f'<g id="{gid}">', f'<g id="{gid}"><title>{html.escape(name)}</title>', 1)
    svg = svg.replace("<svg ", f'<svg data-smallest-font="{smallest:g}" ', 1)
    svg = re.sub(r'\bid="', f'id="{key}-', svg)
    return re.sub(r'(href="#|url\(#)', rf"\g<1>{key}-", svg)


def percent_axis(ax: Any, axis: str = "x") -> None:
    from matplotlib.ticker import PercentFormatter

    getattr(ax, f"{axis}axis").set_major_formatter(PercentFormatter(1.0))


def _win_plot(summary: Summary) -> str:
    rows = [(f"{side} wins", stats["win_rate"], _SIDE_COLOURS[i % len(_SIDE_COLOURS)])
            for i, (side, stats) in enumerate(summary["sides"].items())]
    rows.append(("draw", summary.get("draw_rate") or {"p": 0.0, "lo": 0.0, "hi": 0.0}, "#7f7f7f"))
    if summary.get("tpk") is not None:
        rows.append(("TPK", summary["tpk"], "#d62728"))
    fig = new_figure(0.6 + 0.45 * len(rows))
    ax = fig.add_subplot()
    y = list(range(len(rows)))[::-1]
    ps = [ci["p"] for _, ci, _ in rows]
    err = [[ci["p"] - ci["lo"] for _, ci, _ in rows], [ci["hi"] - ci["p"] for _, ci, _ in rows]]
    ax.barh(y, ps, xerr=err, color=[c for _, _, c in rows], capsize=4, height=0.6)
    for yi, (_, ci, _) in zip(y, rows, strict=True):
        ax.annotate(f"{ci['p'] * 100:.1f}%", (ci["hi"], yi), xytext=(6, 0), textcoords="offset points",
                    va="center")
    name_ticks(ax, "y", y, [name for name, _, _ in rows])
    ax.set_xlim(0, 1.08)
    percent_axis(ax)
    ax.grid(axis="x", alpha=0.3)
    return to_svg(fig, "win")


def _deaths_plot(summary: Summary) -> str:
    people = list(summary["combatants"].items())
    fig = new_figure(1.2 + 0.55 * len(people))
    ax = fig.add_subplot()
    y = [len(people) - 1 - i for i in range(len(people))]
    seen: set[str] = set()
    for yi, (_, c) in zip(y, people, strict=True):
        _death_bar(ax, yi + 0.2, c, seen)
        ko = c["knocked_out"]
        ax.barh(yi - 0.2, ko["p"], height=0.38, color="#e7ba52",
                xerr=[[ko["p"] - ko["lo"]], [ko["hi"] - ko["p"]]], capsize=3,
                label=None if "ko" in seen else "knocked out, survives")
        seen.add("ko")
    name_ticks(ax, "y", y, [name for name, _ in people])
    ax.set_xlim(0, 1)
    percent_axis(ax)
    ax.grid(axis="x", alpha=0.3)
    fig.legend(loc="outside upper center", ncols=2, frameon=False)
    return to_svg(fig, "deaths")


def _death_bar(ax: Any, y: float, c: dict[str, Any], seen: set[str]) -> None:
    """One stacked bar of a combatant's deaths by cause, with the interval of the total."""
    left = 0.0
    for i, (cause, p) in enumerate(c["death_causes"].items()):
        colour = _CAUSE_COLOURS.get(cause, _SIDE_COLOURS[i % len(_SIDE_COLOURS)])
        ax.barh(y, p, left=left, height=0.38, color=colour,
                label=None if cause in seen else f"dies: {plot_label(cause)}")
        seen.add(cause)
        left += p
    death = c["death"]
    ax.errorbar(death["p"], y, xerr=[[death["p"] - death["lo"]], [death["hi"] - death["p"]]],
                fmt="none", ecolor="black", capsize=3)


def _party_figure(summary: Summary) -> list[Plot]:
    """The party plot; none without a party side."""
    party = summary.get("party")
    if not party:
        return []
    return [Plot("party", _party_plot(party, _unit(summary)),
                 f"How many party members end {_of_a(summary)} dead, and how many went down at some"
                 f" moment (share of {_unit(summary)}).")]


def _party_plot(party: dict[str, Any], unit: str) -> str:
    """Side by side bars of ``deaths.dist`` and ``downs.dist``: share of battles per member count."""
    import numpy as np

    fig = new_figure(2.8)
    ax = fig.add_subplot()
    x = np.arange(len(party["deaths"]["dist"]))
    for offset, key, label, colour in ((-0.2, "downs", "went down", "#e7ba52"),
                                       (0.2, "deaths", "dead at the end", "#d62728")):
        counts = party[key]
        ax.bar(x + offset, counts["dist"], width=0.4, color=colour,
               label=f"{label} (mean {counts['mean']:.2f})")
    ax.set_xticks(x, [str(k) for k in x])
    ax.set_xlabel(f"members of {plot_label(party['side'])}")
    ax.set_ylabel(f"share of {unit}")
    ax.set_ylim(0, 1)
    percent_axis(ax, "y")
    ax.legend()
    ax.grid(axis="y", alpha=0.3)
    return to_svg(fig, "party")


def _rounds_plot(summary: Summary, rounds: collections.Counter[int]) -> str:
    import numpy as np

    fig = new_figure(3.0)
    ax = fig.add_subplot()
    counts = np.zeros(max(rounds, default=0) + 1, dtype=np.int64)
    for value, count in rounds.items():
        counts[value] = count
    share = counts / max(1, counts.sum())
    ax.bar(np.arange(len(counts)), share, width=0.85, color="#4c78a8")
    r = summary["rounds"]
    lines = ((r["mean"], f"mean {r['mean']:.1f}", "-"), (r["p50"], f"median {r['p50']}", "--"),
             (r["p90"], f"p90 {r['p90']}", ":"))
    for value, label, style in lines:
        ax.axvline(value, color="#333333", linestyle=style, linewidth=1.2, label=label)
    ax.set_xlabel("rounds")
    ax.set_ylabel(f"share of {_unit(summary)}")
    percent_axis(ax, "y")
    ax.xaxis.get_major_locator().set_params(integer=True)
    if counts.any():
        found = np.flatnonzero(counts)
        ax.set_xlim(found[0] - 0.7, found[-1] + 0.7)
    ax.legend()
    ax.grid(axis="y", alpha=0.3)
    return to_svg(fig, "rounds")


def _hp_plot(summary: Summary, hp: dict[str, collections.Counter[int]]) -> str:
    people = list(summary["combatants"])
    fig = new_figure(1.0 + 0.45 * len(people))
    ax = fig.add_subplot()
    y = [len(people) - i for i in range(len(people))]
    ax.bxp([box_stats(hp.get(name, collections.Counter())) for name in people], positions=y,
           orientation="horizontal", showfliers=False, showmeans=True, widths=0.6, patch_artist=True,
           boxprops={"facecolor": "#c6dbef"}, medianprops={"color": "#08519c"},
           meanprops={"marker": "^", "markerfacecolor": "#d62728", "markeredgecolor": "#d62728"})
    name_ticks(ax, "y", y, people)
    ax.set_xlabel("HP left")
    lowest = min((min(counts) for counts in hp.values() if counts), default=0)
    ax.set_xlim(left=min(0.0, float(lowest)) - 0.5)
    ax.grid(axis="x", alpha=0.3)
    return to_svg(fig, "hp")
