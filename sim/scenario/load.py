"""The entry points: load a scenario (``--set`` applied, bestiary resolved), validate a file.

``scenario_from_source`` runs every check on the loaded data and raises one
``ScenarioError`` listing all problems in file order, or returns the frozen
``model.Scenario``.
"""

from __future__ import annotations

import os
import pathlib
from collections.abc import Callable, Sequence
from typing import Any

import attrs

from sim.errors import Problem, ScenarioError, errors_of, warnings_of
from sim.model import RULE_SYSTEMS, Options, Scenario, Surprise
from sim.scenario.bestiary import BESTIARY_DIR, Entry, bestiary_dirs, load_bestiary, load_bestiary_file
from sim.scenario.checker import INVALID, Checker, did_you_mean, not_implemented, validate_header
from sim.scenario.limits import DEFAULT_ROUNDS, IMPLEMENTED_SYSTEMS, MAX_ROUNDS
from sim.scenario.options import read_options
from sim.scenario.overrides import apply as apply_overrides
from sim.scenario.overrides import blame
from sim.scenario.overrides import parse_all as parse_overrides
from sim.scenario.sides import NO_PARTY, Roster, read_sides
from sim.scenario.suited import check_suited
from sim.scenario.timeline import (
    check_hazard_overlap,
    check_length,
    check_names,
    check_rounds,
    check_surprise,
    read_hazards,
    read_surprise,
    read_timeline,
)
from sim.scenario.unused import check_unused
from sim.yamlsrc import Path, Source, display_name, format_path, load_yaml


def load_scenario(
    path: pathlib.Path, bestiary_extra: tuple[pathlib.Path, ...] = (), display: str | None = None,
    overrides: Sequence[str] = (), source: Source | None = None,
) -> Scenario:
    """Load, resolve and validate a scenario; raises ScenarioError listing every problem.

    ``overrides`` are ``--set PATH=VALUE`` texts, applied to the YAML before validation.
    ``source``: the file as already loaded (with ``display``, by default its display name).
    Its warnings (and problems) inside an overridden value say which ``--set`` wrote it."""
    if source is None:
        source = load_yaml(path, display or display_name(path))
    touched: list = []
    if overrides:
        source, touched = apply_overrides(source, parse_overrides(overrides, source.file))
    try:
        scenario = scenario_from_source(path, source, bestiary_extra, tuple(overrides))
    except ScenarioError as exc:
        raise ScenarioError(blame(exc.problems, touched), blame(exc.warnings, touched)) from None
    return attrs.evolve(scenario, warnings=tuple(blame(list(scenario.warnings), touched)))


def scenario_from_source(path: pathlib.Path, source: Source, bestiary_extra: tuple[pathlib.Path, ...],
                         overrides: tuple[str, ...] = (), rests: bool = False) -> Scenario:
    """Validate loaded data into a Scenario (``source`` may be composed, see sim.day.file);
    bestiary folders are searched from ``path``'s folder. ``rests``: an encounter of a day
    with rests, which read the party's ``level``. Valid keys the fight leaves idle are its
    ``warnings`` (each key once), and go with the ScenarioError when something is refused."""
    problems: list[Problem] = []
    c = Checker(source, problems)
    data = source.data
    rules = validate_header(c, data, RULE_SYSTEMS)
    if rules is INVALID:
        raise ScenarioError(problems)
    assert isinstance(data, dict)
    if rules not in IMPLEMENTED_SYSTEMS:
        c.fail(("rules",), not_implemented(rules))
        raise ScenarioError(problems)
    c.rules = rules
    c.searched = bestiary_dirs(path, bestiary_extra)
    shelf: list[Problem] = []  # the bestiary's problems: its warnings told for entries used
    bestiary = load_bestiary(c.searched, rules, shelf)
    problems += errors_of(shelf)
    surprise = read_surprise(c, data["surprise"], ("surprise",)) if "surprise" in data else None
    if isinstance(surprise, Surprise):
        check_surprise(c, data, surprise)
    roster = Roster()
    parsed: dict[str, Any] = {}  # each top-level value as validated, even when another is not

    def keep(key: str, field: Callable[[object, Path], Any]) -> Callable[[object, Path], Any]:
        def run(value: object, where: Path) -> Any:
            before = c.errors()
            parsed[key] = result = field(value, where)
            parsed[key + "/clean"] = c.errors() == before
            return result
        return run

    fields = c.mapping(data, (), {key: keep(key, field) for key, field in {
        "name": c.text,
        "rules": lambda v, p: v,
        "max_rounds": lambda v, p: c.integer(v, p, 1, MAX_ROUNDS),
        "distance": lambda v, p: c.number(v, p, 0, 100_000),
        "surprise": lambda v, p: surprise,
        "options": lambda v, p: read_options(c, v, p),
        "sides": lambda v, p: read_sides(c, v, bestiary, roster),
        "hazards": lambda v, p: read_hazards(c, v, p),
        "timeline": lambda v, p: read_timeline(c, v, p),
        "description": lambda v, p: c.text(v, p, 5000),
    }.items()}, required=("name", "sides"))
    if roster.complete and isinstance(parsed.get("sides"), list):
        # Checked whatever else is wrong, so one problem never hides another.
        check_names(c, data, parsed["sides"], roster.failed_names)
        if c.rules == "d20":
            check_suited(c, roster.members, bestiary or {})
        check_hazard_overlap(c, data)
        if parsed.get("options/clean", True) and surprise is not INVALID:
            # Hazards and every timeline action but explode roll checks (d10: against difficulty).
            timeline = data.get("timeline")
            perils = bool(data.get("hazards")) or any(
                not isinstance(entry, dict) or entry.get("do") != "explode"
                for entry in (timeline if isinstance(timeline, list) else ()))
            check_unused(c, rules, parsed["sides"], roster.members,
                         parsed.get("options", Options()), data.get("options"), surprise, rests, perils,
                         parsed.get("distance", 0.0) if parsed.get("distance/clean", True) else 0.0,
                         perils or bool(timeline),
                         whole=not roster.failed_names and parsed.get("distance/clean", True))
    if parsed.get("max_rounds/clean", True):
        check_rounds(c, data, parsed.get("max_rounds", DEFAULT_ROUNDS))
        if roster.complete and isinstance(parsed.get("sides"), list):
            check_length(c, data, parsed.get("max_rounds", DEFAULT_ROUNDS),
                         sum(len(side.members) for side in parsed["sides"]))
    problems += _used(shelf, bestiary, roster)
    errors, warnings = errors_of(problems), warnings_of(problems)
    if fields is INVALID or errors:
        raise ScenarioError(_in_file_order(errors), warnings)
    return Scenario(
        name=fields["name"], rules=rules, sides=tuple(fields["sides"]),
        max_rounds=fields.get("max_rounds", DEFAULT_ROUNDS), distance=fields.get("distance", 0.0),
        surprise=surprise, options=fields.get("options", Options()),
        hazards=fields.get("hazards", ()), timeline=fields.get("timeline", ()),
        path=str(path), abs_path=os.path.abspath(path), sha256=source.sha256,
        bestiary=tuple(os.path.abspath(folder) for folder in bestiary_extra),
        overrides=overrides, warnings=tuple(warnings),
    )


def _used(shelf: list[Problem], bestiary: dict[str, Entry], roster: Roster) -> list[Problem]:
    """The bestiary's warnings about the entries this scenario uses (``sim validate`` of a
    bestiary file tells them all: a scenario is not told about entries it does not fight)."""
    used = {name for member, _ in roster.members for name in (member.use, member.mount_use) if name}
    where = {(bestiary[name].source.file, format_path(("creatures", bestiary[name].key)))
             for name in used if name in bestiary}
    return [p for p in warnings_of(shelf) for file, at in where
            if p.file == file and (p.path == at or p.path.startswith((at + ".", at + "[")))]


def _looks_like_bestiary(path: pathlib.Path, data: object) -> bool:
    """A bestiary has `creatures:`; without `sides:`, a near miss or a bestiary/ folder counts."""
    if not isinstance(data, dict):
        return False
    if "creatures" in data:
        return True
    if "sides" in data:
        return False
    near = any(isinstance(k, str) and did_you_mean(k, ("creatures",)) for k in data)
    return near or BESTIARY_DIR in path.resolve().parts


def validate_file(path: pathlib.Path, bestiary_extra: tuple[pathlib.Path, ...] = (),
                  overrides: Sequence[str] = ()) -> tuple[str, list[Problem], str]:
    """Validate a scenario or a bestiary file; returns what it was, its warnings and a note
    for the GM ("" or why its figures will lack something: no party side); raises
    ScenarioError."""
    source = load_yaml(path, display_name(path))
    if _looks_like_bestiary(path, source.data):
        problems: list[Problem] = []
        if overrides:
            problems.append(Problem(source.file, 0, 0, "--set",
                                    "--set edits scenarios, not bestiary files"))
        load_bestiary_file(path, problems)
        if errors_of(problems):
            raise ScenarioError(_in_file_order(errors_of(problems)), warnings_of(problems))
        return "bestiary", warnings_of(problems), ""
    scenario = load_scenario(path, bestiary_extra, overrides=overrides)
    note = "" if any(side.party for side in scenario.sides) else NO_PARTY
    return "scenario", list(scenario.warnings), note


def _in_file_order(problems: list[Problem]) -> list[Problem]:
    """Problems sorted by file, then position: the order a GM fixes them in."""
    return sorted(problems, key=lambda p: (p.file, p.line, p.col))
