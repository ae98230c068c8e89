"""What `sim tune` spends against running every value once with `sim batch --precision 0.02`.

    python -m benchmarks.tune_cost [--workers K]

Prints the battles tune used, the battles the batches used, and their ratio
(the issue's target: at most 2x). Figures for the issue note, never asserted.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import tempfile

from sim import cli

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "scenarios" / "road_ambush.yaml"
VARY = "sides[goblins].members[goblin].count"
TARGET = "party.any_death<=0.10"


def _json(argv: list[str]) -> dict:
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(argv) == 0
    return json.loads(out.getvalue())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", default="2")
    parser.add_argument("--values", default="1..10")
    args = parser.parse_args()
    tuned = _json(["tune", str(SCENARIO), "--vary", f"{VARY}={args.values}", "--target", TARGET,
                   "--precision", "0.02", "--workers", args.workers, "--json"])
    lo, hi = (int(x) for x in args.values.split(".."))
    batch_battles = 0
    with tempfile.TemporaryDirectory() as tmp:
        for value in range(lo, hi + 1):
            summary = _json(["batch", str(SCENARIO), "-n", "200000", "--precision", "0.02",
                             "--workers", args.workers, "--json", "--no-progress",
                             "--out", str(pathlib.Path(tmp) / str(value)),
                             "--set", f"{VARY}={value}"])
            batch_battles += summary["battles"]
    for point in tuned["points"]:
        print(f"value {point['value']:>3}: {point['metric']['p']:.3f} "
              f"[{point['metric']['lo']:.3f}, {point['metric']['hi']:.3f}] {point['battles']} battles"
              f"{' (straddles)' if point['straddles'] else ''}")
    print(f"tune: {tuned['battles']} battles; batches at --precision 0.02: {batch_battles};"
          f" ratio {tuned['battles'] / batch_battles:.2f}")


if __name__ == "__main__":
    main()
