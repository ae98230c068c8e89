"""Whether a batch ends sooner in a pool of workers or in this process: the default
``--workers`` choice.

A pool's forkserver is a fresh interpreter that imports the engine and Arrow
before its first worker forks, so a pool only starts playing about POOL_START_S
after it is asked for. A short run is over before then. The run's first battles
are played here to weigh one; they are played again in their chunk, so results
never depend on the choice (battle i's seed depends on nothing but i).
"""

from __future__ import annotations

import argparse
import math
import time

import attrs

from sim.batch.chunk import LogPlan, battle_seed
from sim.batch.runners import Runner, default_workers, make_runner
from sim.day.file import Day
from sim.day.play import run_any
from sim.events import to_jsonl_bytes
from sim.model import Scenario

# Measured with scenarios/road_ambush.yaml on two cores: 3000 battles in chunks of 500 take as
# long with two workers as with one.
POOL_START_S = 0.2
PROBE_S = 0.02  # at most this long is spent weighing, and never less than one battle


@attrs.frozen
class Work:
    """What a batch will play: battles (or days) ``first`` to ``n`` of ``subject`` from master
    ``seed``, in chunks of ``chunk``, logging those ``logs`` wants; with ``precision``, ``n``
    is a cap."""

    subject: Scenario | Day
    seed: int
    n: int
    chunk: int
    logs: LogPlan
    first: int = 0  # battles before it are stored already (--resume)
    precision: float | None = None

    def pool_is_sooner(self, workers: int) -> bool:
        """Whether ``workers`` processes would finish sooner than this one alone. One chunk
        (or one worker) never is; else the first battles left are weighed until the answer
        holds for half and for twice their cost, or PROBE_S is spent."""
        left = self._left()
        if workers <= 1 or left <= self.chunk:
            return False
        clock, played = time.perf_counter(), 0
        while played < left:
            self._play(self.first + played)
            played += 1
            spent = time.perf_counter() - clock
            each = spent / played
            sure = (played >= 3
                    and self._sooner(left, each / 2, workers) == self._sooner(left, each * 2, workers))
            if sure or spent >= PROBE_S:
                break
        return self._sooner(left, each, workers)

    def _left(self) -> int:
        """Battles still to play: to ``n``, or with --precision at most as many as a headline
        rate of 50% needs (a 95% half-width of p takes (0.98 / p)^2 battles)."""
        last = self.n
        # Compared as square roots: a tiny precision squared would overflow a float.
        if self.precision is not None and 0.98 / self.precision < math.sqrt(self.n):
            last = math.ceil((0.98 / self.precision) ** 2)
        return max(0, last - self.first)

    def _sooner(self, left: int, each: float, workers: int) -> bool:
        """With ``left`` battles of ``each`` seconds: the pool starts, then plays its chunks
        ``workers`` at a time (the last round as long as a whole chunk); this process plays
        them all."""
        rounds = math.ceil(math.ceil(left / self.chunk) / workers)
        return POOL_START_S + rounds * self.chunk * each < left * each

    def _play(self, index: int) -> None:
        """Battle ``index`` as a chunk plays it, its log written when the run logs it."""
        logged = self.logs.wants(index)
        events = run_any(self.subject, battle_seed(self.seed, index), log=logged)[1]
        if logged:
            to_jsonl_bytes(events)


def runner_of(args: argparse.Namespace, work: Work | None = None) -> tuple[Runner, int]:
    """The runner that --executor, --workers and --scheduler ask for, and its window: how
    many chunks to keep in flight (two a worker). Without --workers, a batch's ``work``
    that a local pool would not finish sooner runs in this process."""
    workers = args.workers or default_workers()
    if (args.workers is None and args.executor == "process" and work is not None
            and not work.pool_is_sooner(workers)):
        workers = 1
    return make_runner(args.executor, workers, args.scheduler), max(2, workers * 2)
