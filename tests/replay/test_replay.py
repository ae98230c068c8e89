"""Replaying: battle I of a batch from its seed, saved logs, and what a bad input does."""

from __future__ import annotations

import json
import pathlib
import re
import shutil

import pytest

from sim import cli
from sim.errors import InputError
from sim.replay.load import event_problem, read_log, split_battles
from tests.batch.helpers import batch, write_journal
from tests.day_files import MARSH, WARREN

DATA = pathlib.Path(__file__).parent.parent / "data"
SKIRMISH = DATA / "golden" / "skirmish.yaml"


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


class TestSavedLogs:
    """`sim replay LOG.jsonl` narrates a saved log; broken logs exit 2 with file:line."""

    def test_narrates_a_saved_log(self, tmp_path: pathlib.Path, capsys) -> None:
        """A log written by `sim run --log --narrate` replays to the narration `sim run` printed."""
        log = tmp_path / "b.jsonl"
        code, told, _ = run(capsys, "run", str(SKIRMISH), "--seed", "4", "--log", str(log), "--narrate")
        assert code == 0 and told
        code, replayed, _ = run(capsys, "replay", str(log), "--no-interactive")
        assert code == 0 and replayed == told

    def test_log_alone_prints_nothing(self, tmp_path: pathlib.Path, capsys) -> None:
        """`--log PATH` writes the log and prints no narration unless --narrate asks."""
        log = tmp_path / "b.jsonl"
        assert run(capsys, "run", str(SKIRMISH), "--seed", "4", "--log", str(log)) == (0, "", "")
        again = tmp_path / "c.jsonl"
        assert run(capsys, "replay", str(log), "--log", str(again)) == (0, "", "")
        assert again.read_bytes() == log.read_bytes()

    def test_narrate_with_log_to_stdout_goes_to_stderr(self, capsys) -> None:
        """`--log - --narrate`: the log alone on stdout, the narration on stderr."""
        code, out, err = run(capsys, "run", str(SKIRMISH), "--seed", "4", "--log", "-", "--narrate")
        assert code == 0 and out.startswith('{"event":"battle_started"') and "Golden skirmish" in err

    @pytest.mark.parametrize("index", ["-1", "0", "5000"])
    def test_battle_out_of_a_log(self, tmp_path: pathlib.Path, capsys, index: str) -> None:
        """--battle -1, 0 and 5000 get the same one-line message; it says what the log holds
        (a sim run log's one battle has no batch index: --battle 0 missed it too)."""
        log = tmp_path / "b.jsonl"
        run(capsys, "run", str(SKIRMISH), "--log", str(log))
        code, _, err = run(capsys, "replay", str(log), "--battle", index)
        assert code == 2 and err == (f"{log}:0:0: (document): no battle {index} in this log; its"
                                     " battle is no batch's (a sim run log): replay it without"
                                     " --battle\n")

    def test_battle_out_of_a_batch_log(self, tmp_path: pathlib.Path, capsys) -> None:
        out = tmp_path / "run"
        assert run(capsys, "batch", str(SKIRMISH), "-n", "5", "--logs", "all", "--out", str(out),
                   "--workers", "1", "--no-progress", "--json")[0] == 0
        (log,) = (out / "logs").iterdir()
        code, _, err = run(capsys, "replay", str(log), "--battle", "7")
        assert code == 2 and err == (f"{log}:0:0: (document): no battle 7 in this log; it holds"
                                     " battles 0 to 4 of its batch\n")

    def test_battle_held_twice_is_refused(self, tmp_path: pathlib.Path, capsys) -> None:
        """Two runs' logs put together hold battle 0 twice: --battle 0 replayed (and --verify
        checked) the first without a word."""
        out = tmp_path / "run"
        assert run(capsys, "batch", str(SKIRMISH), "-n", "3", "--logs", "all", "--out", str(out),
                   "--workers", "1", "--no-progress", "--json")[0] == 0
        (log,) = (out / "logs").iterdir()
        both = tmp_path / "both.jsonl"
        both.write_bytes(log.read_bytes() * 2)
        for verify in ([], ["--verify"]):
            code, _, err = run(capsys, "replay", *verify, str(both), "--battle", "0")
            assert code == 2 and err == (f"{both}:0:0: (document): holds battle 0 2 times: logs of"
                                         " several runs put together; replay it from its own"
                                         " run's log\n")

    def test_battles_and_days_put_together_are_refused(self, tmp_path: pathlib.Path, capsys
                                                       ) -> None:
        """A battle's log and a day's put together were split as one or the other: the battle
        took in the whole day (narrated after it, 'differs' on --verify), or the day the
        battle (verify blamed an encounter file 'changed since')."""
        battle, day = tmp_path / "battle.jsonl", tmp_path / "day.jsonl"
        assert run(capsys, "run", str(SKIRMISH), "--log", str(battle))[0] == 0
        assert run(capsys, "run", str(WARREN), "--seed", "10", "--log", str(day))[0] == 0
        for first, second in ((battle, day), (day, battle)):
            both = tmp_path / "both.jsonl"
            both.write_bytes(first.read_bytes() + second.read_bytes())
            line = len(first.read_text().splitlines()) + 1
            opener = "day_started" if first == battle else "battle_started"
            for how in (["--no-interactive"], ["--verify"]):
                code, _, err = run(capsys, "replay", *how, str(both))
                assert code == 2 and err == (f"{both}:{line}:1: {opener}: a log holds battles or"
                                             " days, not both (logs put together): replay each"
                                             " from its own log\n")

    @pytest.mark.parametrize(
        ("text", "where"),
        [
            ("{oops\n", "b.jsonl:1:2: (line): not JSON"),
            ('{"event":"check_rolled","round":1,"t":0}\n', "b.jsonl:1:1: check_rolled: missing"),
            ('{"event":"battle_started","round":0,"t":0.0,"schema":1,"seed":1,"rules":"d20",'
             '"scenario":"x","scenario_sha256":"","version":"0","combatants":5}\n',
             "b.jsonl:1:1: battle_started: combatants must be a list"),
            ('[1, 2]\n', "b.jsonl:1:1: (line): not an event object"),
        ],
    )
    def test_hostile_logs_exit_2(self, tmp_path: pathlib.Path, capsys, text: str, where: str
                                 ) -> None:
        """Malformed logs are reported as file:line:col with exit 2, never a traceback."""
        log = tmp_path / "b.jsonl"
        log.write_text(text)
        code, _, err = run(capsys, "replay", str(log))
        assert code == 2 and "Traceback" not in err
        assert err.startswith(str(tmp_path / where)) or where in err

    @pytest.mark.parametrize(("edit", "problem"), [
        ("items", "battle_started: combatants[0].items must be an object of item name: count (got"
                  " [1, 2])"),
        ("item", "item_used: item must be a string (got [])")])
    def test_items_of_another_shape_exit_2(self, tmp_path: pathlib.Path, day_log: list[dict],
                                           edit: str, problem: str) -> None:
        """A combatant's items, or an item_used's item, of another shape than sim writes were
        read, and the step-by-step replay (sim.replay.state) crashed on them with a TypeError."""
        events = [json.loads(json.dumps(e)) for e in day_log]
        start = next(k for k, e in enumerate(events) if e["event"] == "battle_started")
        events[start]["combatants"][0]["items"] = {"healing potion": 1}
        used = {"event": "item_used", "round": 1, "t": 0.5, "actor": events[start]["combatants"][0]["name"],
                "item": "healing potion", "target": events[start]["combatants"][0]["name"],
                "healed": 1, "hp_before": 1, "hp_after": 2, "left": 0}
        events.insert(start + 1, used)
        if edit == "items":
            events[start]["combatants"][0]["items"] = [1, 2]
        else:
            used["item"] = []
        log = tmp_path / "b.jsonl"
        log.write_text("".join(json.dumps(e) + "\n" for e in events))
        number = start + 1 if edit == "items" else start + 2
        with pytest.raises(InputError) as caught:
            read_log(log)
        assert str(caught.value) == f"{log}:{number}:1: {problem}"

    def test_starting_resource_not_an_integer_exit_2(self, tmp_path: pathlib.Path, day_log: list[dict]
                                                     ) -> None:
        """A combatant's heroism (morale, spirit, psy) written as text was read, and the
        step-by-step replay crashed counting it down (TypeError: 'str' - 'int')."""
        events = [json.loads(json.dumps(e)) for e in day_log]
        start = next(k for k, e in enumerate(events) if e["event"] == "battle_started")
        events[start]["combatants"][0]["psy"] = "x"
        log = tmp_path / "b.jsonl"
        log.write_text("".join(json.dumps(e) + "\n" for e in events))
        with pytest.raises(InputError) as caught:
            read_log(log)
        assert str(caught.value) == (f"{log}:{start + 1}:1: battle_started: combatants[0].psy must be"
                                     " an integer (got 'x')")

    def test_batch_null_is_refused(self) -> None:
        """A `batch` field that is not an object is a problem, not a crash."""
        event = {"event": "battle_started", "round": 0, "t": 0.0, "schema": 1, "seed": 1,
                 "rules": "d20", "scenario": "x", "scenario_sha256": "", "version": "0",
                 "combatants": [], "batch": None}
        assert event_problem(event).startswith("batch must be an object")

    def test_split_battles(self) -> None:
        """A stream of events splits at every battle_started."""
        events = [{"event": "battle_started"}, {"event": "x"}, {"event": "battle_started"}]
        assert [len(b) for b in split_battles(events)] == [2, 1]

    def test_missing_file(self, tmp_path: pathlib.Path) -> None:
        """A missing log is an input error naming the file."""
        from sim.errors import InputError

        with pytest.raises(InputError, match=r"nope.jsonl:0:0: \(document\): cannot read"):
            read_log(tmp_path / "nope.jsonl")


class TestRunFolders:
    """Regenerating battles from a run folder, and refusing what would regenerate others."""

    def _run(self, tmp_path: pathlib.Path, scenario: pathlib.Path, *extra: str) -> pathlib.Path:
        out = tmp_path / "run"
        assert cli.main(["batch", str(scenario), "-n", "6", "--workers", "1", "--out", str(out),
                         "--json", "--no-progress", *extra]) == 0
        return out

    def test_bestiary_option_is_remembered(self, tmp_path: pathlib.Path, capsys) -> None:
        """A run made with --bestiary DIR replays without saying it again."""
        scenario = brute_scenario(tmp_path)
        run_dir = self._run(tmp_path, scenario, "--bestiary", str(tmp_path / "lib"))
        capsys.readouterr()
        code, out, err = run(capsys, "replay", str(run_dir), "--battle", "3", "--no-interactive")
        assert (code, err) == (0, "") and "brute" in out

    def test_changed_bestiary_is_refused(self, tmp_path: pathlib.Path, capsys) -> None:
        """After a bestiary entry the run used changes, replay exits 2 instead of inventing."""
        root = tmp_path / "proj"
        shutil.copytree(DATA / "golden", root / "scenarios")
        lib = root / "bestiary" / "d20"
        lib.mkdir(parents=True)
        (lib / "b.yaml").write_text("rules: d20\ncreatures:\n  brute: {hp: 9, weapons: "
                                    "[{name: club, damage: 1d6}]}\n")
        scenario = root / "scenarios" / "s.yaml"
        scenario.write_text("name: s\nrules: d20\nsides:\n  - {name: h, party: true, members: "
                            "[{name: A, hp: 8, weapons: [{name: s, damage: 1d6}]}]}\n"
                            "  - {name: m, members: [{use: brute}]}\n")
        run_dir = self._run(tmp_path, scenario)
        (lib / "b.yaml").write_text((lib / "b.yaml").read_text().replace("hp: 9", "hp: 19"))
        capsys.readouterr()
        code, _, err = run(capsys, "replay", str(run_dir), "--battle", "0")
        assert code == 2 and "bestiary entry it uses changed" in err
        code, _, err = run(capsys, "batch", "--resume", str(run_dir), "--no-progress")
        assert code == 0  # the run is complete: resume just shows its summary

    @pytest.mark.parametrize("index", ["-1", "5000"])
    def test_battle_out_of_the_run(self, tmp_path: pathlib.Path, capsys, index: str) -> None:
        """--battle -1 and --battle 5000 get the same one-line message."""
        run_dir = self._run(tmp_path, SKIRMISH)
        capsys.readouterr()
        code, _, err = run(capsys, "replay", str(run_dir), "--battle", index)
        assert code == 2
        assert err == f"sim replay: --battle: the run has battles 0 to 5 (got {index})\n"

    def test_battle_past_a_precision_stop_is_refused(self, tmp_path: pathlib.Path, capsys) -> None:
        """A run that --precision stopped short of -n never played the battles past its stop:
        --battle 5000 of a run of 1000 regenerated one as the run's (said 'battles 0 to 19999')."""
        out = tmp_path / "run"
        code, summary, _ = run(capsys, "batch", str(SKIRMISH), "-n", "20000", "--precision", "0.2",
                               "--workers", "1", "--out", str(out), "--no-progress", "--json")
        played = json.loads(summary)["battles"]
        assert code == 0 and played < 20000
        for index in (str(played), "5000"):
            code, _, err = run(capsys, "replay", str(out), "--battle", index, "--no-interactive")
            assert code == 2 and err == (f"sim replay: --battle: the run has battles 0 to"
                                         f" {played - 1} (got {index})\n")
        assert run(capsys, "replay", str(out), "--battle", str(played - 1), "--no-interactive")[0] == 0

    def test_bestiary_option_for_a_moved_bestiary(self, tmp_path: pathlib.Path, capsys) -> None:
        """replay RUN_DIR and report take --bestiary DIR: a bestiary moved since the run is found."""
        root = tmp_path / "proj"
        lib = root / "bestiary" / "d20"
        lib.mkdir(parents=True)
        (lib / "b.yaml").write_text("rules: d20\ncreatures:\n  brute: {hp: 9, weapons: "
                                    "[{name: club, damage: 1d6}]}\n")
        scenario = root / "s.yaml"
        scenario.write_text("name: s\nrules: d20\nsides:\n  - {name: h, party: true, members: "
                            "[{name: A, hp: 8, weapons: [{name: s, damage: 1d6}]}]}\n"
                            "  - {name: m, members: [{use: brute}]}\n")
        run_dir = self._run(tmp_path, scenario)
        moved = tmp_path / "elsewhere"
        moved.mkdir()
        shutil.move(lib, moved / "d20")
        capsys.readouterr()
        code, _, err = run(capsys, "replay", str(run_dir), "--battle", "0")
        assert code == 2 and "no bestiary entry 'brute'" in err
        code, out, err = run(capsys, "replay", str(run_dir), "--worst", "--no-interactive",
                             "--bestiary", str(moved))
        assert (code, err) == (0, "") and "brute" in out
        code, out, err = run(capsys, "report", str(run_dir), "--bestiary", str(moved / "d20"))
        assert (code, err) == (0, "") and "report.html" in out
        assert "brute" in (run_dir / "report.html").read_text(encoding="utf-8")

    @pytest.mark.parametrize(
        "manifest",
        ["[]", "null", "{}", '{"n": "x"}', "not json"],
    )
    def test_hostile_manifest(self, tmp_path: pathlib.Path, capsys, manifest: str) -> None:
        """A damaged manifest gives exit 2 and one file:line:col line, for replay and resume."""
        run_dir = self._run(tmp_path, SKIRMISH)
        (run_dir / "manifest.json").write_text(manifest)
        for args in (["replay", str(run_dir), "--battle", "0"],
                     ["batch", "--resume", str(run_dir), "--no-progress"]):
            code, _, err = run(capsys, *args)
            assert code == 2 and "Traceback" not in err
            assert re.match(rf"{re.escape(str(run_dir / 'manifest.json'))}:\d+:\d+: ", err)

    def test_resume_of_finished_run_shows_summary(self, tmp_path: pathlib.Path, capsys) -> None:
        """--resume of a complete run prints its summary and runs nothing."""
        run_dir = self._run(tmp_path, SKIRMISH)
        before = json.loads((run_dir / "summary.json").read_text())
        capsys.readouterr()
        code, out, _ = run(capsys, "batch", "--resume", str(run_dir), "--json", "--no-progress")
        assert code == 0 and json.loads(out) == before

    def test_damaged_part_is_an_input_error(self, tmp_path: pathlib.Path, capsys) -> None:
        """A part that is not an Arrow file stops --resume with exit 2 naming the part."""
        from sim.batch import BatchSpec, start_run
        from sim.scenario import load_scenario

        folder = start_run(tmp_path / "cut", load_scenario(SKIRMISH), BatchSpec(n=20, seed=1,
                           chunk=10), ["batch"])
        folder.release()
        write_journal(folder.path, [b"ARROW1 not really"])
        code, _, err = run(capsys, "batch", "--resume", str(folder.path), "--no-progress")
        assert code == 2 and "parts.journal:0:0: (part 0): unreadable" in err


class TestVerify:
    """`sim replay --verify LOG.jsonl`: 0 identical, 1 on a mismatch, 2 when no scenario matches."""

    def _log(self, tmp_path: pathlib.Path, capsys) -> tuple[pathlib.Path, pathlib.Path]:
        scenario = tmp_path / "s.yaml"
        scenario.write_text(SKIRMISH.read_text())
        log = tmp_path / "b.jsonl"
        assert cli.main(["run", str(scenario), "--seed", "3", "--log", str(log)]) == 0
        capsys.readouterr()
        return scenario, log

    def test_identical(self, tmp_path: pathlib.Path, capsys) -> None:
        """An untouched log re-simulates identically: exit 0."""
        _, log = self._log(tmp_path, capsys)
        code, out, _ = run(capsys, "replay", "--verify", str(log))
        assert code == 0 and "identical" in out

    def test_first_difference_reported(self, tmp_path: pathlib.Path, capsys) -> None:
        """A log edited at one event: exit 1 naming that event's line."""
        _, log = self._log(tmp_path, capsys)
        lines = log.read_text().splitlines()
        target = next(i for i, line in enumerate(lines) if '"event":"damage_dealt"' in line)
        event = json.loads(lines[target])
        event["amount"] += 1
        lines[target] = json.dumps(event, separators=(",", ":"))
        log.write_text("\n".join(lines) + "\n")
        code, _, err = run(capsys, "replay", "--verify", str(log))
        assert code == 1 and f"first difference at event {target + 1}" in err

    @pytest.mark.parametrize("cut", [-1, 1])
    def test_a_log_one_line_short_or_long_is_no_match(self, tmp_path: pathlib.Path, capsys,
                                                      cut: int) -> None:
        """A log cut before its last line, or with one more line than the battle wrote (the
        last event again), is not the battle: exit 1 saying how many events each has."""
        _, log = self._log(tmp_path, capsys)
        lines = log.read_text().splitlines()
        n = len(lines)
        edited = lines[:-1] if cut < 0 else [*lines, lines[-1]]
        log.write_text("\n".join(edited) + "\n")
        code, out, err = run(capsys, "replay", "--verify", str(log))
        assert code == 1 and "identical" not in out, (out, err)
        assert f"the log has {n + cut} events, the simulation {n}" in err

    def test_changed_scenario_exits_2(self, tmp_path: pathlib.Path, capsys) -> None:
        """A scenario edited since the log was written: exit 2 naming every file tried."""
        scenario, log = self._log(tmp_path, capsys)
        scenario.write_text(scenario.read_text() + "\n# edited\n")
        code, _, err = run(capsys, "replay", "--verify", str(log))
        assert code == 2 and len(err.splitlines()) == 1
        assert err.startswith(f"{log}:1:1: battle_started: no scenario file with the logged SHA-256")
        assert f"{scenario} (changed since the log was written: SHA-256 differs)" in err
        assert err.rstrip().endswith("give the scenario with --scenario PATH")

    def test_extra_bestiary_folders(self, tmp_path: pathlib.Path, capsys) -> None:
        """A log written with --bestiary verifies with the folders given again (that said
        'first difference at event 1', exit 1: the header's folder list was compared); a
        logged folder that is gone is refused (its entries came silently from elsewhere, and
        the log 'differed') unless --bestiary gives the folder anew."""
        lib = tmp_path / "lib"
        (lib / "d20").mkdir(parents=True)
        (lib / "d20" / "x.yaml").write_text(
            "rules: d20\ncreatures:\n  vault ogre: {hp: 30, weapons: [{name: club, damage: 1d8}]}\n")
        scenario = tmp_path / "s.yaml"
        scenario.write_text(SKIRMISH.read_text().replace(
            "- {name: ghoul, count: 3,", "- {use: vault ogre}\n      - {name: ghoul, count: 2,"))
        log = tmp_path / "b.jsonl"
        assert cli.main(["run", str(scenario), "--bestiary", str(lib), "--log", str(log)]) == 0
        assert run(capsys, "replay", "--verify", str(log))[0] == 0
        assert run(capsys, "replay", "--verify", str(log), "--bestiary", str(lib))[0] == 0
        lib.rename(tmp_path / "moved")
        code, _, err = run(capsys, "replay", "--verify", str(log))
        assert (code, err) == (2, f"{log}:1:1: battle_started.bestiary: the logged bestiary folder"
                                  f" {lib} is not a folder any more; give it with --bestiary DIR\n")
        code, out, _ = run(capsys, "replay", "--verify", str(log), "--bestiary", str(tmp_path / "moved"))
        assert code == 0 and "identical" in out

    def test_header_records_both_paths(self, tmp_path: pathlib.Path, capsys, monkeypatch) -> None:
        """battle_started keeps the path as given and adds it resolved (absolute)."""
        monkeypatch.chdir(tmp_path)
        (tmp_path / "s.yaml").write_text(SKIRMISH.read_text())
        assert cli.main(["run", "s.yaml", "--log", "b.jsonl"]) == 0
        head = read_log(tmp_path / "b.jsonl")[0]
        assert head["scenario_path"] == "s.yaml"
        assert head["scenario_path_resolved"] == str(tmp_path / "s.yaml")

    def test_bestiary_option_is_not_part_of_the_battle(self, tmp_path: pathlib.Path, capsys
                                                       ) -> None:
        """--bestiary given to --verify (the run's folder again, or where it moved) is where the
        stat blocks lie, not what the battle did: identical. A changed stat block still differs."""
        scenario = brute_scenario(tmp_path)
        log = tmp_path / "b.jsonl"
        assert cli.main(["run", str(scenario), "--seed", "3", "--log", str(log), "--bestiary",
                         str(tmp_path / "lib")]) == 0
        capsys.readouterr()
        code, out, err = run(capsys, "replay", "--verify", str(log), "--bestiary", str(tmp_path / "lib"))
        assert (code, err) == (0, "") and "identical" in out
        moved = tmp_path / "elsewhere"
        shutil.move(tmp_path / "lib", moved)
        code, out, err = run(capsys, "replay", "--verify", str(log), "--bestiary", str(moved))
        assert (code, err) == (0, "") and "identical" in out
        (moved / "d20" / "b.yaml").write_text((moved / "d20" / "b.yaml").read_text()
                                              .replace("hp: 9", "hp: 19"))
        code, _, err = run(capsys, "replay", "--verify", str(log), "--bestiary", str(moved))
        assert code == 1 and "first difference at event 1" in err

    def test_from_another_folder(self, tmp_path: pathlib.Path, capsys, monkeypatch) -> None:
        """Written with a relative path, verified from elsewhere: the absolute path finds it."""
        project = tmp_path / "project"
        (project / "logs").mkdir(parents=True)
        (project / "s.yaml").write_text(SKIRMISH.read_text())
        monkeypatch.chdir(project)
        assert cli.main(["run", "s.yaml", "--seed", "2", "--log", "logs/b.jsonl"]) == 0
        monkeypatch.chdir(tmp_path)
        code, out, _ = run(capsys, "replay", "--verify", "project/logs/b.jsonl")
        assert code == 0 and f"scenario {project / 's.yaml'}" in out

    def test_moved_project_beside_the_log(self, tmp_path: pathlib.Path, capsys, monkeypatch
                                          ) -> None:
        """A project moved wholesale: the logged path from the log's folder finds the scenario."""
        old = tmp_path / "old"
        old.mkdir()
        (old / "s.yaml").write_text(SKIRMISH.read_text())
        monkeypatch.chdir(old)
        assert cli.main(["run", "s.yaml", "--seed", "2", "--log", "b.jsonl"]) == 0
        old.rename(tmp_path / "new")
        monkeypatch.chdir(tmp_path)
        code, out, _ = run(capsys, "replay", "--verify", "new/b.jsonl")
        assert code == 0 and f"scenario {pathlib.Path('new/s.yaml')}" in out

    def test_working_folder_is_tried_last(self, tmp_path: pathlib.Path, capsys, monkeypatch
                                          ) -> None:
        """The logged relative path is tried from the working folder after the others."""
        here = tmp_path / "here"
        here.mkdir()
        (here / "s.yaml").write_text(SKIRMISH.read_text())
        monkeypatch.chdir(here)
        assert cli.main(["run", "s.yaml", "--seed", "2", "--log", str(tmp_path / "b.jsonl")]) == 0
        here.rename(tmp_path / "there")
        monkeypatch.chdir(tmp_path / "there")
        code, out, _ = run(capsys, "replay", "--verify", str(tmp_path / "b.jsonl"))
        assert code == 0 and "scenario s.yaml" in out

    def test_scenario_option_first(self, tmp_path: pathlib.Path, capsys) -> None:
        """--scenario PATH is tried first; a copy with other bytes is skipped for one that matches."""
        scenario, log = self._log(tmp_path, capsys)
        copy = tmp_path / "copy.yaml"
        copy.write_bytes(scenario.read_bytes())
        code, out, _ = run(capsys, "replay", "--verify", str(log), "--scenario", str(copy))
        assert code == 0 and f"scenario {copy}" in out
        copy.write_text("name: other\n")
        code, out, _ = run(capsys, "replay", "--verify", str(log), "--scenario", str(copy))
        assert code == 0 and f"scenario {scenario}" in out

    def test_scenario_option_rescues_a_lost_log(self, tmp_path: pathlib.Path, capsys) -> None:
        """When nothing logged matches any more, --scenario names the file: exit 0."""
        scenario, log = self._log(tmp_path, capsys)
        kept = tmp_path / "kept" / "k.yaml"
        kept.parent.mkdir()
        scenario.rename(kept)
        code, _, err = run(capsys, "replay", "--verify", str(log))
        assert code == 2 and f"{scenario} (not found)" in err
        code, out, _ = run(capsys, "replay", "--verify", str(log), "--scenario", str(kept))
        assert code == 0 and "identical" in out

    def test_scenario_option_needs_verify(self, tmp_path: pathlib.Path, capsys) -> None:
        """--scenario without --verify is refused rather than ignored."""
        _, log = self._log(tmp_path, capsys)
        code, _, err = run(capsys, "replay", str(log), "--scenario", "x.yaml")
        assert code == 2 and "only used with --verify" in err

    @pytest.mark.parametrize("extra", [["--log", "v.jsonl"], ["--narrate"], ["--no-interactive"],
                                       ["--worst"]])
    def test_verify_refuses_what_it_would_ignore(self, tmp_path: pathlib.Path, capsys, monkeypatch,
                                                 extra) -> None:
        """--verify only compares: an option it would ignore is refused, and nothing is written."""
        monkeypatch.chdir(tmp_path)  # where a relative --log would land
        _, log = self._log(tmp_path, capsys)
        code, _, err = run(capsys, "replay", "--verify", str(log), *extra)
        assert code == 2 and f"{extra[0]} would do nothing with it" in err
        assert not (tmp_path / "v.jsonl").exists()

    @pytest.mark.parametrize(("extra", "told"), [
        (["--no-interactive", "--narrate"], "--narrate adds the narration to --log"),
        (["--log", "v.jsonl", "--no-interactive"], "--no-interactive would do nothing with --log"),
        (["--no-interactive", "--bestiary", str(DATA.parent.parent / "bestiary")],
         "--bestiary would do nothing here"),
    ], ids=["narrate-without-log", "no-interactive-with-log", "bestiary-for-a-log"])
    def test_replay_refuses_what_it_would_ignore(self, tmp_path: pathlib.Path, capsys, monkeypatch,
                                                 extra, told) -> None:
        """An option a log's replay would ignore (it was accepted and did nothing) is refused,
        and nothing is written."""
        monkeypatch.chdir(tmp_path)
        _, log = self._log(tmp_path, capsys)
        code, out, err = run(capsys, "replay", str(log), *extra)
        assert code == 2 and out == "" and err.startswith(f"sim replay: {told}")
        assert len(err.splitlines()) == 1 and not (tmp_path / "v.jsonl").exists()

    def test_log_over_what_replay_reads_is_refused(self, tmp_path: pathlib.Path, capsys) -> None:
        """replay LOG --log LOG, or RUN_DIR --log a file of it, overwrote what it read (a log of
        many battles kept only the one replayed): refused, nothing written."""
        _, log = self._log(tmp_path, capsys)
        before = log.read_bytes()
        code, _, err = run(capsys, "replay", str(log), "--log", str(log))
        assert code == 2 and err == (f"{log}:0:0: --log: is the input {log}: the log would"
                                     " overwrite it; pick another path\n")
        assert log.read_bytes() == before
        batch(tmp_path, "run", str(SKIRMISH), "-n", "3", "--workers", "1")
        summary = tmp_path / "run" / "summary.json"
        kept = summary.read_bytes()
        code, _, err = run(capsys, "replay", str(tmp_path / "run"), "--battle", "1", "--log",
                           str(summary))
        assert code == 2 and err.startswith(f"{summary}:0:0: --log: is a file of the run folder")
        assert summary.read_bytes() == kept

    def test_pick_needs_a_run_folder(self, tmp_path: pathlib.Path, capsys) -> None:
        """--worst on a LOG.jsonl is refused rather than ignored (a log's battle is --battle)."""
        _, log = self._log(tmp_path, capsys)
        code, _, err = run(capsys, "replay", str(log), "--worst")
        assert code == 2 and "--worst picks a battle of a RUN_DIR" in err


class TestPicks:
    """`sim replay RUN_DIR --worst | --median | --best`."""

    def test_worst_is_a_party_loss_best_a_win(self, tmp_path: pathlib.Path, capsys) -> None:
        """The worst battle kills at least as many party members as the best one."""
        from sim.replay.picks import pick_battles

        out = tmp_path / "run"
        assert cli.main(["batch", str(SKIRMISH), "-n", "40", "--workers", "1", "--out", str(out),
                         "--json", "--no-progress"]) == 0
        picks = pick_battles(out)
        capsys.readouterr()
        ends = {}
        for pick in ("worst", "best"):
            assert cli.main(["replay", str(out), f"--{pick}", "--log", "-"]) == 0
            events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
            assert events[0]["batch"]["index"] == picks[pick]
            ends[pick] = events[-1]
        party = {"Aria", "Brom"}
        assert len(party & set(ends["worst"]["dead"])) >= len(party & set(ends["best"]["dead"]))
        assert ends["best"]["winner"] == "heroes"

    def test_battle_and_a_pick_are_refused_together(self, tmp_path: pathlib.Path, capsys) -> None:
        """--battle I with --best on a RUN_DIR is refused (one of them would be ignored)."""
        batch(tmp_path, "run", str(SKIRMISH), "-n", "5", "--workers", "1")
        code, _, err = run(capsys, "replay", str(tmp_path / "run"), "--battle", "3", "--best")
        assert code == 2 and "give --battle I or --best, not both" in err


class TestReportCommand:
    """`sim report RUN_DIR` and `sim batch --report` write the run's report.html."""

    def test_batch_report_and_report_command(self, tmp_path: pathlib.Path, capsys) -> None:
        """--report writes report.html after the summary; `sim report` refuses to replace it,
        and with --force rewrites the same bytes."""
        out = tmp_path / "run"
        code = cli.main(["batch", str(SKIRMISH), "-n", "20", "--workers", "1", "--out", str(out),
                         "--json", "--no-progress", "--report"])
        captured = capsys.readouterr()
        assert code == 0 and json.loads(captured.out)["battles"] == 20  # stdout: JSON only
        assert "report:" in captured.err
        first = (out / "report.html").read_bytes()
        assert b"<svg" in first
        code, _, err = run(capsys, "report", str(out))
        assert code == 2 and err == (f"{out / 'report.html'}:0:0: (document): already there;"
                                     f" sim report --force {out} replaces it\n")
        code, printed, _ = run(capsys, "report", str(out), "--force")
        assert code == 0 and printed.strip() == f"report: {out / 'report.html'}"
        assert (out / "report.html").read_bytes() == first

    def test_report_of_a_non_run_folder(self, tmp_path: pathlib.Path, capsys) -> None:
        """`sim report` on a folder without a summary exits 2 with file:line:col."""
        code, _, err = run(capsys, "report", str(tmp_path))
        assert code == 2 and err.startswith(f"{tmp_path / 'summary.json'}:0:0: ")


HOSTILE = DATA / "hostile"
SECRET = "TOP-SECRET"  # a line of tests/data/hostile/unrelated.txt: never to be printed
# Well-formed logs whose scenario_path is hostile: only --verify opens it.
SCENARIO_PATH_CASES = {"log_device.jsonl", "log_outside_file.jsonl"}


class TestHostileLogs:
    """Logs written by someone else: exit 2 with file:line:col, never a traceback or a leak."""

    @pytest.mark.parametrize(
        ("case", "verify"),
        [(p.name, verify) for p in sorted(HOSTILE.glob("log_*.jsonl")) for verify in (False, True)
         if verify or p.name not in SCENARIO_PATH_CASES],
    )
    def test_exit_2_with_location(self, capsys, case: str, verify: bool) -> None:
        """Replaying or verifying a hostile log exits 2 with one file:line:col line."""
        extra = ["--verify"] if verify else ["--no-interactive"]
        code, out, err = run(capsys, "replay", str(HOSTILE / case), *extra)
        assert code == 2, (out, err)
        assert len(err.splitlines()) == 1 and "Traceback" not in err
        assert re.match(r"^\S.*:\d+:\d+: ", err)
        assert SECRET not in out + err

    def test_outside_file_is_not_parsed(self, capsys) -> None:
        """A log whose scenario_path names an unrelated file: its hash differs, it is not parsed."""
        code, _, err = run(capsys, "replay", str(HOSTILE / "log_outside_file.jsonl"), "--verify")
        assert code == 2 and "unrelated.txt (changed since the log was written" in err

    def test_device_is_refused(self, capsys) -> None:
        """A log whose scenario_path is a device is refused at once, not read forever."""
        code, _, err = run(capsys, "replay", str(HOSTILE / "log_device.jsonl"), "--verify")
        assert code == 2 and "/dev/zero (not a regular file" in err

    def test_fifo_is_refused(self, tmp_path: pathlib.Path, capsys) -> None:
        """A scenario_path naming a FIFO does not block verify."""
        import os

        os.mkfifo(tmp_path / "scenario.yaml")
        log = tmp_path / "b.jsonl"
        log.write_text((HOSTILE / "log_device.jsonl").read_text().replace("/dev/zero",
                                                                           "scenario.yaml"))
        code, _, err = run(capsys, "replay", str(log), "--verify")
        assert code == 2 and "scenario.yaml (not a regular file" in err


@pytest.fixture(scope="module")
def day_log(tmp_path_factory: pytest.TempPathFactory) -> list[dict]:
    """The events of one day of scenarios/days/marsh_road.yaml (rests, fights, deaths). Seed 1:
    since blowpipes became full actions (rules §2) seed 3's party loses its first fight."""
    log = tmp_path_factory.mktemp("day") / "day.jsonl"
    assert cli.main(["run", str(MARSH), "--seed", "1", "--log", str(log)]) == 0
    return [json.loads(line) for line in log.read_text().splitlines()]


class TestHostileDayLogs:
    """A day's log edited by hand: its own events (day_started, encounter_started and _ended,
    rested, day_ended) are checked as a battle's are, so narrating it never crashes."""

    @pytest.mark.parametrize(
        ("kind", "field", "value", "problem"),
        [
            ("day_ended", "rounds", None, "missing field(s) rounds"),
            ("encounter_started", "step", "x", "step must be an integer (got 'x')"),
            ("day_started", "party", 5, "party must be a list of names (got 5)"),
            ("day_started", "seed", -1, "seed must be an integer from 0 to"),
            ("rested", "hp_after", "x", "hp_after must be an integer (got 'x')"),
            ("day_ended", "completed", "yes", "completed must be true or false (got 'yes')"),
        ],
    )
    def test_bad_day_event_exit_2(self, tmp_path: pathlib.Path, capsys, day_log: list[dict],
                                  kind: str, field: str, value: object, problem: str) -> None:
        events = [dict(e) for e in day_log]
        number, event = next((k, e) for k, e in enumerate(events, start=1) if e["event"] == kind)
        if value is None:
            del event[field]
        else:
            event[field] = value
        log = tmp_path / "day.jsonl"
        log.write_text("".join(json.dumps(e) + "\n" for e in events))
        code, _, err = run(capsys, "replay", str(log), "--no-interactive")
        assert code == 2 and err.startswith(f"{log}:{number}:1: {kind}: {problem}"), err


class TestHostileBattlesFile:
    """A battles.parquet edited by hand (its run id kept): what replay picks and the report
    read is checked first, so a missing value or rounds out of range is one line, exit 2."""

    @pytest.mark.parametrize(
        ("column", "values", "problem"),
        [("rounds", [-5], "its rounds must be 0 to"), ("rounds", [None], "a value is missing in 'rounds'"),
         ("combatants", [None], "a value is missing in 'combatants'")],
    )
    def test_edited_battles_exit_2(self, tmp_path: pathlib.Path, capsys, column: str,
                                   values: list, problem: str) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        batch(tmp_path, "run", str(SKIRMISH), "-n", "3", "--seed", "2", "--workers", "1")
        path = tmp_path / "run" / "battles.parquet"
        table = pq.read_table(path)
        field = table.schema.field(column)
        edited = table.set_column(table.schema.get_field_index(column), field,
                                  pa.array(values * len(table), field.type))
        pq.write_table(edited, path)
        for args in (["report", str(tmp_path / "run")], ["replay", str(tmp_path / "run"), "--worst",
                                                          "--no-interactive"]):
            if column == "rounds" and args[0] == "replay":
                continue  # the picks read no rounds
            code, _, err = run(capsys, *args)
            assert code == 2 and err.startswith(f"{path}:0:0: (document): {problem}"), err


    @pytest.mark.parametrize(("edit", "problem"), [
        ("fewer", "it holds 2 battles where the run played 3"),
        ("twice", "it holds 6 battles where the run played 3"),
        ("index", "its index must run from 0 to 2, each battle once, in order")])
    def test_rows_not_the_run_s_battles_exit_2(self, tmp_path: pathlib.Path, capsys, edit: str,
                                               problem: str) -> None:
        """Rows cut off or pasted twice (the run id kept) were read as the run's battles: --worst
        picked among them, and an index of -1 was blamed on a --battle nobody gave."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        batch(tmp_path, "run", str(SKIRMISH), "-n", "3", "--seed", "2", "--workers", "1")
        path = tmp_path / "run" / "battles.parquet"
        table = pq.read_table(path)
        if edit == "fewer":
            table = table.slice(0, 2)
        elif edit == "twice":
            table = pa.concat_tables([table, table])
        else:
            field = table.schema.field("index")
            table = table.set_column(0, field, pa.array([-1] * len(table), field.type))
        pq.write_table(table, path)
        for args in (["report", str(tmp_path / "run")], ["replay", str(tmp_path / "run"), "--worst",
                                                          "--no-interactive"]):
            if edit == "index" and args[0] == "report":
                continue  # the report reads no index
            code, _, err = run(capsys, *args)
            assert code == 2 and err == f"{path}:0:0: (document): {problem}\n", err


def brute_scenario(tmp_path: pathlib.Path) -> pathlib.Path:
    """A scenario whose monster, a brute, comes from a bestiary folder of its own (tmp_path/lib)."""
    lib = tmp_path / "lib" / "d20"
    lib.mkdir(parents=True)
    (lib / "b.yaml").write_text("rules: d20\ncreatures:\n  brute: {hp: 9, weapons: "
                                "[{name: club, damage: 1d6}]}\n")
    scenario = tmp_path / "s.yaml"
    scenario.write_text("name: s\nrules: d20\nsides:\n  - {name: h, party: true, members: "
                        "[{name: A, hp: 8, weapons: [{name: s, damage: 1d6}]}]}\n"
                        "  - {name: m, members: [{use: brute}]}\n")
    return scenario
