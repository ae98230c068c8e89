"""Monte Carlo batches: per-battle seeds, worker pools (local or Dask), streaming, resumable runs.

A run folder holds ``manifest.json`` (what was asked), ``parts/`` (one Parquet
file per finished chunk of battles, each written atomically, in index order),
``logs/`` (event logs asked for with ``--logs``: one JSONL file per chunk,
the battles one after another, each opening with its ``battle_started``; a file
per battle would cost more in file-system work than the battles), and at the end
``battles.parquet`` and ``summary.json``. Chunks are aggregated strictly in
index order, whatever order workers finish them in, so the summary is the same
for any number of workers and any executor, and a run killed at any moment
resumes from its parts to the same result.
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import functools
import hashlib
import json
import logging
import multiprocessing
import os
import pathlib
import platform
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import attrs

from sim import __version__
from sim.day import Day, StepResult, load_input, run_day
from sim.day_stats import DayAggregate, DayRow
from sim.engine import run_battle
from sim.errors import InputError
from sim.events import to_jsonl_bytes
from sim.infile import open_regular
from sim.manifest import check_manifest, file_sha256, manifest_text, new_run_id, read_json
from sim.model import Scenario
from sim.runlock import LOCK, RunLock
from sim.shutdown import sigint_ignored, start_pool_helpers, worker_init
from sim.stats import Aggregate, BattleRow
from sim.yamlsrc import shorten

MANIFEST = "manifest.json"
SUMMARY = "summary.json"
BATTLES = "battles.parquet"
PARTS = "parts"
LOGS = "logs"
DEFAULT_CHUNK = 500
SEED_BITS = 63
PART_KEY = b"combat-sim"  # the Parquet metadata key of a part's identity


def battle_seed(master: int, index: int) -> int:
    """Battle ``index``'s seed: SHA-256 of (master, index), so it never depends on who runs it."""
    digest = hashlib.sha256(f"combat-sim/{master}/{index}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> (64 - SEED_BITS)


# -- the work of one chunk (runs in a worker) ----------------------------------------


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
            if count.isdigit() and int(count) > 0:
                return cls("sample", max(1, -(-n // int(count))))
        msg = f"sim batch: --logs: must be none, all or sample:N with N > 0 (got {text[:40]!r})"
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
    # tag says whose chunk it is, and they want the rows themselves, not a Parquet part.
    tag: object = None
    rows_only: bool = False
    run_id: str = ""
    number: int = 0  # the chunk's number: its part is parts/part-<number>.parquet

    def identity(self) -> dict[str, Any]:
        return part_identity(self.run_id, self.master_seed, self.number, self.start, self.stop)

    def part(self, table: Any) -> bytes:
        """The chunk's Parquet part: its rows, and who it is in the file's metadata."""
        return parquet_bytes(table.replace_schema_metadata({PART_KEY: json.dumps(self.identity())}))


def part_identity(run_id: str, seed: int, number: int, start: int, stop: int) -> dict[str, Any]:
    """What a part says about itself: whose run, which chunk, which battles."""
    return {"run_id": run_id, "seed": seed, "chunk": number, "start": start, "stop": stop}


@attrs.frozen
class ChunkResult:
    """What a worker sends back: the chunk's Parquet part, its counts, and its logs.

    Workers do the heavy lifting (rows into Arrow, counting) so that the main
    process only merges counts and writes bytes: it never competes with them.
    """

    start: int
    battles: int
    part: bytes  # a Parquet file of the chunk's rows
    aggregate: Aggregate
    logs: bytes  # JSON Lines of the logged battles, in index order
    tag: object = None
    rows: tuple[BattleRow, ...] = ()  # with ``rows_only`` (then ``part`` is empty)


def run_day_chunk(task: ChunkTask, day: Day) -> ChunkResult:
    """Play a chunk of adventuring days: one row per day (see sim.day_stats)."""
    rows: list[DayRow] = []
    logs: list[bytes] = []
    for index in range(task.start, task.stop):
        seed = battle_seed(task.master_seed, index)
        logged = task.logs.wants(index)
        outcome, events = run_day(day, seed, log=logged,
                                  batch={"seed": task.master_seed, "index": index} if logged else None)
        rows.append((index, seed, outcome.winner, outcome.rounds, outcome.rows, outcome.steps,
                     outcome.survived, outcome.completed))
        if logged:
            logs.append(to_jsonl_bytes(events))
    return _chunk_result(task, rows, logs)


def run_chunk(task: ChunkTask) -> ChunkResult:
    """Play a chunk of battles; the hot loop logs nothing unless the plan asks."""
    if isinstance(task.scenario, Day):
        return run_day_chunk(task, task.scenario)
    scenario, master, plan = task.scenario, task.master_seed, task.logs
    rows: list[BattleRow] = []
    logs: list[bytes] = []
    for index in range(task.start, task.stop):
        seed = battle_seed(master, index)
        if plan.wants(index):  # the log's header names the battle: {"seed": S, "index": i}
            outcome, events = run_battle(scenario, seed, log=True,
                                         batch={"seed": master, "index": index})
            logs.append(to_jsonl_bytes(events))
        else:
            outcome = run_battle(scenario, seed)[0]
        rows.append((index, seed, outcome.winner, outcome.rounds, outcome.rows))
    return _chunk_result(task, rows, logs)


def _chunk_result(task: ChunkTask, rows: Sequence[BattleRow | DayRow], logs: list[bytes]) -> ChunkResult:
    """Count the chunk's rows and pack them: a Parquet part, or the rows themselves."""
    aggregate = empty_aggregate(task.scenario)
    aggregate.add_rows(rows)
    if task.rows_only:
        return ChunkResult(task.start, len(rows), b"", aggregate, b"".join(logs), task.tag,
                           tuple(row[:5] for row in rows))
    table = (day_rows_table(rows, roster_of(task.scenario)) if isinstance(task.scenario, Day)
             else rows_table(rows, roster_of(task.scenario)))
    return ChunkResult(task.start, len(rows), task.part(table), aggregate, b"".join(logs), task.tag)


# -- executors -------------------------------------------------------------------------


Runner = Callable[[Iterator[ChunkTask], int], Iterator[ChunkResult]]


def run_serial(tasks: Iterator[ChunkTask], _window: int) -> Iterator[ChunkResult]:
    """Run chunks one after another in this process."""
    for task in tasks:
        yield run_chunk(task)


def _windowed(submit: Callable[[ChunkTask], Any], wait_one: Callable[[set], tuple[set, set]],
              result: Callable[[Any], ChunkResult], cancel: Callable[[set], None],
              tasks: Iterator[ChunkTask], window: int) -> Iterator[ChunkResult]:
    """Keep at most ``window`` chunks in flight; yield results as they finish."""
    pending: set = set()
    try:
        for task in tasks:
            pending.add(submit(task))
            while len(pending) >= window:
                done, pending = wait_one(pending)
                for future in done:
                    yield result(future)
        while pending:
            done, pending = wait_one(pending)
            for future in done:
                yield result(future)
    finally:
        cancel(pending)


def _pool_context() -> multiprocessing.context.BaseContext:
    """forkserver where there is one (workers fork from a clean server that has imported
    the engine already: fast start, no state or threads inherited), else spawn."""
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["sim.forkserver_preload"])
        return context
    return multiprocessing.get_context("spawn")


def process_runner(workers: int) -> Runner:
    """A process pool of ``workers``; workers ignore Ctrl-C and exit if this process dies."""

    def run(tasks: Iterator[ChunkTask], window: int) -> Iterator[ChunkResult]:
        context = _pool_context()
        start_pool_helpers(context)
        with cf.ProcessPoolExecutor(max_workers=workers, mp_context=context,
                                    initializer=worker_init, initargs=(os.getpid(),)) as pool:
            def wait_one(pending: set) -> tuple[set, set]:
                done, rest = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
                return set(done), set(rest)

            def cancel(pending: set) -> None:
                for future in pending:
                    future.cancel()

            def result(future: cf.Future) -> ChunkResult:
                try:
                    return future.result()
                except cf.process.BrokenProcessPool as exc:
                    msg = f"a worker process died ({exc})"
                    raise RunAborted(msg) from exc

            yield from _windowed(lambda t: pool.submit(run_chunk, t), wait_one, result,
                                 cancel, tasks, window)

    return run


class RunAborted(InputError):
    """The run cannot go on (a worker or the scheduler is gone); what is done is kept."""


DASK_CONNECT_S = 5  # a scheduler answers at once: 5 s to connect, 5 more for its greeting


def check_scheduler(address: str) -> None:
    """Refuse at once an address that is malformed, unreachable, or not a Dask scheduler.

    Dask's own client waits for minutes on a server that accepts the connection
    but never answers as a scheduler (an HTTP server, say). A Dask scheduler
    speaks first: it sends its handshake as soon as a connection opens, so a TCP
    address is probed for that. Other protocols (tls://, ...) go straight to Dask.
    """
    import socket

    from distributed.comm.addressing import parse_address, parse_host_port

    try:
        protocol, location = parse_address(address)
        if protocol != "tcp":
            return
        host, port = parse_host_port(location)
    except ValueError as exc:
        msg = f"--scheduler: not an address like tcp://host:8786 (got {shorten(address)}: {exc})"
        raise InputError(msg) from None
    try:
        with socket.create_connection((host, port), timeout=DASK_CONNECT_S) as probe:
            probe.settimeout(DASK_CONNECT_S)
            greeting = probe.recv(64)
    except TimeoutError:
        greeting = b""
    except OSError as exc:
        msg = f"--scheduler: cannot reach {shorten(address)} ({exc.strerror or exc})"
        raise InputError(msg) from None
    if b"compression" not in greeting:  # a key of the scheduler's handshake
        msg = f"--scheduler: {shorten(address)} answered, but not as a Dask scheduler"
        raise InputError(msg)


def dask_runner(scheduler: str | None, workers: int) -> Runner:
    """Chunks as tasks of a Dask cluster at ``scheduler`` (a local cluster when None)."""

    def run(tasks: Iterator[ChunkTask], window: int) -> Iterator[ChunkResult]:
        try:
            from distributed import Client, LocalCluster, wait
            from distributed.client import FutureCancelledError, FuturesCancelledError
        except ImportError as exc:
            msg = "--executor dask needs dask.distributed: pip install 'combat-sim[dask]'"
            raise InputError(msg) from exc
        cluster = None
        if scheduler is None:
            with sigint_ignored():  # its worker processes leave Ctrl-C to us, as pool workers do
                cluster = LocalCluster(n_workers=workers, threads_per_worker=1,
                                       dashboard_address=None)
        else:
            check_scheduler(scheduler)
            # Losing the scheduler is reported below in one line: not as Dask's tracebacks.
            logging.getLogger("distributed.client").setLevel(logging.CRITICAL)
        try:
            client = Client(cluster if cluster is not None else scheduler, timeout=DASK_CONNECT_S)
        except (OSError, ValueError, TypeError) as exc:
            msg = f"--scheduler: cannot reach a Dask scheduler at {shorten(scheduler)} ({exc})"
            raise InputError(msg) from exc
        lost = (OSError, TimeoutError, cf.CancelledError, FutureCancelledError,
                FuturesCancelledError)

        def gone(exc: BaseException) -> RunAborted:
            msg = f"--scheduler: lost the Dask scheduler or its workers ({type(exc).__name__})"
            return RunAborted(msg)

        try:
            def wait_one(pending: set) -> tuple[set, set]:
                try:
                    done_and_not = wait(list(pending), return_when="FIRST_COMPLETED")
                except lost as exc:
                    raise gone(exc) from exc
                return set(done_and_not.done), set(done_and_not.not_done)

            def cancel(pending: set) -> None:
                if pending:
                    with contextlib.suppress(*lost):
                        client.cancel(list(pending))

            def result(future: Any) -> ChunkResult:
                try:
                    return future.result()
                except lost as exc:
                    raise gone(exc) from exc

            yield from _windowed(lambda t: client.submit(run_chunk, t, pure=False), wait_one,
                                 result, cancel, tasks, window)
        finally:
            # The run is over (done, interrupted or lost, each already told in one line):
            # what Dask logs while it tears down is noise, tracebacks of cancelled comms.
            logging.getLogger("distributed").setLevel(logging.CRITICAL)
            with contextlib.suppress(*lost):
                client.close(timeout=DASK_CONNECT_S)
            if cluster is not None:
                cluster.close()

    return run


# -- the run folder ----------------------------------------------------------------------


def write_atomic(path: pathlib.Path, data: bytes, durable: bool = True) -> None:
    """Write beside the target, then rename: readers never see half a file.

    ``durable`` also flushes it to disk first; event logs skip that (they can be
    regenerated from their seed, and an fsync per battle would dominate a run).
    """
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as handle:
            handle.write(data)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)  # never leave a stray temporary file behind
        raise


def write_run_file(path: pathlib.Path, data: bytes) -> None:
    """A file of the run folder; a full disk or a read-only folder is one clear line, exit 2.

    Nothing half-written is left: parts and the manifest are renamed into place.
    """
    try:
        write_atomic(path, data)
    except OSError as exc:
        msg = f"{path}:0:0: (document): cannot write ({exc.strerror or exc})"
        raise RunAborted(msg) from exc


def _parquet_schema() -> Any:
    import pyarrow as pa

    fighter = pa.struct([
        ("name", pa.string()), ("side", pa.string()), ("hp", pa.int32()),
        ("status", pa.string()), ("cause", pa.string()), ("knocked_out", pa.bool_()),
        ("morale", pa.string()), ("learned", pa.list_(pa.string())),
        ("items_used", pa.int32()),
    ])
    return pa.schema([
        ("index", pa.int64()), ("seed", pa.int64()), ("winner", pa.string()),
        ("rounds", pa.int32()), ("combatants", pa.list_(fighter)),
    ])


def rows_table(rows: Sequence[BattleRow], roster: Sequence[tuple[str, str]]) -> Any:
    """Battle rows as an Arrow table, built column by column (no dict per combatant)."""
    import pyarrow as pa

    schema = _parquet_schema()
    fields = list(schema.field("combatants").type.value_type)
    # Every fighter of every battle in order, converted at once (fighter rows are tuples in
    # the order of the struct's fields after name and side), then split into its fields.
    fighters = pa.array([f for row in rows for f in row[4]], pa.struct(fields[2:])).flatten()
    names, sides, offsets = _roster_columns(tuple(roster), len(rows))
    struct = pa.StructArray.from_arrays([names, sides, *fighters], fields=fields)
    index, seed, winner, rounds = (zip(*(row[:4] for row in rows), strict=True) if rows
                                   else [()] * 4)
    return pa.table([
        pa.array(index, pa.int64()),
        pa.array(seed, pa.int64()),
        pa.array(winner, pa.string()),
        pa.array(rounds, pa.int32()),
        pa.ListArray.from_arrays(offsets, struct),
    ], schema=schema)


@functools.lru_cache(maxsize=4)
def _roster_columns(roster: tuple[tuple[str, str], ...], battles: int) -> tuple[Any, Any, Any]:
    """The name and side columns of ``battles`` battles of a roster, and their list offsets:
    the same for every full chunk, so converted once (Arrow arrays are immutable)."""
    import pyarrow as pa

    k = len(roster)
    return (pa.array([name for name, _ in roster] * battles, pa.string()),
            pa.array([side for _, side in roster] * battles, pa.string()),
            pa.array(range(0, battles * k + 1, k), pa.int32()))


def _step_type() -> Any:
    import pyarrow as pa

    return pa.struct([
        ("step", pa.int32()), ("reached", pa.bool_()), ("won", pa.bool_()), ("winner", pa.string()),
        ("rounds", pa.int32()), ("any_down", pa.bool_()), ("any_death", pa.bool_()),
        ("hp_start", pa.int64()), ("heroism_start", pa.int64()), ("psy_start", pa.int64()),
    ])


def _day_schema() -> Any:
    """A day's row: a battle row of the day as a whole (the party's members at its end), then
    its steps in order, and whether the party survived and completed the day."""
    import pyarrow as pa

    base = _parquet_schema()
    return base.append(pa.field("steps", pa.list_(_step_type()))).append(
        pa.field("survived", pa.bool_())).append(pa.field("completed", pa.bool_()))


def day_rows_table(rows: Sequence[DayRow], roster: Sequence[tuple[str, str]]) -> Any:
    import pyarrow as pa

    base = rows_table([r[:5] for r in rows], roster)
    steps = pa.array([[s._asdict() for s in r[5]] for r in rows], pa.list_(_step_type()))
    table = base.append_column("steps", steps)
    table = table.append_column("survived", pa.array([r[6] for r in rows], pa.bool_()))
    return table.append_column("completed", pa.array([r[7] for r in rows], pa.bool_()))


def parquet_bytes(table: Any) -> bytes:
    """A part's table as the bytes of a Parquet file. Without column statistics: nothing
    reads a part's, and battles.parquet gets its own when the parts are merged."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, write_statistics=False)
    return sink.getvalue().to_pybytes()


def _table_rows(table: Any) -> Iterator[BattleRow | DayRow]:
    """Rows back from a Parquet part, in the shape workers send them (battles or days)."""
    days = "steps" in table.column_names
    for record in table.to_pylist():
        # A part written before items were counted has no items_used: none were.
        fighters = tuple((c["hp"], c["status"], c["cause"], c["knocked_out"], c["morale"],
                          tuple(c["learned"]), c.get("items_used") or 0)
                         for c in record["combatants"])
        row = (record["index"], record["seed"], record["winner"], record["rounds"], fighters)
        if days:
            steps = tuple(StepResult(**s) for s in record["steps"])
            yield (*row, steps, record["survived"], record["completed"])
        else:
            yield row


@attrs.define
class RunFolder:
    """The files of one batch run, written atomically and readable after any crash.

    Whoever writes a run holds its lock (``lock``) from start to end.
    """

    path: pathlib.Path
    lock: RunLock | None = None

    @property
    def manifest_path(self) -> pathlib.Path:
        return self.path / MANIFEST

    def part_path(self, number: int) -> pathlib.Path:
        return self.path / PARTS / f"part-{number:06d}.parquet"

    def read_manifest(self) -> dict[str, Any]:
        """The run's manifest, checked key by key and against its seal: a hand-edited one is an
        input error."""
        manifest = read_json(self.manifest_path, "manifest",
                             f"no {MANIFEST}: {self.path} is not a batch run folder")
        return check_manifest(self.manifest_path, manifest)

    def write_manifest(self, manifest: dict[str, Any]) -> None:
        write_run_file(self.manifest_path, manifest_text(manifest).encode("ascii"))

    def read_summary(self) -> dict[str, Any]:
        """A finished run's summary.json; a damaged one is an input error saying so."""
        path = self.path / SUMMARY
        summary = read_json(path, "summary", f"no {SUMMARY}: the run is marked complete but its"
                            " summary is gone; start it again in another --out")
        if not isinstance(summary, dict) or summary.get("schema") != 1:
            msg = f"{path}:1:1: (document): damaged: not a schema 1 summary of this program"
            raise InputError(msg)
        return summary

    def completed_parts(self) -> int:
        """How many chunks are safely on disk: the unbroken prefix part-0, part-1..."""
        count = 0
        while self.part_path(count).exists():
            count += 1
        return count

    def write_part(self, number: int, data: bytes) -> None:
        write_run_file(self.part_path(number), data)

    def read_part(self, number: int, identity: dict[str, Any]) -> Any:
        """A finished chunk's rows; a damaged part, or one of another run or chunk, is an
        input error, not a crash and never mixed in."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        path = self.part_path(number)
        try:
            with open_regular(path) as handle:  # a FIFO planted as a part must not hang us
                # Not read_table, which imports pyarrow.dataset; one thread: the part is small.
                table = pq.ParquetFile(handle).read(use_threads=False)
        except (OSError, pa.ArrowException) as exc:
            msg = f"{path}:0:0: (part): unreadable ({exc}); delete it and --resume redoes it"
            raise InputError(msg) from exc
        if not (table.schema.equals(_parquet_schema()) or table.schema.equals(_day_schema())):
            msg = f"{path}:0:0: (part): not a part of this program; delete it and --resume"
            raise InputError(msg)
        if _part_identity_of(table) != identity:
            msg = (f"{path}:0:0: (part): not chunk {number} of this run (run {identity['run_id']},"
                   f" seed {identity['seed']}, battles {identity['start']} to"
                   f" {identity['stop'] - 1}); it is not used")
            raise InputError(msg)
        return table

    def merge_parts(self, identities: Sequence[dict[str, Any]]) -> None:
        """Stream every part into battles.parquet (one part in memory at a time)."""
        import pyarrow.parquet as pq

        target = self.path / BATTLES
        tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        run_id = identities[0]["run_id"] if identities else ""
        # The parts' own schema: a run of battles, or of days (which add their steps).
        schema = self.read_part(0, identities[0]).schema if identities else _parquet_schema()
        schema = schema.with_metadata({PART_KEY: json.dumps({"run_id": run_id})})
        try:
            with pq.ParquetWriter(tmp, schema) as writer:
                for number, identity in enumerate(identities):
                    writer.write_table(self.read_part(number, identity))
            os.replace(tmp, target)
        except OSError as exc:
            msg = f"{target}:0:0: (document): cannot write ({exc.strerror or exc})"
            raise RunAborted(msg) from exc
        finally:
            tmp.unlink(missing_ok=True)

    def read_battles(self, columns: Sequence[str], run_id: str) -> Any:
        """Columns of battles.parquet, which must be this run's (merged under its run id)."""
        import pyarrow.parquet as pq

        path = self.path / BATTLES
        try:
            with open_regular(path) as handle:  # refuses a FIFO or a device at once
                table = pq.read_table(handle, columns=list(columns))
        except Exception as exc:  # pyarrow raises several types for a missing or bad file
            msg = f"{path}:0:0: (document): cannot read the run's battles ({exc})"
            raise InputError(msg) from exc
        if _part_identity_of(table) != {"run_id": run_id}:
            msg = f"{path}:0:0: (document): not this run's battles (run {run_id}); it is not used"
            raise InputError(msg)
        return table

    def remove_parts(self, count: int) -> None:
        for number in range(count):
            self.part_path(number).unlink(missing_ok=True)
        with contextlib.suppress(OSError):
            (self.path / PARTS).rmdir()

    def remove_stale_temporaries(self) -> None:
        """Half-written files of a process killed mid-write (only the lock holder may call this)."""
        for stale in (self.path / PARTS).glob(".part-*.tmp"):
            stale.unlink(missing_ok=True)

    def release(self) -> None:
        if self.lock is not None:
            self.lock.release()


def _part_identity_of(table: Any) -> dict[str, Any] | None:
    raw = (table.schema.metadata or {}).get(PART_KEY)
    try:
        identity = json.loads(raw) if raw is not None else None
    except (ValueError, RecursionError):
        return None
    return identity if isinstance(identity, dict) else None


# -- the batch -----------------------------------------------------------------------------


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
    import importlib.metadata as md

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


def roster_of(scenario: Scenario | Day) -> list[tuple[str, str]]:
    return [(c.name, c.side) for c in scenario.combatants]


def empty_aggregate(scenario: Scenario | Day) -> Aggregate:
    if isinstance(scenario, Day):
        return DayAggregate.for_day(scenario)
    party = next((s.name for s in scenario.sides if s.party), None)
    mounts = [c.name for c in scenario.combatants if c.rider is not None]
    return Aggregate.for_roster(roster_of(scenario), [s.name for s in scenario.sides], party, mounts,
                                scenario.max_rounds)


@attrs.define
class Batch:
    """One batch run: plans chunks, collects them in order, writes the folder."""

    scenario: Scenario | Day
    spec: BatchSpec
    folder: RunFolder
    runner: Runner
    window: int
    progress: Callable[[int, int], None] = lambda done, total: None
    should_stop: Callable[[], bool] = lambda: False  # Ctrl-C: finish what is in flight, then stop
    aggregate: Aggregate = attrs.field(init=False)
    elapsed: float = 0.0
    run_id: str = ""

    def __attrs_post_init__(self) -> None:
        self.aggregate = empty_aggregate(self.scenario)

    def _enough(self) -> bool:
        precision = self.spec.precision
        if self.aggregate.battles >= self.spec.n:
            return True
        return precision is not None and self.aggregate.headline_halfwidth() <= precision

    def _identity(self, number: int) -> dict[str, Any]:
        start = number * self.spec.chunk
        stop = min(self.spec.n, start + self.spec.chunk)
        return part_identity(self.run_id, self.spec.seed, number, start, stop)

    def _replay_parts(self, count: int) -> int:
        """Aggregate chunks already on disk; returns how many are kept (a stop may come early)."""
        for number in range(count):
            for row in _table_rows(self.folder.read_part(number, self._identity(number))):
                self.aggregate.add(row)
            self.progress(self.aggregate.battles, self.spec.n)
            if self._enough():
                return number + 1
        return count

    def _tasks(self, first_chunk: int, plan: LogPlan) -> Iterator[ChunkTask]:
        number = first_chunk
        while number * self.spec.chunk < self.spec.n and not self.should_stop():
            identity = self._identity(number)
            yield ChunkTask(self.scenario, self.spec.seed, identity["start"], identity["stop"], plan,
                            run_id=self.run_id, number=number)
            number += 1

    def run(self) -> dict[str, Any]:
        """Run (or finish) the batch; returns the summary written to summary.json."""
        started = time.perf_counter()
        manifest = self.folder.read_manifest()
        self.run_id = manifest["run_id"]
        done = self._replay_parts(self.folder.completed_parts())
        plan = LogPlan.parse(self.spec.logs, self.spec.n)
        if not self._enough():
            self._collect(done, plan, manifest)
            if self.should_stop() and not self._enough():
                raise KeyboardInterrupt  # the chunks in flight are stored: resumable from here
        total_chunks = -(-self.aggregate.battles // self.spec.chunk)
        self.folder.merge_parts([self._identity(number) for number in range(total_chunks)])
        self.elapsed = manifest.get("elapsed_s", 0.0) + time.perf_counter() - started
        summary = self.aggregate.summary({
            "scenario": self.scenario.name, "rules": self.scenario.rules, "seed": self.spec.seed,
            "elapsed_s": round(self.elapsed, 3),
        })
        summary["stopped_by"] = "n" if self.aggregate.battles >= self.spec.n else "precision"
        write_run_file(self.folder.path / SUMMARY,
                       (json.dumps(summary, indent=2, ensure_ascii=False) + "\n").encode())
        manifest.update(status="complete", battles_done=self.aggregate.battles,
                        elapsed_s=round(self.elapsed, 3))
        self.folder.write_manifest(manifest)
        self.folder.remove_parts(total_chunks)
        return summary

    def _collect(self, first_chunk: int, plan: LogPlan, manifest: dict[str, Any]) -> None:
        """Run the remaining chunks, aggregating strictly in index order."""
        waiting: dict[int, ChunkResult] = {}
        next_chunk = first_chunk
        results = self.runner(self._tasks(first_chunk, plan), self.window)
        try:
            for result in results:  # in the order workers finish
                waiting[result.start // self.spec.chunk] = result
                while next_chunk in waiting:
                    ready = waiting.pop(next_chunk)
                    self._store(ready, next_chunk)
                    next_chunk += 1
                    if self._enough():
                        return
        finally:
            close = getattr(results, "close", None)
            if close is not None:
                close()  # cancels what is still in flight

    def _store(self, result: ChunkResult, number: int) -> None:
        if result.logs:
            logs_dir = self.folder.path / LOGS
            logs_dir.mkdir(exist_ok=True)
            last = result.start + result.battles - 1
            name = f"battles-{result.start:07d}-{last:07d}.jsonl"
            try:
                write_atomic(logs_dir / name, result.logs, durable=False)
            except OSError as exc:
                msg = f"{logs_dir / name}:0:0: (document): cannot write ({exc.strerror or exc})"
                raise RunAborted(msg) from exc
        self.folder.write_part(number, result.part)
        self.aggregate.merge(result.aggregate)
        self.progress(self.aggregate.battles, self.spec.n)


def make_runner(executor: str, workers: int, scheduler: str | None) -> Runner:
    if executor == "dask":
        return dask_runner(scheduler, workers)
    if workers <= 1:
        return run_serial
    return process_runner(workers)


def default_workers() -> int:
    return max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
               else (os.cpu_count() or 1))


def _entries(folder: pathlib.Path) -> set[str]:
    """The names in a folder (none when it does not exist)."""
    _check_encodable(folder)
    try:
        return {entry.name for entry in folder.iterdir()}
    except FileNotFoundError:
        return set()
    except OSError as exc:
        msg = f"{folder}: cannot be a run folder ({exc.strerror})"
        raise InputError(msg) from exc


def _check_encodable(folder: pathlib.Path) -> None:
    """Parquet files are opened by UTF-8 path: a folder whose name is not UTF-8 is refused
    before anything is written, not after the battles are run."""
    try:
        str(folder).encode("utf-8")
    except UnicodeEncodeError:
        shown = str(folder).encode("utf-8", "backslashreplace").decode("utf-8")
        msg = f"{shown}: a run folder's path must be valid UTF-8"
        raise InputError(msg) from None


def start_run(folder: pathlib.Path, scenario: Scenario | Day, spec: BatchSpec, argv: Sequence[str],
              bestiary: Sequence[pathlib.Path] = ()) -> RunFolder:
    """A new run in a missing or empty folder, locked until the run ends; anything already
    there (another run, the user's files) is left alone and refused."""
    not_empty = f"{folder}: the folder is not empty; use --resume {folder}, or another --out"
    if _entries(folder) - {LOCK}:
        if LOCK in _entries(folder):
            RunLock(folder).acquire().release()  # a run is going on: say whose
        raise InputError(not_empty)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        msg = f"{folder}: cannot create the run folder ({exc.strerror})"
        raise InputError(msg) from exc
    lock = RunLock(folder).acquire()
    try:
        if _entries(folder) - {LOCK}:  # another process began here while we were looking
            raise InputError(not_empty)
        run = RunFolder(folder, lock)
        try:
            (folder / PARTS).mkdir()
        except OSError as exc:
            msg = f"{folder}: cannot create the run folder ({exc.strerror})"
            raise InputError(msg) from exc
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
    from sim.yamlsrc import MAX_BYTES

    path = pathlib.Path(manifest["scenario_path"])
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
        msg = (f"{path}:0:0: (document): a bestiary entry it uses changed since the run began"
               f" (searched: {', '.join(manifest['bestiary']) or 'the default folders'})")
        raise InputError(msg)
    return scenario


def spec_from_manifest(manifest: dict[str, Any]) -> BatchSpec:
    return BatchSpec(n=manifest["n"], seed=manifest["seed"], chunk=manifest["chunk"],
                     precision=manifest["precision"], logs=manifest["logs"])


def default_out(scenario_path: pathlib.Path, seed: int) -> pathlib.Path:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return pathlib.Path("runs") / f"{scenario_path.stem}-s{seed}-{stamp}"

