"""How pyarrow is loaded (sim.io.arrow): without numpy in sim's own processes, whole elsewhere,
and what is stored or shown the same either way."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest

from tests.processes import LIMIT_S, ROOT

REFERENCE = ROOT / "scenarios" / "road_ambush.yaml"


def python(code: str, one_core: bool = False) -> subprocess.CompletedProcess:
    """``code`` in a fresh interpreter (pinned to one core if asked), from the repo root."""
    pin = None
    if one_core:
        if not hasattr(os, "sched_setaffinity"):
            pytest.skip("no sched_setaffinity here")
        core = min(os.sched_getaffinity(0))
        def pin() -> None:
            os.sched_setaffinity(0, {core})
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                          timeout=LIMIT_S, check=False, preexec_fn=pin)


def sim_command(*args: str, one_core: bool = False) -> subprocess.CompletedProcess:
    """The sim command (sim.launch, as its console script starts it), then whether numpy was
    loaded in its process, printed last on stdout."""
    code = ("import sys; from sim.launch import main\n"
            f"sys.argv = ['sim', *{list(args)!r}]\n"
            "code = main()\n"
            "print('numpy' in sys.modules)\n"
            "sys.exit(code)\n")
    return python(code, one_core)


class TestLoad:
    """load_arrow: numpy held back only where sim owns the process."""

    def test_own_process_loads_pyarrow_without_numpy(self) -> None:
        """In a process of sim's own, pyarrow and its Parquet writer load without numpy, and
        numpy can still be imported afterwards (the report's plots use it)."""
        done = python("import sys\nfrom sim.io.arrow import load_arrow, own_process\n"
                      "own_process(); load_arrow()\n"
                      "import pyarrow as pa, pyarrow.parquet\n"
                      "print('numpy' in sys.modules, pa.array([1, 2]).to_pylist())\n"
                      "import numpy\nprint(numpy.arange(3).tolist())\n")
        assert done.returncode == 0, done.stderr
        assert done.stdout.split("\n")[:2] == ["False [1, 2]", "[0, 1, 2]"]

    def test_a_program_importing_sim_keeps_its_pyarrow_whole(self) -> None:
        """A program (or a test) that uses sim as a library gets pyarrow with numpy: its
        ``to_numpy`` (and pandas) work."""
        done = python("from sim.io.arrow import load_arrow\nload_arrow()\n"
                      "import pyarrow as pa\nprint(pa.array([1, 2]).to_numpy().tolist())\n")
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "[1, 2]"

    def test_numpy_loaded_first_is_used(self) -> None:
        """Where numpy is already loaded, pyarrow loads with it, even in sim's own process."""
        done = python("import numpy\nfrom sim.io.arrow import load_arrow, own_process\n"
                      "own_process(); load_arrow()\n"
                      "import pyarrow as pa\nprint(pa.array([3]).to_numpy().tolist())\n")
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == "[3]"


class TestCommand:
    """The sim command on one core stores in its own process, with a pyarrow without numpy."""

    def test_batch_on_one_core_never_loads_numpy(self, tmp_path: pathlib.Path) -> None:
        """`sim batch` pinned to one core stores its run itself and never imports numpy; its
        battles.parquet holds what a run as a library (pyarrow whole) stores: the same rows
        and schema (the files differ only in their run ids)."""
        out = tmp_path / "cmd"
        done = sim_command("batch", str(REFERENCE), "-n", "300", "--seed", "4", "--workers", "1",
                           "--out", str(out), "--json", "--no-progress", one_core=True)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip().splitlines()[-1] == "False"
        library = tmp_path / "lib"
        code = ("import sys; from sim.cli import main\n"
                f"sys.exit(main(['batch', {str(REFERENCE)!r}, '-n', '300', '--seed', '4',"
                f" '--workers', '1', '--out', {str(library)!r}, '--json', '--no-progress']))\n")
        assert python(code, one_core=True).returncode == 0
        read = ("import pyarrow.parquet as pq, sys, json\n"
                "t = [pq.read_table(p) for p in sys.argv[1:]]\n"
                "print(json.dumps([t[0].to_pylist() == t[1].to_pylist(), t[0].schema.remove_metadata()"
                " == t[1].schema.remove_metadata(), t[0].num_rows]))\n")
        compared = subprocess.run([sys.executable, "-c", read, str(out / "battles.parquet"),
                                   str(library / "battles.parquet")], capture_output=True, text=True,
                                  timeout=LIMIT_S, check=False)
        assert json.loads(compared.stdout) == [True, True, 300], compared.stderr

    def test_report_on_one_core_plots_without_numpy_in_pyarrow(self, tmp_path: pathlib.Path) -> None:
        """`sim batch --report` on one core: pyarrow was loaded without numpy to store the run,
        and the report's plots (rounds, HP left) still read battles.parquet."""
        out = tmp_path / "run"
        done = sim_command("batch", str(REFERENCE), "-n", "200", "--seed", "2", "--workers", "1",
                           "--out", str(out), "--report", "--no-progress", one_core=True)
        assert done.returncode == 0, done.stderr
        page = (out / "report.html").read_text(encoding="utf-8")
        assert "How many rounds battles last" in page and page.count("<svg") >= 3
        again = sim_command("report", str(out), "--force")
        assert again.returncode == 0, again.stderr
        assert (out / "report.html").read_text(encoding="utf-8").count("<svg") == page.count("<svg")
