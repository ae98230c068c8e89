"""Day files (rules §7): loading and validating a day, its steps, and its composed encounters.

A day file is a YAML file with ``steps:``. Its ``party`` (a side block) takes
the place of each encounter's party side; an encounter is a scenario file, or
a scenario written inline without its party side. Each encounter is validated
as a whole scenario, and a problem is reported in the file where it was written
(the day file for the party and inline encounters, the encounter's own file
otherwise). ``load_input`` reads either a scenario or a day.
"""

from __future__ import annotations

import hashlib
import os
import pathlib
import stat
from collections.abc import Sequence
from typing import Any

import attrs

from sim.day.compose import compose
from sim.day.idle import fights_warnings
from sim.day.options import idle_recovery, read_day_options
from sim.day.rest import read_rest
from sim.errors import Problem, ScenarioError, errors_of, idle_message, warnings_of
from sim.model import Combatant, Scenario, Side
from sim.scenario import IMPLEMENTED_SYSTEMS, load_scenario, scenario_from_source
from sim.scenario.checker import Checker, did_you_mean
from sim.scenario.limits import MAX_DAY_TURNS
from sim.scenario.overrides import apply as apply_overrides
from sim.scenario.overrides import blame
from sim.scenario.overrides import parse_all as parse_overrides
from sim.scenario.reach import Outside, encounter_file
from sim.scenario.sides import looks_as
from sim.scenario.unused import morale_is_on
from sim.yamlsrc import Path, Source, display_name, load_marked, load_yaml, shorten

MAX_STEPS = 50
MAX_DESCRIPTION = 5000  # as a scenario's
DAY_KEYS = ("name", "rules", "description", "party", "steps", "options")
STEP_KEYS = ("encounter", "rest")
OPPOSITION = "opposition"  # the winner of a day the party did not see through


@attrs.frozen
class Rest:
    step: int
    kind: str
    hours: int


@attrs.frozen
class Encounter:
    step: int
    name: str
    scenario: Scenario  # with the day's party as its party side


@attrs.frozen
class Day:
    """A whole adventuring day, ready to be played any number of times."""

    name: str
    rules: str
    party: str  # the party side's name
    steps: tuple[Encounter | Rest, ...]
    destiny_points: int = 0
    unhealable_recovery: str = "level_rates"  # rules §7's Convention, or rest_dice (sim.day.options)
    rest_revives: bool = False  # a rest gives HP to a member at 0 HP (sim.day.options)
    path: str = ""
    sha256: str = ""
    bestiary: tuple[str, ...] = ()
    overrides: tuple[str, ...] = ()
    # Valid data the day leaves idle, its encounters' included, each key once (sim.scenario.ignored).
    warnings: tuple[Problem, ...] = attrs.field(default=(), eq=False, repr=False)

    @property
    def abs_path(self) -> str:
        """The day file as an absolute path: a day's log verifies from any folder."""
        return str(pathlib.Path(self.path).resolve()) if self.path else ""

    @property
    def encounters(self) -> tuple[Encounter, ...]:
        return tuple(s for s in self.steps if isinstance(s, Encounter))

    @property
    def members(self) -> tuple[Combatant, ...]:
        """The party's combatants (riders' mounts included), as the first encounter lists them."""
        first = self.encounters[0].scenario
        return next(s for s in first.sides if s.party).members

    # The batch machinery reads these off a Scenario; a day answers the same way.
    @property
    def combatants(self) -> tuple[Combatant, ...]:
        return self.members

    @property
    def sides(self) -> tuple[Side, ...]:
        return (Side(self.party, self.members, party=True), Side(OPPOSITION, ()))

    @property
    def resolved_sha256(self) -> str:
        content: list = [(self.name, self.rules, self.destiny_points, self.unhealable_recovery,
                          self.rest_revives)]  # what the day plays, its rests' options too
        for step in self.steps:
            content.append(step.scenario.resolved_sha256 if isinstance(step, Encounter)
                           else (step.kind, step.hours))
        return hashlib.sha256(repr(content).encode()).hexdigest()


# -- loading ------------------------------------------------------------------------------


def is_day_file(path: pathlib.Path) -> bool:
    """A YAML file whose top level has ``steps:`` (read cheaply: errors are left to the loader)."""
    try:
        source = load_yaml(path)
    except ScenarioError:
        return False
    return _has_steps(source)


def _has_steps(source: Source) -> bool:
    return isinstance(source.data, dict) and "steps" in source.data


def load_day(path: pathlib.Path, bestiary_extra: tuple[pathlib.Path, ...] = (),
             overrides: Sequence[str] = ()) -> Day:
    """Load and validate a day file and every encounter it names; ScenarioError lists all
    problems. ``overrides`` (``--set``) edit the day file's YAML."""
    source = load_yaml(path)
    touched: list = []
    if overrides:
        source, touched = apply_overrides(source, parse_overrides(overrides, source.file))
    problems: list[Problem] = []
    try:
        day = _load(path, source, bestiary_extra, tuple(overrides), problems)
    except ScenarioError as exc:
        problems.extend(exc.problems)
        day = None
    warnings = blame(warnings_of(problems), touched)
    if errors_of(problems) or day is None:
        unique = list(dict.fromkeys(errors_of(problems)))
        raise ScenarioError(blame(sorted(unique, key=lambda p: (p.file, p.line, p.col)), touched),
                            warnings)
    return attrs.evolve(day, warnings=tuple(warnings))


def _check_day_length(source: Source, built: Sequence[Encounter | Rest], problems: list[Problem]) -> None:
    """The longest the whole day may run, each fight's max_rounds rounds of its combatants,
    summed, is bounded as a battle's is (sim.scenario.timeline.check_length)."""
    fights = [s.scenario for s in built if isinstance(s, Encounter)]
    turns = sum(f.max_rounds * len(f.combatants) for f in fights)
    if turns > MAX_DAY_TURNS:
        _fail(problems, source, ("steps",), f"its {len(fights)} fights may take {turns:,} turns in all"
              f" (each fight's max_rounds times its combatants); a whole day may take at most"
              f" {MAX_DAY_TURNS:,}: lower the fights' max_rounds, or split the day in two")


def _fail(problems: list[Problem], source: Source, path: Path, message: str, at_key: bool = False) -> None:
    problems.append(source.problem(path, message, at_key))


def _warn(problems: list[Problem], source: Source, path: Path, message: str) -> None:
    """Valid data the day leaves idle: a warning at its key (the day still plays)."""
    problems.append(attrs.evolve(source.problem(path, idle_message(message), True), warning=True))


def _load(path: pathlib.Path, source: Source, bestiary: tuple[pathlib.Path, ...],
          overrides: tuple[str, ...], problems: list[Problem]) -> Day | None:
    data = source.data
    if not isinstance(data, dict):
        _fail(problems, source, (), f"must be a mapping at the top level (got {shorten(data)})")
        return None
    for key in data:
        if key not in DAY_KEYS:
            hint = did_you_mean(key, DAY_KEYS)
            _fail(problems, source, (key,), f"unknown key {shorten(key)} in a day{hint}",
                  at_key=True)
    for key in ("name", "rules", "party", "steps"):
        if key not in data:
            _fail(problems, source, (), f"missing required key '{key}' (a day has name, rules, party, steps)")
    rules = data.get("rules")
    if "rules" in data and rules not in IMPLEMENTED_SYSTEMS:
        _fail(problems, source, ("rules",),
              f"must be one of {', '.join(IMPLEMENTED_SYSTEMS)} (got {shorten(rules)})")
        return None
    # Checked as a scenario's are: a day's name is in every log, summary and report of it.
    checker = Checker(source, problems)
    if "name" in data:
        checker.text(data["name"], ("name",))
    if "description" in data:
        checker.text(data["description"], ("description",), MAX_DESCRIPTION)
    destiny, recovery, revives = read_day_options(data.get("options"), rules,
                                         lambda where, message: _fail(problems, source, where, message),
                                         lambda where, message: _warn(problems, source, where, message))
    party = data.get("party")
    if "party" in data and (not isinstance(party, dict) or not isinstance(party.get("name"), str)):
        _fail(problems, source, ("party",), "must be a side block with a name and members")
        party = None
    elif party is not None and "party" in party:
        _warn(problems, source, ("party", "party"), "the day's party is always the party side of"
                                                    " every encounter")
    elif party is not None and looks_as(party["name"]).strip().casefold() == OPPOSITION:
        # A day's results name the winner of a day the party did not see through OPPOSITION:
        # a party of that name would be counted the winner of every day it lost, and one that
        # reads the same (" Opposition ", capitals) told apart from it by nobody.
        _fail(problems, source, ("party", "name"), f"'{OPPOSITION}' is the name a day's results"
              " give the party's foes (the winner of a day the party does not see through):"
              " give the party another name")
    steps = data.get("steps")
    if "steps" in data and (not isinstance(steps, list) or not steps or len(steps) > MAX_STEPS):
        _fail(problems, source, ("steps",), f"must be a list of 1 to {MAX_STEPS} steps (encounter or rest)")
        steps = None
    if errors_of(problems) or party is None or steps is None:
        return None
    rests = any(isinstance(step, dict) and "rest" in step for step in steps)  # they read levels
    built = [_step(path, source, i, step, party, rules, destiny, bestiary, rests, problems)
             for i, step in enumerate(steps)]
    built = [step for step in built if step is not None]
    if not any(isinstance(s, Encounter) for s in built) and not errors_of(problems):
        _fail(problems, source, ("steps",), "a day needs at least one encounter")
    if errors_of(problems):
        return None
    _check_day_length(source, built, problems)
    if errors_of(problems):
        return None
    opening = next(s for s in built if isinstance(s, Encounter))
    if not morale_is_on(rules, opening.scenario.options):  # with morale, a rest gives a token
        for rest in built[:built.index(opening)]:
            _warn(problems, source, ("steps", rest.step, "rest"), "the party starts the day rested"
                  " (full HP, PSY and heroism, no fatigue) and the first encounter has morale off;"
                  " a rest helps after a fight")
    day_rests = [s.kind for s in built if isinstance(s, Rest)]
    idle = "unhealable_recovery" in (data.get("options") or {}) and idle_recovery(
        recovery, day_rests, next(s for s in opening.scenario.sides if s.party).members)
    if idle:
        _warn(problems, source, ("options", "unhealable_recovery"), idle)
    problems += fights_warnings(source.file, [s.scenario.warnings for s in built
                                              if isinstance(s, Encounter)])
    return Day(name=data["name"].strip(), rules=rules, party=party["name"].strip(),
               steps=tuple(built), destiny_points=destiny, unhealable_recovery=recovery, rest_revives=revives,
               path=str(path), sha256=source.sha256,
               bestiary=tuple(str(pathlib.Path(b).resolve()) for b in bestiary), overrides=overrides)


def _step(path: pathlib.Path, source: Source, i: int, step: object, party: dict, rules: str,
          destiny: int, bestiary: tuple[pathlib.Path, ...], rests: bool, problems: list[Problem]
          ) -> Encounter | Rest | None:
    where: Path = ("steps", i)
    if isinstance(step, dict) and len(step) == 1 and next(iter(step)) not in STEP_KEYS:
        (key,) = step
        hint = did_you_mean(key, STEP_KEYS) if isinstance(key, str) else ""
        _fail(problems, source, (*where, key), f"unknown key {shorten(key)} in a step: a step is"
              f" {{encounter: FILE or inline scenario}} or {{rest: {{kind, hours}}}}{hint}", at_key=True)
        return None
    if not isinstance(step, dict) or len(step) != 1:
        _fail(problems, source, where,
              "must be {encounter: FILE or inline scenario} or {rest: {kind, hours}}, one a step")
        return None
    (kind, value), = step.items()
    if kind == "rest":
        return _rest(source, i, value, problems)
    return _encounter(path, source, i, value, party, rules, destiny, bestiary, rests, problems)


def _rest(source: Source, i: int, value: object, problems: list[Problem]) -> Rest | None:
    where: Path = ("steps", i, "rest")
    read = read_rest(value, lambda path, message, at_key=False: _fail(
        problems, source, (*where, *path), message, at_key))
    return None if read is None else Rest(i, *read)


def _encounter(day_path: pathlib.Path, day: Source, i: int, value: object, party: dict, rules: str,
               destiny: int, bestiary: tuple[pathlib.Path, ...], rests: bool, problems: list[Problem]
               ) -> Encounter | None:
    where: Path = ("steps", i, "encounter")
    if isinstance(value, str):
        try:
            file = encounter_file(value, day_path.parent)
        except Outside as exc:
            _fail(problems, day, where, f"encounter file {shorten(value)}: {exc}")
            return None
        what = _not_a_file(file)
        if what is not None:
            _fail(problems, day, where, f"no encounter file {shorten(value)} (looked at {file}:"
                                        f" {what}){_near_file(value, file)}")
            return None
        try:
            known = load_marked(file, str(file), ("sides", "steps", "creatures"))
        except ScenarioError as exc:
            problems.extend(exc.problems)
            return None
        if known is None:  # any file at all (a --set can name one): none of it is shown
            _fail(problems, day, where, f"{shorten(value)} is not a scenario (it has no sides: at its"
                  " top level, or is no YAML this program reads); nothing of it is shown")
            return None
        own = known
        if isinstance(own.data, dict) and ("steps" in own.data or "creatures" in own.data):
            # Else read as a scenario, it was only told 'sides: must be a list of sides'.
            what = ("a day (it has steps:): a day's fights are written as this day's steps"
                    if "steps" in own.data else
                    "a bestiary file (it has creatures:): fight its entries with use: in a scenario")
            _fail(problems, day, where, f"{shorten(value)} is {what}")
            return None
        origin: Path = ()
        scenario_path = file
    elif isinstance(value, dict):
        own, origin, scenario_path = day, where, day_path
        value = {k: v for k, v in value.items()}
        sides = value.get("sides")
        for k, side in enumerate(sides if isinstance(sides, list) else ()):
            if isinstance(side, dict) and side.get("party") is True:
                # A file encounter's party side is the scenario's own, replaced; written inline it
                # would vanish without a word.
                _fail(problems, day, (*where, "sides", k, "party"), "an inline encounter has no"
                      " party side: the day's party fights it; remove this side, or move its"
                      " members to the day's party", at_key=True)
                return None
    else:
        _fail(problems, day, where,
              f"must be a scenario file name or an inline scenario (got {shorten(value)})")
        return None
    data = own.data if isinstance(value, str) else value
    if not isinstance(data, dict):
        _fail(problems, own, origin, "an encounter must be a mapping (a scenario)")
        return None
    if data.get("rules", rules) != rules:
        _fail(problems, own, (*origin, "rules"),
              f"this encounter uses rules {shorten(data.get('rules'))} but the day is {rules}")
        return None
    options = data.get("options")
    if isinstance(options, dict) and "destiny_points" in options:
        _fail(problems, own, (*origin, "options", "destiny_points"),
              "destiny points belong to the campaign: set options.destiny_points in the day file")
        return None
    composed = compose(day, own, origin, data, party, rules, destiny)
    if composed is None:
        _fail(problems, own, (*origin, "sides"), "must be a list of sides")
        return None
    try:
        scenario = scenario_from_source(scenario_path, composed, bestiary,  # type: ignore[arg-type]
                                        rests=rests)
    except ScenarioError as exc:
        problems.extend(exc.problems)
        problems.extend(exc.warnings)
        return None
    return Encounter(i, scenario.name, scenario)


def _near_file(value: str, file: pathlib.Path) -> str:
    """A did-you-mean for an encounter file name: the closest YAML file of its folder, written
    as the day wrote the missing one (its folder part kept)."""
    try:
        names = tuple(sorted(f.name for f in file.parent.iterdir()
                             if f.suffix in (".yaml", ".yml") and f.is_file()))
    except OSError:
        return ""
    hint = did_you_mean(file.name, names)
    if not hint:
        return ""
    near = hint.removeprefix("; did you mean '").removesuffix("'?")
    return f"; did you mean '{str(pathlib.PurePath(value).parent / near).removeprefix('./')}'?"


def _not_a_file(file: pathlib.Path) -> str | None:
    """Why ``file`` is no encounter file, or None. A name the system refuses (too long) raised
    from is_file() and was reported in the missing file, not at the day's step; a symlink
    loop was "no such file"."""
    try:
        mode = os.stat(file).st_mode
    except FileNotFoundError:
        return "no such file"
    except OSError as exc:
        return exc.strerror or "cannot read it"
    return None if stat.S_ISREG(mode) else "not a regular file"


def describe_step(step: Encounter | Rest) -> dict[str, Any]:
    if isinstance(step, Rest):
        return {"step": step.step, "kind": "rest", "name": f"{step.kind} rest, {step.hours} h"}
    return {"step": step.step, "kind": "encounter", "name": step.name}


def load_input(path: pathlib.Path, bestiary_extra: tuple[pathlib.Path, ...] = (),
               overrides: Sequence[str] = ()) -> Scenario | Day:
    """A scenario, or a day when the file has ``steps:``: every command takes either. Its
    ``warnings`` list the valid keys it leaves idle."""
    try:
        source = load_yaml(path, display_name(path))  # read once: to tell, then to load
    except ScenarioError:
        source = None  # the scenario loader reads it again and says what is wrong
    if source is not None and _has_steps(source):
        return load_day(path, bestiary_extra, overrides)
    return load_scenario(path, bestiary_extra, overrides=overrides, source=source)


