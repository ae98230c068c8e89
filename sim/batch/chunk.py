"""The work of one chunk of a batch, as a worker does it: seeds, battles, rows, counts.

Battle ``i`` of a batch with master seed ``S`` gets the seed SHA-256(S, i),
whoever plays it. A worker plays its chunk's battles (or days), logs the ones
the ``LogPlan`` asks for, counts them into an ``Aggregate`` and packs its columns
as a part (an Arrow IPC file), so that the batch only merges counts and hands the
bytes to its store (sim.batch.store).
A chunk played in the batch's own process leaves its part to the store process
(``part_here``): the columns go there instead (``PartSource``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

import attrs

from sim.batch.tables import PART_KEY, battles_part, day_part, part_bytes
from sim.day.file import Day
from sim.day.play import run_day
from sim.day.stats import DayAggregate, DayRow
from sim.engine import Battle, run_battle
from sim.errors import InputError
from sim.events import StreamedLog, render
from sim.model import Scenario
from sim.tally.columns import BattleColumns, BattleRow
from sim.tally.party import party_side
from sim.tally.stats import Aggregate

DEFAULT_CHUNK = 500
SEED_BITS = 63
MAX_DIGITS = 18  # sample:K beyond this many digits is refused (K >= n logs every battle anyway)


def battle_seed(master: int, index: int) -> int:
    """Battle ``index``'s seed: SHA-256 of (master, index), so it never depends on who runs it."""
    return battle_seeds(master, index, index + 1)[0]


def battle_seeds(master: int, start: int, stop: int) -> list[int]:
    """The seeds of battles ``start`` to ``stop`` (excluded): the first 63 bits of
    SHA-256("combat-sim/<master>/<index>")."""
    prefix, sha256, shift = f"combat-sim/{master}/".encode(), hashlib.sha256, 64 - SEED_BITS
    return [int.from_bytes(sha256(prefix + b"%d" % index).digest()[:8], "big") >> shift
            for index in range(start, stop)]


@attrs.frozen
class LogPlan:
    """Which battles write an event log: none, all, or every ``every``-th."""

    mode: str = "none"  # none | all | sample
    every: int = 1

    def wants(self, index: int) -> bool:
        if self.mode == "all":
            return True
        return self.mode == "sample" and index % self.every == 0

    @classmethod
    def parse(cls, text: str, n: int) -> LogPlan:
        """``none``, ``all`` or ``sample:K`` (K logs spread evenly over the first n battles)."""
        if text in ("none", "all"):
            return cls(text)
        if text.startswith("sample:"):
            count = text.removeprefix("sample:")
            # ASCII digits only ('²' is a digit int() refuses), and few enough for int() to read;
            # no leading 0: the manifest refuses 'sample:03', and the run was left unresumable
            if (count.isascii() and count.isdigit() and len(count) <= MAX_DIGITS
                    and not count.startswith("0")):
                return cls("sample", max(1, -(-n // int(count))))
        msg = (f"sim batch: --logs: must be none, all or sample:N with N > 0, at most {MAX_DIGITS}"
               f" digits, no leading 0 (got {text[:40]!r})")
        raise InputError(msg)


@attrs.frozen
class ChunkTask:
    """Battles ``start`` to ``stop`` (excluded) of a batch."""

    scenario: Scenario | Day
    master_seed: int
    start: int
    stop: int
    logs: LogPlan
    # Paired runs (compare, tune) send several scenarios' chunks through one runner: the
    # tag says whose chunk it is, and they want the rows themselves, not a part.
    tag: object = None
    rows_only: bool = False
    run_id: str = ""
    number: int = 0  # the chunk's number: its part is record <number> of the journal
    # Whether the chunk's player makes its part; False leaves it to a store process
    # (sim.batch.store), which gets the chunk's columns instead.
    part_here: bool = True

    def seeds(self) -> list[tuple[int, int]]:
        """(index, seed) of the chunk's battles. Hashed all at once before any battle:
        one hash between two battles runs with cold caches and costs several times more
        (4% of a 4v6 d20 chunk, against nothing measurable this way)."""
        return list(zip(range(self.start, self.stop), battle_seeds(self.master_seed, self.start, self.stop),
                        strict=True))

    def identity(self) -> dict[str, Any]:
        return part_identity(self.run_id, self.master_seed, self.number, self.start, self.stop)


def part_identity(run_id: str, seed: int, number: int, start: int, stop: int) -> dict[str, Any]:
    """What a part says about itself: whose run, which chunk, which battles."""
    return {"run_id": run_id, "seed": seed, "chunk": number, "start": start, "stop": stop}


@attrs.frozen
class PartSource:
    """A chunk's rows as its player leaves them, and who the chunk is: what its part is made of."""

    identity: dict[str, Any]
    battles: BattleColumns | None = None  # a chunk of battles
    days: tuple[DayRow, ...] = ()  # or of days, ``width`` combatants each
    width: int = 0

    def part(self) -> bytes:
        """The chunk's part: its rows, and who it is in the file's metadata."""
        table = battles_part(self.battles) if self.battles is not None else day_part(self.days, self.width)
        return part_bytes(table.replace_schema_metadata({PART_KEY: json.dumps(self.identity)}))


@attrs.frozen
class ChunkResult:
    """What a worker sends back: the chunk's part, its counts, and its logs.

    Workers do the heavy lifting (rows into Arrow, counting) so that the batch's
    process only merges counts and hands the bytes to its store: it never competes
    with them.
    """

    start: int
    battles: int
    part: bytes  # an Arrow IPC file of the chunk's rows (empty when ``source`` is sent instead)
    aggregate: Aggregate
    logs: bytes  # JSON Lines of the logged battles, in index order
    tag: object = None
    rows: tuple[BattleRow, ...] = ()  # with ``rows_only`` (then ``part`` is empty)
    source: PartSource | None = None  # without ``part_here``: what the store makes the part of


def run_day_chunk(task: ChunkTask, day: Day) -> ChunkResult:
    """Play a chunk of adventuring days: one row per day (see sim.day.stats)."""
    rows: list[DayRow] = []
    logs: list[bytes] = []
    for index, seed in task.seeds():
        if task.logs.wants(index):
            outcome, log = logged(run_day, day, seed, {"seed": task.master_seed, "index": index})
            logs.append(log)
        else:
            outcome = run_day(day, seed)[0]
        rows.append((index, seed, outcome.winner, outcome.rounds, outcome.rows, outcome.steps,
                     outcome.survived, outcome.completed))
    aggregate = empty_aggregate(day)
    aggregate.add_rows(rows)
    return _result(task, aggregate, len(rows), logs, lambda: tuple(row[:5] for row in rows),
                   PartSource(task.identity(), days=tuple(rows), width=len(day.combatants)))


def run_chunk(task: ChunkTask) -> ChunkResult:
    """Play a chunk of battles; the hot loop logs nothing unless the plan asks."""
    if isinstance(task.scenario, Day):
        return run_day_chunk(task, task.scenario)
    scenario, master, plan = task.scenario, task.master_seed, task.logs
    battles = BattleColumns(len(scenario.combatants))
    add = battles.add
    logs: list[bytes] = []
    logging = plan.mode != "none"
    for index, seed in task.seeds():
        if logging and plan.wants(index):  # the log's header names the battle: {"seed": S, "index": i}
            outcome, log = logged(run_battle, scenario, seed, {"seed": master, "index": index})
            logs.append(log)
        else:
            outcome = Battle(scenario, seed).run()  # run_battle's, without its empty log
        add(index, seed, outcome.winner, outcome.rounds, outcome.rows)
    aggregate = empty_aggregate(scenario)
    aggregate.add_columns(battles)
    return _result(task, aggregate, len(battles), logs, lambda: tuple(battles.rows()),
                   PartSource(task.identity(), battles.sendable()))


def logged(play: Callable[..., tuple[Any, list[dict]]], subject: Scenario | Day, seed: int,
           batch: dict) -> tuple[Any, bytes]:
    """The outcome of a battle or a day (``play``: run_battle or run_day) played into a log, and
    the log's JSON Lines, each event rendered as it comes: a long day is never held as dicts
    (about five times its lines)."""
    lines: list[bytes] = []
    sink = StreamedLog(lambda event: lines.append(render(event)))
    outcome = play(subject, seed, True, batch, sink)[0]
    sink.close()
    return outcome, b"".join(lines)


def _result(task: ChunkTask, aggregate: Aggregate, count: int, logs: list[bytes],
            rows: Callable[[], tuple[BattleRow, ...]], source: PartSource) -> ChunkResult:
    """The chunk's counts and logs, with its part (or what to make it of, without
    ``part_here``), or its rows themselves (``rows_only``)."""
    if task.rows_only:
        return ChunkResult(task.start, count, b"", aggregate, b"".join(logs), task.tag, rows())
    if not task.part_here:
        return ChunkResult(task.start, count, b"", aggregate, b"".join(logs), task.tag, source=source)
    return ChunkResult(task.start, count, source.part(), aggregate, b"".join(logs), task.tag)


def roster_of(scenario: Scenario | Day) -> list[tuple[str, str]]:
    return [(c.name, c.side) for c in scenario.combatants]


def empty_aggregate(scenario: Scenario | Day) -> Aggregate:
    if isinstance(scenario, Day):
        return DayAggregate.for_day(scenario)
    party = party_side(scenario)
    mounts = [c.name for c in scenario.combatants if c.rider is not None]
    return Aggregate.for_roster(roster_of(scenario), [s.name for s in scenario.sides], party, mounts,
                                scenario.max_rounds)



def batch_summary(aggregate: Aggregate, scenario: Scenario | Day, seed: int, n: int,
                  elapsed: float) -> dict[str, Any]:
    """The summary of a batch's counts (summary.json, ``sim batch --json``); ``sim spread``
    gives each of its plays this one."""
    summary = aggregate.summary({"scenario": scenario.name, "rules": scenario.rules, "seed": seed,
                                 "elapsed_s": round(elapsed, 3)})
    summary["stopped_by"] = "n" if aggregate.battles >= n else "precision"
    summary["warnings"] = [str(w) for w in scenario.warnings]  # as told before the run
    return summary
