"""The page's "How much does it hang on play?" box: a ``sim spread`` job, its figures so far.

The job plays what ``sim spread`` plays (the same code: as written, each preset of each
side, the corners, on the same seeds) in steps of ``STEP`` battles a play, and after each
step the job's ``partial`` holds the sentence and the range so far; its result adds the
``--json`` answer of the CLI. It is the page's background work: before each chunk it waits
while another job (a batch, a what-if, a tune) runs, and a cancel stops it there, so the
GM's own questions are never slowed by it.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from typing import Any

from sim.batch import kept_pool
from sim.decide.paired import HEADLINE
from sim.decide.presets import PRESETS, Group, Subject, groups
from sim.decide.spread import Spread, spread
from sim.decide.spread import sentence as said
from sim.errors import InputError
from sim.serve.jobs import Cancelled, Job, Jobs
from sim.serve.plays import CHUNK, Execution

STEP = 200  # battles a play between two refinements of the box
DEFAULT_N = 1000  # battles a play unless the page asks for another number
WAIT_S = 0.05  # how often a spread that gives way looks again


def box(result: Spread) -> dict[str, Any]:
    """What the box shows: the sentence, and each headline figure's range and as written's."""
    written = result.rows[0]
    return {"sentence": said(result), "battles": result.battles, "corners": bool(result.corners),
            "range": result.range(), "as_written": {m: written.p(m) for m in HEADLINE}}


def give_way(job: Job, jobs: Jobs) -> None:
    """Before each chunk: stop if the job is cancelled; wait while another job runs that is
    no spread (two pages' spreads share the machine as batches do)."""
    while True:
        if job.cancel.is_set():
            raise Cancelled
        with jobs.lock:
            busy = any(j.status == "running" and j.kind != "spread" for j in jobs.by_id.values())
        if not busy:
            return
        time.sleep(WAIT_S)


def play_spread(job: Job, subject: Subject, chosen: list[Group], seed: int, n: int,
                execution: Execution, jobs: Jobs) -> dict[str, Any]:
    runner, window = execution.runner()
    with kept_pool(runner) as kept:
        result = spread(subject, chosen, seed, n, kept, window, min(CHUNK, n), step=STEP,
                        progress=job.checked_progress,
                        partial=lambda so_far: job.progressed(job.done, job.total, box(so_far)),
                        gate=lambda: give_way(job, jobs))
    return {**box(result), "spread": result.public()}


def spread_job(body: dict[str, Any], load: Callable[[dict[str, Any], Any], Subject], folder: Any,
               n: int, seed: int, execution: Execution, jobs: Jobs
               ) -> tuple[Job, Callable[[Job], dict[str, Any]]]:
    """The job of a POST /api/jobs of kind ``spread`` (``load`` reads its scenario or day into
    ``folder``; ``side``, if given, is ``sim spread --side``'s)."""
    subject = load(body, folder)
    side = body.get("side")
    if side is not None and not isinstance(side, str):
        raise ValueError("side: party, opposition, or a side's name")
    try:
        chosen = groups(subject, side)
    except InputError as exc:
        raise ValueError(str(exc).partition(": ")[2]) from None
    plays = 1 + len(PRESETS) * len(chosen) + 2
    job = Job(secrets.token_hex(8), "spread", folder, n * plays)
    return job, lambda j: play_spread(j, subject, chosen, seed, n, execution, jobs)
