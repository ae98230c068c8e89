"""How throughput scales with the size of a d20 melee: 4v6, 20v30 and 80v120 (issue 14).

    python -m benchmarks.scaling [-n N] [--seed S] [--chunk C] [--json]

For each size (the reference scenarios/road_ambush.yaml, and the same mix of
heroes and goblins scaled up in benchmarks/scenarios/melee_*.yaml) it plays the
battles of a batch (seeds from ``sim.batch.battle_seed``) four ways, on one core,
CPU time (``process_time``), logs off:

- engine: ``sim.engine.run_battle`` in a loop;
- chunk:  ``sim.batch.run_chunk`` (what ``sim batch --workers 1`` runs per chunk:
  seeds, battles, rows into Arrow, the Parquet part, the chunk's counts);
- cli:    the whole ``sim batch --workers 1`` in this process (run folder, parts
  on disk, merge, summary), the issue's yardstick;
- bare:   benchmarks/bare_d20.py, an independent bare loop of the same rules.

Engine, chunk and bare alternate chunk by chunk on the same seeds, so a busy
neighbour slows them alike instead of skewing the ratios; cli runs once, after.
Each reports battles/s and combatant-rounds/s (the sum over battles of rounds x
combatants). ``-n`` is the number of 4v6 battles; a larger size plays
N x 10 / combatants battles, so every size fights about as many combatants.
The bare loop draws its dice in the engine's order: ``same`` counts the battles
it ends with the engine's winner in the engine's number of rounds.
The issue's target is cli/bare >= 0.55 at 4v6. Figures, never asserted.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import pathlib
import tempfile
import time

from benchmarks.bare_d20 import battle, compile_roster
from sim import cli
from sim.batch import DEFAULT_CHUNK, ChunkTask, LogPlan, battle_seed, run_chunk
from sim.engine import run_battle
from sim.model import Scenario
from sim.scenario import load_scenario

ROOT = pathlib.Path(__file__).resolve().parent.parent
SIZES = {
    "4v6": ROOT / "scenarios" / "road_ambush.yaml",
    "20v30": ROOT / "benchmarks" / "scenarios" / "melee_20v30.yaml",
    "80v120": ROOT / "benchmarks" / "scenarios" / "melee_80v120.yaml",
}
REFERENCE_COMBATANTS = 10


def rates(battles: int, combatant_rounds: int, seconds: float) -> dict[str, float]:
    return {"s": round(seconds, 3), "battles_per_s": round(battles / seconds, 1),
            "combatant_rounds_per_s": round(combatant_rounds / seconds)}


def cli_batch(path: pathlib.Path, n: int, seed: int, chunk: int) -> float:
    """CPU seconds of ``sim batch --workers 1`` run in this process (no interpreter start-up)."""
    with tempfile.TemporaryDirectory() as tmp:
        argv = ["batch", str(path), "-n", str(n), "--seed", str(seed), "--workers", "1",
                "--chunk", str(chunk), "--out", f"{tmp}/run", "--json", "--no-progress"]
        out = io.StringIO()
        began = time.process_time()
        with contextlib.redirect_stdout(out):
            code = cli.main(argv)
        seconds = time.process_time() - began
    summary = json.loads(out.getvalue())
    if code != 0 or summary["battles"] != n:
        msg = f"sim {' '.join(argv)} exited {code} after {summary.get('battles')} battles"
        raise RuntimeError(msg)
    return seconds


def bare_roster(scenario: Scenario) -> list[tuple] | None:
    """The bare loop's roster, or None when it cannot play this scenario (it says so by assert)."""
    try:
        return compile_roster(scenario)
    except AssertionError:
        return None


def measure(name: str, reference_n: int, seed: int, chunk: int) -> dict:
    """One size: the four ways over the same battles."""
    path = SIZES[name]
    scenario = load_scenario(path)
    size = len(scenario.combatants)
    n = max(1, reference_n * REFERENCE_COMBATANTS // size)
    roster = bare_roster(scenario)
    seconds = {"engine": 0.0, "chunk": 0.0, "bare": 0.0}
    rounds = bare_rounds = same = 0
    for start in range(0, n, chunk):
        stop = min(n, start + chunk)
        seeds = [battle_seed(seed, i) for i in range(start, stop)]
        began = time.process_time()
        outcomes = [run_battle(scenario, s)[0] for s in seeds]
        seconds["engine"] += time.process_time() - began
        rounds += sum(o.rounds for o in outcomes)
        began = time.process_time()
        result = run_chunk(ChunkTask(scenario, seed, start, stop, LogPlan()))
        seconds["chunk"] += time.process_time() - began
        assert result.battles == stop - start
        if roster is None:
            continue
        began = time.process_time()
        bare = [battle(scenario, roster, s) for s in seeds]
        seconds["bare"] += time.process_time() - began
        bare_rounds += sum(r for _, r in bare)
        winners = [None if w is None else scenario.sides[w].name for w, _ in bare]
        same += sum((o.winner, o.rounds) == (w, r)
                    for o, w, (_, r) in zip(outcomes, winners, bare, strict=True))
    seconds["cli"] = cli_batch(path, n, seed, chunk)
    found = {"size": name, "scenario": str(path.relative_to(ROOT)), "combatants": size, "battles": n,
             "mean_rounds": round(rounds / n, 3)}
    for way in ("engine", "chunk", "cli"):
        found[way] = rates(n, rounds * size, seconds[way])
    found["chunk_over_engine"] = round(seconds["chunk"] / seconds["engine"], 3)
    found["cli_over_engine"] = round(seconds["cli"] / seconds["engine"], 3)
    if roster is not None:
        found["bare"] = rates(n, bare_rounds * size, seconds["bare"])
        found["bare"]["same"] = same
        for way in ("engine", "chunk", "cli"):  # battles/s of the way over the bare loop's
            found[f"{way}_vs_bare"] = round(seconds["bare"] / seconds[way], 3)
    return found


def show(found: dict) -> str:
    """One block of text per size."""
    lines = [f"{found['size']} ({found['combatants']} combatants, {found['battles']} battles,"
             f" {found['mean_rounds']} rounds on average)"]
    for way in ("engine", "chunk", "cli", "bare"):
        if way in found:
            r = found[way]
            vs = f"  {found[f'{way}_vs_bare']:.3f}x bare" if f"{way}_vs_bare" in found else ""
            lines.append(f"  {way:6} {r['battles_per_s']:9.1f} battles/s"
                         f" {r['combatant_rounds_per_s']:10d} combatant-rounds/s  ({r['s']:.2f} s){vs}")
    lines.append(f"  batch overhead over the engine: chunk {found['chunk_over_engine']:.3f}x,"
                 f" sim batch {found['cli_over_engine']:.3f}x")
    if "bare" in found:
        lines.append(f"  bare loop: {found['bare']['same']} of {found['battles']} battles the"
                     " engine's (same winner, same rounds)")
    else:
        lines.append("  bare loop: cannot play this scenario")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", type=int, default=4000, help="battles at 4v6 (default 4000)")
    parser.add_argument("--seed", type=int, default=1, help="the batch's master seed (default 1)")
    parser.add_argument("--chunk", type=int, default=DEFAULT_CHUNK,
                        help=f"battles per chunk, as sim batch --chunk (default {DEFAULT_CHUNK})")
    parser.add_argument("--size", choices=tuple(SIZES), action="append",
                        help="only this size (repeatable; default all)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args()
    if args.n < 1 or args.chunk < 1:
        parser.error("-n and --chunk must be at least 1")
    # The first chunk and the first batch import pyarrow and friends: not a cost per battle.
    warm_up = load_scenario(SIZES["4v6"])
    run_chunk(ChunkTask(warm_up, args.seed, 0, 1, LogPlan()))
    cli_batch(SIZES["4v6"], 1, args.seed, 1)
    results = []
    for name in args.size or SIZES:
        found = measure(name, args.n, args.seed, args.chunk)
        results.append(found)
        if not args.json:
            print(show(found), flush=True)
    if args.json:
        print(json.dumps({"seed": args.seed, "chunk": args.chunk, "sizes": results}, indent=2))


if __name__ == "__main__":
    main()
