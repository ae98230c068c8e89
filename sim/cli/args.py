"""The ``sim`` command line: the parser, its argument types and its help texts."""

from __future__ import annotations

import argparse
import pathlib

from sim import __version__, compiled
from sim.batch import DEFAULT_CHUNK, WORKERS_PER_CORE
from sim.replay.picks import PICKS
from sim.scenario import IMPLEMENTED_SYSTEMS
from sim.terminal import safe

MAX_SEED = 2**63 - 1


def _bounded(text: str, low: int, high: int = MAX_SEED) -> int:
    value = _index(text)
    if not low <= value <= high:
        msg = f"must be between {low} and {high} (got {value})"
        raise argparse.ArgumentTypeError(msg)
    return value


def _seed(text: str) -> int:
    return _bounded(text, 0)


def _positive(text: str) -> int:
    # Its own bound in the message: "-n -1" must not be told 0 is allowed.
    return _bounded(text, 1)


# A process each: more than any machine runs at once (and a C int's limit). The machine's own
# bound, WORKERS_PER_CORE a usable core, is checked after parsing (sim.cli.common), in one line.
MAX_WORKERS = 1024


def _workers(text: str) -> int:
    value = _positive(text)
    if value > MAX_WORKERS:
        msg = f"must be at most {MAX_WORKERS} (got {value})"
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


def _add_strict(command: argparse.ArgumentParser) -> None:
    command.add_argument("--strict", action="store_true",
                         help="refuse warnings too (valid data the fight leaves idle): exit 2")


def _add_set(command: argparse.ArgumentParser) -> None:
    command.add_argument("--set", dest="overrides", action="append", default=[], metavar="PATH=VALUE",
                         help="edit the scenario before validation, e.g. "
                              "sides[goblins].members[goblin].count=4 (repeatable; VALUE is YAML)")


def _add_execution(command: argparse.ArgumentParser, workers: str = "one a core") -> None:
    """Where and how many battles run: shared by batch, compare and tune."""
    command.add_argument("--seed", type=_seed, default=1, help="master seed (default 1)")
    command.add_argument("--workers", type=_workers, default=None,
                         help=f"processes, at most {WORKERS_PER_CORE} a usable core (default: {workers})")
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
    command.add_argument("--report", type=_report_folder, metavar="DIR",
                         help="also write an HTML page into DIR")
    _force_option(command, "--report's page")


def _add_paired(command: argparse.ArgumentParser, each: str, watched: str) -> None:
    """-n and --precision of the paired commands (compare, spread), then --strict and the runner."""
    command.add_argument("-n", type=_positive,
                         help=f"battles per {each} (default {COMPARE_N}); with --precision, the cap"
                              f" (default {PRECISION_CAP:,})")
    command.add_argument("--precision", type=_fraction, help=f"stop once {watched} is within +-P")
    _add_strict(command)
    _add_runner(command)


DEFAULT_N = 1000  # sim batch -n
COMPARE_N = 2000  # sim compare -n
# -n when --precision is given without it: play until the precision is reached, within this.
PRECISION_CAP = 100_000


def battles_asked(args: argparse.Namespace, default: int) -> int:
    """-n as given; else ``default``, or PRECISION_CAP with --precision (a run that asks for a
    precision plays until it is reached: 1,000 battles stopped at +-3 points, silently)."""
    if args.n is not None:
        return int(args.n)
    return PRECISION_CAP if args.precision is not None else default


def cap_reached(precision: float, n: int, widest: float) -> str:
    """What to say when -n stopped a --precision run first (summary.json says "stopped_by":
    "n"; the terminal said nothing, and the GM took +-3 points for +-1)."""
    return (f"--precision {precision:g} not reached: -n stopped the run at {n:,} battles, its widest"
            f" interval +-{widest:.4f}; a new run with a larger -n gets closer")


def _force_option(command: argparse.ArgumentParser, page: str) -> None:
    command.add_argument("--force", action="store_true",
                         help=f"replace {page} when it is already there (refused without it)")


def _index(text: str) -> int:
    """A battle index: any integer here; whether the run or log has it is checked there,
    so ``--battle -1`` and ``--battle 5000`` get the same one-line message."""
    try:
        return int(text)
    except ValueError:
        msg = f"must be an integer (got {text[:40]!r})"
        raise argparse.ArgumentTypeError(msg) from None


def _log_target(text: str) -> str:
    """--log PATH or -: an empty PATH would be taken for no --log at all."""
    if not text:
        msg = "needs a file path, or - for stdout (got '')"
        raise argparse.ArgumentTypeError(msg)
    return text


def _report_folder(text: str) -> pathlib.Path:
    """--report DIR: an empty DIR is the path '.', and the page went into the working folder."""
    if not text:
        msg = "needs a folder (got '')"
        raise argparse.ArgumentTypeError(msg)
    return pathlib.Path(text)


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


class _Once(argparse._StoreAction):
    """An option of one value, given once: argparse keeps the last of ``-n 5 -n 10`` and
    drops the first without a word (a repeatable option says so and appends)."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:  # type: ignore[override]
        given: set[str] = namespace.__dict__.setdefault("_given", set())
        if self.dest in given:
            parser.error(f"argument {'/'.join(self.option_strings)}: given twice; give it once")
        given.add(self.dest)
        super().__call__(parser, namespace, values, option_string)


class _Parser(argparse.ArgumentParser):
    """argparse echoes the arguments it refuses: shown as data, never as terminal codes. No
    abbreviated options: ``--resume`` refuses run settings by their full spelling, and an
    abbreviation (``--see 5``) must not slip past that and be dropped. An option of one
    value given twice is refused (``_Once``)."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)
        self.register("action", None, _Once)
        self.register("action", "store", _Once)

    def error(self, message: str):  # type: ignore[override]
        super().error(safe(message))


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="sim", description="How deadly is this encounter?")
    parser.add_argument("--version", action="version",
                        version=f"combat-sim {__version__} ({compiled.path()})",
                        help="print the version and the path in use (compiled or pure Python)")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND",
                                     help="what to do (sim COMMAND --help tells more)")

    run = commands.add_parser("run", help="play one battle, narrated (or logged with --log)")
    run.add_argument("scenario", type=pathlib.Path, help=SCENARIO_HELP)
    run.add_argument("--seed", type=_seed, default=1, help="battle seed (default 1)")
    run.add_argument("--log", type=_log_target, metavar="PATH", help=LOG_HELP)
    run.add_argument("--narrate", action="store_true", help=NARRATE_HELP)
    _add_strict(run)
    _bestiary_option(run)
    _add_set(run)

    batch = commands.add_parser("batch", help="run many battles and tell how deadly it is")
    batch.add_argument("scenario", type=pathlib.Path, nargs="?", help=SCENARIO_HELP + " (not with --resume)")
    batch.add_argument("-n", type=_positive, help=f"battles to run (default {DEFAULT_N}); with --precision,"
                       f" the cap (default {PRECISION_CAP:,})")
    _add_execution(batch, "one a core, unless its first battles say the run ends sooner"
                          " in this process")
    batch.add_argument("--out", type=pathlib.Path, help="run folder (default runs/<scenario>-s<seed>-<time>)")
    batch.add_argument("--json", action="store_true", help="print only the summary JSON on stdout")
    batch.add_argument("--logs", default="none", help="event logs to keep: none, all or sample:N")
    batch.add_argument("--precision", type=_fraction,
                       help="stop once the win, TPK and someone-dies intervals are within +-P")
    batch.add_argument("--resume", type=pathlib.Path, metavar="RUN_DIR",
                       help="finish an interrupted run, with the settings it began with")
    _add_strict(batch)
    batch.add_argument("--report", action="store_true",
                       help="also write the self-contained report.html into the run folder")

    replay = commands.add_parser("replay", help="replay a logged battle or battle I of a batch",
                                 epilog=REPLAY_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    replay.add_argument("source", type=pathlib.Path, help="LOG.jsonl or RUN_DIR")
    replay.add_argument("--battle", type=_index, metavar="I",
                        help="battle index in RUN_DIR, or in a LOG.jsonl holding several battles")
    replay.add_argument("--log", type=_log_target, metavar="PATH", help=LOG_HELP)
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
    _force_option(report, "RUN_DIR/report.html")
    _bestiary_option(report)

    validate = commands.add_parser("validate", help="check scenario and bestiary files")
    validate.add_argument("files", nargs="+", type=pathlib.Path, help="scenario or bestiary YAML files")
    _add_strict(validate)
    _bestiary_option(validate)
    _add_set(validate)

    odds = commands.add_parser("odds", help="exact odds of a small fight; per-attack odds of any")
    odds.add_argument("scenario", type=pathlib.Path, help=SCENARIO_HELP)
    odds.add_argument("--json", action="store_true", help="print only the summary JSON on stdout")
    odds.add_argument("--vs-batch", action="store_true",
                      help="also run a batch in this process and show each figure's z-score")
    odds.add_argument("-n", type=_positive, default=DEFAULT_N,
                      help=f"battles of --vs-batch (default {DEFAULT_N})")
    odds.add_argument("--seed", type=_seed, default=1, help="master seed of --vs-batch (default 1)")
    _add_strict(odds)
    _bestiary_option(odds)
    _add_set(odds)

    compare = commands.add_parser(
        "compare", help="variants of an encounter on the same battle seeds: paired differences")
    compare.add_argument("scenarios", nargs="+", type=pathlib.Path, metavar="SCENARIO",
                         help="two or more scenarios, or one with --vary")
    compare.add_argument("--vary", metavar="PATH=V1,V2,...",
                         help="variants of one scenario: PATH set to each value (or LO..HI)")
    _add_paired(compare, "variant", "every headline difference")

    tune = commands.add_parser("tune", help="the values of one parameter that meet a risk target")
    tune.add_argument("scenario", type=pathlib.Path, help=SCENARIO_HELP)
    tune.add_argument("--vary", required=True, metavar="PATH=LO..HI",
                      help="the integer parameter and its range, e.g. "
                           "sides[goblins].members[goblin].count=1..10")
    tune.add_argument("--target", required=True, metavar="METRIC<=X",
                      help="e.g. 'party.any_death<=0.10' or 'party.win>=0.9' (party.win, "
                           "party.any_down, party.any_death, party.tpk, party.left_behind)")
    tune.add_argument("-n", type=_positive, default=20000,
                      help="at most this many battles per value (default 20000)")
    tune.add_argument("--precision", type=_fraction, default=0.02,
                      help="a value whose interval is within +-P and still holds the target "
                           "straddles it (default 0.02)")
    _add_strict(tune)
    _add_runner(tune)

    spread = commands.add_parser(
        "spread", help="how much the odds hang on play: the encounter under named tactics presets")
    spread.add_argument("scenario", type=pathlib.Path, nargs="?",
                        help=SCENARIO_HELP + " (or a day); not with --presets")
    spread.add_argument("--presets", action="store_true", help="list the presets and the keys each sets")
    spread.add_argument("--side", metavar="NAME",
                        help="play only this side's presets: party, opposition, or a side's name")
    _add_paired(spread, "play", "every preset's widest headline difference")

    show = commands.add_parser("show", help="print the scenario resolved: every stat block as it fights")
    show.add_argument("scenario", type=pathlib.Path, help=SCENARIO_HELP)
    _bestiary_option(show)
    _add_set(show)

    beasts = commands.add_parser("bestiary", help="list bestiary entries, search them, or show one",
                                 epilog="searched in order: --bestiary folders, SIM_BESTIARY, a bestiary/"
                                        " folder beside or above here, then the bestiary shipped with sim")
    beasts.add_argument("rules", nargs="?", metavar="RULES",
                        help=f"only this rule system ({', '.join(IMPLEMENTED_SYSTEMS)}); default all")
    beasts.add_argument("name", nargs="?", metavar="TEXT",
                        help="show the entry of this name in full, else list the entries whose name"
                             " holds TEXT or is spelt close to it (orc: orc brute)")
    _bestiary_option(beasts)

    new = commands.add_parser("new", help="print a starter scenario (or day) from bestiary names",
                              epilog='example: sim new --rules d20 --party fighter,priest,rogue,ranger'
                                     ' --vs "ogre, wolf x4" > ogre.yaml')
    new.add_argument("--rules", required=True, choices=IMPLEMENTED_SYSTEMS, help="the rule system")
    new.add_argument("--party", required=True, metavar="NAMES",
                     help="the party's bestiary entries, comma-separated (NAME, NAME xN or N NAME)")
    new.add_argument("--vs", required=True, action="append", metavar="NAMES",
                     help='their foes, e.g. "ogre, wolf x4" (with --day: one --vs a fight, repeatable)')
    new.add_argument("--day", action="store_true",
                     help="an adventuring day: the fights in turn, a quick rest between two")
    new.add_argument("--name", help="the scenario's name (default: from the foes)")
    _bestiary_option(new)

    imports = commands.add_parser(
        "import", help="monsters of another d20 game's JSON (5e-database, Open5e) as d20 bestiary"
                       " files", epilog="the conversions: docs/guide/stat-blocks.md")
    imports.add_argument("file", type=pathlib.Path, metavar="FILE.json",
                         help="one monster, a list of them, or an API page {\"results\": [...]}")
    imports.add_argument("--rules", choices=("d20",), default="d20",
                         help="the system to convert to (d20, the only one with the d20 games'"
                              " rolls)")
    imports.add_argument("--out", type=pathlib.Path, metavar="DIR",
                         help="bestiary folder: the files go in DIR/d20/ (default ./bestiary)")
    _force_option(imports, "a monster's file")

    serve = commands.add_parser("serve", help="a local web page: build an encounter, watch its odds live")
    serve.add_argument("--port", type=_port, default=8765,
                       help="port to listen on (default 8765; 0: any free port)")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to listen on (default 127.0.0.1, this machine only)")
    serve.add_argument("--allow-host", action="append", default=[], metavar="NAME",
                       help="with --host 0.0.0.0: a name of this machine the page may be opened"
                            " by (its addresses, localhost and its host name are taken already)")
    serve.add_argument("--no-browser", action="store_true", help="print the address, do not open it")
    serve.add_argument("--dir", type=pathlib.Path, default=pathlib.Path("."), metavar="DIR",
                       help="the folder a day's encounter files are read from (default: here)")
    serve.add_argument("--workers", type=_workers, default=None,
                       help=f"processes a batch may use, at most {WORKERS_PER_CORE} a usable core")
    serve.add_argument("--executor", choices=("process", "dask"), default="process",
                       help="where chunks run: local processes (default), or a Dask cluster")
    serve.add_argument("--scheduler", help="Dask scheduler address (default: a local cluster)")
    _bestiary_option(serve)
    return parser


def _port(text: str) -> int:
    return _bounded(text, 0, 65535)
