"""``sim run``, ``replay``, ``validate``: the JSONL log on stdout or in a file, narration,
bad scenarios, validation."""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import stat
import subprocess
import sys

import pytest

from sim.scenario import load_scenario
from tests.cli.helpers import AMBUSH, GOOD, PROBLEM_LINE, run, usage_error


class TestRunLog:
    """``sim run --log -`` prints the JSONL event log."""

    def test_first_and_last_events(self, capsys):
        """The log is JSON lines from ``battle_started`` (schema 1) to ``battle_ended``."""
        code, out, err = run(capsys, "run", str(AMBUSH), "--seed", "1", "--log", "-")
        assert (code, err) == (0, "")
        events = [json.loads(line) for line in out.splitlines()]
        assert len(events) > 2
        first, last = events[0], events[-1]
        assert first["event"] == "battle_started"
        assert first["schema"] == 1
        assert first["seed"] == 1
        assert first["rules"] == "d20"
        assert first["round"] == 0
        assert last["event"] == "battle_ended"
        assert [e["event"] for e in events].count("battle_started") == 1
        assert [e["event"] for e in events].count("battle_ended") == 1
        assert all({"event", "round", "t"} <= e.keys() for e in events)

    def test_same_seed_same_bytes(self, capsys):
        """The same seed gives a byte-identical log."""
        _, one, _ = run(capsys, "run", str(AMBUSH), "--seed", "7", "--log", "-")
        _, two, _ = run(capsys, "run", str(AMBUSH), "--seed", "7", "--log", "-")
        assert one == two
        assert one

    def test_different_seeds_differ(self, capsys):
        """Different seeds give different logs."""
        logs = {run(capsys, "run", str(AMBUSH), "--seed", str(s), "--log", "-")[1]
                for s in (1, 2, 3)}
        assert len(logs) == 3

    def test_default_seed_is_one(self, capsys):
        """Without ``--seed`` the battle uses seed 1."""
        _, default, _ = run(capsys, "run", str(AMBUSH), "--log", "-")
        _, one, _ = run(capsys, "run", str(AMBUSH), "--seed", "1", "--log", "-")
        assert default == one

    def test_log_file(self, capsys, tmp_path):
        """``--log FILE`` writes the same log to the file and prints nothing; ``--narrate``
        adds the narration on stdout."""
        log = tmp_path / "battle.jsonl"
        assert run(capsys, "run", str(AMBUSH), "--seed", "3", "--log", str(log)) == (0, "", "")
        _, stdout_log, _ = run(capsys, "run", str(AMBUSH), "--seed", "3", "--log", "-")
        assert log.read_text(encoding="ascii") == stdout_log
        code, out, err = run(capsys, "run", str(AMBUSH), "--seed", "3", "--log", str(log), "--narrate")
        assert (code, err) == (0, "")
        assert not out.lstrip().startswith("{")
        assert re.search(r"\bwin\b|draw", out)
        assert [p.name for p in tmp_path.iterdir()] == ["battle.jsonl"]

    def test_subprocess_matches_in_process(self, capsys):
        """``python -m sim`` gives the very bytes ``main`` prints, and exits 0."""
        _, in_process, _ = run(capsys, "run", str(AMBUSH), "--seed", "5", "--log", "-")
        done = subprocess.run(
            [sys.executable, "-m", "sim", "run", str(AMBUSH), "--seed", "5", "--log", "-"],
            capture_output=True, text=True, timeout=60, check=False,
        )
        assert (done.returncode, done.stderr) == (0, "")
        assert done.stdout == in_process


class TestRunNarration:
    """``sim run`` without ``--log`` tells the battle in words."""

    def test_narrates_the_outcome(self, capsys):
        """The narration names the battle and ends with who won (or a draw)."""
        code, out, err = run(capsys, "run", str(AMBUSH), "--seed", "1")
        assert (code, err) == (0, "")
        assert load_scenario(AMBUSH).name in out
        assert re.search(r"\bwin\b|draw", out)
        assert not any(line.startswith("{") for line in out.splitlines())

    def test_narration_is_deterministic(self, capsys):
        """The same seed narrates the same battle."""
        assert run(capsys, "run", str(AMBUSH), "--seed", "9") == run(
            capsys, "run", str(AMBUSH), "--seed", "9")


class TestRunOptions:
    """An option ``sim run`` would ignore is refused."""

    def test_narrate_without_log(self, capsys):
        """--narrate without --log changes nothing (run narrates anyway): refused, one line."""
        code, out, err = run(capsys, "run", str(AMBUSH), "--narrate")
        assert (code, out) == (2, "")
        assert err == ("sim run: --narrate adds the narration to --log; without --log the battle"
                       " is narrated anyway, so it would do nothing\n")


class TestLogErrors:
    """A log that cannot be written is bad input: exit 2, one line, no traceback."""

    def test_missing_directory(self, capsys, tmp_path):
        """``--log`` into a folder that does not exist exits 2 and writes nothing."""
        target = tmp_path / "nope" / "x.jsonl"
        code, out, err = run(capsys, "run", str(AMBUSH), "--log", str(target))
        assert code == 2
        assert "Traceback" not in err
        assert err == f"{target}:0:0: --log: cannot write (No such file or directory)\n"
        assert out == ""
        assert list(tmp_path.iterdir()) == []

    def test_log_is_a_directory(self, capsys, tmp_path):
        """``--log`` naming a directory exits 2 with one line."""
        target = tmp_path / "logs"
        target.mkdir()
        code, _, err = run(capsys, "run", str(AMBUSH), "--log", str(target))
        assert code == 2
        assert "Traceback" not in err
        assert err.startswith(f"{target}:0:0: --log: not a regular file")
        assert len(err.splitlines()) == 1

    def test_log_over_a_fifo_is_refused(self, capsys, tmp_path):
        """A FIFO named by --log was replaced by the log file itself: the node is left alone,
        exit 2, one line."""
        fifo = tmp_path / "pipe"
        os.mkfifo(fifo)
        code, out, err = run(capsys, "run", str(AMBUSH), "--log", str(fifo))
        assert (code, out) == (2, "")
        assert err == (f"{fifo}:0:0: --log: not a regular file: the log would replace it, not be"
                       " written to it (for a pipe, --log - writes to stdout)\n")
        assert stat.S_ISFIFO(fifo.stat().st_mode)

    @pytest.mark.skipif(not pathlib.Path("/dev/full").exists(), reason="no /dev/full")
    def test_log_to_a_device_is_written_in_place(self, capsys):
        """A character device is written to, never renamed over: --log /dev/null discards the
        log, --log /dev/full is a full disk (as root, both nodes were replaced by a file)."""
        code, out, _ = run(capsys, "run", str(AMBUSH), "--log", "/dev/null")
        assert (code, out) == (0, "")
        code, _, err = run(capsys, "run", str(AMBUSH), "--log", "/dev/full")
        assert (code, err) == (2, "/dev/full:0:0: --log: cannot write (No space left on device)\n")
        for device in ("/dev/null", "/dev/full"):
            assert stat.S_ISCHR(pathlib.Path(device).stat().st_mode)

    def test_log_over_the_scenario_is_refused(self, capsys, tmp_path):
        """--log naming the scenario it plays overwrote the scenario with the log."""
        scenario = tmp_path / "s.yaml"
        scenario.write_text(AMBUSH.read_text().replace("use: knight", "use: knight, hp: 30"))
        before = scenario.read_bytes()
        link = tmp_path / "also.jsonl"
        link.symlink_to(scenario)
        for target in (scenario, link):
            code, _, err = run(capsys, "run", str(scenario), "--log", str(target),
                               "--bestiary", str(AMBUSH.parent.parent / "bestiary"))
            assert code == 2
            assert err == (f"{target}:0:0: --log: is the input {scenario}: the log would overwrite"
                           " it; pick another path\n")
        assert scenario.read_bytes() == before and link.is_symlink()

    def test_log_over_a_file_the_battle_read_is_refused(self, capsys, tmp_path):
        """--log naming a bestiary file the battle read (sim run), or the run's scenario or
        bestiary (sim replay RUN_DIR --battle I) overwrote it with the log: the run could not
        be replayed again ('the scenario changed since the run began')."""
        shutil.copytree(AMBUSH.parent.parent / "bestiary", tmp_path / "bestiary")
        scenario = tmp_path / "s.yaml"
        shutil.copy(AMBUSH, scenario)
        assert run(capsys, "batch", str(scenario), "-n", "2", "--workers", "1", "--out",
                   str(tmp_path / "run"), "--no-progress", "--json")[0] == 0
        goblins = tmp_path / "bestiary" / "d20" / "goblinoids.yaml"
        before = {path: path.read_bytes() for path in (scenario, goblins)}
        for command, target in ((["run", str(scenario)], goblins),
                                (["replay", str(tmp_path / "run"), "--battle", "0"], goblins),
                                (["replay", str(tmp_path / "run"), "--battle", "0"], scenario)):
            code, _, err = run(capsys, *command, "--log", str(target))
            assert code == 2 and err == (f"{target}:0:0: --log: is the input {target}: the log"
                                         " would overwrite it; pick another path\n")
        assert {path: path.read_bytes() for path in before} == before

    def test_log_through_a_symlink_keeps_the_link(self, capsys, tmp_path):
        """A symlink to a log file is followed: the file is written, the link stays a link."""
        (tmp_path / "real.jsonl").write_text("old")
        link = tmp_path / "link.jsonl"
        link.symlink_to(tmp_path / "real.jsonl")
        code, _, _ = run(capsys, "run", str(AMBUSH), "--log", str(link))
        assert code == 0 and link.is_symlink()
        assert (tmp_path / "real.jsonl").read_text().startswith('{"event":"battle_started"')

    def test_empty_log_path_is_refused(self, capsys):
        """--log '' was taken for no --log (the battle narrated, no log written)."""
        err = usage_error(capsys, "run", str(AMBUSH), "--log", "")
        assert "argument --log: needs a file path, or - for stdout (got '')" in err

    def test_failed_log_leaves_no_temp_file(self, capsys, tmp_path):
        """A log that could not be written leaves no temporary file behind."""
        (tmp_path / "logs").mkdir()
        run(capsys, "run", str(AMBUSH), "--log", str(tmp_path / "logs"))
        assert sorted(p.name for p in tmp_path.iterdir()) == ["logs"]


class TestRunBadScenario:
    """``sim run`` on a bad scenario prints its problems and exits 2."""

    def test_problems_on_stderr(self, capsys, tmp_path, monkeypatch):
        """Each problem is one ``file:line:col: path: message`` line; stdout stays empty."""
        monkeypatch.chdir(tmp_path)
        bad = GOOD.replace("hp: 24", "hp: lots").replace("level: 3", "level: 99")
        (tmp_path / "bad.yaml").write_text(bad, encoding="utf-8")
        code, out, err = run(capsys, "run", "bad.yaml", "--log", "-")
        assert code == 2
        assert out == ""
        assert "Traceback" not in err
        lines = err.splitlines()
        assert len(lines) == 2
        assert lines[0].startswith("bad.yaml:7:29: sides[0].members[0].level: ")
        assert lines[1].startswith("bad.yaml:7:37: sides[0].members[0].hp: ")

    def test_missing_scenario(self, capsys, tmp_path):
        """A scenario that does not exist is one line and exit 2."""
        missing = tmp_path / "nope.yaml"
        code, out, err = run(capsys, "run", str(missing))
        assert (code, out) == (2, "")
        assert "Traceback" not in err
        assert len(err.splitlines()) == 1
        assert ":0:0: (document): cannot read file" in err


class TestValidate:
    """``sim validate FILE...``: 0 when all are good, else 2 with one line per problem."""

    def test_good_file(self, capsys, tmp_path, monkeypatch):
        """A good scenario is reported ok on stdout, with exit 0."""
        monkeypatch.chdir(tmp_path)
        (tmp_path / "good.yaml").write_text(GOOD, encoding="utf-8")
        assert run(capsys, "validate", "good.yaml") == (0, "good.yaml: ok (scenario)\n", "")

    def test_repository_scenario(self, capsys):
        """The repository's road ambush validates."""
        code, out, err = run(capsys, "validate", str(AMBUSH))
        assert (code, err) == (0, "")
        assert out == f"{AMBUSH}: ok (scenario)\n"

    def test_bad_file_one_line_per_problem(self, capsys, tmp_path, monkeypatch):
        """Three problems give exactly three well-formed stderr lines and exit 2."""
        monkeypatch.chdir(tmp_path)
        bad = (GOOD.replace("hp: 24", "hitpoints: 24")
               .replace("damage: 1d8", "damage: 2d6+")
               .replace("hp: 2d6", "hp: 0"))
        (tmp_path / "bad.yaml").write_text(bad, encoding="utf-8")
        code, out, err = run(capsys, "validate", "bad.yaml")
        assert code == 2
        assert out == ""
        assert "Traceback" not in err
        lines = err.splitlines()
        assert len(lines) == 3
        assert all(PROBLEM_LINE.match(line) for line in lines), lines
        assert [line.split(": ")[0] for line in lines] == [
            "bad.yaml:7:32", "bad.yaml:7:89", "bad.yaml:10:25"]
        assert [line.split(": ")[1] for line in lines] == [
            "sides[0].members[0].hitpoints",
            "sides[0].members[0].weapons[0].damage",
            "sides[1].members[0].hp",
        ]

    def test_good_and_bad_together(self, capsys, tmp_path, monkeypatch):
        """Every file is checked: good ones say ok, bad ones report, the exit is 2."""
        monkeypatch.chdir(tmp_path)
        (tmp_path / "good.yaml").write_text(GOOD, encoding="utf-8")
        (tmp_path / "bad.yaml").write_text(GOOD.replace("rules: d20", "rules: d21"),
                                           encoding="utf-8")
        (tmp_path / "empty.yaml").write_text("", encoding="utf-8")
        code, out, err = run(capsys, "validate", "bad.yaml", "good.yaml", "empty.yaml")
        assert code == 2
        assert out == "good.yaml: ok (scenario)\n"
        assert err.splitlines() == [
            "bad.yaml:2:8: rules: must be one of d20, d100, 2d10, d10 (got 'd21'); "
            "did you mean 'd20'?",
            "empty.yaml:0:0: (document): file is empty",
        ]

    def test_directory(self, capsys, tmp_path, monkeypatch):
        """A directory given as a file is one problem, exit 2, no traceback."""
        monkeypatch.chdir(tmp_path)
        (tmp_path / "adir").mkdir()
        code, out, err = run(capsys, "validate", "adir")
        assert (code, out) == (2, "")
        assert "Traceback" not in err
        assert err.startswith("adir:0:0: (document): cannot read file")
        assert len(err.splitlines()) == 1

    def test_python_tag_never_runs(self, capsys, tmp_path, monkeypatch):
        """A YAML tag that would run a command is refused; the command does not run."""
        monkeypatch.chdir(tmp_path)
        marker = tmp_path / "PWNED"
        evil = GOOD.replace("name: Duel",
                            f"name: !!python/object/apply:os.system ['touch {marker}']")
        (tmp_path / "evil.yaml").write_text(evil, encoding="utf-8")
        code, _, err = run(capsys, "validate", "evil.yaml")
        assert code == 2
        assert err.startswith("evil.yaml:1:7: name: YAML tags are not allowed")
        assert not marker.exists()

    def test_bestiary_option(self, capsys, tmp_path, monkeypatch, no_shipped_bestiary):
        """``--bestiary DIR`` lets ``use:`` find entries in DIR (the shipped ogre left out)."""
        monkeypatch.chdir(tmp_path)
        lib = tmp_path / "lib"
        (lib / "d20").mkdir(parents=True)
        (lib / "d20" / "x.yaml").write_text(
            "rules: d20\ncreatures:\n  ogre: {hp: 30, weapons: [{name: club, damage: 1d10}]}\n",
            encoding="utf-8")
        text = GOOD.replace("{name: Gob, hp: 2d6, weapons: [{name: blade, damage: 1d6}]}",
                            "{use: ogre, count: 2}")
        (tmp_path / "s.yaml").write_text(text, encoding="utf-8")
        assert run(capsys, "validate", "s.yaml")[0] == 2
        assert run(capsys, "validate", "s.yaml", "--bestiary", "lib")[0] == 0
        code, out, _ = run(capsys, "run", "s.yaml", "--bestiary", "lib", "--log", "-")
        assert code == 0
        names = [c["name"] for c in json.loads(out.splitlines()[0])["combatants"]]
        assert names == ["Aria", "ogre 1", "ogre 2"]

    def test_missing_bestiary_folder_named(self, capsys, tmp_path, monkeypatch):
        """A ``--bestiary`` folder that does not exist is named in the report."""
        monkeypatch.chdir(tmp_path)
        text = GOOD.replace("{name: Gob, hp: 2d6, weapons: [{name: blade, damage: 1d6}]}",
                            "{use: ogre}")
        (tmp_path / "s.yaml").write_text(text, encoding="utf-8")
        code, _, err = run(capsys, "validate", "s.yaml", "--bestiary", "no_such_lib")
        assert code == 2
        assert "no_such_lib" in err
