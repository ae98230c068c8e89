"""What the batch pipeline adds to the engine, on two cores and on one (run from the repo root).

    python -m benchmarks.batch_overhead [-n 10000] [--rounds 5] [--profile]

Three ways to play battles 0..n-1 of master seed 1 of the 4v6 d20 reference
(scenarios/road_ambush.yaml):

- engine: ``run_battle`` on the seeds ``battle_seed(1, i)`` (computed beforehand);
- chunk:  ``run_chunk`` over the same indices, in chunks of the default size
  (rows, counting, the chunk's part: what a pool worker does), in CPU time;
- batch:  ``sim batch --workers 1`` in this process, through ``sim.cli.main`` into a
  temporary run folder (scenario loading, manifest, parts, merge, summary.json).

The batch is measured twice a round. On the cores this process may use (two or
more: its chunks are stored by a store process, ``sim.batch.store``), in wall
time against the engine's wall time, which is what a GM waits for, and in CPU
time of both processes, which is the work done. Then pinned to one core
(``sched_setaffinity``, where it exists), where it stores in its own process,
in CPU time against the engine pinned alike; the CPU time it spends outside
``run_chunk`` is timed too.

A shared machine makes time drift from one second to the next, so the
engine and the chunk alternate chunk by chunk on the same seeds, and each
batch is timed against an engine run right before it; every figure is the
median over ``--rounds`` rounds of the ratio within a round. The issue-14 target
is a batch overhead (batch / engine - 1) <= 5%.
``--profile`` prints the top of a cProfile of ``run_chunk``.
Nothing here is a test: figures are printed for the issue notes, never asserted.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import statistics
import time

import attrs

from benchmarks.harness import MASTER, REFERENCE, Stopwatch, cli_batch, one_core
from sim.batch import DEFAULT_CHUNK, ChunkResult, ChunkTask, LogPlan, battle_seed, run_chunk, runners
from sim.engine import run_battle
from sim.scenario import load_scenario


@attrs.frozen
class Times:
    wall: float
    cpu: float  # this process
    cpu_children: float  # processes it started and joined (the store process)


def times() -> Times:
    now = os.times()
    return Times(time.perf_counter(), now.user + now.system, now.children_user + now.children_system)


def spent(began: Times) -> Times:
    now = times()
    return Times(now.wall - began.wall, now.cpu - began.cpu, now.cpu_children - began.cpu_children)


def engine_s(scenario, seeds: list[int]) -> Times:
    began = times()
    for seed in seeds:
        run_battle(scenario, seed)
    return spent(began)


def chunk_tasks(scenario, n: int) -> list[ChunkTask]:
    return [ChunkTask(scenario, MASTER, start, min(n, start + DEFAULT_CHUNK), LogPlan())
            for start in range(0, n, DEFAULT_CHUNK)]


def engine_and_chunk_s(scenario, n: int) -> tuple[float, float]:
    """CPU time of the engine and of run_chunk on the same battles, alternating chunk by chunk."""
    watch = Stopwatch()
    for task in chunk_tasks(scenario, n):
        seeds = [battle_seed(MASTER, i) for i in range(task.start, task.stop)]
        with watch.timing("engine"):
            for seed in seeds:
                run_battle(scenario, seed)
        with watch.timing("chunk"):
            run_chunk(task)
    return watch.seconds["engine"], watch.seconds["chunk"]


def batch_s(n: int) -> tuple[Times, float]:
    """``sim batch --workers 1`` as the command runs it, stdout swallowed: its times, and
    the CPU time of this process spent outside ``run_chunk`` (loading, the journal when
    stored here, the merge, the summary)."""
    in_chunks = 0.0
    real_run_chunk = runners.run_chunk

    def timed(task: ChunkTask) -> ChunkResult:
        nonlocal in_chunks
        clock = time.process_time()
        result = real_run_chunk(task)
        in_chunks += time.process_time() - clock
        return result

    runners.run_chunk = timed
    try:
        began = times()
        cli_batch(REFERENCE, n, MASTER)
        taken = spent(began)
    finally:
        runners.run_chunk = real_run_chunk
    return taken, taken.cpu - in_chunks


def profile_chunk(scenario, n: int, top: int = 25) -> None:
    tasks = chunk_tasks(scenario, n)
    profiler = cProfile.Profile()
    profiler.enable()
    for task in tasks:
        run_chunk(task)
    profiler.disable()
    stats = pstats.Stats(profiler).strip_dirs().sort_stats("tottime")
    stats.print_stats(top)


def one_round(scenario, seeds: list[int]) -> dict[str, float]:
    """One round's ratios (1.05: 5% more than the engine)."""
    n = len(seeds)
    engine, chunk = engine_and_chunk_s(scenario, n)
    round_ = {"engine_cpu": engine, "chunk": chunk / engine}
    engine_again = engine_s(scenario, seeds)
    batch, _ = batch_s(n)
    round_.update(wall=batch.wall / engine_again.wall,
                  cpu_both=(batch.cpu + batch.cpu_children) / engine_again.cpu,
                  cpu_here=batch.cpu / engine_again.cpu)
    with one_core():
        engine_alone = engine_s(scenario, seeds)
        alone, outside = batch_s(n)
    round_.update(one_core=alone.cpu / engine_alone.cpu, outside=outside / engine_alone.cpu)
    return round_


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("-n", type=int, default=10_000, help="battles per measure (default 10000)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds (default 5)")
    parser.add_argument("--profile", action="store_true", help="also print a cProfile of run_chunk")
    args = parser.parse_args()
    scenario = load_scenario(REFERENCE)
    seeds = [battle_seed(MASTER, i) for i in range(args.n)]
    batch_s(min(args.n, 50))  # warm imports and caches outside the timing
    rounds = [one_round(scenario, seeds) for _ in range(args.rounds)]

    def median(key: str) -> float:
        return statistics.median(r[key] for r in rounds)

    def over(key: str) -> str:
        return f"{100 * (median(key) - 1):+.1f}%"

    engine = median("engine_cpu")
    pinned = hasattr(os, "sched_setaffinity")
    print(f"engine  {args.n / engine:8.0f} battles/s  (median CPU {engine:.3f} s for {args.n})")
    print(f"chunk   {args.n / (engine * median('chunk')):8.0f} battles/s  (overhead {over('chunk')}, CPU)")
    print(f"batch on {len(os.sched_getaffinity(0)) if hasattr(os, 'sched_getaffinity') else '?'} cores:"
          f" wall {over('wall')}; CPU of both processes {over('cpu_both')}, of this one {over('cpu_here')}")
    print(f"batch on one core{'' if pinned else ' (could not pin: all cores)'}: CPU {over('one_core')},"
          f" of which {100 * median('outside'):+.1f}% outside its chunks")
    print("per round, wall / CPU both / one core overhead %:",
          ", ".join(f"{100 * (r['wall'] - 1):+.1f}/{100 * (r['cpu_both'] - 1):+.1f}/"
                    f"{100 * (r['one_core'] - 1):+.1f}" for r in rounds))
    if args.profile:
        profile_chunk(scenario, args.n)


if __name__ == "__main__":
    main()
