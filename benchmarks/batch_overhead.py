"""What the batch pipeline adds to the engine, on one core (run from the repo root).

    python -m benchmarks.batch_overhead [-n 10000] [--rounds 5] [--profile]

Three ways to play battles 0..n-1 of master seed 1 of the 4v6 d20 reference
(scenarios/road_ambush.yaml), timed in CPU time (``process_time``):

- engine: ``run_battle`` on the seeds ``battle_seed(1, i)`` (computed beforehand);
- chunk:  ``run_chunk`` over the same indices, in chunks of the default size
  (rows, counting, the Parquet part: what a worker does);
- batch:  ``sim batch --workers 1`` in this process, through ``sim.cli.main`` into a
  temporary run folder (scenario loading, manifest, parts, merge, summary.json);
  the CPU time it spends outside ``run_chunk`` is timed too.

A shared machine makes CPU time drift from one second to the next, so the
engine and the chunk alternate chunk by chunk on the same seeds, and each round
times the engine again right before the whole batch; every figure is the
median over ``--rounds`` rounds of the ratio within a round. The batch against
one engine run drifts most (a whole batch against a whole engine run, seconds
apart); the chunk's overhead plus what the batch spends outside its chunks is
the steadier figure. The issue-14 target is a batch overhead (batch / engine - 1) <= 5%.
``--profile`` prints the top of a cProfile of ``run_chunk``.
Nothing here is a test: figures are printed for the issue notes, never asserted.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import time

from benchmarks.harness import MASTER, REFERENCE, Stopwatch, cli_batch
from sim.batch import DEFAULT_CHUNK, ChunkResult, ChunkTask, LogPlan, battle_seed, run_chunk, runners
from sim.engine import run_battle
from sim.scenario import load_scenario


def engine_s(scenario, seeds: list[int]) -> float:
    clock = time.process_time()
    for seed in seeds:
        run_battle(scenario, seed)
    return time.process_time() - clock


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


def batch_s(n: int) -> tuple[float, float]:
    """``sim batch --workers 1`` as the command runs it, stdout swallowed: its CPU time, and
    the part of it spent outside ``run_chunk`` (loading, the journal, the merge, the summary)."""
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
        clock = time.process_time()
        cli_batch(REFERENCE, n, MASTER)
        elapsed = time.process_time() - clock
    finally:
        runners.run_chunk = real_run_chunk
    return elapsed, elapsed - in_chunks


def profile_chunk(scenario, n: int, top: int = 25) -> None:
    tasks = chunk_tasks(scenario, n)
    profiler = cProfile.Profile()
    profiler.enable()
    for task in tasks:
        run_chunk(task)
    profiler.disable()
    stats = pstats.Stats(profiler).strip_dirs().sort_stats("tottime")
    stats.print_stats(top)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("-n", type=int, default=10_000, help="battles per measure (default 10000)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds (default 5)")
    parser.add_argument("--profile", action="store_true", help="also print a cProfile of run_chunk")
    args = parser.parse_args()
    scenario = load_scenario(REFERENCE)
    seeds = [battle_seed(MASTER, i) for i in range(args.n)]
    batch_s(min(args.n, 50))  # warm imports (pyarrow) and caches outside the timing
    rounds = []
    for _ in range(args.rounds):
        engine, chunk = engine_and_chunk_s(scenario, args.n)
        engine_again = engine_s(scenario, seeds)
        batch, outside = batch_s(args.n)
        rounds.append((engine, chunk / engine, batch / engine_again, outside / engine))
    engine = statistics.median(r[0] for r in rounds)
    chunk_ratio = statistics.median(r[1] for r in rounds)
    batch_ratio = statistics.median(r[2] for r in rounds)
    outside = statistics.median(r[3] for r in rounds)
    print(f"engine  {args.n / engine:8.0f} battles/s  (median CPU {engine:.3f} s for {args.n})")
    print(f"chunk   {args.n / (engine * chunk_ratio):8.0f} battles/s"
          f"  (overhead {100 * (chunk_ratio - 1):+.1f}%)")
    print(f"batch   {args.n / (engine * batch_ratio):8.0f} battles/s"
          f"  (overhead {100 * (batch_ratio - 1):+.1f}%, timed against the engine run just before)")
    print(f"        outside its chunks the batch adds {100 * outside:+.1f}%: with the chunk's"
          f" {100 * (chunk_ratio - 1):+.1f}%, {100 * (chunk_ratio - 1 + outside):+.1f}% (steadier:"
          " both parts are timed against their own engine runs)")
    print("per round, chunk / batch / outside-the-chunks overhead %:",
          ", ".join(f"{100 * (c - 1):+.1f}/{100 * (b - 1):+.1f}/{100 * o:+.1f}" for _, c, b, o in rounds))
    if args.profile:
        profile_chunk(scenario, args.n)


if __name__ == "__main__":
    main()
