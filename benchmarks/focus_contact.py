"""How often a focus-tactic move walks away from an able enemy in reach (issue 9, item 5).

    python -m benchmarks.focus_contact [SCENARIO...] [--battles N]

For each scenario (default: the two with `target: focus` at a distance), plays N
battles with their logs, follows positions and who is able, and counts the
`moved` events of focus fighters that started within 2 m of an able enemy.
A figure for the issue notes, never asserted (the test is
tests/engine/test_tactics.py::TestFocusKeepsContact).
"""

from __future__ import annotations

import argparse
import pathlib

from sim.engine import run_battle
from sim.model import MELEE_REACH_M
from sim.scenario import load_scenario

ROOT = pathlib.Path(__file__).resolve().parent.parent
DEFAULT = (ROOT / "scenarios" / "wolf_ford.yaml", ROOT / "scenarios" / "mounted_charge.yaml")
DOWN = ("knocked_out", "died", "fled")


def walk_aways(path: pathlib.Path, battles: int) -> tuple[int, int]:
    """(focus moves, those that left an able enemy in reach) over ``battles`` seeds."""
    scenario = load_scenario(path)
    focus = {m.name for side in scenario.sides for m in side.members
             if (side.tactics if m.tactics is None else m.tactics.over(side.tactics)).policy
             == "focus"}
    moves = away = 0
    for seed in range(battles):
        _, log = run_battle(scenario, seed, log=True)
        cast = log[0]["combatants"]
        x = {c["name"]: c["x"] for c in cast}
        side = {c["name"]: c["side"] for c in cast}
        able = dict.fromkeys(x, True)
        for e in log[1:]:
            event = e["event"]
            if event in DOWN or (event == "effect_started" and e["effect"] in ("unconscious", "broken")):
                able[e["target"]] = False
            elif ((event == "effect_ended" and e["effect"] == "unconscious")
                  or (event == "item_used" and e.get("woke"))):
                able[e["target"]] = True
            elif event == "moved":
                actor = e["actor"]
                if actor in focus:
                    moves += 1
                    away += any(able[n] and side[n] != side[actor]
                                and abs(x[n] - e["x_before"]) <= MELEE_REACH_M for n in x)
                x[actor] = e["x_after"]
    return moves, away


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenarios", nargs="*", type=pathlib.Path, default=list(DEFAULT))
    parser.add_argument("--battles", type=int, default=1500)
    args = parser.parse_args()
    total = away = 0
    for path in args.scenarios:
        moves, left = walk_aways(path, args.battles)
        total, away = total + moves, away + left
        print(f"{path.name}: {left} of {moves} focus moves walked away ({left / max(moves, 1):.1%})")
    print(f"all: {away} of {total} ({away / max(total, 1):.1%})")


if __name__ == "__main__":
    main()
