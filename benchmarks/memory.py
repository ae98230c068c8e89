"""Peak memory of `sim batch` at two sizes: it must not grow with N (run from the repo root).

    python -m benchmarks.memory [--small 10000] [--large 100000] [--workers 1] [--only scenario|day]

For the 4v6 d20 reference scenario and for an adventuring day
(scenarios/days/goblin_warren.yaml), runs `sim batch -n SMALL` and `-n LARGE`,
each in a fresh wrapper process whose only child is the `sim batch` process, and
reports that child's peak RSS (``getrusage(RUSAGE_CHILDREN).ru_maxrss``, KiB;
with several workers or a store process (sim.batch.store), the largest process
of the run) and the ratio large / small. The issue-14 target is a ratio <= 1.25.
Nothing here is a test: figures are printed for the issue notes, never asserted.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
SUBJECTS = {
    "scenario": ROOT / "scenarios" / "road_ambush.yaml",
    "day": ROOT / "scenarios" / "days" / "goblin_warren.yaml",
}
# The wrapper runs one command and prints the peak RSS of its (only) child.
WRAPPER = ("import resource, subprocess, sys\n"
           "subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)\n"
           "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")


def peak_kib(subject: pathlib.Path, n: int, workers: int) -> tuple[int, float]:
    """Peak RSS (KiB) and wall time of one `sim batch` run."""
    with tempfile.TemporaryDirectory() as tmp:
        command = [sys.executable, "-m", "sim", "batch", str(subject), "-n", str(n), "--seed", "1",
                   "--workers", str(workers), "--out", f"{tmp}/run", "--json", "--no-progress"]
        start = time.perf_counter()
        out = subprocess.run([sys.executable, "-c", WRAPPER, *command], capture_output=True,
                             text=True, check=True, cwd=ROOT).stdout
        return int(out.strip().splitlines()[-1]), time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--small", type=int, default=10_000)
    parser.add_argument("--large", type=int, default=100_000)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--only", choices=tuple(SUBJECTS))
    args = parser.parse_args()
    for name, subject in SUBJECTS.items():
        if args.only not in (None, name):
            continue
        small, small_s = peak_kib(subject, args.small, args.workers)
        large, large_s = peak_kib(subject, args.large, args.workers)
        print(name, json.dumps({
            "subject": str(subject.relative_to(ROOT)), "workers": args.workers,
            f"peak_kib_{args.small}": small, f"peak_kib_{args.large}": large,
            "ratio": round(large / small, 3), "wall_s": [round(small_s, 1), round(large_s, 1)],
        }), flush=True)


if __name__ == "__main__":
    main()
