"""What a job plays: a batch, a compare or a tune, on the runners the CLI uses.

Each function takes a loaded scenario (or variants) and the job that watches
it, and returns the JSON the CLI prints with ``--json``: the same code, the
same figures for the same scenario and seed.
"""

from __future__ import annotations

import argparse
import pathlib
from collections.abc import Iterator, Sequence
from typing import Any

import attrs

from sim.batch import Batch, BatchSpec, LogPlan, Runner, kept_pool, start_run
from sim.batch.chunk import ChunkResult, ChunkTask
from sim.batch.weigh import Work, runner_of
from sim.day.file import Day
from sim.decide.compare import compare
from sim.decide.paired import Variant
from sim.decide.tune import Target, tune
from sim.model import Scenario
from sim.odds.summary import exact_party
from sim.serve.jobs import Cancelled, Job

CHUNK = 100  # battles a chunk: small, so the first figures come within a second


@attrs.frozen
class Execution:
    """Where battles run: the execution options of ``sim batch`` given to ``sim serve``."""

    workers: int | None = None
    executor: str = "process"
    scheduler: str | None = None

    def runner(self, work: Work | None = None) -> tuple[Runner, int]:
        options = argparse.Namespace(workers=self.workers, executor=self.executor, scheduler=self.scheduler)
        return runner_of(options, work)


def headline(summary: dict[str, Any]) -> dict[str, Any]:
    """The figures the page shows while a batch runs."""
    return {"battles": summary["battles"], "party": summary.get("party"),
            "draw_rate": summary.get("draw_rate")}


def play_batch(job: Job, subject: Scenario | Day, spec: BatchSpec, execution: Execution,
               bestiary: Sequence[pathlib.Path]) -> dict[str, Any]:
    """A batch into the job's run folder; its summary (``sim batch --json``)."""
    folder = start_run(job.folder / "run", subject, spec, ["sim", "serve"], bestiary)
    job.run_folder = folder.path
    try:
        work = Work(subject, spec.seed, spec.n, spec.chunk, LogPlan.parse(spec.logs, spec.n), 0,
                    spec.precision)
        runner, window = execution.runner(work)
        batch = Batch(subject, spec, folder, runner=runner, window=window, store_apart=False,
                      should_stop=job.cancel.is_set)
        batch.progress = lambda done, total: job.progressed(
            done, total, headline(batch.aggregate.summary({})))
        summary = batch.run()
        if not job.cancel.is_set():
            # "exact" beside the figures of a small fight; an edit (a cancel) ends the solve
            job.exact = exact_party(subject, cancelled=job.cancel.is_set)
        return summary
    finally:
        folder.release()


def play_compare(job: Job, variants: Sequence[Variant], seed: int, n: int, precision: float | None,
                 execution: Execution) -> dict[str, Any]:
    runner, window = execution.runner()
    with kept_pool(runner) as kept:
        return compare(variants, seed, n, watched(kept, job), window, min(CHUNK, n), precision,
                       job.checked_progress)


def play_tune(job: Job, points: Sequence[tuple[int, Variant]], target: Target, seed: int, n: int,
              precision: float, execution: Execution) -> dict[str, Any]:
    runner, window = execution.runner()
    with kept_pool(runner) as kept:
        return tune(points, target, seed, n, precision, watched(kept, job), window, min(CHUNK, n),
                    job.checked_progress)


def watched(runner: Runner, job: Job) -> Runner:
    """``runner``, given no more chunks once the job is cancelled: a compare's step of 10,000
    battles a variant stops after the chunks in flight, not at its end."""
    def run(tasks: Iterator[ChunkTask], window: int) -> Iterator[ChunkResult]:
        return runner(_until_cancelled(tasks, job), window)
    return run


def _until_cancelled(tasks: Iterator[ChunkTask], job: Job) -> Iterator[ChunkTask]:
    for task in tasks:
        if job.cancel.is_set():
            raise Cancelled
        yield task
