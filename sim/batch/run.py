"""A batch run from start to end: its spec and manifest, the run folder it owns, and
the ``Batch`` that plans chunks, collects them strictly in index order and writes
the summary.

Chunks are aggregated in index order whatever order workers finish them in, so
the summary is the same for any number of workers and any executor, and a run
killed at any moment resumes from its parts to the same result.
"""

from __future__ import annotations

import contextlib
import importlib.metadata as md
import json
import os
import pathlib
import platform
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import attrs

from sim import __version__
from sim.batch.battles_file import BATTLES, BattlesWriter
from sim.batch.chunk import (
    DEFAULT_CHUNK,
    ChunkResult,
    ChunkTask,
    LogPlan,
    empty_aggregate,
    part_identity,
    roster_of,
)
from sim.batch.folder import LOGS, PLAY_AGAIN, START_AGAIN, SUMMARY, RunFolder, write_run_file
from sim.batch.manifest import file_sha256, new_run_id
from sim.batch.plan import ChunkPlan
from sim.batch.runners import Runner, run_serial
from sim.batch.store import LocalStore, Store, StoreProcess, can_store_apart
from sim.batch.tables import part_rows
from sim.day.file import Day, load_input
from sim.errors import InputError, RunAborted
from sim.io.runlock import LOCK, RunLock
from sim.model import Scenario
from sim.tally.stats import Aggregate
from sim.yamlsrc import MAX_BYTES


@attrs.frozen
class BatchSpec:
    """What a batch run asks for (the manifest keeps it for --resume)."""

    n: int
    seed: int
    chunk: int = DEFAULT_CHUNK
    precision: float | None = None
    logs: str = "none"


def versions() -> dict[str, str]:
    """Versions that could change a result, for the manifest."""
    found = {"combat-sim": __version__, "python": platform.python_version()}
    for package in ("simpy", "attrs", "pyyaml", "pyarrow"):
        with contextlib.suppress(md.PackageNotFoundError):
            found[package] = md.version(package)
    return found


def new_manifest(scenario: Scenario | Day, spec: BatchSpec, argv: Sequence[str],
                 bestiary: Sequence[pathlib.Path] = ()) -> dict[str, Any]:
    return {
        "schema": 1,
        "command": ["sim", *argv],
        "versions": versions(),
        "scenario": scenario.name,
        "run_id": new_run_id(),
        "scenario_path": os.path.abspath(scenario.path),
        "scenario_given": scenario.path,  # as the command gave it: what the logs record
        "scenario_sha256": scenario.sha256,
        "resolved_sha256": scenario.resolved_sha256,  # bestiary entries included
        "bestiary": [os.path.abspath(folder) for folder in bestiary],
        "overrides": list(scenario.overrides),  # --set PATH=VALUE, re-applied by resume and replay
        "rules": scenario.rules,
        "seed": spec.seed,
        "n": spec.n,
        "chunk": spec.chunk,
        "precision": spec.precision,
        "logs": spec.logs,
        "status": "running",
        "battles_done": 0,
    }


@attrs.define
class Batch:
    """One batch run: plans chunks, collects them in order, writes the folder."""

    scenario: Scenario | Day
    spec: BatchSpec
    folder: RunFolder
    runner: Runner = run_serial  # where chunks run, and how many may be in flight
    window: int = 2
    progress: Callable[[int, int], None] = lambda done, total: None
    should_stop: Callable[[], bool] = lambda: False  # Ctrl-C: finish what is in flight, then stop
    # Given the first battle still to play once stored parts are counted, the runner and window
    # to play the rest with (the default --workers weighs what is left); None keeps ``runner``.
    choose: Callable[[int], tuple[Runner, int]] | None = None
    # Whether a fresh run stores in a process of its own (sim.batch.store); None: when a
    # core is free for it.
    store_apart: bool | None = None
    aggregate: Aggregate = attrs.field(init=False)
    store: Store | None = attrs.field(init=False, default=None)  # the journal and battles.parquet
    elapsed: float = 0.0
    run_id: str = ""

    plan: ChunkPlan = attrs.field(init=False)  # each chunk's battles (sim.batch.plan)

    def __attrs_post_init__(self) -> None:
        self.aggregate = empty_aggregate(self.scenario)
        self.plan = ChunkPlan(self.spec.n, self.spec.chunk, self.spec.precision)

    def _enough(self) -> bool:
        battles, precision = self.aggregate.battles, self.spec.precision
        if battles >= self.spec.n:
            return True
        # Only at a checkpoint: a stop depends on neither --chunk nor --workers.
        return self.plan.may_stop_at(battles) and self.aggregate.headline_halfwidth() <= precision

    def _identity(self, number: int) -> dict[str, Any]:
        return part_identity(self.run_id, self.spec.seed, number, *self.plan.bounds(number))

    @property
    def stored(self) -> int:
        """Battles whose parts are in the journal: what a stopped run resumes from."""
        return self.store.stored if self.store is not None else 0

    def _replay_parts(self, store: LocalStore, remedy: str = PLAY_AGAIN) -> int:
        """Aggregate and write out the chunks already stored; returns how many are kept (a stop
        may come early)."""
        kept = 0
        for table in self.folder.read_parts(self._identity, len(self.scenario.combatants), remedy):
            self.aggregate.add_rows(part_rows(table))
            store.replayed(table)
            kept += 1
            self.progress(self.aggregate.battles, self.spec.n)
            if self._enough():
                break
        return kept

    def _tasks(self, first_chunk: int, plan: LogPlan) -> Iterator[ChunkTask]:
        # Chunks played in this process leave their parts to a store process, which makes
        # them while the next chunk plays; workers make their own, side by side. (A runner
        # wrapping run_serial, as tests do, is taken for workers: parts made here, the same.)
        part_here = not (self.store is not None and self.store.apart and self.runner is run_serial)
        number = first_chunk
        while (bounds := self.plan.bounds(number))[0] < self.spec.n and not self.should_stop():
            yield ChunkTask(self.scenario, self.spec.seed, *bounds, plan,
                            run_id=self.run_id, number=number, part_here=part_here)
            number += 1

    def _store_apart(self, replayed: int) -> bool:
        """A store process for a run with nothing stored yet (one that resumes stored parts
        has read them here already), when a core is free for it or when asked."""
        wanted = can_store_apart() if self.store_apart is None else self.store_apart
        return wanted and replayed == 0

    def run(self) -> dict[str, Any]:
        """Run (or finish) the batch; returns the summary written to summary.json."""
        started = time.perf_counter()
        manifest = self.folder.read_manifest()
        self.run_id = manifest["run_id"]
        battles = BattlesWriter(self.folder.path, self.run_id, roster_of(self.scenario))
        self.store = local = LocalStore(self.folder, battles)
        try:
            done = self._replay_parts(local)
            plan = LogPlan.parse(self.spec.logs, self.spec.n)
            if not self._enough():
                if self.choose is not None:
                    self.runner, self.window = self.choose(self.plan.bounds(done)[0])
                # Forked after the weighing (a fork's first battles here run slower, while the
                # pages they write are copied) and before the runner starts any thread.
                if self._store_apart(done):
                    with contextlib.suppress(OSError):  # no fork to be had: stored here
                        self.store = StoreProcess(local)
                self._collect(done, plan)
                if self.should_stop() and not self._enough():
                    raise KeyboardInterrupt  # the chunks in flight are stored: resumable from here
            self.store.finish(self.aggregate.battles)
        except BaseException:
            self.store.discard()
            raise
        self.elapsed = manifest.get("elapsed_s", 0.0) + time.perf_counter() - started
        summary = self.aggregate.summary({
            "scenario": self.scenario.name, "rules": self.scenario.rules, "seed": self.spec.seed,
            "elapsed_s": round(self.elapsed, 3),
        })
        summary["stopped_by"] = "n" if self.aggregate.battles >= self.spec.n else "precision"
        summary["warnings"] = [str(w) for w in self.scenario.warnings]  # as told before the run
        write_run_file(self.folder.path / SUMMARY,
                       (json.dumps(summary, indent=2, ensure_ascii=False) + "\n").encode())
        manifest.update(status="complete", battles_done=self.aggregate.battles,
                        elapsed_s=round(self.elapsed, 3))
        self.folder.write_manifest(manifest)
        self.folder.remove_parts()
        return summary

    def rebuild(self) -> int:
        """A finished run's battles.parquet made again from its parts journal, as the run made
        it (the same parts through the same writer: the same bytes); returns its battles. A
        journal short of the run's battles is refused, and the summary and manifest are left
        as they are: the run's results stand."""
        manifest = self.folder.read_manifest()
        self.run_id = manifest["run_id"]
        battles = BattlesWriter(self.folder.path, self.run_id, roster_of(self.scenario))
        local = LocalStore(self.folder, battles)
        remedy = f"{BATTLES} cannot be rebuilt from it; {START_AGAIN}"
        try:
            self._replay_parts(local, remedy)
            if local.stored != manifest["battles_done"]:
                msg = (f"{self.folder.journal_path}:0:0: (document): holds {local.stored} of the run's"
                       f" {manifest['battles_done']} battles; {remedy}")
                raise InputError(msg)
            local.finish(local.stored)
        except BaseException:
            local.discard()
            raise
        return local.stored

    def _collect(self, first_chunk: int, plan: LogPlan) -> None:
        """Run the remaining chunks, aggregating strictly in index order."""
        waiting: dict[int, ChunkResult] = {}  # by first battle
        next_start = self.plan.bounds(first_chunk)[0]
        results = self.runner(self._tasks(first_chunk, plan), self.window)
        try:
            for result in self._played(results):  # in the order workers finish
                waiting[result.start] = result
                while next_start in waiting:
                    ready = waiting.pop(next_start)
                    self._store(ready)
                    next_start = ready.start + ready.battles
                    if self._enough():
                        return
        finally:
            close = getattr(results, "close", None)
            if close is not None:
                close()  # cancels what is still in flight

    def _played(self, results: Iterator[ChunkResult]) -> Iterator[ChunkResult]:
        """The runner's results. A worker lost while a stop is asked for is the stop, not a
        failure: a SIGTERM to the process group ends the workers too. (What storing meets,
        a full disk say, is told as it is.)"""
        while True:
            try:
                result = next(results)
            except StopIteration:
                return
            except RunAborted:
                if self.should_stop():
                    raise KeyboardInterrupt from None
                raise
            yield result

    def _store(self, result: ChunkResult) -> None:
        if result.logs:
            logs_dir = self.folder.path / LOGS
            logs_dir.mkdir(exist_ok=True)
            last = result.start + result.battles - 1
            name = f"battles-{result.start:07d}-{last:07d}.jsonl"
            write_run_file(logs_dir / name, result.logs, durable=False)
        assert self.store is not None  # run() opens it before any chunk is collected
        self.store.add(result)
        self.aggregate.merge(result.aggregate)
        self.progress(self.aggregate.battles, self.spec.n)


def _entries(folder: pathlib.Path) -> set[str]:
    """The names in a folder (none when it does not exist)."""
    _check_encodable(folder)
    try:
        return {entry.name for entry in folder.iterdir()}
    except FileNotFoundError:
        return set()
    except OSError as exc:
        msg = f"{folder}:0:0: (run folder): cannot be a run folder ({exc.strerror})"
        raise InputError(msg) from exc


def _check_encodable(folder: pathlib.Path) -> None:
    """Parquet files are opened by UTF-8 path: a folder whose name is not UTF-8 is refused
    before anything is written, not after the battles are run."""
    try:
        str(folder).encode("utf-8")
    except UnicodeEncodeError:
        shown = str(folder).encode("utf-8", "backslashreplace").decode("utf-8")
        msg = f"{shown}:0:0: (run folder): a run folder's path must be valid UTF-8"
        raise InputError(msg) from None


def start_run(folder: pathlib.Path, scenario: Scenario | Day, spec: BatchSpec, argv: Sequence[str],
              bestiary: Sequence[pathlib.Path] = ()) -> RunFolder:
    """A new run in a missing or empty folder, locked until the run ends; anything already
    there (another run, the user's files) is left alone and refused."""
    not_empty = f"{folder}:0:0: (run folder): not empty; use --resume {folder}, or another --out"
    if _entries(folder) - {LOCK}:
        if LOCK in _entries(folder):
            RunLock(folder).acquire().release()  # a run is going on: say whose
        raise InputError(not_empty)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        msg = f"{folder}:0:0: (run folder): cannot create it ({exc.strerror})"
        raise InputError(msg) from exc
    lock = RunLock(folder).acquire()
    try:
        if _entries(folder) - {LOCK}:  # another process began here while we were looking
            raise InputError(not_empty)
        run = RunFolder(folder, lock)
        run.write_manifest(new_manifest(scenario, spec, argv, bestiary))
    except BaseException:
        lock.release()
        raise
    return run


def open_run(folder: pathlib.Path) -> tuple[RunFolder, dict[str, Any]]:
    """An existing run to finish, locked until it ends, with its checked manifest."""
    _check_encodable(folder)
    RunFolder(folder).read_manifest()  # not a run folder: say so before creating a lock file
    lock = RunLock(folder).acquire()
    run = RunFolder(folder, lock)
    try:
        manifest = run.read_manifest()  # read again: it may have changed before we held the lock
        run.remove_stale_temporaries()
        return run, manifest
    except BaseException:
        lock.release()
        raise


def load_run_scenario(folder: RunFolder, manifest: dict[str, Any],
                      extra: Sequence[pathlib.Path] = ()) -> Scenario | Day:
    """The run's scenario, resolved with the run's bestiary folders, as it was at the start.

    ``extra`` bestiary folders (``--bestiary``) are searched first. A scenario or
    bestiary changed since would give other battles: an input error. The file's
    hash is checked before it is parsed, so a path that now names an unrelated
    file or a device is refused without showing any of it.
    """
    path = pathlib.Path(manifest["scenario_path"])
    given = manifest.get("scenario_given")
    if isinstance(given, str) and os.path.abspath(given) == str(path):
        # Resumed from the same folder: loaded by the same name, the logs it writes now
        # name the scenario as the run's first logs do.
        path = pathlib.Path(given)
    changed = f"{path}:0:0: (document): the scenario changed since the run began (SHA-256 differs)"
    if file_sha256(path, MAX_BYTES, "the run's scenario") != manifest["scenario_sha256"]:
        raise InputError(changed)
    bestiary = (*extra, *(pathlib.Path(folder) for folder in manifest["bestiary"]))
    overrides = manifest.get("overrides", [])
    if not isinstance(overrides, list) or not all(isinstance(o, str) for o in overrides):
        msg = f"{folder.manifest_path}:0:0: overrides: must be a list of PATH=VALUE texts"
        raise InputError(msg)
    scenario = load_input(path, bestiary, overrides=overrides)
    if scenario.sha256 != manifest["scenario_sha256"]:  # changed between the two reads
        raise InputError(changed)
    if scenario.resolved_sha256 != manifest["resolved_sha256"]:
        # A day's own file is unchanged; its encounter files are hashed in the resolved day.
        what = ("an encounter file it names, or a bestiary entry it uses," if isinstance(scenario, Day)
                else "a bestiary entry it uses")
        msg = (f"{path}:0:0: (document): {what} changed since the run began"
               f" (searched: {', '.join(manifest['bestiary']) or 'the default folders'})")
        raise InputError(msg)
    return scenario


def spec_from_manifest(manifest: dict[str, Any]) -> BatchSpec:
    return BatchSpec(n=manifest["n"], seed=manifest["seed"], chunk=manifest["chunk"],
                     precision=manifest["precision"], logs=manifest["logs"])


def default_out(scenario_path: pathlib.Path, seed: int) -> pathlib.Path:
    """A new empty folder runs/<scenario>-s<seed>-<time>, or the first of -2, -3... not taken:
    a batch can end within the second, and the same command again must not be refused.
    Made here, at once: two runs starting in the same second never pick the same one."""
    base = pathlib.Path("runs") / f"{scenario_path.stem}-s{seed}-{time.strftime('%Y%m%d-%H%M%S')}"
    taken = 1
    while True:
        folder = base if taken == 1 else base.with_name(f"{base.name}-{taken}")
        _check_encodable(folder)  # refused before anything is made
        try:
            folder.mkdir(parents=True)
        except FileExistsError:  # a folder, a file or a dangling link: the next name
            taken += 1
            continue
        except OSError as exc:
            msg = f"{folder}:0:0: (run folder): cannot create it ({exc.strerror})"
            raise InputError(msg) from exc
        return folder
