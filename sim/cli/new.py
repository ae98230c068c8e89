"""``sim new``: a starter scenario or day from bestiary names, checked before it is printed."""

from __future__ import annotations

import argparse
import pathlib
import shlex
import tempfile

import attrs

from sim.cli.common import EXIT_OK, check_bestiary_dirs
from sim.day.file import load_input
from sim.errors import InputError, Problem, ScenarioError, option_problem
from sim.scenario.bestiary import where_searched
from sim.scenario.show import bestiary
from sim.scenario.starter import Pick, day_text, picks, scenario_text
from sim.terminal import safe

SHOWN_AS = "(sim new)"  # the file a problem of the starter itself is reported in


def cmd_new(args: argparse.Namespace) -> int:
    check_bestiary_dirs(args.bestiary)
    if len(args.vs) > 1 and not args.day:
        raise InputError(option_problem(args.vs[1], "--vs", "given twice: a scenario is one fight"
                                        " (with --day, each --vs is a fight of the day)"))
    dirs, found = bestiary(args.bestiary, [args.rules])
    entries = found[args.rules]
    where = where_searched(dirs, (args.rules,))
    party, problems = picks(args.party, "--party", entries, args.rules, where)
    fights: list[list[Pick]] = []
    for text in args.vs:
        fight, more = picks(text, "--vs", entries, args.rules, where)
        fights.append(fight)
        problems += more
    if problems:
        raise ScenarioError(problems)
    command = safe(shlex.join(_argv(args)), newlines=False)
    folders = [safe(str(folder), newlines=False) for folder in args.bestiary]
    if args.day:
        text = day_text(args.rules, party, fights, args.name, command, folders)
    else:
        text = scenario_text(args.rules, party, fights[0], args.name, command, folders)
    _check(text, tuple(dirs))
    print(text, end="")
    return EXIT_OK


def _argv(args: argparse.Namespace) -> list[str]:
    """The command as given, for the starter's first comment."""
    argv = ["sim", "new", "--rules", args.rules, "--party", args.party]
    argv += [word for text in args.vs for word in ("--vs", text)]
    argv += ["--day"] if args.day else []
    argv += ["--name", args.name] if args.name is not None else []
    return argv + [word for folder in args.bestiary for word in ("--bestiary", str(folder))]


def _check(text: str, dirs: tuple[pathlib.Path, ...]) -> None:
    """Load the starter as ``sim validate`` would, with the bestiary folders searched here
    (from a temporary folder, so that nothing is written where the GM works)."""
    with tempfile.TemporaryDirectory(prefix="sim-new-") as folder:
        path = pathlib.Path(folder) / "new.yaml"
        path.write_text(text, encoding="utf-8")
        try:
            load_input(path, dirs)
        except ScenarioError as exc:
            raise ScenarioError([_shown(p, path) for p in exc.problems]) from None


def _shown(problem: Problem, path: pathlib.Path) -> Problem:
    return attrs.evolve(problem, file=SHOWN_AS) if problem.file.endswith(path.name) else problem
