"""What the batch-shaped benchmarks share: CPU-time bookkeeping and ``sim batch`` run in
process (scaling, day_cost, batch_overhead, instructions), and the common options (-n,
--seed, --chunk, --json) and printing of figures (scaling, day_cost).

Ways of doing the same work alternate chunk by chunk on the same seeds and each
way sums its CPU time (``process_time``), so a busy neighbour on the machine
slows them alike instead of skewing their ratios.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import pathlib
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator

from sim import cli
from sim.batch import DEFAULT_CHUNK, ChunkTask, LogPlan, run_chunk
from sim.day.file import Day
from sim.errors import InputError
from sim.model import Scenario

ROOT = pathlib.Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "scenarios" / "road_ambush.yaml"  # the 4v6 d20 reference of issue 14
MASTER = 1  # the master seed the overhead benchmarks play


class Stopwatch:
    """CPU seconds summed per way."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    @contextlib.contextmanager
    def timing(self, way: str) -> Iterator[None]:
        began = time.process_time()
        try:
            yield
        finally:
            self.seconds[way] = self.seconds.get(way, 0.0) + time.process_time() - began

    def rate(self, way: str, count: float) -> float:
        """``count`` things per second of ``way``."""
        return round(count / self.seconds[way], 1)

    def ratio(self, way: str, over: str) -> float:
        """The time ``way`` took over the time ``over`` took (2.0: twice as long)."""
        return round(self.seconds[way] / self.seconds[over], 3)


@contextlib.contextmanager
def one_core() -> Iterator[None]:
    """This process pinned to one of its cores, where it can be."""
    if not hasattr(os, "sched_setaffinity"):
        yield
        return
    cores = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(cores)})
    try:
        yield
    finally:
        os.sched_setaffinity(0, cores)


def cli_batch(path: pathlib.Path, n: int, seed: int, chunk: int = DEFAULT_CHUNK) -> None:
    """``sim batch --workers 1`` run in this process (no interpreter start-up), into a
    temporary folder, its summary swallowed; a run that fails or plays other than ``n``
    battles raises."""
    with tempfile.TemporaryDirectory() as tmp:
        argv = ["batch", str(path), "-n", str(n), "--seed", str(seed), "--workers", "1",
                "--chunk", str(chunk), "--out", f"{tmp}/run", "--json", "--no-progress"]
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = cli.main(argv)
    if code != 0 or json.loads(out.getvalue())["battles"] != n:
        msg = f"sim {' '.join(argv)} exited {code}"
        raise RuntimeError(msg)


def warm_up(subject: Scenario | Day) -> None:
    """Play one chunk of one battle: the first chunk imports pyarrow, not a cost per battle."""
    run_chunk(ChunkTask(subject, 0, 0, 1, LogPlan()))


def parser(doc: str, what: str, n: int) -> argparse.ArgumentParser:
    """The options every batch-shaped benchmark takes; ``what`` names the unit of -n."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", type=int, default=n, help=f"{what} (default {n})")
    parser.add_argument("--seed", type=int, default=1, help="the batch's master seed (default 1)")
    parser.add_argument("--chunk", type=int, default=DEFAULT_CHUNK,
                        help=f"battles or days per chunk, as sim batch --chunk (default {DEFAULT_CHUNK})")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    return parser


def options(parser: argparse.ArgumentParser) -> argparse.Namespace:
    args = parser.parse_args()
    if args.n < 1 or args.chunk < 1:
        parser.error("-n and --chunk must be at least 1")
    return args


def report(args: argparse.Namespace, key: str, figures: Iterable[dict], show: Callable[[dict], str]) -> None:
    """Print each subject's figures as they come, or all of them as one JSON object at the end.

    A subject that does not load is reported as the CLI does: its problems, exit code 2.
    """
    results = []
    try:
        for found in figures:
            results.append(found)
            if not args.json:
                print(show(found), flush=True)
    except InputError as exc:
        print(exc, file=sys.stderr)
        raise SystemExit(2) from None
    if args.json:
        print(json.dumps({"seed": args.seed, "chunk": args.chunk, key: results}, indent=2))
