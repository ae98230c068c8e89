"""Stat blocks as GMs write them, copied from character sheets and bestiaries of the four
systems (tests/data/gm_blocks): each validates (exit 0, warnings allowed) and plays a batch.

What they carry that the fight leaves idle (a bow's range at distance 0, `hands: 2` in d10,
a d100 `level` in a one-off fight, a skill no weapon rolls...) is valid data: a warning,
told once before the results and kept in summary.json, never a refusal."""

from __future__ import annotations

import json
import pathlib

import pytest

from sim.cli import main
from sim.model import RULE_SYSTEMS

BLOCKS = pathlib.Path(__file__).parent / "data" / "gm_blocks"
FILES = sorted(BLOCKS.glob("*.yaml"))


def test_corpus_spans_the_four_systems():
    """At least 15 files, each system's stat blocks among them."""
    assert len(FILES) >= 15
    assert {f.name.split("_")[0] for f in FILES} == set(RULE_SYSTEMS)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_validates_and_plays(path, tmp_path, capsys, monkeypatch):
    """validate exits 0 counting its warnings; a batch plays, telling each warning once on
    stderr before the results and keeping the same lines in summary.json; --strict refuses."""
    monkeypatch.delenv("SIM_BESTIARY", raising=False)
    assert main(["validate", str(path)]) == 0
    out, err = capsys.readouterr()
    told = [line for line in err.splitlines() if ": does nothing here: " in line]
    assert out.splitlines()[0] == f"{path}: ok (scenario, {len(told)} warning{'s' * (len(told) > 1)})"
    assert told and len(told) == len({line.split(": does nothing")[0] for line in told})
    code = main(["batch", str(path), "-n", "40", "--workers", "1", "--no-progress", "--json",
                 "--out", str(tmp_path / "run")])
    out, err = capsys.readouterr()
    summary = json.loads(out)
    assert code == 0 and summary["battles"] == 40
    assert summary["warnings"] == told
    assert err.splitlines()[:len(told)] == told
    assert main(["batch", str(path), "-n", "10", "--workers", "1", "--no-progress", "--strict",
                 "--out", str(tmp_path / "strict")]) == 2
    assert not (tmp_path / "strict").exists()
