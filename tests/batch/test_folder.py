"""The run folder: its contents, refusing to overwrite anything, and a battles.parquet gone."""

from __future__ import annotations

import json
import pathlib

import pytest

from sim import cli
from sim.batch import BatchSpec, battle_seed, battles_file, journal
from sim.scenario import load_scenario
from tests.batch.helpers import DUEL, SKIRMISH, batch, cut_run, rows
from tests.cli.helpers import PROBLEM_LINE


class TestRunFolder:
    """The run folder: parquet rows, manifest, atomic files."""

    def test_contents(self, tmp_path: pathlib.Path) -> None:
        """battles.parquet has one row per battle; manifest and summary describe the run."""
        summary = batch(tmp_path, "run", str(SKIRMISH), "-n", "50", "--seed", "3", "--workers", "1")
        run = tmp_path / "run"
        table = rows(run)
        assert [r["index"] for r in table] == list(range(50))
        assert [r["seed"] for r in table] == [battle_seed(3, i) for i in range(50)]
        first = table[0]["combatants"][0]
        assert set(first) == {"name", "side", "hp", "status", "cause", "knocked_out", "morale",
                              "learned", "items_used"}
        manifest = json.loads((run / "manifest.json").read_text())
        assert manifest["status"] == "complete" and manifest["n"] == 50 and manifest["seed"] == 3
        assert manifest["scenario_sha256"] == load_scenario(SKIRMISH).sha256
        assert {"combat-sim", "python", "simpy"} <= set(manifest["versions"])
        assert summary["schema"] == 1 and summary["battles"] == 50
        assert not (run / "parts.journal").exists()
        assert not [p for p in run.iterdir() if p.name.endswith(".tmp")]

    def test_row_groups_hold_whole_parts(self, tmp_path: pathlib.Path, monkeypatch) -> None:
        """battles.parquet gathers whole parts into row groups of ROW_GROUP battles or more,
        in battle order: chunks of 4 with ROW_GROUP 10 give groups of 12, 12 and 6."""
        import pyarrow.parquet as pq

        monkeypatch.setattr(battles_file, "ROW_GROUP", 10)
        batch(tmp_path, "run", str(SKIRMISH), "-n", "30", "--seed", "3", "--chunk", "4", "--workers", "1")
        metadata = pq.ParquetFile(tmp_path / "run" / "battles.parquet").metadata
        sizes = [metadata.row_group(k).num_rows for k in range(metadata.num_row_groups)]
        assert sizes == [12, 12, 6]
        assert [r["index"] for r in rows(tmp_path / "run")] == list(range(30))

    def test_refuses_to_overwrite(self, tmp_path: pathlib.Path, capsys) -> None:
        """A second batch into an existing run folder exits 2 and leaves it alone."""
        batch(tmp_path, "run", str(DUEL), "-n", "10", "--workers", "1")
        before = (tmp_path / "run" / "summary.json").read_bytes()
        code = cli.main(["batch", str(DUEL), "-n", "10", "--out", str(tmp_path / "run")])
        assert code == 2 and "--resume" in capsys.readouterr().err
        assert (tmp_path / "run" / "summary.json").read_bytes() == before


class TestMissingBattlesFile:
    """`sim report RUN` and `sim replay RUN --worst` on a run without battles.parquet: one line
    naming the file and what gives it back, where both said only "cannot read" and errno 2."""

    @staticmethod
    def refused(capsys, command: str, run: pathlib.Path) -> str:
        argv = ["report", str(run)] if command == "report" else ["replay", str(run), "--worst",
                                                                 "--no-interactive"]
        capsys.readouterr()
        code = cli.main(argv)
        err = capsys.readouterr().err
        assert code == 2 and len(err.splitlines()) == 1 and PROBLEM_LINE.match(err), err
        return err.rstrip("\n")

    @pytest.mark.parametrize("command", ["report", "replay"])
    def test_a_finished_run_with_its_journal(self, tmp_path: pathlib.Path, capsys, command: str) -> None:
        """The journal is there (a stop just before its removal): --resume rebuilds the file."""
        run = tmp_path / "run"
        batch(tmp_path, "run", str(DUEL), "-n", "10", "--workers", "1")
        (run / "battles.parquet").rename(tmp_path / "elsewhere.parquet")
        journal.append(run / "parts.journal", b"a part")
        assert self.refused(capsys, command, run) == (f"{run}/battles.parquet:0:0: (document): missing;"
                                                      f" sim batch --resume {run} rebuilds it from"
                                                      " parts.journal")

    @pytest.mark.parametrize("command", ["report", "replay"])
    def test_a_finished_run_without_its_journal(self, tmp_path: pathlib.Path, capsys, command: str) -> None:
        """No journal (a finished run removes it): nothing rebuilds the file, and it says so."""
        run = tmp_path / "run"
        batch(tmp_path, "run", str(DUEL), "-n", "10", "--workers", "1")
        (run / "battles.parquet").unlink()
        assert self.refused(capsys, command, run) == (
            f"{run}/battles.parquet:0:0: (document): missing, and so is parts.journal, which could"
            " rebuild it (a finished run removes it); start the run again in another --out (the same"
            " seed plays the same battles)")

    def test_a_run_not_finished(self, tmp_path: pathlib.Path, capsys) -> None:
        """A run stopped before its end has no battles.parquet yet: --resume finishes it."""
        scenario = load_scenario(SKIRMISH)
        run = cut_run(tmp_path / "cut", scenario, BatchSpec(n=60, seed=1, chunk=20), 1).path
        assert self.refused(capsys, "replay", run) == (f"{run}/battles.parquet:0:0: (document): missing:"
                                                       f" the run is not finished; sim batch --resume"
                                                       f" {run} finishes it")
