"""``sim run``, ``sim replay``, ``sim validate`` and ``sim report``: one battle, or one run."""

from __future__ import annotations

import argparse
import contextlib
import os
import pathlib
import stat
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import BinaryIO

from sim.batch import RunFolder, load_run_scenario
from sim.cli.common import (
    EXIT_INPUT,
    EXIT_MISMATCH,
    EXIT_OK,
    by_line,
    check_bestiary_dirs,
    say,
    say_line,
    tell_warnings,
)
from sim.day.file import Day, is_day_file, load_day, load_input
from sim.day.play import run_any
from sim.errors import InputError, Problem, ScenarioError, strict
from sim.events import StreamedLog, render
from sim.model import Scenario
from sim.replay.columns import fitted
from sim.replay.load import read_log, regenerate, verify
from sim.replay.narrate import narrate
from sim.replay.picks import pick_battles
from sim.scenario import validate_file
from sim.scenario.bestiary import bestiary_dirs, rules_folder
from sim.terminal import plural, quoted_text


def cmd_run(args: argparse.Namespace) -> int:
    check_bestiary_dirs(args.bestiary)
    if args.narrate and not args.log:
        raise InputError("sim run: --narrate adds the narration to --log; without --log the"
                         " battle is narrated anyway, so it would do nothing")
    scenario = load_input(args.scenario, tuple(args.bestiary), overrides=args.overrides)
    tell_warnings(scenario.warnings, args.strict)
    _check_log_target(args.log, [args.scenario, *_read_files(scenario, args.bestiary)])
    if args.log:  # written as the battle goes: a long day is never held whole
        events: list[dict] = []
        with streamed_log(args.log, events if args.narrate else None) as sink:
            run_any(scenario, args.seed, log=True, sink=sink)
    else:
        _, events = run_any(scenario, args.seed, log=True)
    _narrate(events, args)
    return EXIT_OK


def _read_files(loaded: Scenario | Day, bestiary: Sequence[pathlib.Path]) -> list[pathlib.Path]:
    """The files a load of ``loaded`` read, that --log must not overwrite: its scenario (a
    day's encounter files too) and every file of each bestiary folder searched (all are read:
    an entry may be in any). --log bestiary/d20/goblinoids.yaml replaced the goblins."""
    scenarios = [loaded, *(e.scenario for e in loaded.encounters)] if isinstance(loaded, Day) else [loaded]
    files = [pathlib.Path(s.path) for s in scenarios if s.path]
    for path in list(files):
        for folder in bestiary_dirs(path, tuple(bestiary)):
            entries = rules_folder(folder, loaded.rules)
            if entries is not None:
                files.extend([*entries.glob("*.yaml"), *entries.glob("*.yml")])
    return files


def _narrate(events: list[dict], args: argparse.Namespace) -> None:
    """The narration, unless the log was asked for alone (``--narrate`` asks for both)."""
    if args.log and not args.narrate:
        return
    to = sys.stderr if args.log == "-" else sys.stdout
    for line in narrate(events):
        print(fitted(line), file=to)


def _check_log_target(target: str | None, inputs: Sequence[pathlib.Path],
                      folder: pathlib.Path | None = None) -> None:
    """--log names a new file, a regular one to replace or a character device (/dev/null),
    never what the command reads.

    A file is written beside the target and renamed over it: over a FIFO or a folder that
    would replace the node itself, and over the scenario or the log being read it would lose
    them. A device is written to in place. A symlink is followed (the file it names is written,
    the link is kept)."""
    if target is None or target == "-":
        return
    path = _log_path(target)
    if not path.exists() or _is_device(path):
        return
    if not path.is_file():
        msg = (f"{target}:0:0: --log: not a regular file: the log would replace it, not be"
               " written to it (for a pipe, --log - writes to stdout)")
        raise InputError(msg)
    read = [p for p in inputs if p.exists() and os.path.samefile(p, path)]
    if read or (folder is not None and folder.resolve() in path.parents):
        what = f"the input {read[0]}" if read else f"a file of the run folder {folder}"
        msg = f"{target}:0:0: --log: is {what}: the log would overwrite it; pick another path"
        raise InputError(msg)


def _log_path(target: str) -> pathlib.Path:
    """--log's file, through a symlink to the file it names; a symlink loop is one line (it
    raised RuntimeError, an internal error)."""
    try:
        return pathlib.Path(target).resolve()
    except (RuntimeError, OSError) as exc:  # RuntimeError: a loop, before Python 3.13
        msg = f"{target}:0:0: --log: cannot follow it (Too many levels of symbolic links)"
        raise InputError(msg) from exc


def _is_device(path: pathlib.Path) -> bool:
    try:
        return stat.S_ISCHR(path.stat().st_mode)
    except OSError:
        return False


def _emit_log(events: list[dict], target: str | None) -> None:
    """Write events to '-' (stdout) or a path; nothing without a target."""
    if target:
        with streamed_log(target) as sink:
            sink.extend(events)


@contextlib.contextmanager
def streamed_log(target: str, keep: list[dict] | None = None) -> Iterator[StreamedLog]:
    """An event log written to --log as the events come (sim.events.StreamedLog): '-' (stdout,
    C1 and bidi controls as \\u escapes), a device (/dev/null: written to, never renamed over,
    as root it could be), or a file, written beside its name and renamed over it once whole
    (through a symlink to the file it names). ``keep`` also gets every event (the narration)."""
    def write_to(stream: BinaryIO, quoted: bool) -> Callable[[dict], None]:
        def write(event: dict) -> None:
            line = render(event)
            stream.write(quoted_text(line.decode("utf-8")).encode("utf-8") if quoted else line)
            if keep is not None:
                keep.append(event)
        return write

    if target == "-":
        sys.stdout.flush()
        sink = StreamedLog(write_to(sys.stdout.buffer, quoted=True))
        yield sink
        sink.close()
        sys.stdout.buffer.flush()
        return
    path = _log_path(target)
    written = path if _is_device(path) else path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(written, "wb", buffering=1 << 16) as stream:
            sink = StreamedLog(write_to(stream, quoted=False))
            yield sink
            sink.close()
        if written != path:
            os.replace(written, path)
    except OSError as exc:
        msg = f"{target}:0:0: --log: cannot write ({exc.strerror})"
        raise InputError(msg) from exc
    finally:
        if written != path:
            written.unlink(missing_ok=True)  # never a stray temporary file (gone once renamed)


def print_report(run_dir: pathlib.Path, to: object = None, bestiary: Sequence[pathlib.Path] = (),
                 force: bool = False, locked: bool = False) -> None:
    # sim.report brings rich, Jinja2 and matplotlib's helpers: imported when a report is shown,
    # not at every command's start.
    from sim.report import write_report

    path = write_report(run_dir, bestiary, force, locked)
    say_line(f"report: {path}", to)


def cmd_report(args: argparse.Namespace) -> int:
    check_bestiary_dirs(args.bestiary)
    print_report(args.run_dir, bestiary=args.bestiary, force=args.force)
    return EXIT_OK


def cmd_replay(args: argparse.Namespace) -> int:
    check_bestiary_dirs(args.bestiary)
    _refuse_idle_replay_options(args)
    _check_log_target(args.log, [args.source], args.source if args.source.is_dir() else None)
    if args.verify:
        if args.source.is_dir():
            raise InputError("sim replay: --verify takes a LOG.jsonl, not a run folder")
        identical, told = verify(args.source, args.battle, args.scenario, args.bestiary)
        say(told, sys.stdout if identical else sys.stderr)
        return EXIT_OK if identical else EXIT_MISMATCH
    if args.source.is_dir():
        index = args.battle
        if args.pick is not None:
            index = pick_battles(args.source, args.bestiary)[args.pick]
        if index is None:
            raise InputError("sim replay: RUN_DIR: say which battle: --battle I, --worst,"
                             " --median or --best")
        events = regenerate(args.source, index, args.bestiary)
        if args.log not in (None, "-"):  # the run's scenario and bestiary were read too
            folder = RunFolder(args.source)
            loaded = load_run_scenario(folder, folder.read_manifest(), args.bestiary)
            _check_log_target(args.log, _read_files(loaded, args.bestiary))
    else:
        events = read_log(args.source, args.battle)
    _emit_log(events, args.log)
    if not args.log and not args.no_interactive and sys.stdin.isatty() and sys.stdout.isatty():
        # Not at the top: sim.replay.ui imports textual, which alone takes longer to import
        # than the rest of the program (about 0.6 s): only an interactive replay pays it.
        from sim.replay.ui import run_replay_ui

        run_replay_ui(events)
        return EXIT_OK
    _narrate(events, args)
    return EXIT_OK


def _refuse_idle_replay_options(args: argparse.Namespace) -> None:
    """Options that would do nothing with the others given are refused, saying why."""
    if args.scenario is not None and not args.verify:
        raise InputError("sim replay: --scenario is only used with --verify")
    pick = f"--{args.pick}" if args.pick is not None else None
    if args.verify:
        shown = [name for name, given in (("--log", args.log), ("--narrate", args.narrate),
                                          ("--no-interactive", args.no_interactive), (pick, pick))
                 if given]
        if shown:
            raise InputError(f"sim replay: --verify only compares the log with a fresh simulation;"
                             f" {', '.join(shown)} would do nothing with it")
    elif args.narrate and not args.log:
        raise InputError("sim replay: --narrate adds the narration to --log; without --log it"
                         " would do nothing (the replay is shown, or narrated, anyway)")
    elif args.no_interactive and args.log:
        raise InputError("sim replay: --no-interactive would do nothing with --log (a replay"
                         " written to --log is never shown step by step; --narrate adds the"
                         " narration)")
    elif args.bestiary and not args.source.is_dir():
        raise InputError("sim replay: --bestiary would do nothing here: a LOG.jsonl is replayed"
                         " from its events (--verify and a RUN_DIR's battles load the scenario)")
    elif pick is not None and not args.source.is_dir():
        raise InputError(f"sim replay: {pick} picks a battle of a RUN_DIR; a LOG.jsonl's battle"
                         " is --battle I")
    elif pick is not None and args.battle is not None:
        raise InputError(f"sim replay: give --battle I or {pick}, not both")


def cmd_validate(args: argparse.Namespace) -> int:
    check_bestiary_dirs(args.bestiary)
    problems: list[Problem] = []
    warnings: list[Problem] = []
    for path in args.files:
        try:
            if is_day_file(path):
                day = load_day(path, tuple(args.bestiary), args.overrides)
                kind, found, note = "day", list(day.warnings), ""
            else:
                kind, found, note = validate_file(path, tuple(args.bestiary), args.overrides)
        except ScenarioError as exc:  # its warnings are told too: one reading fixes all
            problems.extend(exc.problems)
            warnings += [w for w in exc.warnings if w.where() not in {k.where() for k in warnings}]
            continue
        found = [w for w in found if w.where() not in {k.where() for k in warnings}]  # once
        warnings += found
        if args.strict and found:
            problems += [strict(w) for w in found]
            say_line(f"{path}: refused ({plural(len(found), 'warning')}, --strict)")
        else:
            counted = f", {plural(len(found), 'warning')}" if found else ""
            say_line(f"{path}: ok ({kind}{counted})")
            if note:
                say_line(f"  note: {note}")
    for found in by_line([*problems, *([] if args.strict else warnings)]):
        print(found, file=sys.stderr)
    if problems and warnings and not args.strict:  # not "run anyway": the problems stop it
        say_line(f"{plural(len(problems), 'problem')} and {plural(len(warnings), 'warning')}:"
                 " nothing was run (fix the problems first)", sys.stderr)
    elif warnings and not args.strict:
        say_line(f"{plural(len(warnings), 'warning')}: valid data left idle, run anyway"
                 " (--strict refuses them)", sys.stderr)
    return EXIT_INPUT if problems else EXIT_OK
