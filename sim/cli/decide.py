"""``sim compare`` and ``sim tune``: variants of an encounter on the same battle seeds."""

from __future__ import annotations

import argparse
import collections
import contextlib
import json
import os
import pathlib
import re
import sys
import tempfile
from collections.abc import Sequence

import attrs

from sim.batch import Runner, kept_pool, runner_of
from sim.cli.args import COMPARE_N, battles_asked, cap_reached
from sim.cli.common import (
    EXIT_OK,
    battle_progress,
    check_bestiary_dirs,
    check_execution_options,
    say_line,
    tell_warnings,
    warn,
)
from sim.day.file import Day, Encounter, load_input
from sim.decide.compare import MAX_VARIANTS, compare, variant_names, widest_difference
from sim.decide.paired import Variant
from sim.decide.tune import is_range, parse_target, parse_vary, tune
from sim.errors import InputError, Problem, ScenarioError, warnings_of
from sim.io.runlock import RunLock
from sim.io.shutdown import StopSignals
from sim.model import Scenario
from sim.scenario.overrides import split_assignment
from sim.terminal import quoted_text
from sim.yamlsrc import shorten


def _runner_for(args: argparse.Namespace, stack: contextlib.ExitStack) -> tuple[Runner, int]:
    """The runner, once every option that could fail after the battles is checked; the
    --report page's lock (see ``_check_report_folder``) is held until ``stack`` closes."""
    check_bestiary_dirs(args.bestiary)
    check_execution_options(args)
    # The page sim.report.decision writes (PAGES), named here: sim.report is imported only
    # when a result is shown (see _decision_output).
    lock = _check_report_folder(args.report, f"{args.command}.html", args.force)
    if lock is not None:
        stack.enter_context(lock)
    return runner_of(args)


def _check_report_folder(folder: pathlib.Path | None, page: str, force: bool) -> RunLock | None:
    """--report DIR is written after the battles: a folder that cannot be made or written
    (a file is there, no permission, a read-only disk) is refused before them, not after, and
    so is a page name there that is no regular file (it would be renamed over: a FIFO, a
    device, a folder), or a page already there without --force (two tunes into one folder
    both said "report: DIR/tune.html" and one result was lost). The page's lock, taken here,
    is held until it is written: a second sim writing it meanwhile is turned away."""
    if folder is None:
        return None
    target = folder / page
    if target.exists() and not target.is_file():
        msg = f"{target}:0:0: --report: not a regular file: the page would replace it"
        raise InputError(msg)
    try:
        with contextlib.suppress(FileNotFoundError):
            os.stat(folder)  # a symlink loop: told as such, not as "File exists" by mkdir
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        msg = f"{folder}:0:0: --report: cannot write ({exc.strerror})"
        raise InputError(msg) from exc
    lock = RunLock(folder, f".{page}.lock", f"is writing {page} here; wait for it, or give another"
                   " --report").acquire()
    if os.path.lexists(target) and not force:
        lock.release()
        msg = f"{target}:0:0: --report: already there; --force replaces it, or give another --report"
        raise InputError(msg)
    return lock


def _decision_output(result: dict, args: argparse.Namespace, kind: str) -> None:
    """Print a compare or tune result (JSON or tables); write its page with --report."""
    from sim.report import decision  # see sim.cli.play.print_report

    if args.json:
        print(quoted_text(json.dumps(result, ensure_ascii=False)))
    else:
        decision.print_result(result, kind)
    if args.report is not None:
        path = decision.write_page(result, kind, args.report)
        say_line(f"report: {path}", sys.stderr if args.json else sys.stdout)


def cmd_compare(args: argparse.Namespace) -> int:
    bestiary = tuple(args.bestiary)
    if args.vary is not None:
        if len(args.scenarios) != 1:
            raise InputError("sim compare: --vary takes one SCENARIO")
        path, values = _vary_values(args.vary)
        labels = [f"{path}={v}" for v in values]
        _check_count(labels)
        scenarios, told = _load_all([(args.scenarios[0], args.overrides, label) for label in labels],
                              bestiary, args.strict, args.vary)
        _check_distinct("compare", labels, scenarios)
    else:
        labels = [p.stem for p in args.scenarios]
        _check_count(labels)
        scenarios, told = _load_all([(p, args.overrides, None) for p in args.scenarios], bestiary,
                              args.strict)
    variants = [Variant(name, s) for name, s in zip(variant_names(labels), scenarios, strict=True)]
    with contextlib.ExitStack() as stack:
        runner, window = _runner_for(args, stack)
        shown = not (args.no_progress or args.json)
        with (StopSignals(warn, raise_first=True), battle_progress(shown) as progress,
              kept_pool(runner) as runner):  # one pool for every --precision step
            n = battles_asked(args, COMPARE_N)
            result = compare(variants, args.seed, n, runner, window, min(args.chunk, n),
                             args.precision, progress)
        result["warnings"] = told
        _decision_output(result, args, "compare")
        if args.precision is not None and result["stopped_by"] == "n":
            widest = widest_difference(result)
            if widest > args.precision:
                warn(cap_reached(args.precision, n, widest))
    return EXIT_OK


def _check_count(labels: Sequence[str]) -> None:
    """Counted before any is loaded: a --vary list of thousands is refused at once."""
    if not 2 <= len(labels) <= MAX_VARIANTS:
        msg = f"sim compare: give 2 to {MAX_VARIANTS} variants (got {len(labels)})"
        raise InputError(msg)


def _vary_values(text: str) -> tuple[str, list[str]]:
    """``PATH=V1,V2,...`` or ``PATH=LO..HI`` (integers)."""
    _, sep, values = text.rpartition("=")
    if sep and is_range(values):  # (a value may hold '..' itself: ../other.yaml)
        path, numbers = parse_vary(text, "compare")
        return path, [str(v) for v in numbers]
    # At the first '=' outside brackets, as --set: a value may hold '=' (a name 'x=1').
    path, values = split_assignment(text) or ("", "")
    listed = [v.strip() for v in _split_values(values)]
    if not path.strip() or len(listed) < 2 or not all(listed):
        msg = f"sim compare: --vary: must be PATH=V1,V2,... or PATH=LO..HI (got {text[:80]!r})"
        raise InputError(msg)
    return path.strip(), listed


def _split_values(text: str) -> list[str]:
    """The values of ``V1,V2,...``: split at the commas outside brackets and quotes, so that a
    YAML value may hold some (``[{heal: 2d4, count: 2}]`` was cut into two broken values)."""
    values, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(text):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"" and not text[start:i].strip():  # a quoted value (not it's)
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth = max(0, depth - 1)
        elif ch == "," and depth == 0:
            values.append(text[start:i])
            start = i + 1
    return [*values, text[start:]]


def _fights(loaded: Scenario | Day) -> str:
    """What a battle (or a day) reads of a loaded variant: everything but the names. A side's
    or a member's name is only who is who (the same battles under other names: a --vary over
    sides[0].members[0].name gave a table of exact zeros), so each is written as its place."""
    if isinstance(loaded, Day):
        steps = [_fights(step.scenario) if isinstance(step, Encounter) else (step.kind, step.hours)
                 for step in loaded.steps]
        return repr((loaded.rules, loaded.destiny_points, loaded.unhealable_recovery, steps))
    content = repr((attrs.evolve(loaded, name="", path="", abs_path="", sha256="", overrides=()),))
    names = [side.name for side in loaded.sides] + [c.name for c in loaded.combatants]
    places = {repr(name): repr(f"#{k}") for k, name in enumerate(names)}
    if not places:
        return content
    return re.sub("|".join(map(re.escape, sorted(places, key=len, reverse=True))),
                  lambda m: places[m.group(0)], content)


def _check_distinct(command: str, labels: Sequence[str], loaded: Sequence[Scenario | Day]) -> None:
    """--vary values that fight the same battles compare nothing: a repeated value (count=3,3),
    or a path no battle reads (name=A,B, a description) gave a table of zero differences."""
    seen: dict[str, int] = {}
    for k, (label, variant) in enumerate(zip(labels, loaded, strict=True)):
        first = seen.setdefault(_fights(variant), k)
        if first != k:
            msg = (f"sim {command}: --vary: {label} fights the same battles as {labels[first]} (a value"
                   " given twice, or a path no battle reads: a name, a description); vary"
                   " something the battle reads")
            raise InputError(msg)


def _load_all(wanted: Sequence[tuple[pathlib.Path, Sequence[str], str | None]],
              bestiary: tuple[pathlib.Path, ...], refuse: bool, vary: str | None = None
              ) -> tuple[list[Scenario | Day], list[str]]:
    """Load every variant (a file, its --set overrides and its --vary value, if any), reporting
    every variant's problems at once, then its warnings, each key once: a key one variant
    leaves idle (a target policy at count=1) is told as in any scenario, and plays on (the
    lines told are returned, for the result's ``warnings``)."""
    problems: list[tuple[str | None, Problem]] = []
    warnings: list[Problem] = []
    loaded: list[Scenario | Day] = []
    for path, overrides, varied in wanted:
        def named(found: Sequence[Problem]) -> list[Problem]:
            return list(found) if varied is None else [_from_vary(p, varied) for p in found]  # noqa: B023
        try:
            variant = load_input(path, bestiary, [*overrides, *filter(None, [varied])])
        except ScenarioError as exc:
            problems.extend((varied, p) for p in named(exc.problems) if (varied, p) not in problems)
            continue
        loaded.append(variant)
        warnings.extend(named(variant.warnings))
    if problems:
        raise ScenarioError(_once_per_vary(problems, vary, len(wanted)))
    return loaded, tell_warnings(warnings_of(warnings), refuse)


def _once_per_vary(problems: Sequence[tuple[str | None, Problem]], vary: str | None,
                   values: int) -> list[Problem]:
    """A problem every value of ``--vary`` gives (a misspelt name on its path) told once, with
    the --vary as written, not once a value; one only some values give keeps its value."""
    if vary is None or values < 2:
        return [p for _, p in problems]
    def whole(varied: str | None, p: Problem) -> Problem:
        if varied is None:
            return p
        return attrs.evolve(p, path=p.path.replace(varied, vary), message=p.message.replace(varied, vary))
    counts = collections.Counter(whole(v, p) for v, p in problems)
    told: list[Problem] = []
    for varied, problem in problems:
        shown = whole(varied, problem)
        shown = shown if counts[shown] == values else problem
        if shown not in told:
            told.append(shown)
    return told


def _from_vary(problem: Problem, varied: str) -> Problem:
    """A --vary value is applied as one more --set: its problems named a --set nobody gave."""
    shown = f"--set {shorten(varied, 80)[1:-1]}"  # as sim.scenario.overrides names an override
    path = f"--vary {problem.path[len('--set '):]}" if problem.path.startswith(shown) else problem.path
    message = problem.message.replace(f"(from --set {varied})", f"(from --vary {varied})")
    return attrs.evolve(problem, path=path, message=message)


def cmd_tune(args: argparse.Namespace) -> int:
    target = parse_target(args.target)
    path, values = parse_vary(args.vary)
    labels = [f"{path}={v}" for v in values]
    scenarios, told = _load_all([(args.scenario, args.overrides, label) for label in labels],
                          tuple(args.bestiary), args.strict, args.vary)
    _check_distinct("tune", labels, scenarios)
    points = [(v, Variant(label, s)) for v, label, s in zip(values, labels, scenarios, strict=True)]
    with contextlib.ExitStack() as stack:
        runner, window = _runner_for(args, stack)
        shown = not (args.no_progress or args.json)
        with (StopSignals(warn, raise_first=True), battle_progress(shown) as progress,
              kept_pool(runner) as runner):  # one pool for every step
            result = tune(points, target, args.seed, args.n, args.precision, runner, window,
                          min(args.chunk, args.n), progress)
        result["warnings"] = told
        _decision_output(result, args, "tune")
    return EXIT_OK
