"""``sim odds``: exact figures for a small fight, the per-attack table for any, and, with
``--vs-batch``, the exact figures beside a batch's with a z-score each (sim.odds)."""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

from sim.batch.chunk import ChunkTask, LogPlan, run_chunk
from sim.cli.common import EXIT_INPUT, EXIT_OK, say, say_line, tell_warnings, warn_problem
from sim.day.file import load_input
from sim.errors import InputError
from sim.model import Scenario
from sim.odds import Solver, TooBig, check
from sim.odds.attacks import AttackOdds, attack_table
from sim.odds.summary import FIGURES, figure, summary
from sim.odds.support import too_big
from sim.terminal import quoted_text


def cmd_odds(args: argparse.Namespace) -> int:
    subject = load_input(args.scenario, tuple(args.bestiary), overrides=args.overrides)
    tell_warnings(subject.warnings, args.strict)
    table = attack_table(subject) if isinstance(subject, Scenario) else []
    try:
        scenario = check(subject)
        result = Solver(scenario).solve()
    except (InputError, TooBig) as exc:
        problem = str(exc) if isinstance(exc, InputError) else too_big(subject, f"{exc.args[0]:,} states")
        _show_table_only(table, args.json)
        for line in problem.splitlines():
            warn_problem(line)
        return EXIT_INPUT
    out = summary(scenario, result, table)
    if args.vs_batch:
        out["vs_batch"] = vs_batch(scenario, out, args.n, args.seed)
    if args.json:
        print(quoted_text(json.dumps(out, ensure_ascii=False)))
        return EXIT_OK
    say(headline(out))
    if "vs_batch" in out:
        for line in vs_lines(out["vs_batch"]):
            say(line)
    for line in table_lines(table):
        say_line(line)
    return EXIT_OK


def _show_table_only(table: list[AttackOdds], as_json: bool) -> None:
    if as_json:
        print(quoted_text(json.dumps({"exact": False, "attacks": [r.as_json() for r in table]},
                                     ensure_ascii=False)))
    else:
        for line in table_lines(table):
            say_line(line)


def _pct(p: float) -> str:
    return f"{p * 100:.1f}%"


def headline(out: dict[str, Any]) -> str:
    """The exact headline, worded as ``sim batch``'s, without intervals."""
    party = out["party"]
    rounds = f" Draw {_pct(out['draw_rate']['p'])}; {out['rounds']['mean']:.2f} rounds on average."
    if party is None:
        wins = "; ".join(f"{side} win {_pct(s['win_rate']['p'])}" for side, s in out["sides"].items())
        return f"Exact: no party side: {wins}.{rounds}"
    return (f"Exact, difficulty {party['difficulty']}: {party['side']} win {_pct(party['win']['p'])};"
            f" someone goes down in {_pct(party['any_down']['p'])}, someone dies in"
            f" {_pct(party['any_death']['p'])}, total party kill in {_pct(party['tpk']['p'])} of"
            f" battles.{rounds}")


def table_lines(table: list[AttackOdds]) -> list[str]:
    """The per-attack table, a line an attacker, weapon and target."""
    if not table:
        return []
    lines = ["Per attack (one attack of a fresh fighter; heroism counted, no morale reroll):"]
    for row in table:
        down = ("never puts it down" if row.attacks_to_down is None
                else f"{row.attacks_to_down:.1f} attacks to down it")
        chances = ", ".join(f"{k.replace('_', ' ')} {_pct(v)}" for k, v in row.rolls.items())
        lines.append(f"  {row.attacker} ({row.weapon}) -> {row.target}: {row.roll} [{chances}];"
                     f" hits {_pct(row.hit)}, critical {_pct(row.critical)}, damage"
                     f" {row.damage_mean:.1f} ({row.damage_min}-{row.damage_max}); {down}")
    return lines


def vs_batch(scenario: Scenario, exact: dict[str, Any], n: int, seed: int) -> dict[str, Any]:
    """A batch of ``n`` battles (seed ``seed``, in this process) beside the exact figures."""
    result = run_chunk(ChunkTask(scenario, seed, 0, n, LogPlan(), rows_only=True))
    batch = result.aggregate.summary({"seed": seed})
    rounds = result.aggregate.rounds
    figures = {}
    for name in FIGURES:
        p, sampled = figure(exact, name), figure(batch, name)
        if p is None or sampled is None:
            continue
        if name == "rounds.mean":
            mean = sampled
            var = sum(k * (r - mean) ** 2 for r, k in rounds.items()) / max(1, n - 1)
            se, shown = math.sqrt(var / n), {"mean": sampled}
        else:
            se = math.sqrt(p * (1 - p) / n)
            key = name.removeprefix("party.")
            shown = batch["draw_rate"] if name == "draw" else batch["party"][key]
        figures[name] = {"exact": p, "batch": shown, "z": _z(sampled, p, se)}
    # Each side's wins too: a fight with no party side has no party figures to compare.
    for side, won in exact["sides"].items():
        p, shown = won["win_rate"]["p"], batch["sides"][side]["win_rate"]
        figures[f"{side}.win"] = {"exact": p, "batch": shown,
                                  "z": _z(shown["p"], p, math.sqrt(p * (1 - p) / n))}
    return {"battles": n, "seed": seed, "figures": figures}


def _z(sampled: float, p: float, se: float) -> float:
    """How many standard errors the batch's estimate is from the exact value."""
    return (sampled - p) / se if se > 0 else (0.0 if abs(sampled - p) < 1e-12 else math.inf)


def vs_lines(vs: dict[str, Any]) -> list[str]:
    lines = [f"Against sim batch ({vs['battles']:,} battles, seed {vs['seed']}):",
             f"  {'figure':<16} {'exact':>8}  {'batch (95% interval)':<24} {'z':>6}"]
    for name, f in vs["figures"].items():
        b = f["batch"]
        if name == "rounds.mean":
            exact, sampled = f"{f['exact']:.3f}", f"{b['mean']:.3f}"
        else:
            exact, sampled = _pct(f["exact"]), f"{_pct(b['p'])} ({b['lo'] * 100:.1f}-{b['hi'] * 100:.1f})"
        z = f["z"] if abs(f["z"]) >= 0.005 else 0.0  # a draw of 1e-12 exact and none seen: not "-0.00"
        lines.append(f"  {name:<16} {exact:>8}  {sampled:<24} {z:>6.2f}")
    return lines
