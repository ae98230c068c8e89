"""What the batch pipeline adds to the engine, on one core (run from the repo root).

    python -m benchmarks.batch_overhead [-n 3000] [--rounds 3] [--profile]

Three ways to play battles 0..n-1 of master seed 1 of the 4v6 d20 reference
(scenarios/road_ambush.yaml), timed in CPU time (``process_time``) so a busy
neighbour on a shared machine slows all of them alike:

- engine: ``run_battle`` on the seeds ``battle_seed(1, i)`` (computed beforehand);
- chunk:  ``run_chunk`` over the same indices, in chunks of the default size
  (rows, counting, the Parquet part: what a worker does);
- batch:  ``sim batch --workers 1`` in this process, through ``sim.cli.main`` into a
  temporary run folder (scenario loading, manifest, parts, merge, summary.json).

The three alternate ``--rounds`` times and each keeps its fastest round. The
overhead is (batch CPU time / engine CPU time - 1): the issue-14 target is <= 5%.
``--profile`` prints the top of a cProfile of ``run_chunk``.
Nothing here is a test: figures are printed for the issue notes, never asserted.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import pathlib
import pstats
import tempfile
import time

from sim.batch import DEFAULT_CHUNK, ChunkTask, LogPlan, battle_seed, run_chunk
from sim.cli import main as cli_main
from sim.engine import run_battle
from sim.scenario import load_scenario

ROOT = pathlib.Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "scenarios" / "road_ambush.yaml"
MASTER = 1


def engine_s(scenario, n: int) -> float:
    seeds = [battle_seed(MASTER, i) for i in range(n)]
    clock = time.process_time()
    for seed in seeds:
        run_battle(scenario, seed)
    return time.process_time() - clock


def chunk_tasks(scenario, n: int) -> list[ChunkTask]:
    return [ChunkTask(scenario, MASTER, start, min(n, start + DEFAULT_CHUNK), LogPlan())
            for start in range(0, n, DEFAULT_CHUNK)]


def chunk_s(scenario, n: int) -> float:
    tasks = chunk_tasks(scenario, n)
    clock = time.process_time()
    for task in tasks:
        run_chunk(task)
    return time.process_time() - clock


def batch_s(n: int) -> float:
    """``sim batch --workers 1`` as the command runs it, stdout swallowed."""
    with tempfile.TemporaryDirectory() as tmp:
        argv = ["batch", str(REFERENCE), "-n", str(n), "--seed", str(MASTER), "--workers", "1",
                "--out", f"{tmp}/run", "--json", "--no-progress"]
        clock = time.process_time()
        with contextlib.redirect_stdout(io.StringIO()):
            code = cli_main(argv)
        elapsed = time.process_time() - clock
    if code != 0:
        raise SystemExit(f"sim batch exited {code}")
    return elapsed


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
    parser.add_argument("-n", type=int, default=3000, help="battles per measure (default 3000)")
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds (default 3)")
    parser.add_argument("--profile", action="store_true", help="also print a cProfile of run_chunk")
    args = parser.parse_args()
    scenario = load_scenario(REFERENCE)
    run_chunk(chunk_tasks(scenario, min(args.n, 50))[0])  # warm imports (pyarrow) outside the timing
    best = {"engine": float("inf"), "chunk": float("inf"), "batch": float("inf")}
    for _ in range(args.rounds):
        best["engine"] = min(best["engine"], engine_s(scenario, args.n))
        best["chunk"] = min(best["chunk"], chunk_s(scenario, args.n))
        best["batch"] = min(best["batch"], batch_s(args.n))
    for name, seconds in best.items():
        print(f"{name:7s} {args.n / seconds:8.0f} battles/s  ({seconds:.3f} s CPU for {args.n})")
    print(f"chunk overhead over engine: {100 * (best['chunk'] / best['engine'] - 1):+.1f}%")
    print(f"batch overhead over engine: {100 * (best['batch'] / best['engine'] - 1):+.1f}%")
    if args.profile:
        profile_chunk(scenario, args.n)


if __name__ == "__main__":
    main()
