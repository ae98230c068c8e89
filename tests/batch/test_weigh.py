"""The default --workers choice: a batch plays in this process unless a pool of workers would
finish it sooner, weighed on its first battles; the choice never changes what a run writes."""

from __future__ import annotations

import json
import math
import os
import pathlib
import signal

import pytest

import sim.batch.weigh
import sim.cli.common
from sim import cli
from sim.batch import BatchSpec, LogPlan, Work
from sim.day.file import load_input
from sim.scenario import load_scenario
from tests.batch.helpers import SKIRMISH, batch, comparable, cut_run, rows
from tests.builders import duel
from tests.day_files import WARREN

STEP_S = 2.0 ** -11  # each battle "takes" this long on the fake clock (a float sum stays exact)


@pytest.fixture
def played(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The battles weighed, on a clock that moves STEP_S a reading (one reading a battle)."""
    ticks: list[int] = []
    calls: list[int] = []
    monkeypatch.setattr(sim.batch.weigh.time, "perf_counter", lambda: len(ticks.append(0) or ticks) * STEP_S)
    monkeypatch.setattr(Work, "_play", lambda self, index: calls.append(index))
    return calls


def spy_on_runners(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The worker counts the command's runners are made with, as it makes them."""
    made: list[int] = []
    real = sim.batch.weigh.make_runner
    monkeypatch.setattr(sim.batch.weigh, "make_runner",
                        lambda executor, workers, scheduler: made.append(workers)
                        or real(executor, workers, scheduler))
    return made


def work(n: int, chunk: int = 500, logs: LogPlan | None = None) -> Work:
    return Work(duel(), 1, n, chunk, logs or LogPlan())


class TestWeighing:
    def test_one_chunk_or_one_worker_never_starts_a_pool(self, played: list[int]) -> None:
        """A pool plays chunks: one chunk, or one worker, is never sooner (nothing is weighed)."""
        assert not work(500).pool_is_sooner(8)
        assert not work(10**9).pool_is_sooner(1)
        assert played == []

    @pytest.mark.parametrize(("n", "sooner"), [(600, False), (1000, True), (10**6, True)])
    def test_a_pool_when_it_ends_sooner(self, played: list[int], n: int, sooner: bool) -> None:
        """A pool starts (0.2 s), then plays its chunks two at a time; this process plays
        them all: 600 battles of 0.5 ms are sooner here (0.3 s against 0.45 s), 1000 are not."""
        assert work(n).pool_is_sooner(2) == sooner

    def test_weighing_stops_once_the_answer_is_sure(self, played: list[int]) -> None:
        """Three battles are enough when half or twice their cost gives the same answer."""
        assert work(10**6).pool_is_sooner(2)
        assert played == [0, 1, 2]

    def test_weighing_stops_after_its_time(self, played: list[int]) -> None:
        """A run near the line is weighed for PROBE_S, in battle order from the first."""
        assert work(1000).pool_is_sooner(2)
        assert played == list(range(math.ceil(sim.batch.weigh.PROBE_S / STEP_S)))

    def test_only_the_battles_left_are_weighed(self, played: list[int]) -> None:
        """A resumed run weighs from its first battle not yet stored; with one chunk left, or a
        --precision that 1068 battles meet at worst ((0.98 / 0.03)^2: 3 chunks of 500 at
        0.5 ms), it stays here."""
        assert Work(duel(), 1, 10**6, 500, LogPlan(), first=1000).pool_is_sooner(2)
        assert played == [1000, 1001, 1002]
        played.clear()
        assert not Work(duel(), 1, 10**6, 500, LogPlan(), first=10**6 - 500).pool_is_sooner(2)
        assert played == []
        assert not Work(duel(), 1, 10**6, 500, LogPlan(), precision=0.03).pool_is_sooner(2)
        assert Work(duel(), 1, 10**6, 500, LogPlan(), precision=0.005).pool_is_sooner(2)
        assert Work(duel(), 1, 10**6, 500, LogPlan(), precision=5e-324).pool_is_sooner(2)  # the cap

    def test_battles_weighed_are_logged_as_the_run_logs_them(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """--logs all makes a battle several times dearer: the weighed ones are logged too."""
        written: list[int] = []
        monkeypatch.setattr(sim.batch.weigh, "to_jsonl_bytes", lambda events: written.append(len(events)))
        work(10**9, logs=LogPlan("all")).pool_is_sooner(2)
        assert written and all(written)
        written.clear()
        work(10**9).pool_is_sooner(2)
        assert written == []

    def test_days_are_weighed_too(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """A day file's run weighs its first days, played as days."""
        day, played = load_input(WARREN, ()), []
        real = sim.batch.weigh.run_any
        monkeypatch.setattr(sim.batch.weigh, "run_any",
                            lambda subject, seed, log: played.append(subject) or real(subject, seed, log))
        assert Work(day, 1, 10**9, 500, LogPlan()).pool_is_sooner(2)
        assert played and all(subject is day for subject in played)


class TestDefaultWorkers:
    @pytest.mark.parametrize("start_s", [0.0, 1e9], ids=["pool", "here"])
    def test_the_choice_never_changes_results(self, tmp_path: pathlib.Path,
                                              monkeypatch: pytest.MonkeyPatch, start_s: float) -> None:
        """The weighed battles are played again in their chunks: a pool (one that starts at once
        is always sooner) or this process give what --workers 1 does, logs included."""
        args = [str(SKIRMISH), "-n", "60", "--seed", "9", "--chunk", "25", "--logs", "all"]
        one = batch(tmp_path, "one", *args, "--workers", "1")
        monkeypatch.setattr(sim.batch.weigh, "POOL_START_S", start_s)
        monkeypatch.setattr(sim.batch.weigh, "default_workers", lambda: 2)
        made = spy_on_runners(monkeypatch)
        chosen = batch(tmp_path, "chosen", *args)
        assert made == [2 if start_s == 0 else 1]
        assert comparable(one) == comparable(chosen)
        assert rows(tmp_path / "one") == rows(tmp_path / "chosen")
        logs = sorted((tmp_path / "one" / "logs").iterdir())
        assert [p.read_bytes() for p in logs] == [
            (tmp_path / "chosen" / "logs" / p.name).read_bytes() for p in logs]

    def test_a_resume_weighs_what_is_left(self, tmp_path: pathlib.Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
        """A run stopped with one chunk left resumes in this process, though a pool would be
        sooner for the whole run (one that starts at once), and weighs nothing."""
        folder = cut_run(tmp_path / "cut", load_scenario(SKIRMISH), BatchSpec(n=90, seed=9, chunk=30), 2)
        weighed: list[int] = []
        monkeypatch.setattr(Work, "_play", lambda self, index: weighed.append(index))
        monkeypatch.setattr(sim.batch.weigh, "POOL_START_S", 0.0)
        monkeypatch.setattr(sim.batch.weigh, "default_workers", lambda: 2)
        made = spy_on_runners(monkeypatch)
        assert cli.main(["batch", "--resume", str(folder.path), "--json", "--no-progress"]) == 0
        assert (made, weighed) == ([1], [])

    def test_ctrl_c_while_weighing_stops_like_any_other(self, tmp_path: pathlib.Path,
                                                        monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
        """A Ctrl-C during the weighing: exit 130, the run marked interrupted after 0 battles,
        with the line that says how to finish it; --resume then plays the whole run."""
        real = Work._play

        def interrupted(self: Work, index: int) -> None:
            if index == 0:
                os.kill(os.getpid(), signal.SIGINT)
            real(self, index)

        monkeypatch.setattr(Work, "_play", interrupted)
        monkeypatch.setattr(sim.batch.weigh, "default_workers", lambda: 2)
        run = tmp_path / "run"
        args = ["batch", str(SKIRMISH), "-n", "1200", "--seed", "3", "--out", str(run), "--no-progress"]
        assert cli.main(args) == 130
        assert "interrupted after 0 battles; finish with: sim batch --resume" in capsys.readouterr().err
        manifest = json.loads((run / "manifest.json").read_text())
        assert (manifest["status"], manifest["battles_done"]) == ("interrupted", 0)
        monkeypatch.setattr(Work, "_play", real)
        assert cli.main(["batch", "--resume", str(run), "--workers", "1", "--json"]) == 0
        whole = batch(tmp_path, "whole", str(SKIRMISH), "-n", "1200", "--seed", "3", "--workers", "1")
        assert rows(run) == rows(tmp_path / "whole")
        assert json.loads((run / "summary.json").read_text())["battles"] == whole["battles"]

