"""The party's worst, a median and its best battle of a batch run (sim replay RUN_DIR --worst,
--median, --best, and the report's viewer), read from battles.parquet a batch at a time."""

from __future__ import annotations

import collections
import pathlib
from collections.abc import Iterator, Sequence

from sim.batch import BATTLES, RunFolder, load_run_scenario
from sim.errors import InputError
from sim.io.arrow import load_arrow
from sim.tally.party import party_side

PICKS = ("worst", "median", "best")


Score = tuple[int, int, int]


def pick_battles(run_dir: pathlib.Path, bestiary: Sequence[pathlib.Path] = ()) -> dict[str, int]:
    """Battle indices of the party's worst, a median and its best battle of a batch run.

    Each battle is scored from the party's side (the first side without a party):
    (members dead, members knocked out, - HP left); the worst has the highest
    score, the best the lowest, the median sits in the middle; ties go to the
    lowest index. battles.parquet is read a batch at a time, twice: the first pass
    counts the battles of each score (a few hundred distinct ones), which gives the
    median's score and its rank among the battles of that score; the second finds that
    battle. Memory stays flat in the number of battles.
    """
    folder = RunFolder(run_dir)
    manifest = folder.read_manifest()
    scenario = load_run_scenario(folder, manifest, bestiary)
    party = party_side(scenario) or scenario.sides[0].name
    counts: collections.Counter[Score] = collections.Counter()
    best: tuple[Score, int] | None = None
    worst: tuple[Score, int] | None = None
    for score, index in _scores(folder, manifest, party):
        counts[score] += 1
        best = min(best or (score, index), (score, index))
        if worst is None or score > worst[0]:  # ties keep the lowest index
            worst = (score, index)
    if best is None or worst is None:
        msg = f"{folder.path / BATTLES}:0:0: (document): the run has no battles"
        raise InputError(msg)
    score, rank = _median_score(counts)
    median = next(index for index in _indexes_of(folder, manifest, party, score, rank))
    return {"best": best[1], "median": median, "worst": worst[1]}


def _median_score(counts: collections.Counter[Score]) -> tuple[Score, int]:
    """The score of battle n // 2 in (score, index) order, and its rank among that score's."""
    target = sum(counts.values()) // 2
    for score in sorted(counts):
        if target < counts[score]:
            return score, target
        target -= counts[score]
    raise AssertionError("n // 2 is below n")


def _indexes_of(folder: RunFolder, manifest: dict, party: str, wanted: Score, rank: int) -> Iterator[int]:
    """The index of the ``rank``-th battle (0 the first) scored ``wanted``."""
    for score, index in _scores(folder, manifest, party):
        if score == wanted:
            if rank == 0:
                yield index
                return
            rank -= 1


def _scores(folder: RunFolder, manifest: dict, party: str) -> Iterator[tuple[Score, int]]:
    """Each battle's score from ``party``'s side, and its index, in order."""
    load_arrow()
    import pyarrow as pa
    import pyarrow.compute as pc

    for table in folder.battle_batches(["index", "combatants"], manifest):
        combatants = table.column("combatants").combine_chunks()
        flat = pc.list_flatten(combatants)
        # Knocked out, not sim.tally.party.went_down: the dead have the first key, and the score
        # has never counted a broken mind (a different pick on runs where minds break).
        status = flat.field("status")
        members = pa.table({
            "battle": pc.list_parent_indices(combatants),
            "dead": pc.cast(pc.equal(status, "dead"), pa.int64()),
            "down": pc.cast(pc.or_(pc.equal(status, "unconscious"), flat.field("knocked_out")), pa.int64()),
            "hp": pc.cast(flat.field("hp"), pa.int64()),
        }).filter(pc.equal(flat.field("side"), party))
        sums = members.group_by("battle").aggregate([("dead", "sum"), ("down", "sum"), ("hp", "sum")])
        scored = {battle: (dead, down, -hp) for battle, dead, down, hp in zip(
            *(sums.column(name).to_pylist() for name in ("battle", "dead_sum", "down_sum", "hp_sum")),
            strict=True)}
        for battle, index in enumerate(table.column("index").to_pylist()):
            yield scored.get(battle, (0, 0, 0)), index
