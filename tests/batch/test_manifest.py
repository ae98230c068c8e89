"""Run manifests as hostile input: sealed, checked key by key, read bounded, never echoed."""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil

import pytest

from sim import cli
from sim.batch.manifest import manifest_text
from tests.batch.helpers import cut_run, journal_records, write_journal

DATA = pathlib.Path(__file__).parent.parent / "data"
HOSTILE = DATA / "hostile"
SKIRMISH = DATA / "golden" / "skirmish.yaml"
SECRET = "TOP-SECRET"  # a line of tests/data/hostile/unrelated.txt: never to be printed
UNSEALABLE = {"manifest_deep.json", "manifest_long_number.json"}  # not JSON Python can load


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def finished_run(tmp_path: pathlib.Path, *extra: str) -> pathlib.Path:
    out = tmp_path / "run"
    assert cli.main(["batch", str(SKIRMISH), "-n", "6", "--workers", "1", "--out", str(out),
                     "--json", "--no-progress", *extra]) == 0
    return out


def hostile_manifest(case: str) -> str:
    """The case's text, sealed with its own SHA-256 (a stale seal would test nothing else)."""
    text = (HOSTILE / case).read_text()
    text = text.replace("@GOLDEN@", str(DATA / "golden")).replace("@HOSTILE@", str(HOSTILE))
    return text if case in UNSEALABLE else manifest_text(json.loads(text))


class TestHostileManifests:
    """A manifest from elsewhere: exit 2 with file:line:col for resume and replay."""

    @pytest.mark.parametrize("case", sorted(p.name for p in HOSTILE.glob("manifest_*.json")))
    def test_exit_2_with_location(self, tmp_path: pathlib.Path, capsys, case: str) -> None:
        """Each hostile manifest gives one file:line:col line and exit 2, never a leak."""
        run_dir = tmp_path / "run"
        run_dir.mkdir()
        (run_dir / "manifest.json").write_text(hostile_manifest(case))
        for args in (["batch", "--resume", str(run_dir), "--no-progress"],
                     ["replay", str(run_dir), "--battle", "0", "--no-interactive"]):
            code, out, err = run(capsys, *args)
            assert code == 2, (args, out, err)
            assert len(err.splitlines()) == 1 and "Traceback" not in err
            assert re.match(r"^\S.*:\d+:\d+: ", err)
            assert SECRET not in out + err

    def test_wrong_type_points_at_the_key(self, tmp_path: pathlib.Path, capsys) -> None:
        """A key of the wrong type is reported at its own line and column."""
        run_dir = tmp_path / "run"
        run_dir.mkdir()
        text = hostile_manifest("manifest_wrong_types.json")
        (run_dir / "manifest.json").write_text(text)
        line = next(i for i, t in enumerate(text.splitlines(), 1) if t.startswith('  "n":'))
        code, _, err = run(capsys, "batch", "--resume", str(run_dir))
        assert code == 2
        assert err.startswith(f"{run_dir / 'manifest.json'}:{line}:8: n: must be an integer")

    @pytest.mark.parametrize(("key", "value"), [("chunk", 2), ("precision", 0.2), ("seed", 8)])
    def test_hand_edit_is_refused(self, tmp_path: pathlib.Path, capsys, key: str, value: object
                                  ) -> None:
        """Editing a key of a run by hand breaks the seal: resume and replay exit 2."""
        run_dir = finished_run(tmp_path)
        manifest = json.loads((run_dir / "manifest.json").read_text())
        manifest.update({key: value, "status": "running"})
        (run_dir / "manifest.json").write_text(json.dumps(manifest, indent=2))
        for args in (["batch", "--resume", str(run_dir), "--no-progress"],
                     ["replay", str(run_dir), "--battle", "0"]):
            code, _, err = run(capsys, *args)
            assert code == 2 and "edited or damaged since sim wrote it" in err

    def test_fifo_manifest_does_not_block(self, tmp_path: pathlib.Path, capsys) -> None:
        """A FIFO where the manifest should be is refused at once."""
        run_dir = tmp_path / "run"
        run_dir.mkdir()
        os.mkfifo(run_dir / "manifest.json")
        code, _, err = run(capsys, "batch", "--resume", str(run_dir))
        assert code == 2 and "not a regular file" in err


class TestResumeStates:
    """--resume of a finished or damaged run: exit 0 'already complete', or 2 with the reason."""

    def test_already_complete(self, tmp_path: pathlib.Path, capsys) -> None:
        """A finished run says so, prints its summary and runs nothing."""
        run_dir = finished_run(tmp_path)
        before = (run_dir / "summary.json").read_bytes()
        capsys.readouterr()
        code, out, err = run(capsys, "batch", "--resume", str(run_dir), "--json")
        assert code == 0 and "already complete" in err
        assert json.loads(out) == json.loads(before)
        assert (run_dir / "summary.json").read_bytes() == before
        # The lock is let go: asking again (in this same process) says the same.
        code, out, err = run(capsys, "batch", "--resume", str(run_dir), "--json", "--report")
        assert code == 0 and "already complete" in err and json.loads(out) == json.loads(before)
        assert "report: " in err and (run_dir / "report.html").exists()  # --report is honoured

    @pytest.mark.parametrize("summary", ["{oops", "[]", '{"schema": 2}', None])
    def test_damaged_summary(self, tmp_path: pathlib.Path, capsys, summary: str | None) -> None:
        """A finished run whose summary is damaged or gone: exit 2 naming the file."""
        run_dir = finished_run(tmp_path)
        if summary is None:
            (run_dir / "summary.json").unlink()
        else:
            (run_dir / "summary.json").write_text(summary)
        capsys.readouterr()
        code, _, err = run(capsys, "batch", "--resume", str(run_dir))
        assert code == 2 and "Traceback" not in err
        assert err.startswith(f"{run_dir / 'summary.json'}:")

    def test_part_of_another_run_is_refused(self, tmp_path: pathlib.Path, capsys) -> None:
        """A part copied in from another run (same scenario, other seed) is never merged."""
        from sim.batch import BatchSpec
        from sim.scenario import load_scenario

        scenario = load_scenario(SKIRMISH)
        parts = {}
        for name, seed in (("mine", 7), ("other", 9)):
            parts[name] = cut_run(tmp_path / name, scenario, BatchSpec(n=40, seed=seed, chunk=10), 2)
        mine, other = (journal_records(parts[name].path) for name in ("mine", "other"))
        write_journal(parts["mine"].path, [mine[0], other[1]])
        code, _, err = run(capsys, "batch", "--resume", str(tmp_path / "mine"), "--no-progress")
        assert code == 2 and "parts.journal:0:0: (part 1): not chunk 1 of this run" in err
        assert not (tmp_path / "mine" / "summary.json").exists()

    def test_parts_record_their_identity(self, tmp_path: pathlib.Path, monkeypatch) -> None:
        """Every part carries run id, seed, chunk and index range in its schema's metadata."""
        import pyarrow as pa

        from sim.batch import PART_KEY, RunFolder

        monkeypatch.setattr(RunFolder, "remove_parts", lambda self: None)  # keep them
        run_dir = finished_run(tmp_path, "--chunk", "4", "--seed", "3")
        run_id = json.loads((run_dir / "manifest.json").read_text())["run_id"]
        assert re.fullmatch(r"[0-9a-f]{32}", run_id)
        found = [json.loads(pa.ipc.open_file(record).schema.metadata[PART_KEY])
                 for record in journal_records(run_dir)]
        assert found == [{"run_id": run_id, "seed": 3, "chunk": 0, "start": 0, "stop": 4},
                         {"run_id": run_id, "seed": 3, "chunk": 1, "start": 4, "stop": 6}]

    def test_run_ids_differ(self, tmp_path: pathlib.Path) -> None:
        """Two runs of the same scenario and seed still have different identities."""
        ids = [json.loads((finished_run(tmp_path / name) / "manifest.json").read_text())["run_id"]
               for name in ("a", "b")]
        assert ids[0] != ids[1]

    @pytest.mark.parametrize("extra", [["-n", "50"], ["--seed=4"], ["-n50"], [str(SKIRMISH)]])
    def test_settings_on_resume_are_refused(self, tmp_path: pathlib.Path, capsys, extra) -> None:
        """--resume runs with the run's own settings: giving others is refused, not ignored."""
        run_dir = finished_run(tmp_path)
        capsys.readouterr()
        code, _, err = run(capsys, "batch", "--resume", str(run_dir), *extra)
        assert code == 2 and "--resume finishes a run with the settings it began with" in err

    def test_battles_of_another_run_are_refused(self, tmp_path: pathlib.Path, capsys) -> None:
        """battles.parquet copied in from another run is not used to pick the worst battle."""
        mine = finished_run(tmp_path / "mine")
        other = finished_run(tmp_path / "other")
        shutil.copy(other / "battles.parquet", mine / "battles.parquet")
        capsys.readouterr()
        code, _, err = run(capsys, "replay", str(mine), "--worst", "--no-interactive")
        assert code == 2 and "battles.parquet:0:0: (document): not this run's battles" in err
        code, _, _ = run(capsys, "replay", str(other), "--worst", "--no-interactive")
        assert code == 0
