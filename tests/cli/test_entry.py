"""Exit codes for what the environment does: unwritable or full disks, unencodable paths,
Ctrl-C."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

import pytest

from sim.cli import main
from tests.cli.helpers import AMBUSH, PROBLEM_LINE, run
from tests.processes import ROOT


class TestEnvironmentErrors:
    """A full disk, a read-only folder, an unencodable path, Ctrl-C: one line, no traceback."""

    @staticmethod
    def one_line(err: str) -> None:
        """One ``file:line:col: path: message`` line, no traceback."""
        assert len(err.splitlines()) == 1 and PROBLEM_LINE.match(err), err

    def test_read_only_folder(self, capsys, tmp_path, monkeypatch):
        """A run folder that cannot be created exits 2 with the system's reason."""
        import errno

        def refuse(self, *args, **kwargs):
            raise OSError(errno.EROFS, "Read-only file system", str(self))

        monkeypatch.setattr(pathlib.Path, "mkdir", refuse)
        code, _, err = run(capsys, "batch", str(AMBUSH), "-n", "5", "--out",
                           str(tmp_path / "run"), "--no-progress")
        assert code == 2 and "Read-only file system" in err
        self.one_line(err)

    @pytest.mark.skipif(getattr(os, "geteuid", lambda: 0)() == 0, reason="root writes anywhere")
    def test_read_only_folder_for_real(self, capsys, tmp_path):
        """A folder without write permission: exit 2, one line."""
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o555)
        code, _, err = run(capsys, "batch", str(AMBUSH), "-n", "5", "--out", str(locked / "run"),
                           "--no-progress")
        assert code == 2 and "Permission denied" in err
        self.one_line(err)

    def test_disk_full_mid_batch(self, capsys, tmp_path, monkeypatch):
        """ENOSPC while writing the second part (half of it written): exit 2 with a resume
        hint; resume drops the torn record and finishes."""
        import errno

        from sim.batch import journal

        real = journal.append
        written = []

        def fill_up(path, payload):
            if written:
                with open(path, "ab") as handle:  # the disk fills up halfway through the record
                    handle.write(journal.HEADER.pack(journal.MAGIC, len(payload), 0) + payload[:99])
                raise OSError(errno.ENOSPC, "No space left on device", str(path))
            written.append(path)
            real(path, payload)

        monkeypatch.setattr(journal, "append", fill_up)
        out = tmp_path / "run"
        code, _, err = run(capsys, "batch", str(AMBUSH), "-n", "40", "--chunk", "10",
                           "--workers", "1", "--out", str(out), "--no-progress")
        assert code == 2 and "No space left on device" in err and "Traceback" not in err
        assert f"stopped after 10 battles; finish with: sim batch --resume {out}" in err
        manifest = json.loads((out / "manifest.json").read_text())
        assert (manifest["status"], manifest["battles_done"]) == ("interrupted", 10)
        monkeypatch.setattr(journal, "append", real)
        code, _, _ = run(capsys, "batch", "--resume", str(out), "--json", "--no-progress")
        assert code == 0 and json.loads((out / "summary.json").read_text())["battles"] == 40

    @pytest.mark.parametrize("where", ["sim.cli.play.render", "sim.report.page.write_atomic"])
    def test_disk_full_on_log_and_report(self, capsys, tmp_path, monkeypatch, where):
        """ENOSPC writing a log or a report: exit 2, one line."""
        import errno

        def full(path, *args, **kwargs):
            raise OSError(errno.ENOSPC, "No space left on device", str(path))

        out = tmp_path / "run"
        assert main(["batch", str(AMBUSH), "-n", "5", "--workers", "1", "--out", str(out),
                     "--json", "--no-progress"]) == 0
        monkeypatch.setattr(where, full)
        argv = (["run", str(AMBUSH), "--log", str(tmp_path / "b.jsonl")] if "cli" in where
                else ["report", str(out)])
        code, _, err = run(capsys, *argv)
        assert code == 2 and "No space left on device" in err
        self.one_line(err)
        assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]

    @pytest.mark.parametrize("argv", [
        ["run", "a\ud800.yaml"],
        ["validate", "a\ud800.yaml"],
        ["replay", "a\ud800.jsonl"],
        ["report", "run\ud800"],
        ["batch", "--resume", "run\ud800"],
        ["batch", str(AMBUSH), "-n", "3", "--out", "run\ud800"],
        ["run", str(AMBUSH), "--log", "b\ud800.jsonl"],
        ["batch", str(AMBUSH), "-n", "3", "--out", "run\udcff"],  # the byte 0xff, as argv gives it
    ], ids=["run", "validate", "replay", "report", "resume", "batch-out", "run-log", "out-not-utf8"])
    def test_unencodable_path(self, capsys, tmp_path, monkeypatch, argv):
        """A path the file system cannot encode (a lone surrogate): exit 2, one line."""
        monkeypatch.chdir(tmp_path)
        code, _, err = run(capsys, *argv, *(["--no-progress"] if argv[0] == "batch" else []))
        assert code == 2
        self.one_line(err)

    @pytest.mark.parametrize("argv", [
        ["run", "{AMBUSH}", "--log", "{tmp}/no\nsuch/b.jsonl"],
        ["batch", "{AMBUSH}", "-n", "3", "--out", "{tmp}/file\nname/run", "--no-progress"],
        ["report", "{tmp}/no\nrun"],
        ["replay", "{tmp}/no\nlog.jsonl"],
    ], ids=["run-log", "batch-out", "report", "replay"])
    def test_newline_in_a_path_stays_one_line(self, capsys, tmp_path, argv):
        """A path holding a newline is shown escaped: the problem is still one line."""
        (tmp_path / "file\nname").write_text("a file, not a folder")
        argv = [a.format(AMBUSH=AMBUSH, tmp=tmp_path) for a in argv]
        code, _, err = run(capsys, *argv)
        assert code == 2 and "\\x0a" in err
        self.one_line(err)

    def test_newline_in_a_path_stays_one_line_when_all_goes_well(self, capsys, tmp_path, monkeypatch):
        """Lines that name a path on success (validate's "ok", batch's run folder and report,
        resume's "already complete") show a newline in it escaped: each stays one line
        (hostile helper: sim batch "$(printf 'a\\nb').yaml" printed the folder over two)."""
        monkeypatch.chdir(tmp_path)
        name = tmp_path / "a\nb.yaml"
        name.write_text("name: duel\nrules: d20\nsides:\n  - name: a\n    party: true\n    members:"
                        " [{name: A, hp: 9, weapons: [{name: sword, damage: 1d8}]}]\n  - name: b\n"
                        "    members: [{name: B, hp: 9, weapons: [{name: axe, damage: 1d6}]}]\n",
                        encoding="utf-8")
        code, out, _ = run(capsys, "validate", str(name))
        assert code == 0 and out == f"{tmp_path}/a\\x0ab.yaml: ok (scenario)\n"
        code, out, err = run(capsys, "batch", str(name), "-n", "3", "--workers", "1", "--no-progress",
                             "--report")
        assert code == 0, err
        told = [line for line in out.splitlines() if line.startswith(("run folder: ", "report: "))]
        assert len(told) == 2 and all("a\\x0ab" in line for line in told), out
        folder = next(pathlib.Path("runs").iterdir())
        code, _, err = run(capsys, "batch", "--resume", str(folder), "--no-progress")
        assert code == 0 and err.count("\n") == 1 and "already complete" in err, err

    @pytest.mark.parametrize("kind", ["folder", "fifo"])
    def test_report_over_a_folder_or_fifo(self, capsys, tmp_path, kind):
        """report.html that is a folder or a FIFO: one line naming report.html (not a temporary
        file), and the node is left alone (a FIFO was renamed over)."""
        out = tmp_path / "run"
        assert main(["batch", str(AMBUSH), "-n", "5", "--workers", "1", "--out", str(out),
                     "--json", "--no-progress"]) == 0
        page = out / "report.html"
        page.mkdir() if kind == "folder" else os.mkfifo(page)
        code, _, err = run(capsys, "report", str(out))
        assert code == 2 and err == (f"{page}:0:0: (document): not a regular file: the report"
                                     " would replace it\n")
        assert page.is_dir() if kind == "folder" else page.is_fifo()

    @pytest.mark.parametrize(("argv", "target"), [
        (["run", str(AMBUSH)], "sim.cli.play.run_any"),
        (["validate", str(AMBUSH)], "sim.cli.play.validate_file"),
        (["report", "."], "sim.report.write_report"),
    ])
    def test_ctrl_c(self, capsys, monkeypatch, argv, target):
        """Ctrl-C during run, validate or report: exit 130 and one line."""

        def interrupted(*args, **kwargs):
            raise KeyboardInterrupt

        monkeypatch.setattr(target, interrupted)
        code, _, err = run(capsys, *argv)
        assert (code, err) == (130, "sim: interrupted\n")


class TestEarlyCtrlC:
    """Ctrl-C before a command has begun anything: exit 130, no traceback."""

    def test_while_the_command_loads(self) -> None:
        """A KeyboardInterrupt while the command loads its modules (a tenth of a second); a
        program importing sim.cli gets the KeyboardInterrupt itself."""
        probe = ("import builtins\n"
                 "real = builtins.__import__\n"
                 "def importing(name, *args, **kwargs):\n"
                 "    if name == 'sim.cli.entry':\n"
                 "        raise KeyboardInterrupt\n"
                 "    return real(name, *args, **kwargs)\n"
                 "builtins.__import__ = importing\n")
        def loaded(module: str) -> subprocess.CompletedProcess:
            return subprocess.run([sys.executable, "-c", f"{probe}import {module}\n"], capture_output=True,
                                  text=True, cwd=ROOT)

        launched, imported = loaded("sim.launch"), loaded("sim.cli")
        assert (launched.returncode, launched.stderr) == (130, "")
        assert imported.returncode == -2 and imported.stderr.endswith("KeyboardInterrupt\n")

    def test_after_the_command_ended(self) -> None:
        """A Ctrl-C once the command has returned (its output printed) leaves its exit code."""
        probe = ("import os, signal, sim.launch\n"
                 "sim.launch.run_command = lambda: 0\n"
                 "code = sim.launch.main()\n"
                 "os.kill(os.getpid(), signal.SIGINT)\n"
                 "raise SystemExit(code)\n")
        done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                              cwd=ROOT)
        assert (done.returncode, done.stderr) == (0, "")

    def test_while_the_parser_is_built(self, capsys, monkeypatch) -> None:
        def interrupted():
            raise KeyboardInterrupt

        monkeypatch.setattr("sim.cli.entry.build_parser", interrupted)
        code, _, err = run(capsys, "validate", str(AMBUSH))
        assert code == 130 and err == "sim: interrupted\n"
