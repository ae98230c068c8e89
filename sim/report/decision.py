"""Showing ``sim compare`` and ``sim tune`` results: terminal tables and an HTML page.

The page is a Jinja2 template (``templates/decision.html``, see render.py) with
autoescape on, so every name is escaped by default; the only raw value is the SVG
plot that matplotlib drew from numbers and escaped labels (plots.py).
"""

from __future__ import annotations

import pathlib
import re
from collections.abc import Sequence
from typing import Any

import attrs
from rich.console import Console
from rich.table import Table

from sim import __version__
from sim.batch import write_atomic
from sim.decide.paired import HEADLINE, LEFT_BEHIND
from sim.errors import InputError
from sim.report.plots import name_ticks, new_figure, percent_axis, plot_label, to_svg, wrapped_label
from sim.report.render import render
from sim.report.terminal import TableConsole
from sim.tally.party import difficulty
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


# The metrics under the names a GM reads them by (the JSON keeps the dotted names).
PLAIN = {"party.win": "the party wins", "party.any_down": "someone goes down",
         "party.any_death": "someone dies", "party.tpk": "total party kill",
         LEFT_BEHIND: "someone is left behind", "rounds.mean": "rounds (mean)"}
_MEMBER = re.compile(r"members\[(.*)\]\.(death|down)")
# What the columns of the compare table mean (the page's legend; docs/recipes/compare-and-tune.md).
COMPARE_LEGEND = (
    ("A, B...", "each variant's value, with its 95% Wilson interval in brackets"),
    ("B - A", "the difference to A in percentage points (rounds: in rounds), with its 95% interval"
              " from the battles played in pairs on the same seeds"),
    ("gain from pairing", "how many times wider that interval would be from separate runs of as many"
                          " battles (1.0x: pairing did not help; 'exact': no battle differs)"),
)


def plain(metric: str, unit: str = "battles") -> str:
    """``someone dies`` for ``party.any_death``, ``Aria dies`` for ``members[Aria].death``;
    a day's ``party.win`` is seeing it through."""
    if metric == "party.win" and unit == "days":
        return "the day seen through"
    found = _MEMBER.fullmatch(metric)
    if found:
        return f"{found.group(1)} {'dies' if found.group(2) == 'death' else 'goes down'}"
    return PLAIN.get(metric, metric)


def _pct(x: float) -> str:
    return f"{x * 100:.1f}%"


def _value(ci: dict[str, float]) -> str:
    if "mean" in ci:
        return f"{ci['mean']:.2f} [{ci['lo']:.2f}, {ci['hi']:.2f}]"
    return f"{_pct(ci['p'])} [{ci['lo'] * 100:.1f}, {ci['hi'] * 100:.1f}]"


def _diff(metric: str, d: dict[str, float]) -> str:
    if metric.startswith("rounds"):
        return f"{d['d']:+.2f} [{d['lo']:+.2f}, {d['hi']:+.2f}]"
    return f"{d['d'] * 100:+.1f} [{d['lo'] * 100:+.1f}, {d['hi'] * 100:+.1f}]"


def _gain(d: dict[str, float]) -> str:
    paired = (d["hi"] - d["lo"]) / 2
    independent = d["independent_halfwidth"]
    if paired <= 0:
        return "exact" if independent <= 0 else "paired: 0"
    return f"{independent / paired:.1f}x"


# -- naming the variants ----------------------------------------------------------------------

_SETTING = re.compile(r"(?P<path>.*?)(?:\[(?P<owner>[^\]]*)\])?\.(?P<key>\w+)=(?P<value>.*)")


def _setting(name: str) -> tuple[str, str, str] | None:
    """(owner, key, value) of a ``--vary`` variant ``...members[goblin].count=4``; None for a file."""
    found = _SETTING.fullmatch(name)
    if found is None or (not found.group("path") and not found.group("owner")):
        return None
    owner = found.group("owner") or found.group("path").rpartition(".")[2]
    return owner, found.group("key"), found.group("value")


def words(name: str) -> str:
    """A variant in words: ``goblin count 4`` for a ``--vary`` value, a file's name otherwise."""
    setting = _setting(name)
    if setting is None:
        return name.replace("_", " ")
    owner, key, value = setting
    return f"{owner} {key} {value}".strip()


def change(base: str, other: str) -> str:
    """What turns variant ``base`` into ``other``: ``2 more goblins``, ``Aria hp 20 instead of 24``."""
    a, b = _setting(base), _setting(other)
    if a is None or b is None or a[:2] != b[:2]:
        return f"{words(other)} instead of {words(base)}"
    owner, key = a[0], a[1]
    if key == "count" and a[2].lstrip("-").isdigit() and b[2].lstrip("-").isdigit():
        delta = int(b[2]) - int(a[2])
        plural = "" if abs(delta) == 1 or owner.endswith("s") else "s"
        return f"{abs(delta)} {'more' if delta > 0 else 'fewer'} {owner}{plural}"
    return f"{owner} {key} {b[2]} instead of {a[2]}".strip()


def _unit(result: Result) -> str:
    """What a variant plays: ``days`` for adventuring days, else ``battles``."""
    return result.get("unit", "battles")


def letter(k: int) -> str:
    return chr(ord("A") + k) if k < 26 else f"V{k + 1}"


def _difficulty(values: dict[str, dict[str, float]]) -> str:
    """The difficulty word of a variant's headline values (sim.tally.party.difficulty), with the band
    of each interval's end when they differ."""
    down, death = values["party.any_down"], values["party.any_death"]
    band = difficulty(down["p"], death["p"])
    low, high = difficulty(down["lo"], death["lo"]), difficulty(down["hi"], death["hi"])
    return band if low == band == high else f"{band} ({low} to {high})"


def _headline_text(values: dict[str, dict[str, float]], unit: str, metrics: Sequence[str]) -> str:
    shown = ", ".join(f"{plain(m, unit)} {_pct(values[m]['p'])}" for m in metrics)
    return f"{_difficulty(values)}: {shown}"


def _compare_values(result: Result, k: int) -> dict[str, dict[str, float]]:
    return {m: result["metrics"][m]["values"][k] for m in _headline(result)}


def _headline(result: Result) -> tuple[str, ...]:
    """The headline metrics, with "someone is left behind" where it happens in any variant (rules
    §5: a party that never flees never leaves anyone; results from before it have no such metric)."""
    behind = result["metrics"].get(LEFT_BEHIND)
    shown = behind is not None and any(v["p"] > 0 for v in behind["values"])
    return (*HEADLINE, LEFT_BEHIND) if shown else HEADLINE


def variant_lines(result: Result) -> list[str]:
    """One line per variant: its letter, its name in words, what it is, its difficulty and
    headline figures."""
    lines = []
    for k, name in enumerate(result["variants"]):
        said = words(name)
        told = f"{said} ({name})" if said != name else said
        values = _compare_values(result, k)
        lines.append(f"{letter(k)} = {told}: {_headline_text(values, _unit(result), _headline(result))}")
    return lines


def compare_grids(result: Result) -> list[Grid]:
    """One table per variant after the first: both values, the paired difference, and how
    many times wider the interval of two separate runs would have been."""
    names = result["variants"]
    grids = []
    for j in range(1, len(names)):
        rows = []
        for metric, m in result["metrics"].items():
            if metric == LEFT_BEHIND and metric not in _headline(result):
                continue  # nobody left behind in any variant: a row of zeros says nothing
            d = m["diffs"][j - 1]
            rows.append(Row((plain(metric, _unit(result)), _value(m["values"][0]), _value(m["values"][j]),
                             _diff(metric, d), _gain(d))))
        caption = (f"{letter(j)} ({words(names[j])}) against A ({words(names[0])}):"
                   f" {result['battles']} {_unit(result)} each on the same seeds")
        head = ("", "A", letter(j), f"{letter(j)} - A (points)", "gain from pairing")
        grids.append(Grid(caption, head, tuple(rows)))
    return grids


def compare_answers(result: Result) -> list[str]:
    """The answer, a sentence per variant after the first: ``2 more goblins: someone dies
    19.3% -> 45.0%, +25.7 points [21.1, 30.3]; hard -> deadly.``"""
    names, death = result["variants"], result["metrics"]["party.any_death"]
    base = death["values"][0]
    answers = []
    for j in range(1, len(names)):
        d, now = death["diffs"][j - 1], death["values"][j]
        before, after = _difficulty(_compare_values(result, 0)), _difficulty(_compare_values(result, j))
        moved = f"still {after}" if before == after else f"{before} -> {after}"
        head = change(names[0], names[j])
        behind = ""
        if LEFT_BEHIND in _headline(result):  # the other way out of a lost fight (rules §5)
            left = result["metrics"][LEFT_BEHIND]["values"]
            behind = f" {plain(LEFT_BEHIND)} {_pct(left[0]['p'])} -> {_pct(left[j]['p'])};"
        answers.append(f"{head[:1].upper()}{head[1:]}: someone dies {_pct(base['p'])} -> {_pct(now['p'])},"
                       f" {d['d'] * 100:+.1f} points [{d['lo'] * 100:+.1f}, {d['hi'] * 100:+.1f}];"
                       f"{behind} {moved}.")
    return answers


def _vary_words(result: Result) -> str:
    return words(f"{result['vary']}=").strip()


def _target_words(result: Result) -> str:
    metric, op, bound = _split_target(result["target"])
    return f"{plain(metric, _unit(result))} {op} {bound * 100:g}%"


def _split_target(target: str) -> tuple[str, str, float]:
    op = "<=" if "<=" in target else ">="
    metric, _, bound = target.partition(op)
    return metric.strip(), op, float(bound)


def tune_grids(result: Result) -> list[Grid]:
    metric = plain(_split_target(result["target"])[0], _unit(result))
    # "meets target" second: on a phone the table scrolls, and the answer should not be off screen
    head = (_vary_words(result), "meets target", f"{metric} (95%)", "difficulty", _unit(result))
    rows = []
    for point in result["points"]:
        meets = "yes" if point["meets"] else "no"
        if point["straddles"]:
            meets += " (too close to call)"
        level = _difficulty(point["headline"]) if "headline" in point else "-"
        rows.append(Row((str(point["value"]), meets, _value(point["metric"]), level, str(point["battles"])),
                        "straddles" if point["straddles"] else ""))
    caption = f"{_vary_words(result)} ({result['vary']}) against {_target_words(result)}"
    return [Grid(caption, head, tuple(rows))]


def tune_answers(result: Result) -> list[str]:
    """``goblin count 1 to 5 keep someone dies <= 10%; 6 gives 20.1% [17.0, 23.6].``"""
    target, vary = _target_words(result), _vary_words(result)
    ok = [p for p in result["points"] if p["meets"]]
    if not ok:
        return [f"No {vary} from {result['points'][0]['value']} to {result['points'][-1]['value']}"
                f" keeps {target} ({result['battles']} {_unit(result)} in all)."]
    values = [p["value"] for p in ok]
    span = str(values[0]) if len(values) == 1 else f"{min(values)} to {max(values)}"
    gaps = "" if len(values) == max(values) - min(values) + 1 else " (not every value between)"
    lines = [f"{vary[:1].upper()}{vary[1:]} {span}{gaps} meets the target ({target}): largest"
             f" {result['largest_ok']}, smallest {result['smallest_ok']}"
             f" ({result['battles']} {_unit(result)} in all)."]
    beyond = [p for p in result["points"] if not p["meets"]]
    if beyond:
        first = min(beyond, key=lambda p: abs(p["value"] - result["largest_ok"]))
        lines.append(f"At {vary} {first['value']}: {plain(_split_target(result['target'])[0], _unit(result))}"
                     f" {_value(first['metric'])}.")
    close = [str(p["value"]) for p in result["points"] if p["straddles"]]
    if close:
        lines.append(f"Too close to call at this precision: {', '.join(close)}.")
    return lines


def print_result(result: Result, kind: str, console: Console | None = None) -> None:
    """The answer on the terminal (80 columns: cells wrap, never cut), names escaped (data,
    never markup, emoji codes or controls)."""
    console = console or TableConsole()
    if kind == "compare":  # a letter per variant, its text wrapped beside it
        console.print(markup(f"Variants ({result['battles']} {_unit(result)} each, seed {result['seed']}):"))
        variants = Table.grid(padding=(0, 1))
        variants.add_column(no_wrap=True)
        variants.add_column(overflow="fold")
        for line in variant_lines(result):
            head, _, rest = line.partition(" = ")
            variants.add_row(f" {head}", markup(rest))
        console.print(variants)
    for grid in compare_grids(result) if kind == "compare" else tune_grids(result):
        table = Table(title=markup(grid.caption), title_justify="left")
        for k, column in enumerate(grid.head):
            table.add_column(markup(column), justify="left" if k == 0 else "right", overflow="fold")
        for row in grid.rows:
            table.add_row(*(markup(cell) for cell in row.cells))
        console.print(table)
    if kind == "compare":
        console.print(markup("Columns: " + "; ".join(f"{t}: {m}" for t, m in COMPARE_LEGEND) + "."))
    for line in compare_answers(result) if kind == "compare" else tune_answers(result):
        console.print(markup(line), style="bold")


def _compare_plot(result: Result) -> str:
    """Each headline difference to A, with its paired interval; a colour per variant."""
    names, shown = result["variants"], _headline(result)
    fig = new_figure(1.0 + 0.45 * len(shown) * (len(names) - 1) ** 0.5 + 0.25 * len(names))
    ax = fig.add_subplot()
    colours = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")
    step = 0.7 / max(1, len(names) - 1)
    for j in range(1, len(names)):
        ys, ds, lo, hi = [], [], [], []
        for i, metric in enumerate(shown):
            d = result["metrics"][metric]["diffs"][j - 1]
            ys.append(i + (j - 1) * step - 0.35 + step / 2)
            ds.append(d["d"] * 100)
            lo.append((d["d"] - d["lo"]) * 100)
            hi.append((d["hi"] - d["d"]) * 100)
        ax.errorbar(ds, ys, xerr=[lo, hi], fmt="o", capsize=3, color=colours[(j - 1) % len(colours)],
                    label=wrapped_label(f"{letter(j)}: {words(names[j])}", 30))
    ax.axvline(0, color="#777", linewidth=1)
    name_ticks(ax, "y", list(range(len(shown))), [plain(m, _unit(result)) for m in shown],
               wrapped_label)
    ax.invert_yaxis()
    ax.set_xlabel(wrapped_label(f"points against A: {words(names[0])}", 34))
    ax.grid(axis="x", alpha=0.3)
    fig.legend(loc="outside upper center", frameon=False)
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
    bound = _split_target(result["target"])[2]
    ax.axhline(bound, color="#d62728", linestyle="--", linewidth=1, label=f"target: {_target_words(result)}")
    ax.set_xlabel(plot_label(_vary_words(result), 30))
    ax.set_ylabel(plot_label(plain(_split_target(result["target"])[0], _unit(result)), 24))
    ax.xaxis.get_major_locator().set_params(integer=True)
    percent_axis(ax, "y")
    fig.legend(loc="outside upper center", frameon=False)
    return to_svg(fig, "tune")


def render_page(result: Result, kind: str) -> str:
    """The compare or tune page as text."""
    if kind == "compare":
        title = "Comparison: " + " vs ".join(words(n) for n in result["variants"])
        answers, variants = compare_answers(result), variant_lines(result)
        tables, plot, legend = compare_grids(result), _compare_plot(result), COMPARE_LEGEND
        caption = "Differences to A, in percentage points (95% paired intervals)"
        battles = result["battles"] * len(result["variants"])
    else:
        title = f"Tuning {_vary_words(result)} for {_target_words(result)}"
        answers, tables, plot, legend = tune_answers(result), tune_grids(result), _tune_plot(result), ()
        variants = []
        caption = "The metric against the value, with 95% intervals and the target"
        battles = result["battles"]
    return render("decision.html", title=title, answers=answers, variants=variants, tables=tables,
                  legend=legend, plot=plot,
                  plot_key=kind, plot_caption=caption, version=__version__, seed=result["seed"],
                  battles=battles, unit=_unit(result))


def write_page(result: Result, kind: str, folder: pathlib.Path) -> pathlib.Path:
    """Write ``folder/compare.html`` or ``folder/tune.html`` atomically; its path."""
    return write_html(folder, PAGES[kind], render_page(result, kind))


def write_html(folder: pathlib.Path, name: str, page: str) -> pathlib.Path:
    """Write a ``--report`` page as ``folder/name`` atomically, the folder made first; its path.
    A folder that cannot take it is one ``--report`` line (exit 2)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / name
        write_atomic(target, page.encode("utf-8"))
    except OSError as exc:
        msg = f"{folder}:0:0: --report: cannot write ({exc.strerror})"
        raise InputError(msg) from exc
    return target
