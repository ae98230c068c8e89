"""What a day costs against the sum of its fights run alone (the issue's target: <= 1.1x).

    python -m benchmarks.day_cost [-n DAYS]

Plays the example day (scenarios/days/goblin_warren.yaml) N times, and each of
its fights alone (with a fresh party) as many times as the day reached it,
interleaved in blocks on one core, CPU time. A wounded party fights longer or
shorter fights than a fresh one, so the ratio per round of fighting is the
fair one. Prints both; never asserted.
"""

from __future__ import annotations

import argparse
import pathlib
import time

import attrs

from sim.day import Encounter, load_day, run_day, step_seed
from sim.engine import run_battle

ROOT = pathlib.Path(__file__).resolve().parent.parent
DAY = ROOT / "scenarios" / "days" / "goblin_warren.yaml"


def single(n: int, block: int) -> str:
    """A day of one encounter against that scenario alone: the very same battles, so the
    ratio is the day machinery's own cost (hand-over, take-back, the day's row)."""
    day = load_day(DAY)
    (fight, *_) = [s for s in day.steps if isinstance(s, Encounter)]
    one = attrs.evolve(day, steps=(fight,))
    day_s = alone_s = 0.0
    for start in range(0, n, block):
        seeds = range(start, min(n, start + block))
        began = time.process_time()
        for seed in seeds:
            run_day(one, seed)
        day_s += time.process_time() - began
        began = time.process_time()
        for seed in seeds:
            run_battle(fight.scenario, seed)
        alone_s += time.process_time() - began
    return (f"one-fight day vs the fight alone (same battles): {day_s:.2f} s vs {alone_s:.2f} s,"
            f" ratio {day_s / alone_s:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("-n", type=int, default=3000)
    parser.add_argument("--block", type=int, default=100)
    args = parser.parse_args()
    day = load_day(DAY)
    fights = [s for s in day.steps if isinstance(s, Encounter)]
    day_s = alone_s = 0.0
    day_rounds = alone_rounds = 0
    for start in range(0, args.n, args.block):
        seeds = range(start, min(args.n, start + args.block))
        began = time.process_time()
        outcomes = [run_day(day, seed)[0] for seed in seeds]
        day_s += time.process_time() - began
        reached = [o.steps for o in outcomes]
        day_rounds += sum(o.rounds for o in outcomes)
        began = time.process_time()
        for seed, steps in zip(seeds, reached, strict=True):
            for k, fight in enumerate(fights):
                if steps[fight.step].reached:
                    alone_rounds += run_battle(fight.scenario, step_seed(seed, k))[0].rounds
        alone_s += time.process_time() - began
    # Fights fought wounded last longer or shorter than fresh ones: compare per round too.
    per_round = (day_s / day_rounds) / (alone_s / alone_rounds)
    print(single(args.n, args.block))
    print(f"{args.n} days: {day_s:.2f} s, {day_rounds} rounds; their fights alone (fresh party):"
          f" {alone_s:.2f} s, {alone_rounds} rounds; ratio {day_s / alone_s:.3f}, per round {per_round:.3f}")


if __name__ == "__main__":
    main()
