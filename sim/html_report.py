"""The self-contained HTML lethality report of a batch run: tables, inline SVG plots, a battle viewer."""

from __future__ import annotations

import base64
import hashlib
import html
import io
import json
import pathlib
import re
from collections.abc import Iterable, Sequence
from typing import Any

from sim import __version__
from sim.batch import BATTLES, SUMMARY, RunFolder, load_run_scenario, read_json, write_atomic
from sim.errors import InputError
from sim.infile import open_regular
from sim.narrate import NARRATORS
from sim.replay import PICKS, pick_battles, regenerate
from sim.replay_state import BattleView, CombatantView
from sim.report import STEP_COLUMNS, difficulty_text, dist_text, headline, morale_rows, pct, step_rows

REPORT = "report.html"
Summary = dict[str, Any]
Event = dict[str, Any]


def write_report(run_dir: pathlib.Path, bestiary: Sequence[pathlib.Path] = ()) -> pathlib.Path:
    """Write ``run_dir/report.html`` atomically (one file, loads nothing from the network); its path.

    ``bestiary``: extra folders searched first when the run's scenario is loaded again."""
    run_dir = pathlib.Path(run_dir)
    summary = _read_summary(run_dir)
    page = render_page(run_dir, summary, bestiary)
    target = run_dir / REPORT
    write_atomic(target, page.encode("utf-8"))
    return target


def render_page(run_dir: pathlib.Path, summary: Summary, bestiary: Sequence[pathlib.Path] = ()) -> str:
    """The whole page as text."""
    parts = [
        _header(summary, _party_side(run_dir, bestiary)),
        *([_section("day", "The day, step by step", _day_section(summary))] if summary.get("steps")
          else []),
        _section("lethality", "Lethality (95% intervals)", _tables(summary)),
        _section("plots", "Plots", _plots(run_dir, summary)),
        _section("viewer", "Step through a battle", _viewer(run_dir, bestiary)),
    ]
    footer = (f"<footer>combat-sim {_e(__version__)} &middot; run folder {_e(run_dir.name)}"
              f"{_stopped(summary)}</footer>")
    return _document(summary, "\n".join(parts) + footer)


# -- input -----------------------------------------------------------------------------------


def _read_summary(run_dir: pathlib.Path) -> Summary:
    """The run's summary.json; a missing or damaged one is an input error."""
    path = run_dir / SUMMARY
    summary = read_json(path, "summary", f"no {SUMMARY}: not a finished batch run folder")
    if not isinstance(summary, dict) or summary.get("schema") != 1:
        msg = f"{path}:0:0: (document): not a schema 1 summary of this program"
        raise InputError(msg)
    return summary


def _party_side(run_dir: pathlib.Path, bestiary: Sequence[pathlib.Path]) -> str | None:
    """The party side's name, or None when the scenario has no party or cannot be loaded."""
    folder = RunFolder(run_dir)
    try:
        scenario = load_run_scenario(folder, folder.read_manifest(), bestiary)
    except InputError:
        return None
    return next((side.name for side in scenario.sides if side.party), None)


def _battle_columns(run_dir: pathlib.Path) -> tuple[Any, list[str], Any]:
    """battles.parquet's rounds, and every combatant's (name, final HP) flattened, as numpy arrays."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    path = run_dir / BATTLES
    try:
        with open_regular(path) as handle:  # refuses a FIFO or a device at once
            table = pq.read_table(handle, columns=["rounds", "combatants"])
    except Exception as exc:  # pyarrow raises several types for a missing or bad file
        msg = f"{path}:0:0: (document): cannot read the run's battles ({exc})"
        raise InputError(msg) from exc
    rounds = table.column("rounds").to_numpy()
    flat = pc.list_flatten(table.column("combatants"))
    flat = flat.combine_chunks() if isinstance(flat, pa.ChunkedArray) else flat
    names = flat.field("name").to_pylist()
    hp = np.asarray(flat.field("hp").to_numpy(zero_copy_only=False), dtype=float)
    return rounds, names, hp


# -- text ------------------------------------------------------------------------------------


def _e(value: object) -> str:
    """HTML-escaped text (quotes too: safe in attributes)."""
    return html.escape(str(value), quote=True)


def _json_script(value: object) -> str:
    """JSON that cannot end its <script> element: <, > and & become \\u escapes."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


def _section(key: str, title: str, body: str) -> str:
    return f'<section id="{key}"><h2>{_e(title)}</h2>\n{body}\n</section>\n'


def _stopped(summary: Summary) -> str:
    if summary.get("stopped_by") == "precision":
        return " &middot; stopped early: the asked precision was reached"
    return ""


def _header(summary: Summary, party: str | None) -> str:
    meta = (f"rules {_e(summary.get('rules'))} &middot; {_e(summary.get('battles'))} battles"
            f" &middot; seed {_e(summary.get('seed'))}")
    return (f"<header><h1>{_e(summary.get('scenario'))}</h1>\n<p class=\"meta\">{meta}</p>\n"
            f"<p class=\"verdict\">{_e(_verdict(summary, party))}</p></header>\n")


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


def _table(caption: str, head: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    """A table whose cells are already HTML."""
    th = "".join(f"<th>{_e(h)}</th>" for h in head)
    body = "".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>\n" for row in rows)
    # The box scrolls sideways on a narrow screen, so the page itself never has to.
    return (f'<div class="table-box"><table><caption>{_e(caption)}</caption>\n'
            f"<thead><tr>{th}</tr></thead>\n<tbody>\n{body}</tbody></table></div>\n")


def _tables(summary: Summary) -> str:
    return _outcome_table(summary) + _rounds_table(summary) + _people_table(summary) + _morale_table(summary)


def _outcome_table(summary: Summary) -> str:
    rows = [(f"{_e(side)} win", _e(pct(stats["win_rate"]))) for side, stats in summary["sides"].items()]
    rows.append(("draw", _e(pct(summary.get("draw_rate")))))
    rows.append(("TPK (whole party dead)", _e(pct(summary.get("tpk")))))
    party = summary.get("party")
    if party:
        rows += [("someone in the party goes down", _e(pct(party["any_down"]))),
                 ("someone in the party dies", _e(pct(party["any_death"]))),
                 ("party members dead", _e(dist_text(party["deaths"]))),
                 ("party members down", _e(dist_text(party["downs"]))),
                 ("difficulty", _e(difficulty_text(party)))]
    return _table("Outcomes", ("outcome", "rate (95% CI)"), rows)


def _rounds_table(summary: Summary) -> str:
    r = summary["rounds"]
    row = (f"{r['mean']:.1f}", _e(r["p50"]), _e(r["p90"]), _e(r["max"]))
    return _table("Battle length (rounds)", ("mean", "median (p50)", "p90", "max"), [row])


def _people_table(summary: Summary) -> str:
    head = ("combatant", "side", "dies (95% CI)", "goes down (95% CI)", "knocked out, survives (95% CI)",
            "causes of death", "HP left: mean (p10 / p50 / p90)")
    rows = [(_e(name), _e(c["side"]), _e(pct(c["death"])), _e(pct(c.get("down"))), _e(pct(c["knocked_out"])),
             _causes(c), _hp_left(c["hp_left"])) for name, c in summary["combatants"].items()]
    return _table("Who falls, and of what", head, rows)


def _causes(c: dict[str, Any]) -> str:
    intervals = c.get("death_causes_ci") or {}
    parts = [f"{_e(cause)} {_e(pct(intervals[cause]) if cause in intervals else f'{p * 100:.1f}%')}"
             for cause, p in c["death_causes"].items()]
    return "<br>".join(parts) or "-"


def _hp_left(hp: dict[str, Any]) -> str:
    spread = " / ".join(_e(hp.get(key, "-")) for key in ("p10", "p50", "p90"))
    return f"{hp['mean']:.1f} ({spread})"


def _morale_table(summary: Summary) -> str:
    """Who ends demoralized or despairing, and which skills get a learning tick; "" when nobody."""
    rows = []
    for name, demoralized, despairing, learning in morale_rows(summary):
        ticks = ", ".join(f"{skill} {pct(ci)}" for skill, ci in learning.items())
        rows.append((_e(name), _e(pct(demoralized)), _e(pct(despairing)), _e(ticks or "-")))
    if not rows:
        return ""
    head = ("combatant", "ends demoralized", "ends despairing", "learning tick (95% CI)")
    return _table("Morale and learning", head, rows)


def _day_section(summary: Summary) -> str:
    """Attrition over an adventuring day: per step, who gets there and with how much left."""
    table = _table("Each step of the day (95% intervals; HP as p10 / p50 / p90 of the days that"
                   " reached it)", STEP_COLUMNS, step_rows(summary))
    figure = (f'<figure data-plot="attrition">{_attrition_plot(summary)}<figcaption>The party\'s'
              " HP as each fight begins (deciles of the days that reach it: the light band p10 to"
              " p90, the dark band p30 to p70, the line the median), and the share of days that"
              " end at each fight.</figcaption></figure>")
    return table + '<div class="plots">' + figure + "</div>"


def _attrition_plot(summary: Summary) -> str:
    fights = [s for s in summary["steps"] if s["kind"] == "encounter"]
    fig = _figure(3.4)
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
    _percent_axis(end_ax, "y")
    end_ax.set_xticks(xs, [_label(f"{s['step'] + 1}. {s['name']}", 18) for s in fights])
    return _svg(fig, "attrition")


# -- plots -----------------------------------------------------------------------------------

_CAUSE_COLOURS = {"weapon": "#8c564b", "fire": "#d62728", "poison": "#2ca02c", "drowning": "#1f77b4",
                  "fall": "#7f7f7f", "explosion": "#ff7f0e", "spell": "#9467bd", "unknown": "#bcbd22"}
_SIDE_COLOURS = ("#1f77b4", "#ff7f0e", "#9467bd", "#17becf", "#8c564b")


def _plots(run_dir: pathlib.Path, summary: Summary) -> str:
    rounds, names, hp = _battle_columns(run_dir)
    figures = [
        ("win", _win_plot(summary),
         "Win, draw and total-party-kill rates; bars show the 95% Wilson interval."),
        ("deaths", _deaths_plot(summary),
         "Each combatant's chance to die, split by cause, and to be knocked out and survive"
         " (95% intervals)."),
        *_party_figure(summary),
        ("rounds", _rounds_plot(summary, rounds), "How many rounds battles last (share of battles)."),
        ("hp", _hp_plot(summary, names, hp),
         "HP left at the end of a battle: box from p25 to p75, whiskers p5 to p95, triangle the mean."),
    ]
    return '<div class="plots">' + "\n".join(
        f'<figure data-plot="{key}">{svg}<figcaption>{_e(caption)}</figcaption></figure>'
        for key, svg, caption in figures) + "</div>"


def _label(name: str, width: int = 24) -> str:
    """A name as a plot label: shortened, and ``$`` escaped so mathtext never reads it."""
    short = name if len(name) <= width else name[: width - 1] + "\u2026"
    return short.replace("$", r"\$")


def _figure(height: float) -> Any:
    from matplotlib.figure import Figure

    return Figure(figsize=(5.4, height), layout="constrained")


def _svg(fig: Any, key: str) -> str:
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


def _percent_axis(ax: Any, axis: str = "x") -> None:
    from matplotlib.ticker import PercentFormatter

    getattr(ax, f"{axis}axis").set_major_formatter(PercentFormatter(1.0))


def _win_plot(summary: Summary) -> str:
    rows = [(f"{side} wins", stats["win_rate"], _SIDE_COLOURS[i % len(_SIDE_COLOURS)])
            for i, (side, stats) in enumerate(summary["sides"].items())]
    rows.append(("draw", summary.get("draw_rate") or {"p": 0.0, "lo": 0.0, "hi": 0.0}, "#7f7f7f"))
    if summary.get("tpk") is not None:
        rows.append(("TPK", summary["tpk"], "#d62728"))
    fig = _figure(0.6 + 0.45 * len(rows))
    ax = fig.add_subplot()
    y = list(range(len(rows)))[::-1]
    ps = [ci["p"] for _, ci, _ in rows]
    err = [[ci["p"] - ci["lo"] for _, ci, _ in rows], [ci["hi"] - ci["p"] for _, ci, _ in rows]]
    ax.barh(y, ps, xerr=err, color=[c for _, _, c in rows], capsize=4, height=0.6)
    for yi, (_, ci, _) in zip(y, rows, strict=True):
        ax.annotate(f"{ci['p'] * 100:.1f}%", (ci["hi"], yi), xytext=(6, 0), textcoords="offset points",
                    va="center", fontsize=9)
    ax.set_yticks(y, [_label(name) for name, _, _ in rows])
    ax.set_xlim(0, 1.08)
    _percent_axis(ax)
    ax.grid(axis="x", alpha=0.3)
    return _svg(fig, "win")


def _deaths_plot(summary: Summary) -> str:
    people = list(summary["combatants"].items())
    fig = _figure(1.2 + 0.55 * len(people))
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
    ax.set_yticks(y, [_label(name) for name, _ in people])
    ax.set_xlim(0, 1)
    _percent_axis(ax)
    ax.grid(axis="x", alpha=0.3)
    fig.legend(loc="outside upper center", fontsize=8, ncols=3, frameon=False)
    return _svg(fig, "deaths")


def _death_bar(ax: Any, y: float, c: dict[str, Any], seen: set[str]) -> None:
    """One stacked bar of a combatant's deaths by cause, with the interval of the total."""
    left = 0.0
    for i, (cause, p) in enumerate(c["death_causes"].items()):
        colour = _CAUSE_COLOURS.get(cause, _SIDE_COLOURS[i % len(_SIDE_COLOURS)])
        ax.barh(y, p, left=left, height=0.38, color=colour,
                label=None if cause in seen else f"dies: {_label(cause)}")
        seen.add(cause)
        left += p
    death = c["death"]
    ax.errorbar(death["p"], y, xerr=[[death["p"] - death["lo"]], [death["hi"] - death["p"]]],
                fmt="none", ecolor="black", capsize=3)


def _party_figure(summary: Summary) -> list[tuple[str, str, str]]:
    """The party plot as a (key, svg, caption) figure; none without a party side."""
    party = summary.get("party")
    if not party:
        return []
    return [("party", _party_plot(party),
             f"How many of {party['side']} end a battle dead, and how many went down at some moment"
             " (share of battles).")]


def _party_plot(party: dict[str, Any]) -> str:
    """Side by side bars of ``deaths.dist`` and ``downs.dist``: share of battles per member count."""
    import numpy as np

    fig = _figure(2.8)
    ax = fig.add_subplot()
    x = np.arange(len(party["deaths"]["dist"]))
    for offset, key, label, colour in ((-0.2, "downs", "went down", "#e7ba52"),
                                       (0.2, "deaths", "dead at the end", "#d62728")):
        counts = party[key]
        ax.bar(x + offset, counts["dist"], width=0.4, color=colour,
               label=f"{label} (mean {counts['mean']:.2f})")
    ax.set_xticks(x, [str(k) for k in x])
    ax.set_xlabel(f"members of {_label(party['side'])}")
    ax.set_ylabel("share of battles")
    ax.set_ylim(0, 1)
    _percent_axis(ax, "y")
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    return _svg(fig, "party")


def _rounds_plot(summary: Summary, rounds: Any) -> str:
    import numpy as np

    fig = _figure(3.0)
    ax = fig.add_subplot()
    counts = np.bincount(rounds) if len(rounds) else np.zeros(1, dtype=int)
    share = counts / max(1, counts.sum())
    ax.bar(np.arange(len(counts)), share, width=0.85, color="#4c78a8")
    r = summary["rounds"]
    lines = ((r["mean"], f"mean {r['mean']:.1f}", "-"), (r["p50"], f"median {r['p50']}", "--"),
             (r["p90"], f"p90 {r['p90']}", ":"))
    for value, label, style in lines:
        ax.axvline(value, color="#333333", linestyle=style, linewidth=1.2, label=label)
    ax.set_xlabel("rounds")
    ax.set_ylabel("share of battles")
    _percent_axis(ax, "y")
    ax.xaxis.get_major_locator().set_params(integer=True)
    if counts.any():
        found = np.flatnonzero(counts)
        ax.set_xlim(found[0] - 0.7, found[-1] + 0.7)
    ax.legend(fontsize=8)
    ax.grid(axis="y", alpha=0.3)
    return _svg(fig, "rounds")


def _hp_plot(summary: Summary, names: list[str], hp: Any) -> str:
    import numpy as np

    people = list(summary["combatants"])
    by_name = np.asarray(names, dtype=object)
    data = [hp[by_name == name] for name in people]
    data = [d if len(d) else np.zeros(1) for d in data]
    fig = _figure(1.0 + 0.45 * len(people))
    ax = fig.add_subplot()
    y = [len(people) - i for i in range(len(people))]
    ax.boxplot(data, positions=y, orientation="horizontal", whis=(5, 95), showfliers=False,
               showmeans=True, widths=0.6, patch_artist=True,
               boxprops={"facecolor": "#c6dbef"}, medianprops={"color": "#08519c"},
               meanprops={"marker": "^", "markerfacecolor": "#d62728", "markeredgecolor": "#d62728"})
    ax.set_yticks(y, [_label(name) for name in people])
    ax.set_xlabel("HP left")
    ax.set_xlim(left=min(0.0, float(hp.min()) if len(hp) else 0.0) - 0.5)
    ax.grid(axis="x", alpha=0.3)
    return _svg(fig, "hp")


# -- the battle viewer -----------------------------------------------------------------------


def _viewer(run_dir: pathlib.Path, bestiary: Sequence[pathlib.Path]) -> str:
    """The worst, a median and the best battle, their events and narration embedded as JSON."""
    try:
        picks = pick_battles(run_dir, bestiary)
        logs = {index: regenerate(run_dir, index, bestiary) for index in sorted(set(picks.values()))}
    except InputError as exc:
        return f'<p class="note">The battles cannot be replayed: {_e(exc)}</p>'
    options = "".join(f'<option value="{key}">{key}: battle {picks[key]}, {_e(_outcome(logs[picks[key]]))}'
                      f"</option>" for key in PICKS)
    data = "".join(
        f'<script type="application/json" id="battle-{key}" data-index="{picks[key]}">'
        f"{_json_script(logs[picks[key]])}</script>\n"
        f'<script type="application/json" id="narration-{key}">'
        f"{_json_script([explain(e) for e in logs[picks[key]]])}</script>\n"
        f'<script type="application/json" id="state-{key}">'
        f"{_json_script(viewer_states(logs[picks[key]]))}</script>\n"
        for key in PICKS
    )
    return _VIEWER.format(options=options) + data


def viewer_states(events: list[Event]) -> list[dict[str, Any]]:
    """What the viewer shows after each event, as changes: entry k lists ``[name, shown]`` for
    each combatant event k changed (entry 0: everyone) and, when it changed, the shared pools.

    ``shown`` is the terminal replay's view of a combatant (sim.replay_state): HP, status and
    its details (effects, prone, heroism, PSY, fatigue, morale...), so both replays agree.
    """
    view = BattleView(events)
    shown = {name: _shown(c) for name, c in view.combatants.items()}
    states: list[dict[str, Any]] = [{"cast": [[n, s] for n, s in shown.items()], "shared": {}}]
    shared: dict[str, int] = {}
    for k in range(1, len(events)):
        view.goto(k)
        # Only combatants an event names can change (as actor, target, source...).
        named = {v for v in events[k].values() if isinstance(v, str) and v in shown}
        if events[k]["event"] == "battle_started":  # a later fight of a day: its whole cast
            named |= {c["name"] for c in events[k]["combatants"]}
        changed = []
        for name in sorted(named):
            now = _shown(view.combatants[name])
            if now != shown[name]:
                shown[name] = now
                changed.append([name, now])
        state: dict[str, Any] = {"cast": changed}
        if view.shared != shared:
            shared = dict(view.shared)
            state["shared"] = shared
        states.append(state)
    return states


def _shown(c: CombatantView) -> dict[str, Any]:
    return {"hp": c.hp, "max": c.max_hp, "status": c.status, "details": c.details()}


def _outcome(events: list[Event]) -> str:
    last = events[-1] if events else {}
    if last.get("event") == "day_ended":
        return "the day seen through" if last.get("completed") else "the day ends early"
    if last.get("event") != "battle_ended":
        return "unfinished"
    head = f"{last['winner']} win" if last.get("winner") else "draw"
    return f"{head} after {last.get('rounds')} round(s)"


def explain(event: Event) -> str:
    """One event in words: narrate's line for it, or a plain rendering of its fields."""
    name = event.get("event", "")
    narrator = NARRATORS.get(name)
    if narrator is not None:
        try:
            return narrator(event).strip()
        except (KeyError, TypeError, ValueError, AttributeError):
            pass  # an event missing an optional field: fall back to its fields
    if name == "turn_started" and "actor" in event:
        return f"{event['actor']}'s turn."
    fields = ", ".join(f"{key} {value}" for key, value in event.items()
                       if key not in ("event", "round", "t") and isinstance(value, str | int | float))
    return f"{name.replace('_', ' ').capitalize()}" + (f": {fields}." if fields else ".")


_VIEWER = """<div class="viewer">
<div class="controls">
<label>Battle <select id="pick">{options}</select></label>
<button type="button" id="first" title="first event (Home)">&laquo; first</button>
<button type="button" id="prev" title="previous event (Left arrow)">&#x25C0; previous</button>
<button type="button" id="next" title="next event (Right arrow)">next &#x25B6;</button>
<button type="button" id="last" title="last event (End)">last &raquo;</button>
<span id="step" class="step"></span>
</div>
<p class="hint">Left / Right arrow keys step through the events; Home and End jump to the first
and the last. Under each HP bar: status, [effects], and what is left of heroism, PSY, morale...</p>
<div id="roster" class="roster"></div>
<p id="event-text" class="event-text" aria-live="polite"></p>
<ol id="log" class="log"></ol>
</div>
"""


# -- the document ----------------------------------------------------------------------------

_CSS = """
:root { --ink: #1d2430; --muted: #5b6575; --line: #d8dde6; --accent: #2f5d9a; --bg: #f6f7f9; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  color: var(--ink); background: var(--bg); }
header, section, footer { max-width: 1000px; margin: 0 auto; padding: 0 20px; }
header { padding-top: 24px; }
h1 { margin: 0 0 4px; font-size: 26px; overflow-wrap: anywhere; }
h2 { margin: 28px 0 10px; font-size: 19px; border-bottom: 2px solid var(--line); padding-bottom: 4px; }
.meta { margin: 0; color: var(--muted); }
.verdict { margin: 10px 0 0; padding: 10px 14px; background: #fff; border-left: 4px solid #c0392b;
  border-radius: 4px; font-weight: 600; overflow-wrap: anywhere; }
.table-box { overflow-x: auto; margin: 0 0 18px; }
table { border-collapse: collapse; background: #fff; width: 100%; font-size: 14px; }
caption { text-align: left; font-weight: 600; padding: 4px 0; }
th, td { border: 1px solid var(--line); padding: 5px 8px; text-align: left; vertical-align: top;
  overflow-wrap: break-word; }
th { background: #eef1f5; }
td { font-variant-numeric: tabular-nums; }
.plots { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(440px, 100%), 1fr)); gap: 14px;
  align-items: start; }
figure { margin: 0; background: #fff; border: 1px solid var(--line); border-radius: 4px;
  padding: 8px; }
figure svg { display: block; width: 100%; height: auto; }
figcaption { color: var(--muted); font-size: 13px; padding: 4px 4px 0; }
.viewer { background: #fff; border: 1px solid var(--line); border-radius: 4px; padding: 12px; }
.controls { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; }
.controls select, .controls button { font: inherit; padding: 4px 10px; }
.controls label { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; max-width: 100%; }
.controls select { max-width: 100%; min-width: 0; }
.step { color: var(--muted); margin-left: auto; font-variant-numeric: tabular-nums; }
.hint { color: var(--muted); font-size: 13px; margin: 6px 0 10px; }
.roster { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(300px, 100%), 1fr)); gap: 12px; }
.side h3 { margin: 0 0 6px; font-size: 15px; overflow-wrap: anywhere; }
.fighter { display: grid; grid-template-columns: minmax(90px, 40%) 1fr; gap: 2px 8px; align-items: center;
  margin-bottom: 6px; }
.fighter .name { overflow-wrap: anywhere; font-size: 14px; }
.fighter .tags { grid-column: 2; font-size: 12px; color: #a33; min-height: 0; }
.hp { position: relative; height: 20px; background: #e9ecf1; border-radius: 3px; overflow: hidden; }
.hp .fill { position: absolute; inset: 0 auto 0 0; background: #4caf50; transition: width .15s; }
.hp[data-level="mid"] .fill { background: #f0ad4e; }
.hp[data-level="low"] .fill { background: #d9534f; }
.hp .hp-text { position: relative; padding-left: 6px; font-size: 12px; line-height: 20px; font-weight: 600; }
.fighter[data-status="dead"] .name { text-decoration: line-through; color: var(--muted); }
.event-text { margin: 12px 0 8px; padding: 10px 12px; background: #eef3fb; border-radius: 4px;
  white-space: pre-wrap; min-height: 3em; overflow-wrap: anywhere; }
.log { max-height: 220px; overflow: auto; margin: 0; padding: 6px 6px 6px 48px; border: 1px solid var(--line);
  border-radius: 4px; font-size: 13px; color: var(--muted); white-space: pre-wrap; }
.log li.future { display: none; }
.log li.current { color: var(--ink); font-weight: 600; }
.note { color: #a33; }
footer { color: var(--muted); font-size: 12px; padding: 24px 20px 32px; overflow-wrap: anywhere; }
@media (max-width: 520px) {  /* a phone: narrower margins, the step counter on its own line */
  header, section, footer { padding-left: 10px; padding-right: 10px; }
  .viewer { padding: 8px; }
  .step { margin-left: 0; flex-basis: 100%; }
}
"""

_JS = """
(() => {
  "use strict";
  const $ = (id) => document.getElementById(id);
  const load = (id) => { const el = $(id); return el ? JSON.parse(el.textContent) : null; };
  const make = (tag, cls, text) => {
    const el = document.createElement(tag);
    if (cls) el.className = cls;
    if (text !== undefined) el.textContent = text;
    return el;
  };
  const pick = $("pick");
  if (!pick) return;
  const battles = {};
  for (const option of pick.options) {
    const key = option.value;
    battles[key] = {events: load("battle-" + key), lines: load("narration-" + key),
                    states: load("state-" + key)};
  }
  let battle = null, k = 0, rows = new Map(), items = [];

  // The state after event `upto`: the changes Python computed (sim.replay_state), applied in order.
  function stateAt(states, upto) {
    const cast = new Map(states[0].cast);
    let shared = states[0].shared;
    for (let i = 1; i <= upto; i++) {
      for (const [name, shown] of states[i].cast) cast.set(name, shown);
      if (states[i].shared) shared = states[i].shared;
    }
    return {cast, shared};
  }

  function build() {
    battle = battles[pick.value];
    const roster = $("roster"), log = $("log"), sides = new Map();
    roster.replaceChildren();
    rows = new Map();
    for (const c of battle.events[0].combatants) {
      if (!sides.has(c.side)) {
        const box = make("div", "side");
        box.append(make("h3", "", c.side));
        sides.set(c.side, box);
        roster.append(box);
      }
      const row = make("div", "fighter"), hp = make("div", "hp");
      const fill = make("span", "fill"), text = make("span", "hp-text"), tags = make("div", "tags");
      hp.dataset.name = c.name;
      hp.append(fill, text);
      row.append(make("span", "name", c.name), hp, tags);
      sides.get(c.side).append(row);
      rows.set(c.name, {row, hp, fill, text, tags});
    }
    items = battle.lines.map((line) => make("li", "", line));
    log.replaceChildren(...items);
    k = 0;
    render();
  }

  function render() {
    const events = battle.events, {cast, shared} = stateAt(battle.states, k);
    for (const [name, c] of cast) {
      const r = rows.get(name), share = c.max > 0 ? Math.max(0, Math.min(1, c.hp / c.max)) : 0;
      r.hp.dataset.hp = String(c.hp);
      r.hp.dataset.level = share > 0.5 ? "high" : share > 0.25 ? "mid" : "low";
      r.fill.style.width = (share * 100).toFixed(1) + "%";
      r.text.textContent = c.hp + " / " + c.max + " HP";
      r.row.dataset.status = c.status;
      const tags = [c.status === "active" ? "" : c.status, ...c.details];
      r.tags.textContent = tags.filter(Boolean).join(" \u00b7 ");
    }
    const pools = Object.entries(shared).map(([pool, left]) => " \u00b7 " + pool + " " + left).join("");
    $("step").textContent = `event ${k + 1} of ${events.length}, round ${events[k].round}${pools}`;
    $("event-text").textContent = battle.lines[k];
    items.forEach((li, i) => { li.className = i > k ? "future" : i === k ? "current" : ""; });
    const log = $("log");
    log.scrollTop = Math.max(0, items[k].offsetTop - log.clientHeight + items[k].offsetHeight + 8);
    $("first").disabled = $("prev").disabled = k === 0;
    $("last").disabled = $("next").disabled = k === events.length - 1;
  }

  function go(to) {
    k = Math.max(0, Math.min(battle.events.length - 1, to));
    render();
  }
  $("first").addEventListener("click", () => go(0));
  $("prev").addEventListener("click", () => go(k - 1));
  $("next").addEventListener("click", () => go(k + 1));
  $("last").addEventListener("click", () => go(battle.events.length - 1));
  pick.addEventListener("change", build);
  document.addEventListener("keydown", (event) => {
    const tag = event.target && event.target.tagName;
    if (tag === "SELECT" || tag === "INPUT" || tag === "TEXTAREA" || event.altKey || event.ctrlKey) return;
    const to = {ArrowRight: k + 1, ArrowLeft: k - 1, Home: 0, End: battle.events.length - 1}[event.key];
    if (to !== undefined) { go(to); event.preventDefault(); }
  });
  build();
})();
"""


def _csp() -> str:
    """No network, no plugins, and only this page's own script may run (by its hash)."""
    digest = base64.b64encode(hashlib.sha256(_JS.encode("utf-8")).digest()).decode("ascii")
    return (f"default-src 'none'; script-src 'sha256-{digest}'; style-src 'unsafe-inline'; "
            "img-src data:; base-uri 'none'; form-action 'none'")


def _document(summary: Summary, body: str) -> str:
    title = f"{summary.get('scenario')}: lethality report"
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f'<meta http-equiv="Content-Security-Policy" content="{_csp()}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<link rel="icon" href="data:,">\n'
        f"<title>{_e(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n{body}\n"
        f"<script>{_JS}</script>\n</body>\n</html>\n"
    )
