"""What the batch tests share: their scenarios and a `sim batch --json` in process."""

from __future__ import annotations

import json
import pathlib

import pyarrow.parquet as pq
import pytest

from sim import cli
from sim.batch import Batch, BatchSpec, RunFolder, journal, run_serial, start_run
from sim.errors import InputError
from sim.io.runlock import RunLock
from sim.model import Scenario
from tests.processes import wait_until

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


def unlocked(run: pathlib.Path) -> bool:
    """Whether no process holds the run's lock."""
    try:
        RunLock(run).acquire().release()
    except InputError:
        return False
    return True


def wait_unlocked(run: pathlib.Path) -> None:
    """Wait until no process holds the run's lock (a killed batch's store process exits
    once it sees the batch gone)."""
    wait_until(lambda: unlocked(run), f"{run} to be unlocked", 10)


def stopping_after(chunks: int):
    """A serial Runner that stops the run (as Ctrl-C does) after ``chunks`` chunks."""
    def runner(tasks, window):
        for count, result in enumerate(run_serial(tasks, window)):
            if count == chunks:
                raise KeyboardInterrupt
            yield result
    return runner


def cut_run(folder: pathlib.Path, scenario: Scenario, spec: BatchSpec, chunks: int) -> RunFolder:
    """A run started in ``folder`` and stopped (as by Ctrl-C) after ``chunks`` chunks."""
    run = start_run(folder, scenario, spec, ["batch"])
    with pytest.raises(KeyboardInterrupt):
        Batch(scenario, spec, run, stopping_after(chunks)).run()
    run.release()
    return RunFolder(run.path)
