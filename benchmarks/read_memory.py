"""Peak memory of reading a run back, at two sizes: it must not grow with the battles (issue 30).

    python -m benchmarks.read_memory [--small 10000] [--large 1000000] [--play]
                                     [--compare-small 10000] [--compare-large 100000] [--only read|compare]

read: plays ``sim batch scenarios/road_ambush.yaml -n SMALL``, then makes a LARGE run
from it (benchmarks.tiled_run: its rows repeated, indexes renumbered, manifest and summary
sealed anew; ``--play`` plays LARGE battles instead, about a quarter of an hour per million
on two cores), and measures on each the peak RSS of ``sim report RUN --force`` and of
``sim replay RUN --worst --no-interactive`` (also ``--median``, ``--best``: the same pass).
compare: the peak RSS of ``sim compare road_ambush --vary ... -n N`` without --precision,
at two N. Each command runs in a fresh wrapper process whose only child it is
(``getrusage(RUSAGE_CHILDREN).ru_maxrss``, KiB: the largest process of its tree). The
target is a ratio large / small <= 1.25. Figures are printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import subprocess
import sys
import tempfile
import time

from benchmarks.memory import WRAPPER
from benchmarks.tiled_run import tile_run

ROOT = pathlib.Path(__file__).resolve().parent.parent
AMBUSH = ROOT / "scenarios" / "road_ambush.yaml"
VARY = "sides[heroes].members[Aria].hp=20,24"


def peak_kib(*args: str) -> tuple[int, float]:
    """Peak RSS (KiB) and wall time of one `sim` command."""
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", WRAPPER, sys.executable, "-m", "sim", *args],
                         capture_output=True, text=True, check=True, cwd=ROOT).stdout
    return int(out.strip().splitlines()[-1]), time.perf_counter() - start


def play(run: pathlib.Path, n: int) -> None:
    subprocess.run([sys.executable, "-m", "sim", "batch", str(AMBUSH), "-n", str(n), "--seed", "1",
                    "--out", str(run), "--no-progress", "--json"], check=True, stdout=subprocess.DEVNULL,
                   cwd=ROOT)


def show(name: str, small: int, large: int, figures: dict[int, tuple[int, float]], how: str) -> None:
    print(name, json.dumps({
        "battles": [small, large], "how": how, f"peak_kib_{small}": figures[small][0],
        f"peak_kib_{large}": figures[large][0], "ratio": round(figures[large][0] / figures[small][0], 3),
        "wall_s": [round(figures[small][1], 1), round(figures[large][1], 1)]}), flush=True)


def read_benchmark(small: int, large: int, played: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        runs = {small: pathlib.Path(tmp) / "small", large: pathlib.Path(tmp) / "large"}
        play(runs[small], small)
        if played:
            play(runs[large], large)
        else:
            tile_run(runs[small], runs[large], large)
        how = "played" if played else f"tiled from {small} played battles"
        show("report", small, large, {n: peak_kib("report", str(run), "--force") for n, run in runs.items()},
             how)
        for pick in ("--worst", "--median"):
            show(f"replay {pick}", small, large,
                 {n: peak_kib("replay", str(run), pick, "--no-interactive") for n, run in runs.items()}, how)


def compare_benchmark(small: int, large: int) -> None:
    figures = {n: peak_kib("compare", str(AMBUSH), "--vary", VARY, "-n", str(n), "--seed", "1",
                           "--json", "--no-progress") for n in (small, large)}
    show("compare", small, large, figures, "played, 2 variants, no --precision")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--small", type=int, default=10_000)
    parser.add_argument("--large", type=int, default=1_000_000)
    parser.add_argument("--play", action="store_true", help="play the large run instead of tiling it")
    parser.add_argument("--compare-small", type=int, default=10_000)
    parser.add_argument("--compare-large", type=int, default=100_000)
    parser.add_argument("--only", choices=("read", "compare"))
    args = parser.parse_args()
    if args.only in (None, "read"):
        read_benchmark(args.small, args.large, args.play)
    if args.only in (None, "compare"):
        compare_benchmark(args.compare_small, args.compare_large)


if __name__ == "__main__":
    main()
