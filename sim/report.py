"""Presenting a batch: the lethality table on the terminal (plots and HTML come later)."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table


def pct(ci: dict[str, float] | None) -> str:
    """``18.9% (17.2-20.7)``: the estimate and its 95% Wilson interval, in percent."""
    if ci is None:
        return "-"
    return f"{ci['p'] * 100:.1f}% ({ci['lo'] * 100:.1f}-{ci['hi'] * 100:.1f})"


def summary_tables(summary: dict[str, Any]) -> list[Table]:
    """The headline table (sides, draws, TPK, rounds) and the per-combatant table."""
    head = Table(title=f"{summary['scenario']} ({summary['rules']}): {summary['battles']} battles,"
                       f" seed {summary['seed']}", title_justify="left")
    head.add_column("outcome")
    head.add_column("rate (95% CI)", justify="right")
    for side, stats in summary["sides"].items():
        head.add_row(f"{side} win", pct(stats["win_rate"]))
    head.add_row("draw", pct(summary.get("draw_rate")))
    head.add_row("TPK (whole party dead)", pct(summary.get("tpk")))
    r = summary["rounds"]
    head.add_row("rounds", f"mean {r['mean']:.1f}, p50 {r['p50']}, p90 {r['p90']}, max {r['max']}")

    people = Table(title="Who falls, and of what", title_justify="left")
    for column, justify in (("combatant", "left"), ("side", "left"), ("dies (95% CI)", "right"),
                            ("KO, survives", "right"), ("causes of death", "left"),
                            ("HP left", "right")):
        people.add_column(column, justify=justify)  # type: ignore[arg-type]
    for name, c in summary["combatants"].items():
        causes = ", ".join(f"{cause} {p * 100:.1f}%" for cause, p in c["death_causes"].items())
        people.add_row(name, c["side"], pct(c["death"]), f"{c['knocked_out']['p'] * 100:.1f}%",
                       causes or "-", f"{c['hp_left']['mean']:.1f}")
    tables = [head, people]
    morale = _morale_table(summary)
    if morale is not None:
        tables.append(morale)
    return tables


def morale_rows(summary: dict[str, Any]) -> list[tuple[str, Any, Any, dict[str, Any]]]:
    """(name, demoralized, despairing, learning) of each combatant morale touched at all."""
    rows = []
    for name, c in summary["combatants"].items():
        demoralized, despairing = c.get("demoralized"), c.get("despairing")
        learning = c.get("learning") or {}
        if learning or (demoralized and demoralized["p"]) or (despairing and despairing["p"]):
            rows.append((name, demoralized, despairing, learning))
    return rows


def _morale_table(summary: dict[str, Any]) -> Table | None:
    """Who ends demoralized or despairing, and which skills get a learning tick (seed 000)."""
    rows = []
    for name, demoralized, despairing, learning in morale_rows(summary):
        ticks = ", ".join(f"{skill} {ci['p'] * 100:.0f}%" for skill, ci in learning.items())
        rows.append((name, pct(demoralized), pct(despairing), ticks or "-"))
    if not rows:
        return None
    table = Table(title="Morale and learning", title_justify="left")
    for column, justify in (("combatant", "left"), ("ends demoralized", "right"),
                            ("ends despairing", "right"), ("learning tick (chance)", "left")):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    for row in rows:
        table.add_row(*row)
    return table


def print_summary(summary: dict[str, Any], console: Console | None = None) -> None:
    """Print the lethality tables."""
    console = console or Console()
    for table in summary_tables(summary):
        console.print(table)
