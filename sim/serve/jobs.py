"""Work in flight: a batch, compare or tune run in a thread, watched and cancelled by the page.

A job reports as it goes: battles done of the total, and for a batch the
headline so far (the party's figures with their intervals, from the counts
merged up to now), so the page can show figures that narrow. The page cancels
a job when the GM edits the encounter; a cancelled batch stops after the
chunks in flight, as a Ctrl-C does. At most ``MAX_RUNNING`` jobs run at once
(a job holds a core or a pool), and the last ``MAX_KEPT`` finished ones are
kept for their reports; older ones go with their folders. A job a request
waits for (``/api/batch``, ``/api/compare``, ``/api/tune``) is not kept: its
folder goes as it ends, and it is cancelled when its client hangs up.
"""

from __future__ import annotations

import shutil
import threading
import traceback
from collections.abc import Callable
from typing import Any

import attrs

from sim.errors import InputError
from sim.serve.workspace import input_problems

MAX_RUNNING = 4  # a page's batch, a what-if and a tune, and one more page's batch
MAX_KEPT = 20


class Cancelled(Exception):
    """Raised inside a job's progress callback once the job is cancelled."""


class Busy(Exception):
    """Too many jobs run already: cancel one, or wait."""


@attrs.define
class Job:
    id: str
    kind: str
    folder: Any  # pathlib.Path of the job's files (scenario, run folder, report)
    total: int
    done: int = 0
    status: str = "running"  # running, done, cancelled, failed
    partial: dict[str, Any] | None = None
    result: dict[str, Any] | None = None
    problems: list[dict[str, Any]] = attrs.field(factory=list)
    run_folder: Any = None  # a batch's run folder, for its report
    exact: dict[str, float] | None = None  # a small fight's exact party figures (sim.odds)
    cancel: threading.Event = attrs.field(factory=threading.Event)
    kept: bool = True  # kept once finished, with its folder (else both go as it ends)

    def progressed(self, done: int, total: int, partial: dict[str, Any] | None = None) -> None:
        """A batch's progress (a batch stops on its own once ``cancel`` is set)."""
        self.done, self.total = done, total
        if partial is not None:
            self.partial = partial

    def checked_progress(self, done: int, total: int) -> None:
        """A compare's or tune's progress: they have no stop of their own, so a cancelled job
        ends here, between two steps."""
        if self.cancel.is_set():
            raise Cancelled
        self.progressed(done, total)

    def view(self) -> dict[str, Any]:
        """What GET /api/jobs/ID answers."""
        return {"id": self.id, "kind": self.kind, "status": self.status, "done": self.done,
                "total": self.total, "partial": self.partial, "result": self.result,
                "problems": self.problems, "report": self.run_folder is not None and self.status == "done",
                "exact": self.exact}


@attrs.define
class Jobs:
    """Every job of the server, by id."""

    by_id: dict[str, Job] = attrs.field(factory=dict)
    lock: threading.Lock = attrs.field(factory=threading.Lock)

    def start(self, job: Job, work: Callable[[Job], dict[str, Any]]) -> Job:
        with self.lock:
            running = [j for j in self.by_id.values() if j.status == "running"]
            if len(running) >= MAX_RUNNING:
                raise Busy(f"{len(running)} jobs run already; cancel one (DELETE /api/jobs/ID) or wait")
            self.by_id[job.id] = job
            self._prune()
        threading.Thread(target=self._run, args=(job, work), name=f"job-{job.id}", daemon=True).start()
        return job

    def _run(self, job: Job, work: Callable[[Job], dict[str, Any]]) -> None:
        status = _run(job, work)
        if not job.kept:  # gone before its end is seen: the answer holds all of it
            with self.lock:
                self.by_id.pop(job.id, None)
            shutil.rmtree(job.folder, ignore_errors=True)
        job.status = status

    def get(self, job_id: str) -> Job | None:
        with self.lock:
            return self.by_id.get(job_id)

    def cancel(self, job_id: str) -> Job | None:
        job = self.get(job_id)
        if job is not None:
            job.cancel.set()
        return job

    def cancel_all(self) -> None:
        with self.lock:
            for job in self.by_id.values():
                job.cancel.set()

    def _prune(self) -> None:
        finished = [j for j in self.by_id.values() if j.status != "running"]
        for job in finished[: max(0, len(finished) - MAX_KEPT)]:
            del self.by_id[job.id]
            shutil.rmtree(job.folder, ignore_errors=True)


def _run(job: Job, work: Callable[[Job], dict[str, Any]]) -> str:
    """The job's work; the status it ends with."""
    try:
        job.result = work(job)
        return "done"
    except (Cancelled, KeyboardInterrupt):
        return "cancelled"  # a cancelled batch stops as a Ctrl-C does
    except InputError as exc:
        job.problems = input_problems(exc)
        return "failed"
    except Exception:  # a bug: the page says so, the server goes on
        job.problems = [{"file": "", "line": 0, "col": 0, "path": "", "message": "internal error",
                         "text": f"internal error, please report it:\n{traceback.format_exc()}"}]
        return "failed"
