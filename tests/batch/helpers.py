"""What the batch tests share: their scenarios and a `sim batch --json` in process."""

from __future__ import annotations

import json
import pathlib

import pyarrow.parquet as pq

from sim import cli
from sim.batch import journal

DATA = pathlib.Path(__file__).parent.parent / "data"
DUEL = DATA / "duel" / "duel.yaml"
SKIRMISH = DATA / "golden" / "skirmish.yaml"
COSTLY = DATA / "party" / "costly_win.yaml"


def batch(tmp_path: pathlib.Path, name: str, *args: str) -> dict:
    """Run `sim batch --json` into tmp_path/name and return the summary."""
    out = tmp_path / name
    code = cli.main(["batch", *args, "--out", str(out), "--json", "--no-progress"])
    assert code == 0
    return json.loads((out / "summary.json").read_text())


def comparable(summary: dict) -> dict:
    return {k: v for k, v in summary.items() if k != "elapsed_s"}


def rows(run: pathlib.Path) -> list[dict]:
    return pq.read_table(run / "battles.parquet").to_pylist()


def journal_records(run: pathlib.Path) -> list[bytes]:
    """The payloads of a run's parts journal (one part per stored chunk)."""
    return list(journal.records(run / "parts.journal"))


def write_journal(run: pathlib.Path, payloads: list[bytes]) -> None:
    """Replace a run's parts journal with these records."""
    (run / "parts.journal").unlink(missing_ok=True)
    for payload in payloads:
        journal.append(run / "parts.journal", payload)
