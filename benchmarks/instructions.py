"""What the batch pipeline adds to the engine, counted in instructions (run from the repo root).

    python -m benchmarks.instructions [-n 3000] [--chunk 500]

Timing a 5% difference on a shared machine is noisy: rounds of
``benchmarks.batch_overhead`` drift by several points. Instructions are not: this
runs the same work under Valgrind's cachegrind (``valgrind`` must be on the PATH;
Debian: ``apt-get install valgrind``) and counts instructions executed (Ir), which
repeat to about half a percent from run to run.

Child processes play master seed 1 of the 4v6 d20 reference
(scenarios/road_ambush.yaml). Each first runs a 20-battle ``sim batch`` in process, so
imports and caches are warm, then does one of the following:

- base:   nothing more;
- engine: ``run_battle`` on the seeds of battles 0..n-1;
- batch:  ``sim batch --workers 1`` of n battles, in process (``sim.cli.main``): on
          two cores or more, its chunks are stored by a store process (sim.batch.store);
- once:   the same batch of a single battle (its fixed cost: loading, folder, summary);
- base1, batch1, once1: base, batch and once pinned to one core, where the batch stores in its
  own process (its warm-up too: the one-core base has pyarrow loaded, the other does not).

Each is counted minus base. The batch's overhead splits into a fixed cost per run
and a cost per battle. From these two figures you can work out the overhead at any
n. With a store process, both are given for the batch's own process (what the
battles wait for) and for both processes (the work done). Cache misses are not
counted, though time pays for them, so timed overheads come out a few points
higher. The children run with ``PYTHONHASHSEED=0``, two at a time, and each takes
about 50 times as long as it would without Valgrind (which follows a fork).
Nothing here is a test: figures are printed for the issue notes, never asserted.
"""

from __future__ import annotations

import argparse
import concurrent.futures as cf
import contextlib
import os
import re
import shutil
import subprocess
import sys

from benchmarks.harness import MASTER, REFERENCE, ROOT

WARM = 20
MODES = ("base", "engine", "batch", "once", "base1", "batch1", "once1")


def child(mode: str, n: int, chunk: int) -> None:
    """What one counted process does (``--child``); a mode ending in 1 on one core (no store
    process), its warm-up too."""
    from benchmarks.harness import one_core

    with one_core() if mode.endswith("1") else contextlib.nullcontext():
        played(mode, n, chunk)


def played(mode: str, n: int, chunk: int) -> None:
    from benchmarks.harness import cli_batch
    from sim.batch import battle_seed
    from sim.engine import run_battle
    from sim.scenario import load_scenario

    def batch(count: int) -> None:
        cli_batch(REFERENCE, count, MASTER, chunk)

    batch(WARM)
    scenario = load_scenario(REFERENCE)
    seeds = [battle_seed(MASTER, i) for i in range(n)]
    if mode == "engine":
        for seed in seeds:
            run_battle(scenario, seed)
    elif mode not in ("base", "base1"):
        batch(n if mode.startswith("batch") else 1)


def counted(mode: str, n: int, chunk: int) -> tuple[int, int]:
    """Instructions executed by a child doing ``mode``: by the child itself, and by it and
    the processes it forked (each of which Valgrind reports under its own pid)."""
    command = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
               sys.executable, "-m", "benchmarks.instructions", "--child", mode, "-n", str(n),
               "--chunk", str(chunk)]
    # One BLAS thread, as sim sets it: a spinning OpenBLAS thread is counted too, by chance.
    env = {**os.environ, "PYTHONHASHSEED": "0", "OPENBLAS_NUM_THREADS": "1"}
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=env, check=False)
    first = re.search(r"==(\d+)==", done.stderr)
    found = {pid: int(count.replace(",", ""))
             for pid, count in re.findall(r"==(\d+)== I\s+refs:\s+([\d,]+)", done.stderr)}
    if done.returncode != 0 or first is None or first.group(1) not in found:
        raise SystemExit(f"{mode}: valgrind failed:\n{done.stderr[-2000:]}")
    return found[first.group(1)], sum(found.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("-n", type=int, default=3000, help="battles (default 3000)")
    parser.add_argument("--chunk", type=int, default=500, help="sim batch --chunk (default 500)")
    parser.add_argument("--child", choices=MODES, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        child(args.child, args.n, args.chunk)
        return
    if args.n < 2 or args.chunk < 1:
        parser.error("-n must be at least 2 (a battle costs what n battles add to one); --chunk at least 1")
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not on the PATH (Debian: apt-get install valgrind)")
    with cf.ThreadPoolExecutor(max_workers=2) as pool:
        runs = dict(zip(MODES, pool.map(lambda mode: counted(mode, args.n, args.chunk), MODES),
                        strict=True))
    engine = (runs["engine"][1] - runs["base"][1]) / args.n
    print(f"engine     {engine:12,.0f} instructions a battle")
    for label, base, batch, once, which in (("batch, this process", "base", "batch", "once", 0),
                                            ("batch, with its store", "base", "batch", "once", 1),
                                            ("batch on one core", "base1", "batch1", "once1", 1)):
        per_battle = (runs[batch][which] - runs[once][which]) / (args.n - 1) - engine
        fixed = runs[once][which] - runs[base][which] - engine - per_battle  # the one battle out
        print(f"{label}: adds {per_battle:,.0f} a battle ({100 * per_battle / engine:+.2f}%)"
              f" and {fixed / 1e6:,.1f} M a run; at n = "
              + ", ".join(f"{n:,}: {100 * (per_battle + fixed / n) / engine:+.2f}%"
                          for n in sorted({args.n, 10_000, 100_000})))


if __name__ == "__main__":
    main()
