"""The ``sim`` command: run, batch, replay, report, validate, show, bestiary."""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import pathlib
import sys
import traceback
from collections.abc import Sequence

from sim import __version__
from sim.batch import (
    DEFAULT_CHUNK,
    Batch,
    BatchSpec,
    LogPlan,
    RunAborted,
    RunFolder,
    Runner,
    default_out,
    default_workers,
    load_run_scenario,
    make_runner,
    open_run,
    spec_from_manifest,
    start_run,
    write_atomic,
)
from sim.day import Day, Rest, is_day_file, load_day, load_input, run_any
from sim.errors import InputError, ScenarioError
from sim.events import to_jsonl, write_jsonl
from sim.model import Scenario
from sim.narrate import narrate
from sim.replay import PICKS, pick_battles, read_log, regenerate, verify
from sim.report import decision, print_summary, write_report
from sim.scenario import IMPLEMENTED_SYSTEMS, validate_file
from sim.shutdown import StopSignals
from sim.terminal import echo, quoted_text, safe

EXIT_OK, EXIT_INTERNAL, EXIT_INPUT, EXIT_INTERRUPTED = 0, 1, 2, 130
EXIT_MISMATCH = 1  # sim replay --verify: the log and the simulation differ
MAX_SEED = 2**63 - 1


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        msg = f"must be an integer (got {text[:40]!r})"
        raise argparse.ArgumentTypeError(msg) from None
    if not 0 <= value <= MAX_SEED:
        msg = f"must be between 0 and {MAX_SEED} (got {value})"
        raise argparse.ArgumentTypeError(msg)
    return value


def _positive(text: str) -> int:
    value = _seed(text)
    if value < 1:
        msg = f"must be at least 1 (got {value})"
        raise argparse.ArgumentTypeError(msg)
    return value


def _fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        msg = f"must be a number like 0.01 (got {text[:40]!r})"
        raise argparse.ArgumentTypeError(msg) from None
    if not 0 < value < 0.5:
        msg = f"must be between 0 and 0.5, e.g. 0.01 for +-1% (got {value})"
        raise argparse.ArgumentTypeError(msg)
    return value


def _add_set(command: argparse.ArgumentParser) -> None:
    command.add_argument("--set", dest="overrides", action="append", default=[], metavar="PATH=VALUE",
                         help="edit the scenario before validation, e.g. "
                              "sides[goblins].members[goblin].count=4 (repeatable; VALUE is YAML)")


def _add_execution(command: argparse.ArgumentParser) -> None:
    """Where and how many battles run: shared by batch, compare and tune."""
    command.add_argument("--seed", type=_seed, default=1, help="master seed (default 1)")
    command.add_argument("--workers", type=_positive, default=None,
                         help="processes (default: all cores)")
    command.add_argument("--executor", choices=("process", "dask"), default="process",
                         help="where chunks run: local processes (default), or a Dask cluster")
    command.add_argument("--scheduler", help="Dask scheduler address (default: a local cluster)")
    command.add_argument("--chunk", type=_positive, default=DEFAULT_CHUNK,
                         help=f"battles per work unit sent to a worker (default {DEFAULT_CHUNK})")
    command.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    _bestiary_option(command)
    _add_set(command)


def _add_runner(command: argparse.ArgumentParser) -> None:
    _add_execution(command)
    command.add_argument("--json", action="store_true", help="print only the result JSON on stdout")
    command.add_argument("--report", type=pathlib.Path, metavar="DIR",
                         help="also write an HTML page into DIR")


def _index(text: str) -> int:
    """A battle index: any integer here; whether the run or log has it is checked there,
    so ``--battle -1`` and ``--battle 5000`` get the same one-line message."""
    try:
        return int(text)
    except ValueError:
        msg = f"must be an integer (got {text[:40]!r})"
        raise argparse.ArgumentTypeError(msg) from None


SCENARIO_HELP = "scenario YAML file"
LOG_HELP = "write the JSONL event log to PATH, or to stdout with '-' (then no narration unless --narrate)"
NARRATE_HELP = "print the narration even with --log (on stderr when the log goes to stdout)"
REPLAY_EPILOG = """exit codes: 0 ok (with --verify: the log is identical to a fresh simulation);
1 with --verify: the log differs from the simulation (the first difference is shown),
  or an internal error; 2 bad input: unreadable log, no such battle, or --verify found no
  scenario file with the logged SHA-256 (it tries --scenario, the logged absolute path, the
  logged path from the log's folder, then from the working folder)."""


def _bestiary_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--bestiary", type=pathlib.Path, action="append", default=[], metavar="DIR",
                        help="extra bestiary folder, searched first (repeatable): a folder of <rules>/"
                             " subfolders, or one of them such as bestiary/d20")


class _Parser(argparse.ArgumentParser):
    """argparse echoes the arguments it refuses: shown as data, never as terminal codes."""

    def error(self, message: str):  # type: ignore[override]
        super().error(safe(message))


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="sim", description="How deadly is this encounter?")
    parser.add_argument("--version", action="version", version=f"combat-sim {__version__}",
                        help="print the version and exit")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                     help="what to do (sim COMMAND --help tells more)")

    run = commands.add_parser("run", help="play one battle, narrated (or logged with --log)")
    run.add_argument("scenario", type=pathlib.Path, help=SCENARIO_HELP)
    run.add_argument("--seed", type=_seed, default=1, help="battle seed (default 1)")
    run.add_argument("--log", metavar="PATH", help=LOG_HELP)
    run.add_argument("--narrate", action="store_true", help=NARRATE_HELP)
    _bestiary_option(run)
    _add_set(run)

    batch = commands.add_parser("batch", help="run many battles and tell how deadly it is")
    batch.add_argument("scenario", type=pathlib.Path, nargs="?", help=SCENARIO_HELP + " (not with --resume)")
    batch.add_argument("-n", type=_positive, default=1000, help="battles to run (the cap with --precision)")
    _add_execution(batch)
    batch.add_argument("--out", type=pathlib.Path, help="run folder (default runs/<scenario>-s<seed>-<time>)")
    batch.add_argument("--json", action="store_true", help="print only the summary JSON on stdout")
    batch.add_argument("--logs", default="none", help="event logs to keep: none, all or sample:N")
    batch.add_argument("--precision", type=_fraction,
                       help="stop once the win, TPK and someone-dies intervals are within +-P")
    batch.add_argument("--resume", type=pathlib.Path, metavar="RUN_DIR",
                       help="finish an interrupted run, with the settings it began with")
    batch.add_argument("--report", action="store_true",
                       help="also write the self-contained report.html into the run folder")

    replay = commands.add_parser("replay", help="replay a logged battle or battle I of a batch",
                                 epilog=REPLAY_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    replay.add_argument("source", type=pathlib.Path, help="LOG.jsonl or RUN_DIR")
    replay.add_argument("--battle", type=_index, metavar="I",
                        help="battle index in RUN_DIR, or in a LOG.jsonl holding several battles")
    replay.add_argument("--log", metavar="PATH", help=LOG_HELP)
    replay.add_argument("--narrate", action="store_true", help=NARRATE_HELP)
    replay.add_argument("--no-interactive", action="store_true",
                        help="print the narration instead of the step-by-step viewer")
    replay.add_argument("--verify", action="store_true",
                        help="re-simulate the log from its header: exit 0 identical, 1 differs,"
                             " 2 no scenario file with the logged SHA-256 found")
    replay.add_argument("--scenario", type=pathlib.Path, metavar="PATH",
                        help="--verify: the scenario file to try first")
    _bestiary_option(replay)
    picks = replay.add_mutually_exclusive_group()
    for pick in PICKS:
        picks.add_argument(f"--{pick}", dest="pick", action="store_const", const=pick,
                           help=f"RUN_DIR: the party's {pick} battle")

    report = commands.add_parser("report", help="write RUN_DIR/report.html (tables, plots, viewer)")
    report.add_argument("run_dir", type=pathlib.Path, help="a finished batch run folder")
    _bestiary_option(report)

    validate = commands.add_parser("validate", help="check scenario and bestiary files")
    validate.add_argument("files", nargs="+", type=pathlib.Path, help="scenario or bestiary YAML files")
    _bestiary_option(validate)
    _add_set(validate)

    compare = commands.add_parser(
        "compare", help="variants of an encounter on the same battle seeds: paired differences")
    compare.add_argument("scenarios", nargs="+", type=pathlib.Path, metavar="SCENARIO",
                         help="two or more scenarios, or one with --vary")
    compare.add_argument("--vary", metavar="PATH=V1,V2,...",
                         help="variants of one scenario: PATH set to each value (or LO..HI)")
    compare.add_argument("-n", type=_positive, default=2000,
                         help="battles per variant (the cap with --precision; default 2000)")
    compare.add_argument("--precision", type=_fraction,
                         help="stop once every headline difference is within +-P")
    _add_runner(compare)

    tune = commands.add_parser("tune", help="the values of one parameter that meet a risk target")
    tune.add_argument("scenario", type=pathlib.Path, help=SCENARIO_HELP)
    tune.add_argument("--vary", required=True, metavar="PATH=LO..HI",
                      help="the integer parameter and its range, e.g. "
                           "sides[goblins].members[goblin].count=1..10")
    tune.add_argument("--target", required=True, metavar="METRIC<=X",
                      help="e.g. 'party.any_death<=0.10' or 'party.win>=0.9' (party.win, "
                           "party.any_down, party.any_death, party.tpk)")
    tune.add_argument("-n", type=_positive, default=20000,
                      help="at most this many battles per value (default 20000)")
    tune.add_argument("--precision", type=_fraction, default=0.02,
                      help="a value whose interval is within +-P and still holds the target "
                           "straddles it (default 0.02)")
    _add_runner(tune)

    show = commands.add_parser("show", help="print the scenario resolved: every stat block as it fights")
    show.add_argument("scenario", type=pathlib.Path, help=SCENARIO_HELP)
    _bestiary_option(show)
    _add_set(show)

    beasts = commands.add_parser("bestiary", help="list bestiary entries, or show one")
    beasts.add_argument("rules", nargs="?", metavar="RULES",
                        help=f"only this rule system ({', '.join(IMPLEMENTED_SYSTEMS)}); default all")
    beasts.add_argument("name", nargs="?", metavar="NAME", help="show this entry in full")
    _bestiary_option(beasts)
    return parser


def _say(text: object, stream: object = None) -> None:
    """One line on ``stream`` (stdout by default), terminal-safe (sim.terminal.safe); a
    character the stream cannot encode is written as an escape instead of raising."""
    stream = stream or sys.stdout
    encoding = getattr(stream, "encoding", None) or "utf-8"
    print(safe(text).encode(encoding, "backslashreplace").decode(encoding), file=stream)  # type: ignore[call-overload]


def _warn(text: object) -> None:
    _say(text, sys.stderr)


def _check_bestiary_dirs(dirs: Sequence[pathlib.Path]) -> None:
    for folder in dirs:
        if not folder.is_dir():
            msg = f"{folder}:0:0: --bestiary: not a folder"
            raise InputError(msg)


def _cmd_run(args: argparse.Namespace) -> int:
    _check_bestiary_dirs(args.bestiary)
    scenario = load_input(args.scenario, tuple(args.bestiary), overrides=args.overrides)
    _, events = run_any(scenario, args.seed, log=True)
    _emit_log(events, args.log)
    _narrate(events, args)
    return EXIT_OK


def _narrate(events: list[dict], args: argparse.Namespace) -> None:
    """The narration, unless the log was asked for alone (``--narrate`` asks for both)."""
    if args.log and not args.narrate:
        return
    to = sys.stderr if args.log == "-" else sys.stdout
    for line in narrate(events):
        print(line, file=to)


def _emit_log(events: list[dict], target: str | None) -> None:
    """Write events to '-' (stdout) or a path; nothing without a target."""
    if target == "-":
        sys.stdout.flush()  # the same JSON, with C1 and bidi controls as \u escapes
        sys.stdout.buffer.write(quoted_text(to_jsonl(events)).encode("utf-8"))
        sys.stdout.buffer.flush()
    elif target:
        buffer = io.BytesIO()
        write_jsonl(events, buffer)
        try:
            write_atomic(pathlib.Path(target), buffer.getvalue(), durable=False)
        except OSError as exc:
            msg = f"{target}:0:0: --log: cannot write ({exc.strerror})"
            raise InputError(msg) from exc


def _progress_bar(enabled: bool):
    if not enabled:
        return None
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    class Rate(TextColumn):
        def render(self, task):
            from rich.text import Text

            speed = task.finished_speed or task.speed
            return Text(f"{speed:,.0f} battles/s" if speed else "- battles/s")

    return Progress(TextColumn("battles"), BarColumn(), MofNCompleteColumn(), Rate(""),
                    TextColumn("ETA"), TimeRemainingColumn(), console=Console(stderr=True),
                    transient=True)


def _show_summary(summary: dict, folder: RunFolder, as_json: bool) -> None:
    if as_json:
        print(quoted_text(json.dumps(summary, ensure_ascii=False)))
    else:
        print_summary(summary)
        _say(f"run folder: {folder.path}")


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
                summary = folder.read_summary()
                _warn(f"{folder.path}: already complete")
                return summary
            return folder, load_run_scenario(folder, manifest), spec_from_manifest(manifest)
        except BaseException:
            folder.release()
            raise
    if args.scenario is None:
        raise InputError("sim batch: give a SCENARIO (or --resume RUN_DIR)")
    scenario = load_input(args.scenario, tuple(args.bestiary), overrides=args.overrides)
    spec = BatchSpec(n=args.n, seed=args.seed, chunk=min(args.chunk, args.n),
                     precision=args.precision, logs=args.logs)
    LogPlan.parse(spec.logs, spec.n)  # reject a bad --logs before creating anything
    out = args.out or default_out(args.scenario, args.seed)
    return start_run(out, scenario, spec, argv, args.bestiary), scenario, spec


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


def _check_scheduler(args: argparse.Namespace) -> None:
    """--scheduler only with the Dask executor, and only a Dask scheduler that answers."""
    if args.scheduler is None:
        return
    if args.executor != "dask":
        raise InputError(f"sim {args.command}: --scheduler needs --executor dask")
    from sim.batch import check_scheduler

    check_scheduler(args.scheduler)


def _resume_hint(folder: RunFolder) -> str:
    return f"finish with: sim batch --resume {folder.path}"


def _cmd_batch(args: argparse.Namespace, argv: Sequence[str]) -> int:
    _check_bestiary_dirs(args.bestiary)
    _check_scheduler(args)  # before any run folder is made
    prepared = _prepare_batch(args, argv)
    if isinstance(prepared, dict):  # --resume of a finished run: nothing left to do
        _show_summary(prepared, RunFolder(args.resume), args.json)
        return EXIT_OK
    folder, scenario, spec = prepared
    try:
        return _run_batch(args, folder, scenario, spec)
    finally:
        folder.release()


def _run_batch(args: argparse.Namespace, folder: RunFolder, scenario: Scenario,
               spec: BatchSpec) -> int:
    workers = args.workers or default_workers()
    runner = make_runner(args.executor, workers, args.scheduler)
    bar = _progress_bar(not args.no_progress)
    batch = Batch(scenario, spec, folder, runner, window=max(2, workers * 2))
    signals = StopSignals(_warn, _resume_hint(folder))
    batch.should_stop = lambda: signals.requested
    try:
        with signals:
            if bar is None:
                summary = batch.run()
            else:
                with bar:
                    task = bar.add_task("battles", total=spec.n)
                    batch.progress = lambda done, total: bar.update(task, completed=done)
                    summary = batch.run()
    except KeyboardInterrupt:
        with contextlib.suppress(InputError):  # the parts are what counts; the status is a note
            manifest = folder.read_manifest()
            manifest.update(status="interrupted", battles_done=batch.aggregate.battles)
            folder.write_manifest(manifest)
        _warn(f"interrupted after {batch.aggregate.battles} battles; {_resume_hint(folder)}")
        return EXIT_INTERRUPTED
    except RunAborted as exc:
        _warn(f"{exc}; stopped after {batch.aggregate.battles} battles; {_resume_hint(folder)}")
        return EXIT_INPUT
    _show_summary(summary, folder, args.json)
    if args.report:
        _write_report(folder.path, to=sys.stderr if args.json else sys.stdout)
    return EXIT_OK


def _write_report(run_dir: pathlib.Path, to: object = None,
                  bestiary: Sequence[pathlib.Path] = ()) -> None:
    path = write_report(run_dir, bestiary)
    _say(f"report: {path}", to)


def _cmd_report(args: argparse.Namespace) -> int:
    _check_bestiary_dirs(args.bestiary)
    _write_report(args.run_dir, bestiary=args.bestiary)
    return EXIT_OK


def _cmd_replay(args: argparse.Namespace) -> int:
    _check_bestiary_dirs(args.bestiary)
    if args.scenario is not None and not args.verify:
        raise InputError("sim replay: --scenario is only used with --verify")
    if args.verify:
        if args.source.is_dir():
            raise InputError("sim replay: --verify takes a LOG.jsonl, not a run folder")
        identical, told = verify(args.source, args.battle, args.scenario, args.bestiary)
        echo(told, file=sys.stdout if identical else sys.stderr)
        return EXIT_OK if identical else EXIT_MISMATCH
    if args.source.is_dir():
        index = args.battle
        if args.pick is not None:
            index = pick_battles(args.source, args.bestiary)[args.pick]
        if index is None:
            raise InputError("sim replay: RUN_DIR: say which battle: --battle I, --worst,"
                             " --median or --best")
        events = regenerate(args.source, index, args.bestiary)
    else:
        events = read_log(args.source, args.battle)
    _emit_log(events, args.log)
    if not args.log and not args.no_interactive and sys.stdin.isatty() and sys.stdout.isatty():
        from sim.replay_ui import run_replay_ui

        run_replay_ui(events)
        return EXIT_OK
    _narrate(events, args)
    return EXIT_OK


def _cmd_validate(args: argparse.Namespace) -> int:
    _check_bestiary_dirs(args.bestiary)
    problems = []
    for path in args.files:
        try:
            if is_day_file(path):
                load_day(path, tuple(args.bestiary), args.overrides)
                kind = "day"
            else:
                kind = validate_file(path, tuple(args.bestiary), args.overrides)
        except ScenarioError as exc:
            problems.extend(exc.problems)
        else:
            echo(f"{path}: ok ({kind})")
    for problem in problems:
        print(problem, file=sys.stderr)
    return EXIT_INPUT if problems else EXIT_OK


def _runner_for(args: argparse.Namespace) -> tuple[Runner, int]:
    _check_bestiary_dirs(args.bestiary)
    _check_scheduler(args)
    workers = args.workers or default_workers()
    return make_runner(args.executor, workers, args.scheduler), max(2, workers * 2)


def _decision_output(result: dict, args: argparse.Namespace, kind: str) -> None:
    """Print a compare or tune result (JSON or tables); write its page with --report."""
    if args.json:
        print(quoted_text(json.dumps(result, ensure_ascii=False)))
    else:
        decision.print_result(result, kind)
    if args.report is not None:
        path = decision.write_page(result, kind, args.report)
        echo(f"report: {path}", file=sys.stderr if args.json else sys.stdout)


def _cmd_compare(args: argparse.Namespace) -> int:
    from sim.compare import MAX_VARIANTS, compare, variant_names
    from sim.paired import Variant

    bestiary = tuple(args.bestiary)
    if args.vary is not None:
        if len(args.scenarios) != 1:
            raise InputError("sim compare: --vary takes one SCENARIO")
        path, values = _vary_values(args.vary)
        labels = [f"{path}={v}" for v in values]
        scenarios = _load_all([(args.scenarios[0], [*args.overrides, label]) for label in labels],
                              bestiary)
    else:
        labels = [p.stem for p in args.scenarios]
        scenarios = _load_all([(p, args.overrides) for p in args.scenarios], bestiary)
    if not 2 <= len(scenarios) <= MAX_VARIANTS:
        msg = f"sim compare: give 2 to {MAX_VARIANTS} variants (got {len(scenarios)})"
        raise InputError(msg)
    variants = [Variant(name, s) for name, s in zip(variant_names(labels), scenarios, strict=True)]
    runner, window = _runner_for(args)
    with StopSignals(_warn, raise_first=True), _maybe_progress(args) as progress:
        result = compare(variants, args.seed, args.n, runner, window, min(args.chunk, args.n),
                         args.precision, progress)
    _decision_output(result, args, "compare")
    return EXIT_OK


def _vary_values(text: str) -> tuple[str, list[str]]:
    """``PATH=V1,V2,...`` or ``PATH=LO..HI`` (integers)."""
    from sim.tune import parse_vary

    path, sep, values = text.rpartition("=")
    if ".." in values:
        path, numbers = parse_vary(text)
        return path, [str(v) for v in numbers]
    listed = [v.strip() for v in values.split(",") if v.strip()]
    if not sep or not path.strip() or len(listed) < 2:
        msg = f"sim compare: --vary: must be PATH=V1,V2,... or PATH=LO..HI (got {text[:80]!r})"
        raise InputError(msg)
    return path.strip(), listed


def _load_all(wanted: Sequence[tuple[pathlib.Path, Sequence[str]]],
              bestiary: tuple[pathlib.Path, ...]) -> list[Scenario | Day]:
    """Load every variant, reporting every variant's problems at once."""
    loaded, problems = [], []
    for path, overrides in wanted:
        try:
            loaded.append(load_input(path, bestiary, overrides=list(overrides)))
        except ScenarioError as exc:
            problems.extend(p for p in exc.problems if p not in problems)
    if problems:
        raise ScenarioError(problems)
    return loaded


class _maybe_progress:
    """A progress bar on stderr unless --no-progress or --json; yields the update callback."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.bar = _progress_bar(not (args.no_progress or args.json))

    def __enter__(self):
        if self.bar is None:
            return lambda done, total: None
        self.bar.__enter__()
        task = self.bar.add_task("battles", total=1)
        return lambda done, total: self.bar.update(task, completed=done, total=total)

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.__exit__(*exc)


def _cmd_tune(args: argparse.Namespace) -> int:
    from sim.paired import Variant
    from sim.tune import parse_target, parse_vary, tune

    target = parse_target(args.target)
    path, values = parse_vary(args.vary)
    labels = [f"{path}={v}" for v in values]
    scenarios = _load_all([(args.scenario, [*args.overrides, label]) for label in labels],
                          tuple(args.bestiary))
    points = [(v, Variant(label, s)) for v, label, s in zip(values, labels, scenarios, strict=True)]
    runner, window = _runner_for(args)
    with StopSignals(_warn, raise_first=True), _maybe_progress(args) as progress:
        result = tune(points, target, args.seed, args.n, args.precision, runner, window,
                      min(args.chunk, args.n), progress)
    _decision_output(result, args, "tune")
    return EXIT_OK


def _cmd_show(args: argparse.Namespace) -> int:
    from sim.show import show_scenario

    _check_bestiary_dirs(args.bestiary)
    subject = load_input(args.scenario, tuple(args.bestiary), overrides=args.overrides)
    if isinstance(subject, Day):
        for step in subject.steps:  # a day: each fight as it will be fought, and the rests
            if isinstance(step, Rest):
                print(f"# step {step.step + 1}: {step.kind} rest, {step.hours} h\n")
            else:
                print(f"# step {step.step + 1}: encounter\n{show_scenario(step.scenario)}")
        return EXIT_OK
    print(show_scenario(subject), end="")
    return EXIT_OK


def _cmd_bestiary(args: argparse.Namespace) -> int:
    from sim.show import bestiary, find_entry, listing, show_entry

    _check_bestiary_dirs(args.bestiary)
    rules, name = args.rules, args.name
    if rules is not None and rules not in IMPLEMENTED_SYSTEMS:
        if name is not None:
            msg = f"sim bestiary: RULES must be one of {', '.join(IMPLEMENTED_SYSTEMS)} (got {rules!r})"
            raise InputError(msg)
        rules, name = None, rules  # `sim bestiary goblin`: a name, in any rules
    dirs, found = bestiary(args.bestiary, [rules] if rules else IMPLEMENTED_SYSTEMS)
    if name is None:
        print(safe(listing(dirs, found)), end="")
        return EXIT_OK
    entry = find_entry(name, dirs, found)
    if isinstance(entry, str):
        raise InputError(f"sim bestiary: {entry}")
    print(show_entry(*entry), end="")
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code (0 ok, 1 internal error, 2 bad input)."""
    parser = _parser()
    args = parser.parse_args(argv)  # exits 2 on usage errors
    handlers = {"run": _cmd_run, "validate": _cmd_validate, "replay": _cmd_replay,
                "report": _cmd_report, "compare": _cmd_compare, "tune": _cmd_tune,
                "show": _cmd_show, "bestiary": _cmd_bestiary,
                "batch": lambda a: _cmd_batch(a, list(argv if argv is not None else sys.argv[1:]))}
    try:
        return handlers[args.command](args)
    except ScenarioError as exc:
        for problem in exc.problems:
            _warn(problem)
        return EXIT_INPUT
    except InputError as exc:
        _warn(exc)
        return EXIT_INPUT
    except BrokenPipeError:
        return EXIT_OK  # `sim run ... | head`: the reader left; nothing is lost
    except KeyboardInterrupt:
        _warn("sim: interrupted")
        return EXIT_INTERRUPTED
    except OSError as exc:  # the environment, not the input: a full disk, a read-only folder
        where = f"{exc.filename}: " if exc.filename is not None else ""
        _warn(f"sim: {where}{exc.strerror or exc}")
        return EXIT_INPUT
    except UnicodeEncodeError as exc:  # a path or name the system's encoding cannot hold
        _warn(f"sim: cannot encode {exc.object[exc.start:exc.end]!r} for the system ({exc.reason})")
        return EXIT_INPUT
    except Exception:  # the last line of defence: a bug, exit 1
        echo(f"sim: internal error, please report it:\n{traceback.format_exc()}", file=sys.stderr)
        return EXIT_INTERNAL
