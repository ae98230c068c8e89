"""How soon the page of `sim serve` has its first figures, and how they narrow.

    python -m benchmarks.serve_first_figures [--workers K] [--tries 5]

Posts the reference encounter (scenarios/road_ambush.yaml) as a batch job of
20,000 battles to the real app (behind its guard, through Starlette's test
client), and polls it as the page does: prints the seconds to the first
figures, to 2,000 battles and to the end, and the half-width of "someone
dies" at each. The issue's target: first figures within a second on one
core. Figures for the issue note, never asserted.
"""

from __future__ import annotations

import argparse
import pathlib
import tempfile
import time

from starlette.testclient import TestClient

from sim.serve.app import Server, make_app
from sim.serve.guard import Guard, own_hosts
from sim.serve.plays import Execution
from sim.serve.workspace import Workspace

ROOT = pathlib.Path(__file__).resolve().parent.parent
SCENARIO = ROOT / "scenarios" / "road_ambush.yaml"
TOKEN = "benchmark"


def one_try(client: TestClient, n: int) -> list[tuple[float, int, float]]:
    """(seconds, battles, half-width of someone dies) at the first figures, 2,000 and the end."""
    body = {"kind": "batch", "scenario": SCENARIO.read_text(encoding="utf-8"), "n": n, "seed": 1}
    started = time.perf_counter()
    job = client.post("/api/jobs", json=body).json()
    seen: list[tuple[float, int, float]] = []
    while True:
        view = client.get(f"/api/jobs/{job['id']}").json()
        figures = view["result"] or view["partial"]
        if figures is not None:
            death = figures["party"]["any_death"]
            point = (time.perf_counter() - started, figures["battles"], (death["hi"] - death["lo"]) / 2)
            if not seen or (seen[-1][1] < 2000 <= point[1]) or view["status"] != "running":
                seen.append(point)
        if view["status"] != "running":
            return seen
        time.sleep(0.02)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--tries", type=int, default=5)
    parser.add_argument("-n", type=int, default=20_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as home:
        workspace = Workspace.create(pathlib.Path(home), (ROOT / "bestiary",))
        server = Server(workspace, Execution(workers=args.workers))
        app = Guard(make_app(server), TOKEN, own_hosts("127.0.0.1", 8765), 1_000_000)
        with TestClient(app, base_url="http://127.0.0.1:8765") as client:
            client.headers["x-sim-token"] = TOKEN
            for k in range(args.tries):
                points = one_try(client, args.n)
                print(f"try {k + 1}: " + "; ".join(f"{s:.2f} s: {b} battles, someone dies +-{100 * h:.1f} pts"
                                                  for s, b, h in points))
        workspace.remove()


if __name__ == "__main__":
    main()
