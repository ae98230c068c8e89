"""``sim spread``: how much the odds hang on play, under named tactics presets on common seeds."""

from __future__ import annotations

import argparse
import contextlib
import json
import sys

from sim.batch import kept_pool
from sim.cli.args import COMPARE_N, battles_asked, cap_reached
from sim.cli.common import EXIT_OK, battle_progress, say, say_line, tell_warnings, warn
from sim.cli.decide import _runner_for
from sim.day.file import load_input
from sim.decide.presets import PRESETS, ROLES, groups
from sim.decide.spread import Spread, spread
from sim.errors import InputError
from sim.io.shutdown import StopSignals
from sim.terminal import quoted_text


def preset_lines() -> list[str]:
    """``sim spread --presets``: each preset, the keys it sets and what they mean."""
    lines = [f"Presets (each side plays them in turn, the other side as written; sides: {', '.join(ROLES)}):"]
    for preset in PRESETS:
        keys = ", ".join(f"{key}: {value:g}" if isinstance(value, float) else f"{key}: {value}"
                         for key, value in preset.keys)
        lines.append(f"  {preset.name:<14} tactics {{{keys}}}: {preset.means}")
    return lines


def _widest(result: Spread) -> float:
    """The widest paired half-width among the presets' headline differences (--precision's)."""
    return max(((d["hi"] - d["lo"]) / 2 for row in result.presets if row.play.same_as is None
                for d in row.diffs.values()), default=0.0)


def cmd_spread(args: argparse.Namespace) -> int:
    if args.presets:
        if args.json:
            print(json.dumps([{"preset": p.name, "tactics": p.tactics, "does": p.does, "means": p.means}
                              for p in PRESETS]))
        else:
            for line in preset_lines():
                say(line)
        return EXIT_OK
    if args.scenario is None:
        raise InputError("sim spread: give a SCENARIO (or --presets to list the presets)")
    subject = load_input(args.scenario, tuple(args.bestiary), overrides=args.overrides)
    tell_warnings(subject.warnings, args.strict)
    chosen = groups(subject, args.side)
    with contextlib.ExitStack() as stack:
        runner, window = _runner_for(args, stack)
        shown = not (args.no_progress or args.json)
        with (StopSignals(warn, raise_first=True), battle_progress(shown) as progress,
              kept_pool(runner) as runner):  # one pool for every step
            n = battles_asked(args, COMPARE_N)
            result = spread(subject, chosen, args.seed, n, runner, window, min(args.chunk, n),
                            args.precision, progress=progress)
        from sim.report import spread as shown_spread  # see sim.cli.play.print_report

        if args.json:
            print(quoted_text(json.dumps(result.public(), ensure_ascii=False)))
        else:
            for line in shown_spread.spread_lines(result):
                say(line)
        if args.report is not None:
            path = shown_spread.write_page(result, args.report)
            say_line(f"report: {path}", sys.stderr if args.json else sys.stdout)
        if args.precision is not None and result.battles >= n and _widest(result) > args.precision:
            warn(cap_reached(args.precision, n, _widest(result)))
    return EXIT_OK
