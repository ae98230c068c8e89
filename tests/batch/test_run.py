"""A batch run: resume, precision, the party summary, replaying a battle of a run, the
summary's accuracy against exact odds, and draws."""

from __future__ import annotations

import json
import math
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import time
from fractions import Fraction
from typing import ClassVar

import pytest

import sim.batch.run
from sim import cli
from sim.batch import Batch, BatchSpec, RunFolder, journal, run_serial, start_run
from sim.batch.store import can_store_apart
from sim.day.file import load_input
from sim.errors import RunAborted
from sim.scenario import load_scenario
from sim.tally.stats import interval, wilson
from tests.batch.helpers import (
    COSTLY,
    DATA,
    DUEL,
    SKIRMISH,
    batch,
    comparable,
    cut_run,
    journal_records,
    rows,
    wait_unlocked,
    write_journal,
)
from tests.day_files import WARREN


class TestResume:
    """An interrupted run completes to the same results as an uninterrupted one."""

    def test_resume_after_interrupt(self, tmp_path: pathlib.Path) -> None:
        """Ctrl-C (KeyboardInterrupt) after 3 chunks, then --resume: same summary and rows."""
        folder = self._cut(tmp_path, 3)
        assert len(journal_records(folder.path)) == 3
        assert not (folder.path / "summary.json").exists()
        assert sorted(p.name for p in folder.path.iterdir()) == [".lock", "manifest.json", "parts.journal"]
        assert cli.main(["batch", "--resume", str(folder.path), "--json", "--no-progress"]) == 0
        whole = batch(tmp_path, "whole", str(SKIRMISH), "-n", "200", "--seed", "9",
                      "--chunk", "30", "--workers", "1")
        resumed = json.loads((folder.path / "summary.json").read_text())
        assert comparable(resumed) == comparable(whole)
        assert rows(folder.path) == rows(tmp_path / "whole")

    def test_resume_after_kill(self, tmp_path: pathlib.Path) -> None:
        """SIGKILL mid-run leaves a folder that --resume completes to the same results."""
        run = self._killed(tmp_path)
        assert not (run / "summary.json").exists()
        assert cli.main(["batch", "--resume", str(run), "--json", "--no-progress"]) == 0
        whole = batch(tmp_path, "whole", str(SKIRMISH), "-n", "3000", "--seed", "4",
                      "--chunk", "100", "--workers", "2")
        assert comparable(json.loads((run / "summary.json").read_text())) == comparable(whole)

    @pytest.mark.parametrize("subject", [SKIRMISH, WARREN], ids=["battles", "days"])
    def test_resumed_logs_are_the_whole_runs_bytes(self, tmp_path: pathlib.Path, monkeypatch,
                                                   subject: pathlib.Path) -> None:
        """A run given a relative path and resumed from the same folder: its logs name the
        scenario as an uninterrupted run's do, byte for byte."""
        monkeypatch.chdir(subject.parent)
        given = pathlib.Path(subject.name)
        spec = BatchSpec(n=12, seed=3, chunk=4, logs="all")
        folder = cut_run(tmp_path / "cut", load_input(given, ()), spec, 2)
        assert cli.main(["batch", "--resume", str(folder.path), "--json", "--no-progress"]) == 0
        batch(tmp_path, "whole", str(given), "-n", "12", "--seed", "3", "--chunk", "4", "--logs", "all",
              "--workers", "1")
        logs = [sorted((p.name, p.read_bytes()) for p in (run / "logs").iterdir())
                for run in (folder.path, tmp_path / "whole")]
        assert logs[0] == logs[1] and b'"scenario_path":"' + given.name.encode() in logs[0][0][1]

    @pytest.mark.skipif(not can_store_apart(), reason="one core: no store process")
    def test_store_process_of_a_killed_run_leaves_only_the_journal(self, tmp_path: pathlib.Path) -> None:
        """The store process of a killed batch stores nothing more, drops battles.parquet's
        half-written file and exits, freeing the run's lock."""
        run = self._killed(tmp_path)
        assert sorted(p.name for p in run.iterdir()) == [".lock", "manifest.json", "parts.journal"]

    @staticmethod
    def _killed(tmp_path: pathlib.Path) -> pathlib.Path:
        """A `sim batch --workers 1` killed (SIGKILL) once 3 parts are stored, its lock free."""
        run = tmp_path / "killed"
        command = [sys.executable, "-m", "sim", "batch", str(SKIRMISH), "-n", "3000", "--seed",
                   "4", "--chunk", "100", "--workers", "1", "--out", str(run), "--no-progress"]
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while len(journal_records(run)) < 3:
            assert time.monotonic() < deadline and process.poll() is None
            time.sleep(0.02)
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        wait_unlocked(run)  # a store process left behind stops at once
        return run

    def _cut(self, tmp_path: pathlib.Path, chunks: int) -> RunFolder:
        """A run of 200 battles (chunks of 30) of SKIRMISH stopped after ``chunks`` chunks."""
        return cut_run(tmp_path / "cut", load_scenario(SKIRMISH), BatchSpec(n=200, seed=9, chunk=30),
                       chunks)

    def test_torn_or_damaged_record_is_played_again(self, tmp_path: pathlib.Path) -> None:
        """A journal cut short, or with a flipped byte in its last record (a crash mid-append, a
        power cut), resumes to the same rows: the records from the damaged one on are dropped
        and their battles played again."""
        folder = self._cut(tmp_path, 2)
        data = (folder.path / "parts.journal").read_bytes()
        whole = batch(tmp_path, "whole", str(SKIRMISH), "-n", "200", "--seed", "9", "--chunk", "30",
                      "--workers", "1")
        first = len(journal.HEADER.pack(journal.MAGIC, 0, 0)) + len(journal_records(folder.path)[0])
        damaged = [data[:-1], data[: first + 5], data[:first] + b"\0" * (len(data) - first)] + [
            data[:k] + bytes([data[k] ^ 0x10]) + data[k + 1:]
            for k in range(first, len(data), (len(data) - first) // 6)]
        for tail in damaged:
            shutil.rmtree(tmp_path / "again", ignore_errors=True)
            shutil.copytree(folder.path, tmp_path / "again")
            (tmp_path / "again" / "parts.journal").write_bytes(tail)
            assert len(journal_records(tmp_path / "again")) == 1
            assert cli.main(["batch", "--resume", str(tmp_path / "again"), "--json", "--no-progress"]) == 0
            resumed = json.loads((tmp_path / "again" / "summary.json").read_text())
            assert comparable(resumed) == comparable(whole)
            assert rows(tmp_path / "again") == rows(tmp_path / "whole")

    def test_record_that_is_no_part_is_an_input_error(self, tmp_path: pathlib.Path, capsys) -> None:
        """A whole record (its CRC right) that holds no part of this program: exit 2, one line
        naming the journal and the record, and nothing merged."""
        folder = self._cut(tmp_path, 2)
        records = journal_records(folder.path)
        for payload in (b"ARROW1 not really", records[1][: len(records[1]) // 2]):
            write_journal(folder.path, [records[0], payload])
            code = cli.main(["batch", "--resume", str(folder.path), "--json", "--no-progress"])
            err = capsys.readouterr().err
            assert code == 2 and err.count("\n") == 1
            assert "parts.journal:0:0: (part 1): unreadable" in err
            assert not (folder.path / "summary.json").exists()

    def test_resume_removes_what_a_hard_stop_left(self, tmp_path: pathlib.Path) -> None:
        """A kill -9 mid-write leaves half-written files (battles.parquet, the manifest, a log):
        resuming removes them, and the finished run holds only its own files."""
        folder = self._cut(tmp_path, 2)
        (folder.path / "logs").mkdir()
        leftovers = [folder.path / ".battles.parquet.999.tmp", folder.path / ".manifest.json.999.tmp",
                     folder.path / "logs" / ".battles-0000000-0000029.jsonl.999.tmp"]
        for leftover in leftovers:
            leftover.write_bytes(b"half")
        assert cli.main(["batch", "--resume", str(folder.path), "--json", "--no-progress"]) == 0
        assert not any(leftover.exists() for leftover in leftovers)
        assert sorted(p.name for p in folder.path.iterdir()) == [".lock", "battles.parquet", "logs",
                                                                  "manifest.json", "summary.json"]

    def test_part_short_of_its_battles_is_refused(self, tmp_path: pathlib.Path, capsys) -> None:
        """A whole record whose part holds fewer battles than its identity names (its CRC
        right): exit 2 naming it, never a run short of battles."""
        import pyarrow as pa

        from sim.batch.tables import part_bytes, part_table

        folder = self._cut(tmp_path, 2)
        records = journal_records(folder.path)
        short = part_table(records[1]).slice(0, 10)
        write_journal(folder.path, [records[0], part_bytes(pa.Table.from_batches(short.to_batches()))])
        code = cli.main(["batch", "--resume", str(folder.path), "--json", "--no-progress"])
        err = capsys.readouterr().err
        assert code == 2 and "(part 1): does not hold battles 30 to 59" in err
        assert not (folder.path / "summary.json").exists()

    def test_journal_that_is_no_regular_file_is_refused(self, tmp_path: pathlib.Path, capsys) -> None:
        """A symbolic link (or a directory) in the journal's place: exit 2 at once, saying to
        delete it, rather than a resume that can read it but never write it."""
        folder = self._cut(tmp_path, 2)
        journal_path = folder.path / "parts.journal"
        journal_path.rename(tmp_path / "elsewhere")
        journal_path.symlink_to(tmp_path / "elsewhere")
        code = cli.main(["batch", "--resume", str(folder.path), "--json", "--no-progress"])
        err = capsys.readouterr().err
        assert code == 2 and "parts.journal:0:0: (document): not a regular file; delete it" in err

    def test_complete_run_drops_a_leftover_journal(self, tmp_path: pathlib.Path, capsys) -> None:
        """A stop between "complete" and the journal's removal leaves the journal; --resume
        of the complete run says so and removes it."""
        batch(tmp_path, "done", str(SKIRMISH), "-n", "60", "--chunk", "30", "--workers", "1")
        write_journal(tmp_path / "done", [b"left over"])
        assert cli.main(["batch", "--resume", str(tmp_path / "done"), "--json", "--no-progress"]) == 0
        assert "already complete" in capsys.readouterr().err
        assert not (tmp_path / "done" / "parts.journal").exists()

    def test_resume_drops_parquet_parts_of_an_earlier_version(self, tmp_path: pathlib.Path) -> None:
        """Before the journal, parts were a parts/ folder of Parquet files: resuming such a run
        plays their battles again and leaves no stray file behind."""
        folder = self._cut(tmp_path, 0)
        (folder.path / "parts").mkdir()
        for number in range(2):
            (folder.path / "parts" / f"part-{number:06d}.parquet").write_bytes(b"PAR1")
        (folder.path / "parts" / ".part-000002.parquet.77.tmp").write_bytes(b"PAR1")
        assert cli.main(["batch", "--resume", str(folder.path), "--json", "--no-progress"]) == 0
        whole = batch(tmp_path, "whole", str(SKIRMISH), "-n", "200", "--seed", "9", "--chunk", "30",
                      "--workers", "1")
        resumed = json.loads((folder.path / "summary.json").read_text())
        assert comparable(resumed) == comparable(whole)
        assert rows(folder.path) == rows(tmp_path / "whole")
        assert sorted(p.name for p in folder.path.iterdir()) == [".lock", "battles.parquet",
                                                                  "manifest.json", "summary.json"]

    def test_resume_refuses_changed_scenario(self, tmp_path: pathlib.Path, capsys) -> None:
        """A scenario edited since the run began cannot be resumed (exit 2)."""
        scenario_file = tmp_path / "duel.yaml"
        scenario_file.write_text(DUEL.read_text())
        scenario = load_scenario(scenario_file)
        folder = start_run(tmp_path / "run", scenario, BatchSpec(n=10, seed=1), ["batch"])
        folder.release()
        scenario_file.write_text(DUEL.read_text().replace("hp: 1, armor: 3", "hp: 2, armor: 3"))
        assert cli.main(["batch", "--resume", str(folder.path), "--no-progress"]) == 2
        assert "changed" in capsys.readouterr().err


class TestLostBattlesFile:
    """A finished run whose battles.parquet was deleted: --resume said "already complete" and
    left the run without its battles. Now it is rebuilt from the parts journal when one is
    there (a stop after "complete", before the journal's removal, leaves it), else refused."""

    RUNS: ClassVar[dict[str, list[str]]] = {
        "battles": [str(SKIRMISH), "-n", "200", "--seed", "9", "--chunk", "30"],
        "days": [str(WARREN), "-n", "12", "--seed", "3", "--chunk", "4"],
        "precision": [str(SKIRMISH), "-n", "5000", "--seed", "9", "--chunk", "20", "--precision", "0.05"]}

    @staticmethod
    def finished(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, args: list[str],
                 keep_journal: bool = True) -> pathlib.Path:
        """A finished run, its journal kept as a stop just before its removal keeps it."""
        with monkeypatch.context() as patch:
            if keep_journal:
                patch.setattr(RunFolder, "remove_parts", lambda self: None)
            batch(tmp_path, "run", *args, "--workers", "1")
        return tmp_path / "run"

    @staticmethod
    def resume(capsys: pytest.CaptureFixture[str], run: pathlib.Path) -> tuple[int, str]:
        capsys.readouterr()
        code = cli.main(["batch", "--resume", str(run), "--json", "--no-progress"])
        err = capsys.readouterr().err
        assert "Traceback" not in err and len(err.splitlines()) == 1, err
        return code, err.rstrip("\n")

    @pytest.mark.parametrize("kind", list(RUNS))
    def test_rebuilt_from_the_journal_byte_for_byte(self, tmp_path: pathlib.Path, monkeypatch,
                                                    capsys, kind: str) -> None:
        """The rebuilt battles.parquet is the file the run wrote, byte for byte (battles, days,
        a run stopped by --precision); the summary is untouched; one stderr line says so."""
        run = self.finished(tmp_path, monkeypatch, self.RUNS[kind])
        written, summary = (run / "battles.parquet").read_bytes(), (run / "summary.json").read_bytes()
        battles = json.loads(summary)["battles"]
        (run / "battles.parquet").unlink()
        code, err = self.resume(capsys, run)
        assert code == 0 and err == (f"{run}: already complete; battles.parquet was missing:"
                                     f" rebuilt from parts.journal ({battles} battles)")
        assert (run / "battles.parquet").read_bytes() == written
        assert (run / "summary.json").read_bytes() == summary
        assert sorted(p.name for p in run.iterdir()) == [".lock", "battles.parquet", "manifest.json",
                                                          "summary.json"]

    def test_without_the_journal_it_is_refused(self, tmp_path: pathlib.Path, monkeypatch, capsys) -> None:
        """A finished run removes its journal: nothing can rebuild the file, so exit 2 in one
        line saying so and what to do, not "already complete" with the battles gone."""
        run = self.finished(tmp_path, monkeypatch, self.RUNS["battles"], keep_journal=False)
        (run / "battles.parquet").unlink()
        code, err = self.resume(capsys, run)
        assert code == 2 and err == (f"{run}/battles.parquet:0:0: (document): missing, and so is"
                                     " parts.journal, which could rebuild it (a finished run removes"
                                     " it); start the run again in another --out (the same seed plays"
                                     " the same battles)")
        assert sorted(p.name for p in run.iterdir()) == [".lock", "manifest.json", "summary.json"]

    def test_a_short_or_damaged_journal_is_refused_and_kept(self, tmp_path: pathlib.Path, monkeypatch,
                                                            capsys) -> None:
        """A journal holding fewer battles than the run, or a record that is no part: exit 2
        naming the journal, no battles.parquet short of the run's battles, and the journal kept
        (it was removed, unread)."""
        run = self.finished(tmp_path, monkeypatch, self.RUNS["battles"])
        (run / "battles.parquet").unlink()
        first = journal_records(run)[0]
        write_journal(run, [first])
        code, err = self.resume(capsys, run)
        assert code == 2 and err == (f"{run}/parts.journal:0:0: (document): holds 30 of the run's 200"
                                     " battles; battles.parquet cannot be rebuilt from it; start the"
                                     " run again in another --out (the same seed plays the same battles)")
        write_journal(run, [first, b"ARROW1 not really"])
        code, err = self.resume(capsys, run)
        assert code == 2 and err.startswith(f"{run}/parts.journal:0:0: (part 1): unreadable (")
        assert err.endswith("); battles.parquet cannot be rebuilt from it; start the run again in"
                            " another --out (the same seed plays the same battles)")
        assert journal_records(run) == [first, b"ARROW1 not really"]
        assert sorted(p.name for p in run.iterdir()) == [".lock", "manifest.json", "parts.journal",
                                                          "summary.json"]


class TestPrecision:
    """--precision keeps running until the headline intervals are narrow enough."""

    def test_stops_when_narrow(self, tmp_path: pathlib.Path) -> None:
        """With P = 0.04 the run stops early, its intervals within +-P, the same for any workers."""
        args = [str(DUEL), "-n", "20000", "--seed", "2", "--precision", "0.04", "--chunk", "50"]
        one = batch(tmp_path, "one", *args, "--workers", "1")
        two = batch(tmp_path, "two", *args, "--workers", "2")
        assert comparable(one) == comparable(two)
        assert one["battles"] < 20000 and one["stopped_by"] == "precision"
        for side in one["sides"].values():
            assert (side["win_rate"]["hi"] - side["win_rate"]["lo"]) / 2 <= 0.04
        assert len(rows(tmp_path / "one")) == one["battles"]


    def test_stops_on_any_death(self, tmp_path: pathlib.Path) -> None:
        """The run stops at the first chunk where win, TPK and someone-dies intervals are all within
        +-P; someone dies (9%) is the widest here, so win and TPK alone would have stopped sooner."""
        p = 0.03
        summary = batch(tmp_path, "run", str(COSTLY), "-n", "5000", "--seed", "3", "--precision",
                        str(p), "--chunk", "20", "--workers", "1")
        battles = rows(tmp_path / "run")
        counts = {"heroes": 0, "beast": 0, "tpk": 0, "any_death": 0}
        stops: dict[str, int] = {}
        for m, row in enumerate(battles, 1):
            dead = [c["status"] == "dead" for c in row["combatants"] if c["side"] == "heroes"]
            counts["tpk"] += all(dead)
            counts["any_death"] += any(dead)
            if row["winner"] is not None:
                counts[row["winner"]] += 1
            if m % 20 == 0:
                widths = {key: (wilson(k, m)[2] - wilson(k, m)[1]) / 2 for key, k in counts.items()}
                if max(widths.values()) <= p:
                    stops.setdefault("all", m)
                if max(widths[key] for key in ("heroes", "beast", "tpk")) <= p:
                    stops.setdefault("without any_death", m)
        assert summary["stopped_by"] == "precision"
        assert summary["battles"] == len(battles) == stops["all"]
        assert stops["without any_death"] < stops["all"]
        death = summary["party"]["any_death"]
        assert (death["hi"] - death["lo"]) / 2 <= p


class TestPartySummary:
    """summary["party"] of a real batch agrees with its battles.parquet, battle by battle."""

    def test_matches_the_battles(self, tmp_path: pathlib.Path) -> None:
        """Win, TPK, someone down / dead, the distributions and each member's "goes down",
        recounted from the rows, are what two workers counted in chunks."""
        summary = batch(tmp_path, "run", str(COSTLY), "-n", "300", "--seed", "4", "--chunk", "35",
                        "--workers", "2")
        battles = rows(tmp_path / "run")
        n = len(battles)
        deaths, downs = [0] * 5, [0] * 5
        wins = tpk = 0
        member_downs: dict[str, int] = {}
        for row in battles:
            heroes = [c for c in row["combatants"] if c["side"] == "heroes"]
            down = [c["knocked_out"] or c["status"] in ("dead", "broken") for c in heroes]
            dead = sum(c["status"] == "dead" for c in heroes)
            deaths[dead] += 1
            downs[sum(down)] += 1
            wins += row["winner"] == "heroes"
            tpk += dead == len(heroes)
            for c in row["combatants"]:
                member_downs[c["name"]] = member_downs.get(c["name"], 0) + (
                    c["knocked_out"] or c["status"] in ("dead", "broken"))
        party = summary["party"]
        assert party["side"] == "heroes"
        assert party["win"] == interval(wins, n) == summary["sides"]["heroes"]["win_rate"]
        assert party["tpk"] == interval(tpk, n) == summary["tpk"]
        assert party["any_death"] == interval(n - deaths[0], n)
        assert party["any_down"] == interval(n - downs[0], n)
        for key, histogram in (("deaths", deaths), ("downs", downs)):
            assert party[key]["dist"] == pytest.approx([k / n for k in histogram], abs=1e-12)
            mean = sum(k * b for k, b in enumerate(histogram)) / n
            assert party[key]["mean"] == pytest.approx(mean, abs=5e-7)
        assert 0 < deaths[0] < n and 0 < downs[0] < n  # the scenario exercises both
        assert {name: c["down"] for name, c in summary["combatants"].items()} == {
            name: interval(k, n) for name, k in member_downs.items()}


class TestReplayFromBatch:
    """`sim replay RUN_DIR --battle I` regenerates battle I without stored logs."""

    def test_narration_matches_rows(self, tmp_path: pathlib.Path, capsys) -> None:
        """The regenerated battle ends as the batch recorded it."""
        batch(tmp_path, "run", str(SKIRMISH), "-n", "30", "--seed", "6", "--workers", "1")
        capsys.readouterr()
        row = rows(tmp_path / "run")[17]
        assert cli.main(["replay", str(tmp_path / "run"), "--battle", "17", "--log", "-"]) == 0
        events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        assert events[0]["seed"] == row["seed"] and events[0]["batch"] == {"seed": 6, "index": 17}
        assert events[-1]["winner"] == row["winner"] and events[-1]["rounds"] == row["rounds"]
        assert cli.main(["replay", str(tmp_path / "run"), "--battle", "17",
                         "--no-interactive"]) == 0
        assert "win" in capsys.readouterr().out or row["winner"] is None

    def test_battle_out_of_range(self, tmp_path: pathlib.Path) -> None:
        """A battle index past the run's N exits 2."""
        batch(tmp_path, "run", str(DUEL), "-n", "5", "--workers", "1")
        assert cli.main(["replay", str(tmp_path / "run"), "--battle", "5"]) == 2


def exact_duel_win() -> float:
    """Exact P(hero wins) of tests/data/duel/duel.yaml by enumeration of the d20.

    Hero hits iff d20 + 2 > 13; the beast hits iff the hero's d20 + 3 <= 12.
    Each round the party acts first with probability 1/2 (4+ on a d6); the
    first hit ends the fight (1 HP); 100 rounds at most, then a draw.
    """
    faces = range(1, 21)
    a = Fraction(sum(1 for f in faces if f + 2 > 13), 20)
    b = Fraction(sum(1 for f in faces if f + 3 <= 12), 20)
    half = Fraction(1, 2)
    win_round = half * a + half * (1 - b) * a
    go_on = (1 - a) * (1 - b)
    return float(win_round * (1 - go_on**100) / (1 - go_on))


class TestAccuracy:
    """The summary's win rate of a simple duel agrees with the exact value."""

    def test_duel_win_rate(self, tmp_path: pathlib.Path) -> None:
        """Within 4 standard errors of the exact probability, over 6000 battles."""
        summary = batch(tmp_path, "duel", str(DUEL), "-n", "6000", "--seed", "11", "--workers", "2",
                        "--chunk", "1000")
        p = exact_duel_win()
        n = summary["battles"]
        observed = summary["sides"]["hero"]["win_rate"]["p"]
        assert abs(observed - p) <= 4 * math.sqrt(p * (1 - p) / n)
        assert summary["tpk"]["p"] == pytest.approx(1 - observed - summary["draws"] / n, abs=1e-6)


class TestStalemate:
    """A batch of battles nobody can win stops each at round 1 and says why."""

    def test_weaponless_crowd(self, tmp_path: pathlib.Path) -> None:
        """500 weaponless fighters: every battle a round-1 draw, counted as a stalemate."""
        summary = batch(tmp_path, "crowd", str(DATA / "hostile" / "weaponless.yaml"), "-n", "4",
                        "--workers", "1")
        assert summary["draws"] == 4 and summary["rounds"]["max"] == 1
        assert summary["draws_by"] == {"no_side_left": 0, "stalemate": 4, "max_rounds": 0}

    def test_table_says_why(self, tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
        """The terminal table tells how many draws a stalemate or the round limit stopped."""
        code = cli.main(["batch", str(DATA / "hostile" / "weaponless.yaml"), "-n", "3",
                         "--workers", "1", "--no-progress", "--out", str(tmp_path / "run")])
        assert code == 0
        assert "stalemate 3, round limit 0" in capsys.readouterr().out


class TestDefaultFolder:
    def test_the_same_command_within_a_second_gets_its_own_folder(
            self, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
        """Without --out, a run folder already taken (another run in the same second, or any
        file of that name) moves the new run to -2, then -3: it is not refused."""
        monkeypatch.chdir(tmp_path)
        monkeypatch.setattr(sim.batch.run.time, "strftime", lambda _format: "20261201-020000")
        (tmp_path / "runs").mkdir()
        (tmp_path / "runs" / "duel-s4-20261201-020000-2").write_text("not a run")
        args = ["batch", str(DUEL), "-n", "20", "--seed", "4", "--workers", "1", "--json", "--no-progress"]
        assert cli.main(args) == 0
        assert cli.main(args) == 0
        runs = sorted(p.name for p in (tmp_path / "runs").iterdir())
        assert runs == ["duel-s4-20261201-020000", "duel-s4-20261201-020000-2", "duel-s4-20261201-020000-3"]
        assert (tmp_path / "runs" / "duel-s4-20261201-020000-3" / "summary.json").exists()

    def test_each_default_folder_is_made_when_picked(self, tmp_path: pathlib.Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
        """Two runs starting in the same second never pick the same folder: it is made as it is
        picked, so the second pick sees it taken."""
        monkeypatch.chdir(tmp_path)
        monkeypatch.setattr(sim.batch.run.time, "strftime", lambda _format: "20261201-020000")
        first, second = sim.batch.run.default_out(DUEL, 4), sim.batch.run.default_out(DUEL, 4)
        assert first != second and first.is_dir() and second.is_dir()
        assert not any(first.iterdir()) and not any(second.iterdir())


class TestWorkersLostWhileStopping:
    """A worker lost while a stop is asked for (a SIGTERM to the process group ends the
    workers too) is the stop, not a failure: the run is interrupted, its parts kept."""

    @pytest.mark.parametrize("stopping", [True, False])
    def test_worker_lost(self, tmp_path: pathlib.Path, stopping: bool) -> None:
        scenario, spec = load_scenario(SKIRMISH), BatchSpec(n=100, seed=2, chunk=25)
        run = start_run(tmp_path / "run", scenario, spec, ["batch"])
        asked = []

        def losing(tasks, window):  # one chunk, then the stop is asked and a worker dies
            for result in run_serial(tasks, window):
                yield result
                asked.append(stopping)
                raise RunAborted("a worker process died")

        batch = Batch(scenario, spec, run, losing, should_stop=lambda: any(asked))
        with pytest.raises(KeyboardInterrupt if stopping else RunAborted):
            batch.run()
        run.release()
        assert batch.stored == 25 and len(journal_records(run.path)) == 1

    def test_storing_failure_while_stopping_is_told(self, tmp_path: pathlib.Path, monkeypatch) -> None:
        """A full disk met while a stop is asked for is the full disk, not the stop."""
        scenario, spec = load_scenario(SKIRMISH), BatchSpec(n=100, seed=2, chunk=25)
        run = start_run(tmp_path / "run", scenario, spec, ["batch"])
        asked = []

        def full(_batch, _result) -> None:
            asked.append(True)
            raise RunAborted.cannot_write(run.journal_path, OSError(28, "No space left on device"))

        monkeypatch.setattr(Batch, "_store", full)
        batch = Batch(scenario, spec, run, run_serial, should_stop=lambda: any(asked))
        with pytest.raises(RunAborted, match="No space left on device"):
            batch.run()
        run.release()
