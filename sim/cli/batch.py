"""``sim batch``: a new run folder or a resumed one, the batch with Ctrl-C handling, the summary."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Sequence

from sim.batch import (
    BATTLES,
    JOURNAL,
    Batch,
    BatchSpec,
    LogPlan,
    RunFolder,
    Runner,
    Work,
    default_out,
    load_run_scenario,
    open_run,
    runner_of,
    spec_from_manifest,
    start_run,
)
from sim.cli.args import DEFAULT_N, battles_asked, cap_reached
from sim.cli.common import (
    EXIT_INPUT,
    EXIT_INTERRUPTED,
    EXIT_OK,
    battle_progress,
    check_bestiary_dirs,
    check_execution_options,
    say_line,
    tell_warnings,
    warn,
    warn_problem,
)
from sim.cli.play import print_report
from sim.day.file import load_input
from sim.errors import InputError, RunAborted
from sim.io.shutdown import StopSignals
from sim.model import Scenario
from sim.terminal import quoted_text


def _show_summary(summary: dict, folder: RunFolder, as_json: bool) -> None:
    if as_json:
        print(quoted_text(json.dumps(summary, ensure_ascii=False)))
    else:
        from sim.report import print_summary  # see sim.cli.play.print_report

        print_summary(summary)
        say_line(f"run folder: {folder.path}")


def _prepare_batch(args: argparse.Namespace, argv: Sequence[str]
                   ) -> tuple[RunFolder, Scenario, BatchSpec] | dict:
    """A new run folder, or the run to resume (with the run's own settings: -n, --seed,
    --logs and --precision are those it began with), locked either way. A finished run
    gives its summary."""
    if args.resume is not None:
        _refuse_settings_on_resume(args, argv)
        folder, manifest = open_run(args.resume)
        try:
            if manifest["status"] == "complete":
                return _finished(folder, manifest)
            scenario = load_run_scenario(folder, manifest)
            tell_warnings(scenario.warnings, args.strict)
            return folder, scenario, spec_from_manifest(manifest)
        except BaseException:
            folder.release()
            raise
    if args.scenario is None:
        raise InputError("sim batch: give a SCENARIO (or --resume RUN_DIR)")
    scenario = load_input(args.scenario, tuple(args.bestiary), overrides=args.overrides)
    tell_warnings(scenario.warnings, args.strict)
    n = battles_asked(args, DEFAULT_N)
    spec = BatchSpec(n=n, seed=args.seed, chunk=min(args.chunk, n),
                     precision=args.precision, logs=args.logs)
    LogPlan.parse(spec.logs, spec.n)  # reject a bad --logs before creating anything
    out = args.out or default_out(args.scenario, args.seed)
    return start_run(out, scenario, spec, argv, args.bestiary), scenario, spec


def _finished(folder: RunFolder, manifest: dict) -> dict:
    """--resume of a finished run: its summary, once its battles.parquet is there (made again
    from the parts journal if it was lost and the journal is there: else exit 2, and the
    journal is kept); then the journal goes (a stop between "complete" and its removal
    leaves it)."""
    summary = folder.read_summary(manifest)
    told = f"{folder.path}: already complete"
    if not os.path.lexists(folder.path / BATTLES):
        told += f"; {BATTLES} was missing: rebuilt from {JOURNAL} ({_rebuilt(folder, manifest)} battles)"
    folder.remove_parts()
    folder.release()  # nothing more to write: the run is another reader's again
    warn_problem(told)
    return summary


def _rebuilt(folder: RunFolder, manifest: dict) -> int:
    """A finished run's lost battles.parquet made again from its parts journal; its battles.
    No journal is told first: the scenario (the parts' roster) is only loaded to use one."""
    if not os.path.lexists(folder.journal_path):
        raise InputError(folder.battles_missing(manifest))
    return Batch(load_run_scenario(folder, manifest), spec_from_manifest(manifest), folder).rebuild()


# What a run began with: --resume takes it from the manifest, so giving it again is refused.
RUN_SETTINGS = ("-n", "--seed", "--logs", "--precision", "--chunk", "--out", "--bestiary", "--set")


def _refuse_settings_on_resume(args: argparse.Namespace, argv: Sequence[str]) -> None:
    given = [opt for opt in RUN_SETTINGS
             if any(arg == opt or arg.startswith(f"{opt}=") or (opt == "-n" and arg.startswith("-n")
                    and arg[2:].isdigit()) for arg in argv)]
    if args.scenario is not None:
        given.insert(0, "SCENARIO")
    if given:
        msg = (f"sim batch: --resume finishes a run with the settings it began with;"
               f" drop {', '.join(given)}")
        raise InputError(msg)


def _note_stopped(folder: RunFolder, battles: int) -> None:
    """The manifest says the run stopped, and after how many battles stored. The parts are
    what counts: a manifest that cannot be written now (a full disk) stays as it was."""
    with contextlib.suppress(InputError):
        manifest = folder.read_manifest()
        manifest.update(status="interrupted", battles_done=battles)
        folder.write_manifest(manifest)


def _resume_hint(folder: RunFolder) -> str:
    return f"finish with: sim batch --resume {folder.path}"


def cmd_batch(args: argparse.Namespace, argv: Sequence[str]) -> int:
    check_bestiary_dirs(args.bestiary)
    check_execution_options(args)  # before any run folder is made
    prepared = _prepare_batch(args, argv)
    if isinstance(prepared, dict):  # --resume of a finished run: nothing left to play
        _show_summary(prepared, RunFolder(args.resume), args.json)
        if args.report:
            print_report(args.resume, to=sys.stderr if args.json else sys.stdout, force=True, locked=True)
        return EXIT_OK
    folder, scenario, spec = prepared
    try:
        return _run_batch(args, folder, scenario, spec)
    finally:
        folder.release()


def _run_batch(args: argparse.Namespace, folder: RunFolder, scenario: Scenario,
               spec: BatchSpec) -> int:
    signals = StopSignals(warn, _resume_hint(folder))
    batch: Batch | None = None

    def done() -> int:  # battles in the journal: what the run resumes from
        return batch.stored if batch is not None else 0

    try:
        with signals, battle_progress(not args.no_progress, spec.n) as progress:
            def choose(first: int) -> tuple[Runner, int]:
                """The runner, once stored parts are counted (only what is left is weighed),
                under the signals: a Ctrl-C while weighing stops the run as at any other moment."""
                logs = LogPlan.parse(spec.logs, spec.n)
                return runner_of(args, Work(scenario, spec.seed, spec.n, spec.chunk, logs, first,
                                            spec.precision))

            batch = Batch(scenario, spec, folder, progress=progress,
                          should_stop=lambda: signals.requested, choose=choose)
            summary = batch.run()
    except KeyboardInterrupt:
        _note_stopped(folder, done())
        warn_problem(f"interrupted after {done()} battles; {_resume_hint(folder)}")
        return EXIT_INTERRUPTED
    except RunAborted as exc:
        _note_stopped(folder, done())
        warn_problem(f"{exc}; stopped after {done()} battles; {_resume_hint(folder)}")
        return EXIT_INPUT
    _show_summary(summary, folder, args.json)
    if spec.precision is not None and summary["stopped_by"] == "n":
        widest = batch.aggregate.headline_halfwidth()
        if widest > spec.precision:
            warn(cap_reached(spec.precision, spec.n, widest))
    if args.report:
        # The run's own page (the lock is held): a --resume --report makes it again.
        print_report(folder.path, to=sys.stderr if args.json else sys.stdout, force=True, locked=True)
    return EXIT_OK
