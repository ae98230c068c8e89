"""The ``sim`` command: run, validate (batch, replay and report come with later issues)."""

from __future__ import annotations

import argparse
import pathlib
import sys
import traceback
from collections.abc import Sequence

from sim import __version__
from sim.engine import run_battle
from sim.errors import EngineError, InputError, ScenarioError
from sim.events import write_jsonl
from sim.narrate import narrate
from sim.scenario import load_scenario, validate_file

EXIT_OK, EXIT_INTERNAL, EXIT_INPUT = 0, 1, 2
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


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="sim", description="How deadly is this encounter?")
    parser.add_argument("--version", action="version", version=f"combat-sim {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    run = commands.add_parser("run", help="play one battle, narrated (or logged with --log)")
    run.add_argument("scenario", type=pathlib.Path)
    run.add_argument("--seed", type=_seed, default=1, help="battle seed (default 1)")
    run.add_argument("--log", help="write the JSONL event log to PATH, or '-' for stdout")
    run.add_argument("--bestiary", type=pathlib.Path, action="append", default=[],
                     help="extra bestiary folder, searched first (repeatable)")

    validate = commands.add_parser("validate", help="check scenario and bestiary files")
    validate.add_argument("files", nargs="+", type=pathlib.Path)
    validate.add_argument("--bestiary", type=pathlib.Path, action="append", default=[])
    return parser


def _write_atomic(path: pathlib.Path, text: str) -> None:
    """Write to a temporary file beside ``path``, then rename: never a half-written log."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="ascii")
    tmp.replace(path)


def _cmd_run(args: argparse.Namespace) -> int:
    scenario = load_scenario(args.scenario, tuple(args.bestiary))
    _, events = run_battle(scenario, args.seed, log=True)
    if args.log == "-":
        write_jsonl(events, sys.stdout)
        return EXIT_OK
    if args.log:
        import io

        buffer = io.StringIO()
        write_jsonl(events, buffer)
        try:
            _write_atomic(pathlib.Path(args.log), buffer.getvalue())
        except OSError as exc:
            msg = f"{args.log}:0:0: --log: cannot write ({exc.strerror})"
            raise InputError(msg) from exc
    for line in narrate(events):
        print(line)
    return EXIT_OK


def _cmd_validate(args: argparse.Namespace) -> int:
    problems = []
    for path in args.files:
        try:
            kind = validate_file(path, tuple(args.bestiary))
        except ScenarioError as exc:
            problems.extend(exc.problems)
        else:
            print(f"{path}: ok ({kind})")
    for problem in problems:
        print(problem, file=sys.stderr)
    return EXIT_INPUT if problems else EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit code (0 ok, 1 internal error, 2 bad input)."""
    parser = _parser()
    args = parser.parse_args(argv)  # exits 2 on usage errors
    handlers = {"run": _cmd_run, "validate": _cmd_validate}
    try:
        return handlers[args.command](args)
    except ScenarioError as exc:
        for problem in exc.problems:
            print(problem, file=sys.stderr)
        return EXIT_INPUT
    except InputError as exc:
        print(exc, file=sys.stderr)
        return EXIT_INPUT
    except BrokenPipeError:
        return EXIT_OK  # `sim run ... | head`: the reader left; nothing is lost
    except (EngineError, Exception):
        print(f"sim: internal error, please report it:\n{traceback.format_exc()}", file=sys.stderr)
        return EXIT_INTERNAL
