"""summary.json read back: what sim writes passes; a hand-edited shape is one line, exit 2."""

from __future__ import annotations

import json
import pathlib
import shutil
from collections.abc import Callable

import pytest

from sim import cli
from sim.batch.summary_file import check_summary
from tests.cli.helpers import PROBLEM_LINE, REPO, run

EXAMPLES = ("road_ambush.yaml", "toll_bridge_brawl.yaml", "days/goblin_warren.yaml")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, pathlib.Path]:
    """A finished run of a battle, of a battle with morale, and of a day."""
    base = tmp_path_factory.mktemp("summaries")
    folders = {}
    for example in EXAMPLES:
        out = base / pathlib.Path(example).stem
        code = cli.main(["batch", str(REPO / "scenarios" / example), "-n", "12", "--workers", "1",
                         "--out", str(out), "--json", "--no-progress"])
        assert code == 0
        folders[example] = out
    return folders


@pytest.mark.parametrize("example", EXAMPLES)
def test_what_sim_writes_is_accepted(runs: dict[str, pathlib.Path], example: str) -> None:
    """Every summary a batch writes (battles, morale, a day) has the shape the readers need."""
    path = runs[example] / "summary.json"
    summary = json.loads(path.read_text(encoding="utf-8"))
    assert check_summary(path, summary) is summary


def _combatant(key: str, value: object) -> Callable[[dict], None]:
    return lambda s: next(iter(s["combatants"].values())).__setitem__(key, value)


EDITS: dict[str, tuple[Callable[[dict], None], str]] = {
    "a side's stats not an object": (lambda s: s.__setitem__("sides", {"heroes": 1}),
                                     "sides.heroes: damaged: must be a JSON object (got 1)"),
    "combatants a string": (lambda s: s.__setitem__("combatants", "x"),
                            "combatants: damaged: must be a JSON object (got 'x')"),
    "a death rate null": (_combatant("death", None), ".death: damaged: must be a JSON object (got null)"),
    "rounds missing": (lambda s: s.pop("rounds"), "rounds: damaged: missing"),
    "a NaN estimate": (lambda s: s["party"]["win"].__setitem__("p", float("nan")),
                       "party.win.p: damaged: must be a finite number (got .nan)"),
    "a distribution as text": (lambda s: s["party"]["deaths"].__setitem__("dist", "abc"),
                               "party.deaths.dist: damaged: must be a list (got 'abc')"),
    "tpk a list": (lambda s: s.__setitem__("tpk", [1]), "tpk: damaged: must be a JSON object (got [1])"),
    "a step without its fields": (lambda s: s.__setitem__("steps", [{"kind": "rest"}]),
                                  "steps[0].step: damaged: missing"),
    "more combatants than a battle holds": (
        lambda s: s.__setitem__("combatants", {f"x{i}": next(iter(s["combatants"].values()))
                                               for i in range(501)}),
        "combatants: damaged: must hold at most 500 entries (a battle's most) (got 501)"),
    "schema 2": (lambda s: s.__setitem__("schema", 2),
                 "(document): damaged: not a schema 1 summary of this program"),
}


@pytest.mark.parametrize("name", EDITS)
@pytest.mark.parametrize("command", ["report", "resume"])
def test_an_edited_summary_is_one_line(runs: dict[str, pathlib.Path], tmp_path: pathlib.Path,
                                       capsys: pytest.CaptureFixture[str], name: str,
                                       command: str) -> None:
    """sim report and the resume of a finished run refuse a summary.json whose shape was
    edited (they crashed on it with a TypeError or KeyError; 2,000 combatants took the
    report 30 s of plotting), naming the key."""
    edit, message = EDITS[name]
    folder = tmp_path / "run"
    shutil.copytree(runs["road_ambush.yaml"], folder)
    path = folder / "summary.json"
    summary = json.loads(path.read_text(encoding="utf-8"))
    edit(summary)
    path.write_text(json.dumps(summary), encoding="utf-8")
    argv = ["report", str(folder)] if command == "report" else ["batch", "--resume", str(folder)]
    code, _, err = run(capsys, *argv)
    assert code == 2
    lines = err.splitlines()
    assert len(lines) == 1 and PROBLEM_LINE.match(lines[0])
    assert lines[0].startswith(f"{path}:0:0: ") and lines[0].endswith(message)


@pytest.mark.parametrize("command", ["report", "resume"])
@pytest.mark.parametrize(("other", "message"), [
    ("days/goblin_warren.yaml", "scenario: not this run's summary: its manifest says 'Road ambush'"
                                " (got 'The goblin warren'); it is not used"),
    ("battles", "battles: not this run's summary: its manifest says 12 (got 13); it is not used")])
def test_another_runs_summary_is_refused(runs: dict[str, pathlib.Path], tmp_path: pathlib.Path,
                                         capsys: pytest.CaptureFixture[str], command: str,
                                         other: str, message: str) -> None:
    """Another run's summary.json copied into a finished run folder (a day's, or one of other
    battles) was printed by --resume and drawn by sim report beside this run's battles."""
    folder = tmp_path / "run"
    shutil.copytree(runs["road_ambush.yaml"], folder)
    path = folder / "summary.json"
    if other == "battles":
        summary = json.loads(path.read_text(encoding="utf-8"))
        summary["battles"] = 13
        path.write_text(json.dumps(summary), encoding="utf-8")
    else:
        shutil.copy(runs[other] / "summary.json", path)
    argv = ["report", str(folder)] if command == "report" else ["batch", "--resume", str(folder)]
    code, _, err = run(capsys, *argv)
    assert code == 2 and err == f"{path}:0:0: {message}\n"
    assert not (folder / "report.html").exists()
