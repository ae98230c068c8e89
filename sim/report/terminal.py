"""A batch on the terminal: the headline sentence and the lethality tables (rich).

The texts here (``pct``, ``headline``, ``step_rows``...) are shared with the HTML page.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.table import Table

from sim.terminal import clean

if TYPE_CHECKING:
    from sim.odds.attacks import AttackOdds

ATTACK_CAPTION = "One attack, exactly (sim odds): a fresh fighter, heroism counted, no morale reroll"
ATTACK_HEAD = ("attacker (weapon)", "target", "roll", "hits", "critical", "damage on a hit",
               "attacks to down")


def pct(ci: dict[str, float] | None) -> str:
    """``18.9% (17.2-20.7)``: the estimate and its 95% Wilson interval, in percent."""
    if ci is None:
        return "-"
    return f"{ci['p'] * 100:.1f}% ({ci['lo'] * 100:.1f}-{ci['hi'] * 100:.1f})"


def the_side(name: str) -> str:
    """A side's name as a GM says it in a sentence: ``the heroes``; a proper name (``Sir
    Bors's men``, ``The Watch``) or one that has its article stays as written."""
    return name if name[:1].isupper() or name.lower().startswith("the ") else f"the {name}"


def difficulty_text(party: dict[str, Any]) -> str:
    """``hard``, or ``hard (medium to deadly)`` when an interval's end falls in another band."""
    band = party["difficulty"]
    spread = party.get("difficulty_range") or {}
    low, high = spread.get("lo", band), spread.get("hi", band)
    return band if low == band == high else f"{band} ({low} to {high})"


def headline(summary: dict[str, Any]) -> str:
    """The one sentence a GM reads first: difficulty, win, someone down, someone dead, TPK.

    Without a party side (or in a summary written before ``party`` existed) it gives
    every side's win rate and the draws instead.
    """
    party = summary.get("party")
    if party:
        behind = left_behind(party)
        left = f", someone is left behind in {pct(behind)}" if behind else ""
        if summary.get("steps"):  # a day: its "win" is seeing every fight of it through
            return (f"Difficulty {difficulty_text(party)}: the day is seen through in {pct(party['win'])};"
                    f" someone of {the_side(party['side'])} goes down in {pct(party['any_down'])},"
                    f" someone dies in {pct(party['any_death'])}{left}, total party kill in"
                    f" {pct(party['tpk'])} of days.")
        return (f"Difficulty {difficulty_text(party)}: {party['side']} win {pct(party['win'])};"
                f" someone goes down in {pct(party['any_down'])}, someone dies in"
                f" {pct(party['any_death'])}{left}, total party kill in {pct(party['tpk'])} of battles.")
    wins = [f"{side} win {pct(stats['win_rate'])}" for side, stats in summary.get("sides", {}).items()]
    return ("No party, so no difficulty: " + "; ".join([*wins, f"draw {pct(summary.get('draw_rate'))}"])
            + ". Mark the players' side with `party: true` to see who goes down and dies.")


def left_behind(party: dict[str, Any]) -> dict[str, float] | None:
    """The party's "someone is left behind" interval when it happened in some battle (rules §5:
    alive where the fight left them, their side gone); None otherwise, or in a summary written
    before it existed."""
    behind = party.get("left_behind")
    return behind if behind and behind["p"] > 0 else None


def anyone_left_behind(summary: dict[str, Any]) -> bool:
    """Whether some combatant was left behind in some battle: the per-combatant tables then
    show a "left behind" column."""
    return any((c.get("left_behind") or {}).get("p") for c in summary["combatants"].values())


def unit(summary: dict[str, Any]) -> str:
    """What the run counts: ``days`` for adventuring days, else ``battles``."""
    return "days" if summary.get("steps") else "battles"


def dist_text(counts: dict[str, Any]) -> str:
    """``mean 0.42; 0: 61.0%, 1: 30.2%, 2: 8.8%``: a deaths or downs distribution."""
    shares = ", ".join(f"{k}: {share * 100:.1f}%" for k, share in enumerate(counts["dist"]))
    return f"mean {counts['mean']:.2f}; {shares}"


def outcome_rows(summary: dict[str, Any]) -> list[tuple[str, str]]:
    """The outcome rows the terminal and the HTML report both show: wins, draws (and what
    stopped them), TPK, and the party's fate."""
    rows = [(f"{side} win", pct(stats["win_rate"])) for side, stats in summary["sides"].items()]
    rows.append(("draw", pct(summary.get("draw_rate"))))
    why = summary.get("draws_by") or {}
    if why.get("stalemate") or why.get("max_rounds"):  # say why the draws stopped
        rows.append(("  draws stopped by", f"stalemate {why.get('stalemate', 0)},"
                                           f" round limit {why.get('max_rounds', 0)}"))
    rows.append(("TPK (whole party dead)", pct(summary.get("tpk"))))
    party = summary.get("party")
    if party:
        rows += [("someone in the party goes down", pct(party["any_down"])),
                 ("someone in the party dies", pct(party["any_death"])),
                 *([("someone in the party is left behind", pct(left_behind(party)))]
                   if left_behind(party) else []),
                 ("party members dead", dist_text(party["deaths"])),
                 ("party members down", dist_text(party["downs"])),
                 ("difficulty", difficulty_text(party))]
    return rows


def item_rows(summary: dict[str, Any]) -> list[tuple[str, str]]:
    """(name, items used per battle) of those who used any (rules §8)."""
    return [(name, f"{c['items_used']['mean']:.2f}") for name, c in summary["combatants"].items()
            if c.get("items_used", {}).get("mean")]


def summary_tables(summary: dict[str, Any]) -> list[Table]:
    """The headline table (sides, draws, TPK, rounds) and the per-combatant table."""
    head = Table(title=f"{summary['scenario']} ({summary['rules']}): {summary['battles']} {unit(summary)},"
                       f" seed {summary['seed']}", title_justify="left")
    head.add_column("outcome")
    head.add_column("rate (95% CI)", justify="right")
    for row in outcome_rows(summary):
        head.add_row(*row)
    r = summary["rounds"]
    head.add_row("rounds", f"mean {r['mean']:.1f}, p50 {r['p50']}, p90 {r['p90']}, max {r['max']}")

    people = Table(title="Who falls, and of what (95% intervals)", title_justify="left")
    behind = anyone_left_behind(summary)
    # An interval wraps after its estimate and is never cut: "(17.2-20.7)" takes 11 columns.
    for column, justify, width in (("name", "left", None), ("side", "left", None),
                                   ("dies", "right", 11), ("goes down", "right", 11),
                                   ("KO, lives", "right", None),
                                   *([("left behind", "right", None)] if behind else []),
                                   ("causes of death", "left", None), ("HP left", "right", None)):
        people.add_column(column, justify=justify, width=width)  # type: ignore[arg-type]
    for name, c in summary["combatants"].items():
        causes = ", ".join(f"{cause} {p * 100:.1f}%" for cause, p in c["death_causes"].items())
        people.add_row(name, c["side"], pct(c["death"]), pct(c.get("down")),
                       f"{c['knocked_out']['p'] * 100:.1f}%",
                       *([f"{c['left_behind']['p'] * 100:.1f}%"] if behind else []),
                       causes or "-", f"{c['hp_left']['mean']:.1f}")
    tables = [head, people]
    items = _items_table(summary)
    if items is not None:
        tables.append(items)
    if summary.get("steps"):
        tables[:0] = [day_table(summary), resources_table(summary)]
    morale = _morale_table(summary)
    if morale is not None:
        tables.append(morale)
    return tables


def _items_table(summary: dict[str, Any]) -> Table | None:
    """Items (potions) used per battle by those who used any (rules §8); None if nobody."""
    rows = item_rows(summary)
    if not rows:
        return None
    table = Table(title=f"Items used (mean per {unit(summary)[:-1]})", title_justify="left")
    table.add_column("name")
    table.add_column("items used", justify="right")
    for row in rows:
        table.add_row(*row)
    return table


def step_rows(summary: dict[str, Any], rate: Callable[[dict], str] = pct) -> list[tuple[str, ...]]:
    """One row per step of a day: reached, won, someone down, someone dies, the day ends
    here, and the party's HP at the start (p10 / p50 / p90); each rate shown by ``rate``
    (the page's with its interval, the terminal's without: it must fit 80 columns)."""
    rows = []
    for s in summary["steps"]:
        label = f"{s['step'] + 1}. {s['name']}"
        if s["kind"] == "rest":
            rows.append((label, rate(s["reached"]), "", "", "", "", ""))
            continue
        hp = s["hp_start"]
        rows.append((label, rate(s["reached"]), rate(s["won"]), rate(s["any_down"]), rate(s["any_death"]),
                     rate(s["ended_here"]), f"{hp['p10']} / {hp['p50']} / {hp['p90']}"))
    return rows


def _share(ci: dict[str, float]) -> str:
    return f"{ci['p'] * 100:.1f}%"


STEP_COLUMNS = ("step", "reached", "won", "someone goes down", "someone dies", "day ends here",
                "party HP at start (p10/p50/p90)")
# What the party has left as each fight begins, beside its HP (the summary's steps[].*_start).
RESOURCES = (("hp_start", "HP"), ("heroism_start", "heroism dice"), ("psy_start", "PSY"),
             ("potions_start", "potions"), ("destiny_start", "destiny"), ("fatigue_start", "fatigue"),
             ("down_start", "members down"))


def resource_columns(summary: dict[str, Any]) -> list[tuple[str, str]]:
    """The resources some fight of the day starts with (or, for members down, has any): a
    d20 party has no PSY, a party without potions no potion column."""
    fights = [s for s in summary["steps"] if s["kind"] == "encounter"]
    return [(key, label) for key, label in RESOURCES
            if key == "hp_start" or any((s.get(key) or {}).get("mean", 0) > 0 for s in fights)]


def spread_text(spread: dict[str, Any]) -> str:
    """``5.2 (3-8)``: the mean, then p10 to p90 of the days that reached the fight."""
    low, high = spread["p10"], spread["p90"]
    return f"{spread['mean']:.1f} ({low}-{high})" if low != high else f"{spread['mean']:.1f} ({low})"


def resource_rows(summary: dict[str, Any]) -> list[tuple[str, ...]]:
    """One row per fight of a day: what the party has left as it begins (resource_columns)."""
    columns = resource_columns(summary)
    return [(f"{s['step'] + 1}. {s['name']}", *(spread_text(s[key]) for key, _ in columns))
            for s in summary["steps"] if s["kind"] == "encounter"]


def resources_table(summary: dict[str, Any]) -> Table:
    """What the party has left as each fight begins, beside its HP: why a fight alone is won
    more often than at the end of a day."""
    table = Table(title="What the party has left as each fight begins: mean (p10-p90 of days)",
                  title_justify="left")
    table.add_column("fight", overflow="fold")
    for _, label in resource_columns(summary):
        table.add_column(label, justify="right", overflow="fold")
    for row in resource_rows(summary):
        table.add_row(*row)
    return table


def day_table(summary: dict[str, Any]) -> Table:
    """The day step by step: where the party gets worn down, and which fight ends the day."""
    day = summary["day"]
    table = Table(title=f"The day, step by step: survives {pct(day['survived'])}, completes"
                        f" {pct(day['completed'])}, someone dies {pct(day['any_death'])}"
                        " (each step's 95% intervals: in the report and summary.json)",
                  title_justify="left")
    for column in STEP_COLUMNS:  # cells wrap, never cut, on an 80-column terminal
        table.add_column(column, justify="left" if column == "step" else "right", overflow="fold")
    for row in step_rows(summary, _share):
        table.add_row(*row)
    return table


def morale_rows(summary: dict[str, Any]) -> list[tuple[str, Any, Any, dict[str, Any]]]:
    """(name, demoralized, despairing, learning) of each combatant morale touched at all."""
    rows = []
    for name, c in summary["combatants"].items():
        demoralized, despairing = c.get("demoralized"), c.get("despairing")
        learning = c.get("learning") or {}
        if learning or (demoralized and demoralized["p"]) or (despairing and despairing["p"]):
            rows.append((name, demoralized, despairing, learning))
    return rows


def morale_cells(summary: dict[str, Any], tick: Callable[[dict], str]
                 ) -> list[tuple[str, str, str, str]]:
    """The morale table's cells, the learning ticks each shown by ``tick`` (the terminal's
    chance, the page's interval)."""
    rows = []
    for name, demoralized, despairing, learning in morale_rows(summary):
        ticks = ", ".join(f"{skill} {tick(ci)}" for skill, ci in learning.items())
        rows.append((name, pct(demoralized), pct(despairing), ticks or "-"))
    return rows


def _morale_table(summary: dict[str, Any]) -> Table | None:
    """Who ends demoralized or despairing, and which skills get a learning tick (seed 000)."""
    rows = morale_cells(summary, lambda ci: f"{ci['p'] * 100:.0f}%")
    if not rows:
        return None
    table = Table(title="Morale and learning", title_justify="left")
    for column, justify in (("combatant", "left"), ("ends demoralized", "right"),
                            ("ends despairing", "right"), ("learning tick (chance)", "left")):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    for row in rows:
        table.add_row(*row)
    return table


class TableConsole(Console):
    """rich's Console for stdout, whose reader may leave (``sim batch ... | head -2``): rich
    then raised SystemExit(1), an error exit with nothing said. A BrokenPipeError is raised
    instead, which the command ends on quietly with exit 0 (sim.cli.entry)."""

    def __init__(self) -> None:
        super().__init__(emoji=False)

    def on_broken_pipe(self) -> None:
        raise BrokenPipeError


def attack_rows(attacks: Sequence[AttackOdds]) -> list[tuple[str, ...]]:
    """The per-attack table's rows (sim.odds.attacks) as report.html shows them."""
    rows = []
    for a in attacks:
        chances = ", ".join(f"{k.replace('_', ' ')} {v * 100:.1f}%" for k, v in a.rolls.items())
        down = "never" if a.attacks_to_down is None else f"{a.attacks_to_down:.1f}"
        rows.append((f"{a.attacker} ({a.weapon})", a.target, f"{a.roll} [{chances}]",
                     f"{a.hit * 100:.1f}%", f"{a.critical * 100:.1f}%",
                     f"{a.damage_mean:.1f} ({a.damage_min}-{a.damage_max})", down))
    return rows


def print_summary(summary: dict[str, Any], console: Console | None = None) -> None:
    """Print the headline sentence, then the lethality tables; names are data, never markup,
    emoji codes or control characters."""
    console = console or TableConsole()
    console.print(headline(clean(summary)), markup=False, highlight=False)
    for table in summary_tables(clean(summary, rich=True)):
        console.print(table)
