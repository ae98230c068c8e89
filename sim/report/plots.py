"""The report's plots: matplotlib figures as inline SVG, from the summary and battles.parquet.

An SVG here is safe to put in the page unescaped (the templates say ``|safe``): matplotlib
draws it from numbers, every name in it is text it escapes, and ``to_svg`` strips the
prolog, metadata and comments and prefixes the ids so several plots share one page.
"""

from __future__ import annotations

import collections
import io
import math
import pathlib
import re
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
    hp_ax.set_xticks(xs, [])
    end_ax = fig.add_subplot(2, 1, 2, sharex=hp_ax)
    ended = [s["ended_here"] for s in fights]
    end_ax.bar(xs, [e["p"] for e in ended], color="#d62728",
               yerr=[[e["p"] - e["lo"] for e in ended], [e["hi"] - e["p"] for e in ended]])
    end_ax.set_ylabel("day ends here")
    percent_axis(end_ax, "y")
    end_ax.set_xticks(xs, [plot_label(f"{s['step'] + 1}. {s['name']}", 18) for s in fights])
    return to_svg(fig, "attrition")


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
             "How many rounds battles last (share of battles)."),
        Plot("hp", _hp_plot(summary, counts.hp),
             "HP left at the end of a battle: box from p25 to p75, whiskers p5 to p95, triangle the mean."),
    ]


def plot_label(name: str, width: int = 24) -> str:
    """A name as a plot label: shortened, and ``$`` escaped so mathtext never reads it."""
    short = name if len(name) <= width else name[: width - 1] + "\u2026"
    return short.replace("$", r"\$")


def new_figure(height: float) -> Any:
    """A blank matplotlib figure as wide as a plot of the page."""
    from matplotlib.figure import Figure

    return Figure(figsize=(5.4, height), layout="constrained")


def to_svg(fig: Any, key: str) -> str:
    """The figure as inline SVG: no prolog, metadata or comments, and ids prefixed by ``key``."""
    import matplotlib

    buffer = io.StringIO()
    with matplotlib.rc_context({"svg.hashsalt": f"combat-sim-{key}", "svg.fonttype": "path"}):
        fig.savefig(buffer, format="svg", metadata={"Date": None})
    svg = buffer.getvalue()
    svg = svg[svg.index("<svg"):]
    svg = re.sub(r"<metadata>.*?</metadata>|<!--.*?-->", "", svg, flags=re.DOTALL)
    svg = re.sub(r'\s+xmlns(:xlink)?="[^"]*"', "", svg)
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
                    va="center", fontsize=9)
    ax.set_yticks(y, [plot_label(name) for name, _, _ in rows])
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
    ax.set_yticks(y, [plot_label(name) for name, _ in people])
    ax.set_xlim(0, 1)
    percent_axis(ax)
    ax.grid(axis="x", alpha=0.3)
    fig.legend(loc="outside upper center", fontsize=8, ncols=3, frameon=False)
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
    return [Plot("party", _party_plot(party),
                 f"How many of {party['side']} end a battle dead, and how many went down at some moment"
                 " (share of battles).")]


def _party_plot(party: dict[str, Any]) -> str:
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
    ax.set_ylabel("share of battles")
    ax.set_ylim(0, 1)
    percent_axis(ax, "y")
    ax.legend(fontsize=8)
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
    ax.set_ylabel("share of battles")
    percent_axis(ax, "y")
    ax.xaxis.get_major_locator().set_params(integer=True)
    if counts.any():
        found = np.flatnonzero(counts)
        ax.set_xlim(found[0] - 0.7, found[-1] + 0.7)
    ax.legend(fontsize=8)
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
    ax.set_yticks(y, [plot_label(name) for name in people])
    ax.set_xlabel("HP left")
    lowest = min((min(counts) for counts in hp.values() if counts), default=0)
    ax.set_xlim(left=min(0.0, float(lowest)) - 0.5)
    ax.grid(axis="x", alpha=0.3)
    return to_svg(fig, "hp")
