"""How throughput scales with the size of a d20 melee: 4v6, 20v30 and 80v120 (issue 14).

    python -m benchmarks.scaling [-n N] [--seed S] [--chunk C] [--json]

For each size (the reference scenarios/road_ambush.yaml, and the same mix of
heroes and goblins scaled up in benchmarks/scenarios/melee_*.yaml) it plays the
battles of a batch (seeds from ``sim.batch.battle_seed``) four ways, pinned to one
core (where it can be: there ``sim batch`` stores in its own process), CPU time
(``process_time``), logs off:

- engine: ``sim.engine.run_battle`` in a loop;
- chunk:  ``sim.batch.run_chunk`` (what ``sim batch --workers 1`` runs per chunk:
  seeds, battles, rows into Arrow, the Parquet part, the chunk's counts);
- batch:  the whole ``sim batch --workers 1`` in this process (scenario loading,
  run folder, parts on disk, merge, summary), the issue's yardstick;
- bare:   benchmarks/bare_d20.py, an independent bare loop of the same rules.

Engine, chunk and bare alternate chunk by chunk on the same seeds, so a busy
neighbour slows them alike instead of skewing the ratios; batch runs once, after.
Each reports battles/s and combatant-rounds/s (the sum over battles of rounds x
combatants). ``-n`` is the number of 4v6 battles; a larger size plays
N x 10 / combatants battles, so every size fights about as many combatants.
The bare loop draws its dice in the engine's order: ``same`` counts the battles
it ends with the engine's winner in the engine's number of rounds.
The issue's target is batch >= 0.55x bare at 4v6. Figures, never asserted.
"""

from __future__ import annotations

import pathlib

from benchmarks import harness
from benchmarks.bare_d20 import battle, compile_roster
from sim.batch import ChunkTask, LogPlan, battle_seed, run_chunk
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
    clock = harness.Stopwatch()
    rounds = bare_rounds = same = 0
    for start in range(0, n, chunk):
        stop = min(n, start + chunk)
        seeds = [battle_seed(seed, i) for i in range(start, stop)]
        with clock.timing("engine"):
            outcomes = [run_battle(scenario, s)[0] for s in seeds]
        rounds += sum(o.rounds for o in outcomes)
        with clock.timing("chunk"):
            result = run_chunk(ChunkTask(scenario, seed, start, stop, LogPlan()))
        assert result.battles == stop - start
        if roster is None:
            continue
        with clock.timing("bare"):
            bare = [battle(scenario, roster, s) for s in seeds]
        bare_rounds += sum(r for _, r in bare)
        winners = [None if w is None else scenario.sides[w].name for w, _ in bare]
        same += sum((o.winner, o.rounds) == (w, r)
                    for o, w, (_, r) in zip(outcomes, winners, bare, strict=True))
    with clock.timing("batch"):
        harness.cli_batch(path, n, seed, chunk)
    found = {"size": name, "scenario": str(path.relative_to(ROOT)), "combatants": size,
             "battles": n, "mean_rounds": round(rounds / n, 3)}
    ways = ("engine", "chunk", "batch") if roster is None else ("engine", "chunk", "batch", "bare")
    for way in ways:
        fought = size * (bare_rounds if way == "bare" else rounds)
        found[way] = {"s": round(clock.seconds[way], 3), "battles_per_s": clock.rate(way, n),
                      "combatant_rounds_per_s": round(clock.rate(way, fought))}
    found["chunk_over_engine"] = clock.ratio("chunk", "engine")
    found["batch_over_engine"] = clock.ratio("batch", "engine")
    if roster is not None:
        found["bare"]["same"] = same
        for way in ("engine", "chunk", "batch"):  # battles/s of the way over the bare loop's
            found[f"{way}_vs_bare"] = clock.ratio("bare", way)
    return found


def show(found: dict) -> str:
    """One block of text per size."""
    lines = [f"{found['size']} ({found['combatants']} combatants, {found['battles']} battles,"
             f" {found['mean_rounds']} rounds on average)"]
    for way in ("engine", "chunk", "batch", "bare"):
        if way in found:
            r = found[way]
            vs = f"  {found[f'{way}_vs_bare']:.3f}x bare" if f"{way}_vs_bare" in found else ""
            lines.append(f"  {way:6} {r['battles_per_s']:9.1f} battles/s"
                         f" {r['combatant_rounds_per_s']:10d} combatant-rounds/s  ({r['s']:.2f} s){vs}")
    lines.append(f"  batch overhead over the engine: chunk {found['chunk_over_engine']:.3f}x,"
                 f" sim batch {found['batch_over_engine']:.3f}x")
    if "bare" in found:
        lines.append(f"  bare loop: {found['bare']['same']} of {found['battles']} battles the"
                     " engine's (same winner, same rounds)")
    else:
        lines.append("  bare loop: cannot play this scenario")
    return "\n".join(lines)


def main() -> None:
    parser = harness.parser(__doc__, "battles at 4v6", 4000)
    parser.add_argument("--size", choices=tuple(SIZES), action="append",
                        help="only this size (repeatable; default all)")
    args = harness.options(parser)
    with harness.one_core():  # the batch stores in its own process: all its CPU time is timed
        harness.warm_up(load_scenario(SIZES["4v6"]))
        harness.cli_batch(SIZES["4v6"], 1, args.seed, 1)  # the first batch imports what the command needs
        figures = (measure(name, args.n, args.seed, args.chunk) for name in args.size or SIZES)
        harness.report(args, "sizes", figures, show)


if __name__ == "__main__":
    main()
