"""Inputs that are not regular files (a FIFO, a device, a directory) are refused at once."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys

import pytest

from sim.io.infile import NotRegularFileError, open_regular, open_regular_text

REPO = pathlib.Path(__file__).resolve().parent.parent.parent
GOLDEN = REPO / "tests" / "data" / "golden"
needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")
# A real process with a deadline: a regression that opens a FIFO blocking would hang
# this test for the timeout, then fail it, instead of hanging the whole suite.
DEADLINE_S = 60


def sim(*argv: str, cwd: pathlib.Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("SIM_BESTIARY", None)
    return subprocess.run([sys.executable, "-m", "sim", *argv], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=DEADLINE_S, check=False,
                          stdin=subprocess.DEVNULL)


class TestOpenRegular:
    """open_regular reads regular files and refuses anything else before reading."""

    def test_regular_file_is_read(self, tmp_path):
        """A regular file reads as usual (and blocking again, as a plain file)."""
        path = tmp_path / "a.json"
        path.write_text('{"a": 1}', encoding="utf-8")
        with open_regular_text(path) as text:
            assert text.read() == '{"a": 1}'
        with open_regular(path) as handle:
            assert os.get_blocking(handle.fileno())

    def test_directory(self, tmp_path):
        """A directory is named as such, as an OSError the callers already handle."""
        with pytest.raises(NotRegularFileError) as info:
            open_regular(tmp_path)
        assert isinstance(info.value, OSError)
        assert info.value.strerror == "a directory, not a regular file"
        assert info.value.filename == str(tmp_path)

    @needs_fifo
    def test_fifo_without_writer(self, tmp_path):
        """Opening a FIFO nobody writes to returns at once, refused."""
        fifo = tmp_path / "pipe"
        os.mkfifo(fifo)
        with pytest.raises(NotRegularFileError) as info:
            open_regular(fifo)
        assert info.value.strerror == "a FIFO (named pipe), not a regular file"

    @pytest.mark.skipif(not pathlib.Path("/dev/zero").exists(), reason="needs /dev/zero")
    def test_endless_device(self):
        """/dev/zero is a character device: refused before any read."""
        with pytest.raises(NotRegularFileError) as info:
            open_regular("/dev/zero")
        assert info.value.strerror == "a character device, not a regular file"

    def test_missing_file_is_the_usual_error(self, tmp_path):
        """A missing file is still FileNotFoundError (callers word it themselves)."""
        with pytest.raises(FileNotFoundError):
            open_regular(tmp_path / "nope")


@needs_fifo
class TestEveryCommandRefusesAFifo:
    """Each command handed a FIFO (or a run folder holding one) exits 2 at once: a real
    process, a real FIFO with no writer, and a deadline instead of a hang."""

    @pytest.fixture
    def fifo(self, tmp_path) -> pathlib.Path:
        path = tmp_path / "pipe.yaml"
        os.mkfifo(path)
        return path

    @pytest.mark.parametrize("argv", [
        ("validate",), ("run",), ("batch", "-n", "2", "--no-progress"),
        ("replay", "--no-interactive"), ("replay", "--verify"),
    ], ids=" ".join)
    def test_scenario_or_log_is_a_fifo(self, tmp_path, fifo, argv):
        """validate, run, batch, replay and replay --verify of a FIFO: one line, exit 2."""
        done = sim(*argv, fifo.name, cwd=tmp_path)
        assert done.returncode == 2, done.stderr
        assert "Traceback" not in done.stderr
        assert "a FIFO (named pipe), not a regular file" in done.stderr
        assert done.stderr.startswith(fifo.name + ":0:0: ")
        assert len(done.stderr.splitlines()) == 1

    def test_bestiary_file_is_a_fifo(self, tmp_path):
        """A FIFO among the bestiary files is one problem in the scenario's validation."""
        shutil.copy(GOLDEN / "skirmish.yaml", tmp_path / "s.yaml")
        (tmp_path / "bestiary" / "d20").mkdir(parents=True)
        os.mkfifo(tmp_path / "bestiary" / "d20" / "trap.yaml")
        done = sim("validate", "s.yaml", cwd=tmp_path)
        assert done.returncode == 2, done.stderr
        assert "bestiary/d20/trap.yaml:0:0: (document): cannot read file: a FIFO" in done.stderr

    def test_manifest_is_a_fifo(self, tmp_path):
        """--resume of a run folder whose manifest is a FIFO exits 2 naming it."""
        run = tmp_path / "run"
        run.mkdir()
        os.mkfifo(run / "manifest.json")
        done = sim("batch", "--resume", "run", "--no-progress", cwd=tmp_path)
        assert done.returncode == 2, done.stderr
        assert "Traceback" not in done.stderr
        assert "manifest.json" in done.stderr
        assert "not a regular file" in done.stderr

    def test_device_and_directory(self, tmp_path):
        """A device and a directory given as scenarios are refused the same way."""
        (tmp_path / "adir").mkdir()
        done = sim("validate", os.devnull, "adir", cwd=tmp_path)
        assert done.returncode == 2
        assert done.stderr.splitlines() == [
            f"{os.devnull}:0:0: (document): cannot read file: a character device, not a regular file",
            "adir:0:0: (document): cannot read file: a directory, not a regular file",
        ]

    def test_run_folder_files_are_fifos(self, tmp_path):
        """A run folder whose battles.parquet is a FIFO: report and replay --worst exit 2."""
        shutil.copy(GOLDEN / "skirmish.yaml", tmp_path / "s.yaml")
        done = sim("batch", "s.yaml", "-n", "3", "--out", "run", "--workers", "1", "--no-progress",
                   cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        battles = tmp_path / "run" / "battles.parquet"
        battles.unlink()
        os.mkfifo(battles)
        for argv in (("report", "run"), ("replay", "run", "--worst", "--no-interactive")):
            done = sim(*argv, cwd=tmp_path)
            assert done.returncode == 2, (argv, done.stderr)
            assert "not a regular file" in done.stderr
            assert "Traceback" not in done.stderr
