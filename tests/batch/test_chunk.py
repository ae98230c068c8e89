"""A chunk's work: battle seeds, and the event logs kept with --logs."""

from __future__ import annotations

import hashlib
import json
import pathlib

import pytest

from sim import cli
from sim.batch import battle_seed
from sim.batch.chunk import battle_seeds
from tests.batch.helpers import DUEL, SKIRMISH, batch


class TestSeeds:
    """Battle i's seed derives from (S, i) alone."""

    def test_stable_and_distinct(self) -> None:
        """The same (S, i) always gives the same 63-bit seed; neighbours differ."""
        seeds = [battle_seed(7, i) for i in range(1000)]
        assert seeds == [battle_seed(7, i) for i in range(1000)]
        assert len(set(seeds)) == 1000 and all(0 <= s < 2**63 for s in seeds)
        assert battle_seed(7, 0) != battle_seed(8, 0)
        assert battle_seed(1, 0) == 7270093623172353909  # pinned: a change breaks old runs

    def test_seed_is_the_documented_hash(self) -> None:
        """A chunk's seeds are the first 63 bits of SHA-256("combat-sim/S/i"), negative S and
        large i included, the same one by one or a chunk at once."""
        def documented(master: int, index: int) -> int:
            digest = hashlib.sha256(f"combat-sim/{master}/{index}".encode()).digest()
            return int.from_bytes(digest[:8], "big") >> 1

        for master, start in ((1, 0), (-3, 10**12), (2**62, 499)):
            assert battle_seeds(master, start, start + 50) == [
                documented(master, i) for i in range(start, start + 50)]
            assert battle_seed(master, start) == documented(master, start)


class TestLogs:
    """--logs writes event logs under the run folder, identical to a replay."""

    def test_sample_logs_match_replay(self, tmp_path: pathlib.Path, capsysbinary) -> None:
        """sample:4 of 40 battles logs battles 0, 10, 20, 30 (a file per chunk), each equal
        to what `sim replay RUN_DIR --battle I --log -` regenerates."""
        batch(tmp_path, "run", str(SKIRMISH), "-n", "40", "--logs", "sample:4", "--workers", "1",
              "--chunk", "15")
        logs = sorted((tmp_path / "run" / "logs").iterdir())
        assert [p.name for p in logs] == ["battles-0000000-0000014.jsonl",
                                          "battles-0000015-0000029.jsonl",
                                          "battles-0000030-0000039.jsonl"]
        stored = [json.loads(line) for line in logs[1].read_text().splitlines()]
        starts = [e["batch"]["index"] for e in stored if e["event"] == "battle_started"]
        assert starts == [20]
        capsysbinary.readouterr()
        assert cli.main(["replay", str(tmp_path / "run"), "--battle", "20", "--log", "-"]) == 0
        assert capsysbinary.readouterr().out == logs[1].read_bytes()

    def test_all_logs_pick_one_battle(self, tmp_path: pathlib.Path, capsys) -> None:
        """`--logs all` logs every battle; `sim replay FILE --battle I` picks one from a chunk file."""
        batch(tmp_path, "run", str(SKIRMISH), "-n", "12", "--logs", "all", "--workers", "1")
        (log,) = (tmp_path / "run" / "logs").iterdir()
        text = log.read_text()
        assert text.count('"event":"battle_started"') == 12
        capsys.readouterr()
        assert cli.main(["replay", str(log), "--battle", "7", "--log", "-"]) == 0
        events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        assert events[0]["batch"]["index"] == 7 and events[-1]["event"] == "battle_ended"
        assert cli.main(["replay", str(log)]) == 2  # twelve battles: which one?

    @pytest.mark.parametrize("logs", ["some", "sample:0", "sample:\u00b2", "sample:" + "9" * 5000,
                                      "sample:03"])
    def test_bad_logs_option(self, tmp_path: pathlib.Path, capsys, logs: str) -> None:
        """An unknown --logs value exits 2 with one line before any run folder is made: a
        superscript digit, or more digits than int() reads, too. sample:03 was taken, then its
        run folder refused by its own manifest check (and by --resume: 'logs: must be ...')."""
        code = cli.main(["batch", str(DUEL), "--logs", logs, "--out", str(tmp_path / "r")])
        assert code == 2 and not (tmp_path / "r").exists()
        assert capsys.readouterr().err.startswith("sim batch: --logs: must be none, all or sample:N")
