"""--precision stops at checkpoints that depend on nothing but the rule: --chunk, --workers
and the server play the same battles to the same figures (sim.batch.plan)."""

from __future__ import annotations

import itertools
import pathlib

import pytest

from sim.batch.plan import ChunkPlan, checkpoint_step, is_checkpoint
from tests.cli.helpers import answer

DUEL = pathlib.Path(__file__).parent.parent / "data" / "duel" / "duel.yaml"


def test_checkpoints_every_100_then_every_1000() -> None:
    assert [checkpoint_step(b) for b in (0, 99, 9_999, 10_000, 99_999, 100_000)] == [
        100, 100, 100, 1_000, 1_000, 10_000]
    assert [b for b in range(1, 12_001) if is_checkpoint(b)][-4:] == [9_900, 10_000, 11_000, 12_000]


@pytest.mark.parametrize("chunk", [1, 7, 50, 100, 500, 3000])
def test_chunks_are_cut_at_checkpoints_only_with_precision(chunk: int) -> None:
    def chunks(plan: ChunkPlan) -> list[tuple[int, int]]:
        found, number = [], 0
        while (bounds := plan.bounds(number))[0] < plan.n:
            found.append(bounds)
            number += 1
        return found

    cut = chunks(ChunkPlan(25_000, chunk, 0.02))
    assert cut[0][0] == 0 and cut[-1][1] == 25_000
    assert all(a[1] == b[0] and a[0] < a[1] <= a[0] + chunk for a, b in itertools.pairwise(cut))
    ends = {stop for _, stop in cut}
    assert all(b in ends for b in range(1, 25_001) if is_checkpoint(b))
    plain = chunks(ChunkPlan(25_000, chunk))
    assert plain == [(s, min(25_000, s + chunk)) for s in range(0, 25_000, chunk)]


def batch(tmp_path: pathlib.Path, capsys, *options: str) -> dict:
    out = tmp_path / "-".join(options).replace("-", "")
    summary = answer(capsys, "batch", str(DUEL), "--seed", "42", "--precision", "0.02", "--no-progress",
                     "--out", str(out), *options)
    return {k: v for k, v in summary.items() if k != "elapsed_s"}


def test_precision_stops_after_the_same_battles_at_any_chunk_and_workers(tmp_path, capsys) -> None:
    first = batch(tmp_path, capsys, "--chunk", "50", "--workers", "1")
    assert first["stopped_by"] == "precision" and is_checkpoint(first["battles"])
    for options in (["--chunk", "100", "--workers", "1"], ["--chunk", "500", "--workers", "1"],
                    ["--chunk", "500", "--workers", "2"], ["--chunk", "50", "--workers", "2"]):
        assert batch(tmp_path, capsys, *options) == first, options
