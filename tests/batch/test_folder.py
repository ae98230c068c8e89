"""The run folder: its contents, and refusing to overwrite anything."""

from __future__ import annotations

import json
import pathlib

from sim import cli
from sim.batch import battle_seed, battles_file
from sim.scenario import load_scenario
from tests.batch.helpers import DUEL, SKIRMISH, batch, rows


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
