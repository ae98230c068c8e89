"""Readers of a run hold one batch of battles at a time: memory flat in the number of battles
(issue 30). sim report, replay --worst/--median/--best and compare's rows."""

from __future__ import annotations

import collections
import pathlib
import random
import tracemalloc

import pytest

from benchmarks.tiled_run import tile_run
from sim.batch import folder as folder_module
from sim.decide import compare as compare_module
from sim.decide.paired import Variant
from sim.replay.picks import pick_battles
from sim.report.plots import battle_counts, box_stats
from sim.scenario import load_scenario
from tests.batch.helpers import COSTLY, SKIRMISH, batch, rows


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    """A real run whose battles end in many ways."""
    tmp = tmp_path_factory.mktemp("flat")
    batch(tmp, "run", str(COSTLY), "-n", "300", "--seed", "4", "--workers", "1")
    return tmp / "run"


def old_picks(run: pathlib.Path, party: str) -> dict[str, int]:
    """The picks as they were computed over the whole table: sorted (score, index)."""
    scored = []
    for record in rows(run):
        members = [c for c in record["combatants"] if c["side"] == party]
        dead = sum(c["status"] == "dead" for c in members)
        down = sum(c["status"] == "unconscious" or c["knocked_out"] for c in members)
        scored.append(((dead, down, -sum(c["hp"] for c in members)), record["index"]))
    scored.sort()
    return {"best": scored[0][1], "median": scored[len(scored) // 2][1],
            "worst": max(scored, key=lambda s: (s[0], -s[1]))[1]}


def test_picks_read_in_small_batches_are_the_whole_table_s(played: pathlib.Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """The median found in two passes of 7-battle batches is the one sorting every battle gave."""
    party = next(s.name for s in load_scenario(COSTLY).sides if s.party)
    expected = old_picks(played, party)
    assert len(set(expected.values())) == 3  # the run is varied enough to tell them apart
    monkeypatch.setattr(folder_module, "READ_BATCH", 7)
    assert pick_battles(played) == expected


def test_plot_counts_read_in_small_batches(played: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(folder_module, "READ_BATCH", 7)
    counts = battle_counts(played)
    table = rows(played)
    assert counts.rounds == collections.Counter(r["rounds"] for r in table)
    hp: dict[str, collections.Counter[int]] = collections.defaultdict(collections.Counter)
    for record in table:
        for c in record["combatants"]:
            hp[c["name"]][c["hp"]] += 1
    assert counts.hp == hp


@pytest.mark.parametrize("values", [[3], [0, 0, 0, 9], list(range(-4, 30)), [5] * 7 + [1, 100],
                                    [random.Random(k).randint(-10, 60) for k in range(500)]])
def test_box_stats_are_matplotlib_s(values: list[int]) -> None:
    """The HP box plot drawn from counts is the one matplotlib drew from every value."""
    from matplotlib.cbook import boxplot_stats

    expected = boxplot_stats(values, whis=(5, 95))[0]
    got = box_stats(collections.Counter(values))
    for key in ("mean", "med", "q1", "q3", "whislo", "whishi"):
        assert got[key] == pytest.approx(float(expected[key])), key


def python_peak(read: object) -> int:
    tracemalloc.start()
    try:
        read()  # type: ignore[operator]
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_readers_memory_is_flat_in_battles(played: pathlib.Path, tmp_path: pathlib.Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """Ten times the battles, the same peak: the whole table turned into Python objects took
    7.7 KB a battle (3.8 GB and a MemoryError for 600,000 battles)."""
    monkeypatch.setattr(folder_module, "READ_BATCH", 300)
    small = tile_run(played, tmp_path / "small", 3_000)
    large = tile_run(played, tmp_path / "large", 30_000)
    for read in (pick_battles, battle_counts):
        peaks = [python_peak(lambda run=run, read=read: read(run)) for run in (small, large)]
        assert peaks[1] < 1.25 * peaks[0], (read.__name__, peaks)


def test_compare_without_precision_holds_a_block(capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """compare -n N held every variant's N rows until the end (300 B a battle a variant); now
    a block at a time, with the same result."""
    variants = [Variant(name, load_scenario(SKIRMISH)) for name in ("a", "b")]
    from sim.batch import run_serial

    whole = compare_module.compare(variants, 3, 120, run_serial, 1, 10)
    held: list[int] = []
    play = compare_module.play

    def spy(jobs, *args):  # type: ignore[no-untyped-def]
        held.append(sum(stop - start for _, _, start, stop in jobs))
        return play(jobs, *args)

    monkeypatch.setattr(compare_module, "play", spy)
    monkeypatch.setattr(compare_module, "BLOCK", 25)
    blocks = compare_module.compare(variants, 3, 120, run_serial, 1, 10)
    assert max(held) == 2 * 25 and sum(held) == 2 * 120
    assert {k: v for k, v in blocks.items() if k != "elapsed_s"} == \
        {k: v for k, v in whole.items() if k != "elapsed_s"}
