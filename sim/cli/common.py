"""What every ``sim`` command shares: exit codes, terminal-safe printing, option checks
(--bestiary, --scheduler), the runner the options ask for and the progress bar."""

from __future__ import annotations

import argparse
import contextlib
import pathlib
import sys
import time
from collections.abc import Callable, Iterator, Sequence

from sim.batch import (
    WORKERS_PER_CORE,
    check_scheduler,
    default_workers,
    max_local_workers,
    scheduler_problem,
)
from sim.errors import InputError, Problem, ScenarioError, option_problem, strict
from sim.scenario import IMPLEMENTED_SYSTEMS
from sim.scenario.bestiary import BESTIARY_ENV, env_bestiary_dirs, rules_folder
from sim.terminal import plural, safe

EXIT_OK, EXIT_INTERNAL, EXIT_INPUT, EXIT_INTERRUPTED = 0, 1, 2, 130
EXIT_MISMATCH = 1  # sim replay --verify: the log and the simulation differ
REDRAW_S = 0.25  # the progress bar is drawn at most this often (and at the end)


def say(text: object, stream: object = None) -> None:
    """One line on ``stream`` (stdout by default), terminal-safe (sim.terminal.safe); a
    character the stream cannot encode is written as an escape instead of raising."""
    stream = stream or sys.stdout
    encoding = getattr(stream, "encoding", None) or "utf-8"
    print(safe(text).encode(encoding, "backslashreplace").decode(encoding), file=stream)  # type: ignore[call-overload]


def warn(text: object) -> None:
    say(text, sys.stderr)


def say_line(text: object, stream: object = None) -> None:
    """``say`` of a line that names a path or a name: a newline in it is shown escaped, so the
    line stays one line."""
    say(safe(text, newlines=False), stream)


def warn_problem(text: object) -> None:
    """One problem on stderr as one line: a newline in a path or name is shown as ``\\n``."""
    say_line(text, sys.stderr)


def by_line(problems: Sequence[Problem]) -> list[Problem]:
    """Problems and warnings as a GM reads the file: each file in the order first told, and in
    it by line and column (a file-wide problem, line 0, first)."""
    order: dict[str, int] = {}
    for problem in problems:
        order.setdefault(problem.file, len(order))
    return sorted(problems, key=lambda p: (order[p.file], p.line, p.col))


def tell_warnings(warnings: Sequence[Problem], refuse: bool) -> list[str]:
    """Valid data the input leaves idle, told once, grouped, on stderr before any result (the
    run goes ahead); with ``refuse`` (--strict) they are errors: ScenarioError, exit 2.
    Returns their lines, as the summary keeps them."""
    if refuse and warnings:
        raise ScenarioError([strict(w) for w in warnings])
    lines = [str(w) for w in warnings]
    for line in lines:
        warn_problem(line)
    if lines:
        warn(f"sim: {plural(len(lines), 'warning')}: valid data this fight leaves idle; it plays"
             " on (--strict refuses them)")
    return lines


def check_bestiary_dirs(dirs: Sequence[pathlib.Path], env: bool = True) -> None:
    """Every --bestiary and $SIM_BESTIARY folder exists: one that does not would be passed
    over without a word, and an entry it meant to give taken from the next folder instead.
    (``env``: whether the command reads $SIM_BESTIARY; sim serve does not.)"""
    given = [("--bestiary", dirs), (BESTIARY_ENV, env_bestiary_dirs() if env else [])]
    for option, folders in given:
        for folder in folders:
            if not folder.is_dir():
                msg = f"{folder}:0:0: {option}: not a folder"
                raise InputError(msg)
            if not any(rules_folder(folder, rules) for rules in IMPLEMENTED_SYSTEMS):
                # Its files would never be read: entries are looked up in FOLDER/<rules>/.
                names = ", ".join(f"{rules}/" for rules in IMPLEMENTED_SYSTEMS)
                msg = (f"{folder}:0:0: {option}: holds no rules folder ({names}) and is not one:"
                       " put its YAML files in FOLDER/<rules>/")
                raise InputError(msg)


def check_execution_options(args: argparse.Namespace) -> None:
    """--workers and --scheduler, before any run folder is made or battle played."""
    if args.scheduler is not None:
        _check_scheduler_option(args)
    elif args.workers is not None and args.workers > max_local_workers():
        cores = default_workers()
        msg = (f"at most {max_local_workers()} here ({WORKERS_PER_CORE} a usable core, {cores}"
               f" core{'s' if cores > 1 else ''}): battles only compute, so more processes end no"
               " sooner, and each holds memory of its own")
        raise InputError(option_problem(args.workers, "--workers", msg))


def _check_scheduler_option(args: argparse.Namespace) -> None:
    """--scheduler only with the Dask executor, and only a Dask scheduler that answers."""
    if args.executor != "dask":
        raise InputError(scheduler_problem(args.scheduler, "needs --executor dask"))
    if args.workers is not None:
        raise InputError(option_problem(args.workers, "--workers", "would do nothing with"
                                        " --scheduler (it sizes a local pool or Dask cluster;"
                                        " the scheduler's cluster has its own)"))
    check_scheduler(args.scheduler)


@contextlib.contextmanager
def battle_progress(enabled: bool, total: int = 1) -> Iterator[Callable[[int, int], None]]:
    """A progress bar of battles on stderr while the block runs (none unless ``enabled``);
    yields the callback ``(done, total)`` that moves it."""
    if not enabled:
        yield lambda done, total: None
        return
    with _progress_bar() as bar:
        task = bar.add_task("battles", total=total)
        drawn = time.monotonic()

        def moved(done: int, total: int) -> None:
            nonlocal drawn
            bar.update(task, completed=done, total=total)
            if time.monotonic() - drawn >= REDRAW_S or done >= total:
                bar.refresh()
                drawn = time.monotonic()

        yield moved


def _progress_bar():
    # rich's progress machinery is only imported when a bar is shown (not with --json or
    # --no-progress, nor for the commands that never show one).
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    class Rate(TextColumn):
        def render(self, task):
            from rich.text import Text

            speed = task.finished_speed or task.speed
            return Text(f"{speed:,.0f} battles/s" if speed else "- battles/s")

    # Drawn by the batch as chunks land, never by rich's refresh thread: that thread wakes
    # ten times a second and takes the GIL from the battles (about 4% of a 10,000-battle run).
    return Progress(TextColumn("battles"), BarColumn(), MofNCompleteColumn(), Rate(""),
                    TextColumn("ETA"), TimeRemainingColumn(), console=Console(stderr=True),
                    transient=True, auto_refresh=False)
