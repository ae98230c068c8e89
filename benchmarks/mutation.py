"""Mutation testing of the rule code with mutmut (not part of CI; see benchmarks/MUTATION.md).

    python -m benchmarks.mutation                    # every target, one child
    python -m benchmarks.mutation morale tactics     # some targets only
    python -m benchmarks.mutation --max-children 2   # the machine is yours
    python -m benchmarks.mutation --report           # score what the last runs left
    python -m benchmarks.mutation --only survivors   # rerun the last survivors (after new tests)
    python -m benchmarks.mutation --only unrun       # resume where a stopped run left off

Configuration (files, test selection) is ``[tool.mutmut]`` in pyproject.toml. mutmut
copies the tree into ``mutants/`` and runs, for each mutant, only the tests that
call the mutated function. The score is killed / (killed + survived), a timeout
counted as killed; a mutant no selected test reaches counts as survived.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent

# target name -> mutant-name globs (mutmut names a method sim.engine.combat.xǁCombatǁattack__mutmut_3)
TARGETS: dict[str, tuple[str, ...]] = {
    "rules": ("sim.rules.*",),
    "effects": ("sim.engine.effects.*",),
    "morale": ("sim.engine.morale.*",),
    "tactics": ("sim.engine.tactics.*",),
    # The engine's clock, turn, attack and victory code (its set-up and outcome, in
    # sim/engine/battle.py, are left to the end-to-end tests).
    "engine": ("sim.engine.*",),
}

# mutmut mutates the .py files it copies into mutants/: the pure-Python path runs them, never a
# compiled module it copied beside them (benchmarks/MUTATION.md).
PURE = {**os.environ, "SIM_PURE_PYTHON": "1"}

KILLED = {"killed", "timeout", "caught by type check"}
SURVIVED = {"survived", "no tests"}


def statuses() -> dict[str, str]:
    """Every mutant's status from the ``.meta`` files the last mutmut runs left."""
    from mutmut.stats import status_by_exit_code

    found: dict[str, str] = {}
    for meta in (ROOT / "mutants" / "sim").rglob("*.py.meta"):
        codes = json.loads(meta.read_text())["exit_code_by_key"]
        found.update({name: status_by_exit_code[code] for name, code in codes.items()})
    return found


def matching(target: str, found: dict[str, str]) -> dict[str, str]:
    """The mutants of one target with their last status."""
    return {n: s for n, s in found.items() if any(fnmatch.fnmatch(n, g) for g in TARGETS[target])}


def report(targets: list[str]) -> float:
    """Print the score per target and the surviving mutants; return the overall score."""
    found = statuses()
    killed_all = survived_all = 0
    survivors: list[str] = []
    for target in targets:
        mine = matching(target, found)
        killed = sum(s in KILLED for s in mine.values())
        lost = [n for n, s in mine.items() if s in SURVIVED]
        unrun = len(mine) - killed - len(lost)
        score = killed / (killed + len(lost)) if killed + len(lost) else 0.0
        print(f"{target:8} {killed:5} killed {len(lost):4} survived {unrun:4} not run  "
              f"score {score:6.1%}")
        killed_all += killed
        survived_all += len(lost)
        survivors += sorted(lost)
    total = killed_all / (killed_all + survived_all) if killed_all + survived_all else 0.0
    print(f"{'total':8} {killed_all:5} killed {survived_all:4} survived"
          f"{'':14}score {total:6.1%}")
    if survivors:
        print("\nsurvivors (show one with: mutmut show NAME):")
        for name in survivors:
            print(f"  {name}  [{found[name]}]")
    return total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.mutation", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("targets", nargs="*", metavar="TARGET",
                        help=f"what to mutate: {', '.join(TARGETS)} (default: all)")
    parser.add_argument("--max-children", type=int, default=1,
                        help="parallel mutmut workers (default 1: the machine is shared)")
    parser.add_argument("--report", action="store_true", help="only score the last runs")
    parser.add_argument("--only", choices=("survivors", "unrun"),
                        help="rerun only the last survivors, or only the mutants not run yet")
    args = parser.parse_args(argv)
    targets = args.targets or list(TARGETS)
    unknown = [t for t in targets if t not in TARGETS]
    if unknown:
        parser.error(f"unknown target(s) {', '.join(unknown)}; choose from {', '.join(TARGETS)}")
    if not args.report:
        for target in targets:  # one target at a time: a run can stop and resume per file
            names: list[str] = list(TARGETS[target])
            if args.only:
                wanted = SURVIVED if args.only == "survivors" else {"not checked"}
                names = sorted(n for n, s in matching(target, statuses()).items() if s in wanted)
                if not names:
                    continue
            command = [sys.executable, "-m", "mutmut", "run", "--max-children",
                       str(args.max_children), *names]
            print("$", " ".join(command[:8]), "..." if len(command) > 8 else "", flush=True)
            done = subprocess.run(command, cwd=ROOT, check=False, capture_output=True, text=True, env=PURE)
            if done.returncode != 0:  # mutmut explains on stdout, between spinner frames
                print(done.stdout[-3000:], done.stderr[-3000:], sep="\n", file=sys.stderr)
    report(targets)
    return 0


if __name__ == "__main__":
    sys.exit(main())
