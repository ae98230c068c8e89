"""Throughput benchmarks of the issue-3 targets (run from the repo root).

    python -m benchmarks.bench throughput   # engine vs bare loop, one core, logs off
    python -m benchmarks.bench workers      # sim batch: 2 workers vs 1
    python -m benchmarks.bench logs         # sim batch: --logs all vs none
    python -m benchmarks.bench pairs        # sim batch --workers 1 vs the bare loop, processes
    python -m benchmarks.bench all
    python -m benchmarks.bench workers -n 2000   # fewer battles

Peak memory against N (battles and days) is benchmarks/memory.py's.
Nothing here is a test: figures are printed for the issue notes, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import resource
import shutil
import subprocess
import sys
import tempfile
import time

from benchmarks.bare_d20 import battle, compile_roster
from benchmarks.harness import Stopwatch
from sim.engine import run_battle
from sim.scenario import load_scenario

ROOT = pathlib.Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "scenarios" / "road_ambush.yaml"  # 4 level-2/3 heroes vs 6 goblins, d20


def throughput(n: int = 12_000, block: int = 250) -> dict[str, float]:
    """Battles per second of the engine and of the bare loop on one core, logs off.

    The two alternate in blocks of ``block`` battles on the same seeds, and CPU
    time (``process_time``) is summed for each, so a busy neighbour on the
    machine slows both alike instead of skewing the ratio.
    """
    scenario = load_scenario(REFERENCE)
    roster = compile_roster(scenario)
    watch = Stopwatch()
    engine_wins = bare_wins = 0
    for start in range(0, n, block):
        seeds = range(start, start + block)
        with watch.timing("engine"):
            for seed in seeds:
                engine_wins += run_battle(scenario, seed)[0].winner == "heroes"
        with watch.timing("bare"):
            for seed in seeds:
                bare_wins += battle(scenario, roster, seed)[0] == 0
    return {
        "engine_battles_per_s": round(n / watch.seconds["engine"]),
        "bare_battles_per_s": round(n / watch.seconds["bare"]),
        "ratio": watch.ratio("bare", "engine"),
        "engine_party_win": round(engine_wins / n, 4),
        "bare_party_win": round(bare_wins / n, 4),
    }


def _batch(n: int, workers: int, logs: str = "none") -> float:
    """Wall time of one `sim batch` run."""
    with tempfile.TemporaryDirectory() as tmp:
        command = [sys.executable, "-m", "sim", "batch", str(REFERENCE), "-n", str(n),
                   "--workers", str(workers), "--logs", logs, "--out", f"{tmp}/run",
                   "--json", "--no-progress"]
        start = time.perf_counter()
        result = subprocess.run(command, capture_output=True, text=True, check=True)
        elapsed = time.perf_counter() - start
        json.loads(result.stdout)  # it printed a summary and nothing else
    return elapsed


def workers(n: int = 40_000) -> dict[str, float]:
    one = _batch(n, 1)
    two = _batch(n, 2)
    return {"n": n, "one_worker_s": round(one, 2), "two_workers_s": round(two, 2),
            "speedup": round(one / two, 2)}


def logs(n: int = 10_000) -> dict[str, float]:
    off = _batch(n, 1, "none")
    on = _batch(n, 1, "all")
    return {"n": n, "logs_none_s": round(off, 2), "logs_all_s": round(on, 2),
            "cost": round(on / off, 2)}


def _timed(command: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """(wall, CPU) seconds of one command, its children included (a batch's store process)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, capture_output=True, text=True, check=True, cwd=ROOT, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def pairs(n: int = 40_000, rounds: int = 5) -> dict[str, object]:
    """``sim batch --workers 1`` (the compiled path, then ``SIM_PURE_PYTHON=1``) against the bare
    loop, each a whole process on the same N battles of master seed 1, interleaved round by round
    so that a busy neighbour slows all three alike: the ratio bare time / batch time per round
    (above 1: the batch is faster), in wall and CPU time, as min-max over the rounds. Start-up
    (imports, reading the scenario, writing the run folder) is inside both times, as on a GM's
    machine: bytecode cached (PYTHONDONTWRITEBYTECODE unset, one warm-up run of each first)."""
    bare = [sys.executable, "-m", "benchmarks.bare_d20", str(REFERENCE), "-n", str(n)]
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "SIM_PURE_PYTHON")}
    pure_env = {**env, "SIM_PURE_PYTHON": "1"}
    with tempfile.TemporaryDirectory() as tmp:
        for warm_env in (env, pure_env):
            _timed([*bare[:-1], "1"], warm_env)
            _timed([sys.executable, "-m", "sim", "batch", str(REFERENCE), "-n", "1", "--out", f"{tmp}/w",
                    "--json", "--no-progress"], warm_env)
            shutil.rmtree(f"{tmp}/w")
    ratios: dict[str, list[float]] = {"compiled_wall": [], "compiled_cpu": [], "pure_wall": [],
                                      "pure_cpu": []}
    for _ in range(rounds):
        with tempfile.TemporaryDirectory() as tmp:
            batch = [sys.executable, "-m", "sim", "batch", str(REFERENCE), "-n", str(n), "--seed", "1",
                     "--workers", "1", "--logs", "none", "--json", "--no-progress"]
            bare_wall, bare_cpu = _timed(bare, env)
            wall, cpu = _timed([*batch, "--out", f"{tmp}/compiled"], env)
            ratios["compiled_wall"].append(bare_wall / wall)
            ratios["compiled_cpu"].append(bare_cpu / cpu)
            wall, cpu = _timed([*batch, "--out", f"{tmp}/pure"], pure_env)
            ratios["pure_wall"].append(bare_wall / wall)
            ratios["pure_cpu"].append(bare_cpu / cpu)
    return {"n": n, "rounds": rounds, "path": _path_in_use(),
            **{name: [round(min(r), 2), round(max(r), 2)] for name, r in ratios.items()}}


def _path_in_use() -> str:
    """What ``sim --version`` says of the path (compiled or pure) the batch runs."""
    env = {k: v for k, v in os.environ.items() if k != "SIM_PURE_PYTHON"}
    result = subprocess.run([sys.executable, "-m", "sim", "--version"], capture_output=True, text=True,
                            check=True, cwd=ROOT, env=env)
    return result.stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("what", choices=("throughput", "workers", "logs", "pairs", "all"))
    parser.add_argument("-n", type=int, help="battles for throughput, workers, logs and pairs (defaults"
                        " 12000, 40000, 10000, 40000)")
    args = parser.parse_args()
    sized = {} if args.n is None else {"n": args.n}
    jobs = {"throughput": lambda: throughput(**sized), "workers": lambda: workers(**sized),
            "logs": lambda: logs(**sized), "pairs": lambda: pairs(**sized)}
    for name, job in jobs.items():
        if args.what in (name, "all"):
            print(name, json.dumps(job()), flush=True)


if __name__ == "__main__":
    main()
