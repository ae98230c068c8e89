"""Adventuring days: days/s and fights/s, and what a day costs against its fights alone.

    python -m benchmarks.day_cost [DAY...] [-n DAYS] [--seed S] [--chunk C] [--json]

For each day (default: scenarios/days/goblin_warren.yaml, d20, and
scenarios/days/marsh_road.yaml, d100) it plays the days of a batch (seeds from
``sim.batch.battle_seed``) on one core, CPU time, logs off, these ways
alternating chunk by chunk on the same seeds:

- day:   ``sim.day.play.run_day`` in a loop;
- chunk: ``sim.batch.run_chunk`` on the day (what ``sim batch --workers 1`` runs per
  chunk: the days, their rows into Arrow, the Parquet part, the counts);
- alone: each fight the day reached, alone with a fresh party, on the seed it had
  in the day. A wounded party fights longer or shorter fights than a fresh one,
  so the ratio per round of fighting is the fair one (the issue's target: a day
  costs <= 1.1x its fights alone).

Then a day of the first encounter only against that scenario alone: the very
same battles, so the ratio is the day machinery's own cost (hand-over,
take-back, the day's row). Fights are the encounters a day reached (it ends at
the first fight the party does not win). Figures, never asserted.
"""

from __future__ import annotations

import pathlib

import attrs

from benchmarks import harness
from sim.batch import ChunkTask, LogPlan, battle_seed, run_chunk
from sim.day.file import Day, load_day
from sim.day.play import run_day, step_seed
from sim.engine import run_battle

ROOT = pathlib.Path(__file__).resolve().parent.parent
DAYS = (ROOT / "scenarios" / "days" / "goblin_warren.yaml", ROOT / "scenarios" / "days" / "marsh_road.yaml")


def chunks(n: int, seed: int, chunk: int) -> list[tuple[int, int, list[int]]]:
    """(start, stop, seeds) of each chunk of a batch of ``n``."""
    bounds = [(start, min(n, start + chunk)) for start in range(0, n, chunk)]
    return [(start, stop, [battle_seed(seed, i) for i in range(start, stop)]) for start, stop in bounds]


def single(day: Day, n: int, seed: int, chunk: int) -> float:
    """The cost of a one-fight day over the same fight alone (the very same battles)."""
    fight = day.encounters[0]
    one = attrs.evolve(day, steps=(fight,))
    clock = harness.Stopwatch()
    for _, _, seeds in chunks(n, seed, chunk):
        with clock.timing("day"):
            for s in seeds:
                run_day(one, s)
        with clock.timing("alone"):
            for s in seeds:
                run_battle(fight.scenario, s)
    return clock.ratio("day", "alone")


def measure(path: pathlib.Path, n: int, seed: int, chunk: int) -> dict:
    """One day: days/s and fights/s each way, and the day's cost over its fights alone."""
    day = load_day(path)
    fights = day.encounters
    harness.warm_up(day)
    clock = harness.Stopwatch()
    fought = day_rounds = alone_rounds = 0
    for start, stop, seeds in chunks(n, seed, chunk):
        with clock.timing("day"):
            outcomes = [run_day(day, s)[0] for s in seeds]
        with clock.timing("chunk"):
            result = run_chunk(ChunkTask(day, seed, start, stop, LogPlan()))
        assert result.battles == stop - start
        # A day stops at its first lost fight: the fights it reached are its first k.
        reached = [sum(o.steps[f.step].reached for f in fights) for o in outcomes]
        fought += sum(reached)
        day_rounds += sum(o.rounds for o in outcomes)
        with clock.timing("alone"):
            for s, k in zip(seeds, reached, strict=True):
                for i in range(k):
                    alone_rounds += run_battle(fights[i].scenario, step_seed(s, i))[0].rounds
    per_round = (clock.seconds["day"] / day_rounds) / (clock.seconds["alone"] / alone_rounds)
    return {
        "file": str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path),
        "rules": day.rules, "days": n, "fights": fought, "encounters": len(fights),
        "day_rounds": day_rounds, "alone_rounds": alone_rounds,
        **{way: {"s": round(clock.seconds[way], 3), "days_per_s": clock.rate(way, n),
                 "fights_per_s": clock.rate(way, fought)} for way in ("day", "chunk")},
        "alone": {"s": round(clock.seconds["alone"], 3), "fights_per_s": clock.rate("alone", fought)},
        "chunk_over_day": clock.ratio("chunk", "day"),
        "day_over_alone": clock.ratio("day", "alone"),
        "day_over_alone_per_round": round(per_round, 3),
        "one_fight_day_over_alone": single(day, n, seed, chunk),
    }


def show(found: dict) -> str:
    lines = [f"{found['file']} ({found['rules']}, {found['encounters']} encounters):"
             f" {found['days']} days, {found['fights']} fights"]
    for way in ("day", "chunk"):
        r = found[way]
        lines.append(f"  {way:6} {r['days_per_s']:8.1f} days/s {r['fights_per_s']:8.1f} fights/s"
                     f"  ({r['s']:.2f} s)")
    lines.append(f"  alone  {'':15} {found['alone']['fights_per_s']:8.1f} fights/s"
                 f"  ({found['alone']['s']:.2f} s)")
    lines.append(f"  batch chunk over run_day: {found['chunk_over_day']:.3f}x")
    lines.append(f"  day over its fights alone: {found['day_over_alone']:.3f}x"
                 f" ({found['day_rounds']} vs {found['alone_rounds']} rounds),"
                 f" per round {found['day_over_alone_per_round']:.3f}x;"
                 f" one-fight day over that fight: {found['one_fight_day_over_alone']:.3f}x")
    return "\n".join(lines)


def main() -> None:
    parser = harness.parser(__doc__, "days per day file", 3000)
    parser.add_argument("days", nargs="*", type=pathlib.Path, default=list(DAYS),
                        help="day files (default: the two example days)")
    args = harness.options(parser)
    figures = (measure(path.resolve(), args.n, args.seed, args.chunk) for path in args.days)
    harness.report(args, "days", figures, show)


if __name__ == "__main__":
    main()
