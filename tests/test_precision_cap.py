"""--precision without -n plays until the precision is reached (a cap of 100,000 battles),
and a cap that stops it first is said on the terminal; a reader that leaves (| head) ends the
command quietly with exit 0 (issue 28, section 4)."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import pytest

from sim.cli import args as args_module
from tests.cli.helpers import run

ROOT = pathlib.Path(__file__).parent.parent
DUEL = pathlib.Path(__file__).parent / "data" / "duel" / "duel.yaml"
VARY = ["--vary", "sides[0].members[0].hp=10,12"]




def test_batch_precision_without_n_plays_past_1000(tmp_path: pathlib.Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """+-2 points on a coin-flip duel takes about 2,400 battles: it stopped at 1,000, silently."""
    code, out, err = run(capsys, "batch", str(DUEL), "--precision", "0.02", "--out", str(tmp_path / "r"),
                         "--json", "--no-progress", "--workers", "1")
    summary = json.loads(out)
    assert code == 0 and err == ""
    assert summary["stopped_by"] == "precision" and 1000 < summary["battles"] < 100_000


def test_batch_cap_said_on_the_terminal(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(args_module, "PRECISION_CAP", 700)
    code, out, err = run(capsys, "batch", str(DUEL), "--precision", "0.001", "--out", str(tmp_path / "r"),
                         "--json", "--no-progress", "--workers", "1")
    assert code == 0 and json.loads(out)["battles"] == 700
    assert err.startswith("--precision 0.001 not reached: -n stopped the run at 700 battles, its widest"
                          " interval +-0.0")


def test_batch_cap_of_an_explicit_n_said_too(tmp_path: pathlib.Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "batch", str(DUEL), "--precision", "0.001", "-n", "300", "--out",
                       str(tmp_path / "r"), "--no-progress", "--workers", "1")
    assert code == 0 and "--precision 0.001 not reached: -n stopped the run at 300 battles" in err


def test_batch_without_precision_keeps_1000(tmp_path: pathlib.Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "batch", str(DUEL), "--out", str(tmp_path / "r"), "--json", "--no-progress",
                         "--workers", "1")
    assert code == 0 and json.loads(out)["battles"] == 1000 and err == ""


def test_compare_precision_without_n_and_its_cap(capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(args_module, "PRECISION_CAP", 3000)
    code, out, err = run(capsys, "compare", str(DUEL), *VARY, "--precision", "0.0001", "--json",
                         "--no-progress", "--workers", "1")
    assert code == 0 and json.loads(out)["battles"] == 3000  # past the 2,000 of no --precision
    assert err.startswith("--precision 0.0001 not reached: -n stopped the run at 3,000 battles")


@pytest.mark.parametrize("command", [["batch", str(DUEL), "-n", "400", "--no-progress"],
                                     ["compare", str(DUEL), *VARY, "-n", "200", "--no-progress"]])
def test_a_reader_that_leaves_is_no_error(tmp_path: pathlib.Path, command: list[str]) -> None:
    """`sim batch ... | head -2`: rich raised SystemExit(1) on the closed pipe, an error exit."""
    out = ["--out", str(tmp_path / "r")] if command[0] == "batch" else []
    sim = subprocess.Popen([sys.executable, "-m", "sim", *command, *out, "--workers", "1"], cwd=ROOT,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert sim.stdout is not None and sim.stderr is not None
    sim.stdout.close()  # the reader leaves before the tables are printed, as head -2 does
    err = sim.stderr.read()
    assert sim.wait(timeout=120) == 0 and err == b""
