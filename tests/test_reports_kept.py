"""A report already there is refused unless --force, and one process at a time writes it
(issue 30): two tunes into one --report folder both said "report: ..." and one was lost."""

from __future__ import annotations

import errno
import pathlib

import pytest

from sim.io.runlock import RunLock
from sim.report import page as page_module
from tests.batch.helpers import SKIRMISH, batch
from tests.cli.helpers import run

DUEL = pathlib.Path(__file__).parent / "data" / "duel" / "duel.yaml"
COMPARE = ["compare", str(DUEL), "--vary", "sides[0].members[0].hp=10,12", "-n", "20", "--workers", "1",
           "--no-progress"]




@pytest.fixture
def finished(tmp_path: pathlib.Path) -> pathlib.Path:
    batch(tmp_path, "run", str(SKIRMISH), "-n", "10", "--seed", "1", "--workers", "1")
    return tmp_path / "run"


def test_compare_report_refused_when_there(tmp_path: pathlib.Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "rep"
    code, out, _ = run(capsys, *COMPARE, "--report", str(folder))
    assert code == 0 and f"report: {folder / 'compare.html'}" in out
    first = (folder / "compare.html").read_bytes()
    code, out, err = run(capsys, *COMPARE, "--seed", "9", "--report", str(folder))
    assert code == 2 and out == ""  # refused before a battle is played
    assert err == (f"{folder / 'compare.html'}:0:0: --report: already there; --force replaces it,"
                   " or give another --report\n")
    assert (folder / "compare.html").read_bytes() == first
    code, out, _ = run(capsys, *COMPARE, "--seed", "9", "--report", str(folder), "--force")
    assert code == 0 and (folder / "compare.html").read_bytes() != first


def test_compare_report_locked_while_written(tmp_path: pathlib.Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    """Another sim writing the same page (its lock held) turns this one away, at once."""
    folder = tmp_path / "rep"
    folder.mkdir()
    with RunLock(folder, ".compare.html.lock").acquire():
        code, out, err = run(capsys, *COMPARE, "--report", str(folder))
    assert code == 2 and out == "" and "is writing compare.html here" in err
    assert not (folder / "compare.html").exists()


def test_sim_report_refuses_an_existing_report(finished: pathlib.Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "report", str(finished))[0] == 0
    (finished / "report.html").write_text("mine", encoding="utf-8")
    code, _, err = run(capsys, "report", str(finished))
    assert code == 2 and "already there; sim report --force" in err
    assert (finished / "report.html").read_text(encoding="utf-8") == "mine"
    assert run(capsys, "report", str(finished), "--force")[0] == 0
    assert (finished / "report.html").read_text(encoding="utf-8") != "mine"


def test_sim_report_waits_for_no_one(finished: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A report of a run another sim holds is refused, saying so."""
    with RunLock(finished).acquire():
        code, _, err = run(capsys, "report", str(finished))
    assert code == 2 and "another sim (pid" in err and not (finished / "report.html").exists()


def test_full_disk_names_the_report(finished: pathlib.Path, capsys: pytest.CaptureFixture[str],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A full disk said "sim: No space left on device": which file, now."""
    def full(path: pathlib.Path, data: bytes, durable: bool = True) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(page_module, "write_atomic", full)
    code, _, err = run(capsys, "report", str(finished))
    assert code == 2
    assert err == f"{finished / 'report.html'}:0:0: (document): cannot write (No space left on device)\n"
