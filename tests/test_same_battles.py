"""The compiled and the pure-Python paths play the same battles (issue 41): the same seeds give
the same event logs, summary and battle rows, in every rule system. Each path runs `sim batch`
in its own process: the installed path, then SIM_PURE_PYTHON=1.

Where nothing is compiled both runs are pure and this proves little: .ci/run sets
SIM_EXPECT_COMPILED=1, which tests/test_compiled.py turns into a failure there."""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys

import pyarrow.parquet as pq
import pytest

from sim.compiled import FORCE_PURE

ROOT = pathlib.Path(__file__).resolve().parent.parent
# (scenario, battles): d20 (the golden skirmish, the README's ambush), d100 with fire and
# smoke, 2d10 with morale and a rout, open-ended d10, and a day with its rests.
PLAYS = [
    ("tests/data/golden/skirmish.yaml", 200),
    ("scenarios/road_ambush.yaml", 200),
    ("scenarios/burning_barn.yaml", 100),
    ("scenarios/raiders_rout.yaml", 100),
    ("scenarios/masters_duel.yaml", 100),
    ("scenarios/days/goblin_warren.yaml", 20),
]
ELAPSED = re.compile(rb'"elapsed_s": *[0-9.e+-]+')


def _batch(scenario: str, battles: int, out: pathlib.Path, *, pure: bool) -> bytes:
    """`sim batch` logging one battle in ten; its summary JSON from stdout. The others are
    played unlogged, where d20 takes its fused attack-and-damage (compiled and typed by
    d20.pxd): the summary and the rows compare that path too."""
    env = {k: v for k, v in os.environ.items() if k != FORCE_PURE}
    if pure:
        env[FORCE_PURE] = "1"
    done = subprocess.run(
        [sys.executable, "-m", "sim", "batch", scenario, "-n", str(battles), "--seed", "7",
         "--workers", "1", "--logs", "sample:10", "--out", str(out), "--json", "--no-progress"],
        cwd=ROOT, env=env, capture_output=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    return done.stdout


@pytest.mark.parametrize(("scenario", "battles"), PLAYS, ids=[pathlib.Path(p).stem for p, _ in PLAYS])
def test_both_paths_play_the_same_battles(tmp_path: pathlib.Path, scenario: str, battles: int) -> None:
    """Same seed: the same summary bytes (but the time it took), the same logs byte for byte,
    the same battles.parquet rows (the unlogged battles' too)."""
    installed = _batch(scenario, battles, tmp_path / "installed", pure=False)
    pure = _batch(scenario, battles, tmp_path / "pure", pure=True)
    assert ELAPSED.sub(b"", installed) == ELAPSED.sub(b"", pure)
    assert b'"battles": ' in installed
    logs = sorted((tmp_path / "installed" / "logs").iterdir())
    assert logs and [p.name for p in logs] == sorted(p.name for p in (tmp_path / "pure" / "logs").iterdir())
    for log in logs:
        assert log.read_bytes() == (tmp_path / "pure" / "logs" / log.name).read_bytes(), log.name
    assert pq.read_table(tmp_path / "installed" / "battles.parquet").equals(
        pq.read_table(tmp_path / "pure" / "battles.parquet"))
