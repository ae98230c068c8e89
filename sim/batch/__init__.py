"""Monte Carlo batches: per-battle seeds, worker pools (local or Dask), streaming, resumable runs.

::

    chunk     seeds (SHA-256 of master seed and index), ChunkTask, run_chunk: a worker's work
    plan      each chunk's battles, and the checkpoints where --precision may stop a batch
    tables    schemas; parts (a chunk's columns in Arrow) and battles.parquet rows
    runners   where chunks run: this process, a process pool, a Dask cluster
    journal   the parts journal: finished chunks appended to one CRC-framed file
    folder    the run folder: atomic writes, manifest, parts
    manifest  a run's manifest and the JSON files of a run folder, read as hostile input
    summary_file  summary.json read back as hostile input
    battles_file  battles.parquet, written as the parts are stored
    store     where parts are stored (journal, battles.parquet): here, or in a store process
    weigh     whether a batch ends sooner in a pool or in this process (default --workers), runner_of
    run       Batch (chunks in, counts merged in index order, summary out), start_run,
              open_run (--resume), the manifest of a new run

This module re-exports what the rest of the program uses. May import: ``sim.day`` and the
layers below; never a decision, a replay, a report, the server or a command.
"""

from sim.batch.battles_file import BATTLES
from sim.batch.chunk import (
    DEFAULT_CHUNK,
    ChunkResult,
    ChunkTask,
    LogPlan,
    battle_seed,
    run_chunk,
)
from sim.batch.folder import JOURNAL, SUMMARY, RunFolder, write_atomic
from sim.batch.run import (
    Batch,
    BatchSpec,
    default_out,
    load_run_scenario,
    open_run,
    spec_from_manifest,
    start_run,
)
from sim.batch.runners import (
    WORKERS_PER_CORE,
    Runner,
    check_scheduler,
    default_workers,
    kept_pool,
    make_runner,
    max_local_workers,
    run_serial,
    scheduler_problem,
)
from sim.batch.tables import PART_KEY
from sim.batch.weigh import Work, runner_of

__all__ = [
    "BATTLES", "DEFAULT_CHUNK", "JOURNAL", "PART_KEY", "SUMMARY", "WORKERS_PER_CORE", "Batch", "BatchSpec",
    "ChunkResult", "ChunkTask", "LogPlan", "RunFolder", "Runner", "Work", "battle_seed", "check_scheduler",
    "default_out", "default_workers", "kept_pool", "load_run_scenario", "make_runner", "max_local_workers",
    "open_run", "run_chunk", "run_serial", "runner_of", "scheduler_problem", "spec_from_manifest",
    "start_run", "write_atomic",
]
