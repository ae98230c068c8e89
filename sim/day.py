"""Adventuring days (RULES 7): encounters chained with rests, what the party carries over.

A day file is a YAML file with ``steps:``. Its ``party`` (a side block) takes
the place of each encounter's party side; an encounter is a scenario file, or
a scenario written inline without its party side. Each encounter is validated
as a whole scenario, and a problem is reported in the file where it was written
(the day file for the party and inline encounters, the encounter's own file
otherwise).

Between steps the party keeps its HP, unhealable HP, PSY, fatigue, heroism
dice, destiny points, morale tokens, spirit, its dead and its serious-wound
weakness; ongoing effects end with each fight. The day ends when the party
does not win a fight (a TPK, a rout, or a draw); later steps are not reached.
"""

from __future__ import annotations

import hashlib
import pathlib
import random
from collections.abc import Sequence
from typing import Any, NamedTuple

import attrs

from sim import __version__, dice
from sim.engine import Battle, run_battle
from sim.errors import Problem, ScenarioError
from sim.model import Combatant, Scenario, Side
from sim.morale import state_of
from sim.overrides import apply as apply_overrides
from sim.overrides import blame
from sim.overrides import parse_all as parse_overrides
from sim.scenario import IMPLEMENTED_SYSTEMS, load_scenario, scenario_from_source
from sim.scenario.checker import did_you_mean
from sim.state import ACTIVE, BROKEN, DEAD, FLED, UNCONSCIOUS, Fighter
from sim.stats import FighterRow
from sim.yamlsrc import Mark, Path, Source, load_yaml, shorten

SCHEMA = 1
MAX_STEPS = 50
MAX_HOURS = 24 * 7
DAY_KEYS = ("name", "rules", "description", "party", "steps", "options")
OPPOSITION = "opposition"  # the winner of a day the party did not see through


@attrs.frozen
class RestKind:
    """What one hour of a kind of rest gives back (RULES 7)."""

    heal: dice.Dice  # plus the level, per hour
    unhealable_per_level: int  # unhealable HP recovered per hour, times the level
    psy_halved: bool  # quick rests give back half the PSY (rounded down)
    fatigue: int  # fatigue points lost per hour
    cures_weakness: bool  # serious-wound weakness lasts until a good or intensive rest


REST_KINDS = {
    "quick": RestKind(dice.parse("1d4"), 0, True, 0, False),
    "calm": RestKind(dice.parse("1d6"), 1, False, 1, False),
    "good": RestKind(dice.parse("1d6"), 2, False, 2, True),
    "intensive": RestKind(dice.parse("2d8"), 3, False, 3, True),
}
HEROISM_BACK_AFTER_HOURS = 8  # heroism dice come back after a rest this long, in one go


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
    path: str = ""
    sha256: str = ""
    bestiary: tuple[str, ...] = ()
    overrides: tuple[str, ...] = ()

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
        content = [(self.name, self.rules, self.destiny_points)]
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
    return isinstance(source.data, dict) and "steps" in source.data


class _Composed:
    """The data of one encounter with the day's party spliced in, reporting each problem in
    the file (and at the path) where the value was written: duck-types ``yamlsrc.Source``."""

    def __init__(self, data: dict, parts: list[tuple[Path, Source, Path]], sha256: str) -> None:
        self.data = data
        self.file = parts[-1][1].file
        self.sha256 = sha256
        self._parts = parts  # (prefix in data, source, prefix in that source); longest first

    def _where(self, path: Path) -> tuple[Source, Path]:
        for prefix, source, origin in self._parts:
            if path[:len(prefix)] == prefix:
                return source, (*origin, *path[len(prefix):])
        raise AssertionError(path)

    def mark(self, path: Path) -> Mark:
        source, origin = self._where(path)
        return source.mark(origin)

    def problem(self, path: Path, message: str, at_key: bool = False) -> Problem:
        source, origin = self._where(path)
        return source.problem(origin, message, at_key)


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
    if problems or day is None:
        unique = list(dict.fromkeys(problems))
        raise ScenarioError(blame(sorted(unique, key=lambda p: (p.file, p.line, p.col)), touched))
    return day


def _fail(problems: list[Problem], source: Source, path: Path, message: str, at_key: bool = False) -> None:
    problems.append(source.problem(path, message, at_key))


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
    name = data.get("name")
    if "name" in data and (not isinstance(name, str) or not name.strip()):
        _fail(problems, source, ("name",), f"must be a non-empty text (got {shorten(data.get('name'))})")
    destiny = _destiny(data, source, problems)
    party = data.get("party")
    if "party" in data and (not isinstance(party, dict) or not isinstance(party.get("name"), str)):
        _fail(problems, source, ("party",), "must be a side block with a name and members")
        party = None
    steps = data.get("steps")
    if "steps" in data and (not isinstance(steps, list) or not steps or len(steps) > MAX_STEPS):
        _fail(problems, source, ("steps",), f"must be a list of 1 to {MAX_STEPS} steps (encounter or rest)")
        steps = None
    if problems or party is None or steps is None:
        return None
    built: list[Encounter | Rest] = []
    for i, step in enumerate(steps):
        item = _step(path, source, i, step, party, rules, destiny, bestiary, problems)
        if item is not None:
            built.append(item)
    if not any(isinstance(s, Encounter) for s in built) and not problems:
        _fail(problems, source, ("steps",), "a day needs at least one encounter")
    if problems:
        return None
    return Day(name=data["name"].strip(), rules=rules, party=party["name"].strip(),
               steps=tuple(built), destiny_points=destiny, path=str(path), sha256=source.sha256,
               bestiary=tuple(str(pathlib.Path(b).resolve()) for b in bestiary), overrides=overrides)


def _destiny(data: dict, source: Source, problems: list[Problem]) -> int:
    options = data.get("options", {})
    if not isinstance(options, dict) or set(options) - {"destiny_points"}:
        _fail(problems, source, ("options",),
              "a day's options hold only destiny_points (the campaign's); other options belong to"
              " each encounter")
        return 0
    value = options.get("destiny_points", 0)
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 100:
        _fail(problems, source, ("options", "destiny_points"),
              f"must be an integer 0..100 (got {shorten(value)})")
        return 0
    return value


def _step(path: pathlib.Path, source: Source, i: int, step: object, party: dict, rules: str,
          destiny: int, bestiary: tuple[pathlib.Path, ...], problems: list[Problem]
          ) -> Encounter | Rest | None:
    where: Path = ("steps", i)
    if not isinstance(step, dict) or len(step) != 1 or next(iter(step)) not in ("encounter", "rest"):
        _fail(problems, source, where,
              "must be {encounter: FILE or inline scenario} or {rest: {kind, hours}}")
        return None
    (kind, value), = step.items()
    if kind == "rest":
        return _rest(source, i, value, problems)
    return _encounter(path, source, i, value, party, rules, destiny, bestiary, problems)


def _rest(source: Source, i: int, value: object, problems: list[Problem]) -> Rest | None:
    where: Path = ("steps", i, "rest")
    if not isinstance(value, dict) or set(value) - {"kind", "hours"} or "kind" not in value:
        _fail(problems, source, where, "must be {kind: quick|calm|good|intensive, hours: N}")
        return None
    kind, hours = value["kind"], value.get("hours", 1)
    ok = True
    if kind not in REST_KINDS:
        hint = did_you_mean(kind, tuple(REST_KINDS)) if isinstance(kind, str) else ""
        _fail(problems, source, (*where, "kind"),
              f"no rest kind {shorten(kind)}: quick, calm, good or intensive{hint}")
        ok = False
    if not isinstance(hours, int) or isinstance(hours, bool) or not 1 <= hours <= MAX_HOURS:
        _fail(problems, source, (*where, "hours"),
              f"must be a whole number of hours 1..{MAX_HOURS} (got {shorten(hours)})")
        ok = False
    return Rest(i, kind, hours) if ok else None


def _encounter(day_path: pathlib.Path, day: Source, i: int, value: object, party: dict, rules: str,
               destiny: int, bestiary: tuple[pathlib.Path, ...], problems: list[Problem]
               ) -> Encounter | None:
    where: Path = ("steps", i, "encounter")
    if isinstance(value, str):
        file = (day_path.parent / value) if not pathlib.Path(value).is_absolute() else pathlib.Path(value)
        if not file.is_file():
            _fail(problems, day, where, f"no encounter file {shorten(value)} (looked at {file})")
            return None
        try:
            own = load_yaml(file)
        except ScenarioError as exc:
            problems.extend(exc.problems)
            return None
        origin: Path = ()
        scenario_path = file
    elif isinstance(value, dict):
        own, origin, scenario_path = day, where, day_path
        value = {k: v for k, v in value.items()}
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
    composed = _compose(day, own, origin, data, party, rules, destiny)
    if composed is None:
        _fail(problems, own, (*origin, "sides"), "must be a list of sides")
        return None
    try:
        scenario = scenario_from_source(scenario_path, composed, bestiary)  # type: ignore[arg-type]
    except ScenarioError as exc:
        problems.extend(exc.problems)
        return None
    return Encounter(i, scenario.name, scenario)


def _compose(day: Source, own: Source, origin: Path, data: dict, party: dict, rules: str,
             destiny: int) -> _Composed | None:
    """The encounter's data with the day's party as its party side (where its own party side
    was, else first), every value traced back to where it was written."""
    sides = data.get("sides")
    if not isinstance(sides, list):
        return None
    slot = next((k for k, s in enumerate(sides) if isinstance(s, dict) and s.get("party") is True), None)
    others = [k for k in range(len(sides)) if k != slot]
    at = 0 if slot is None else slot
    order = [*others[:at], None, *others[at:]]  # None: the day's party
    merged = {k: v for k, v in data.items() if k != "sides"}
    merged.setdefault("rules", rules)
    if destiny:
        merged["options"] = {**(merged.get("options") or {}), "destiny_points": destiny}
    merged["sides"] = [{**party, "party": True} if k is None else sides[k] for k in order]
    parts: list[tuple[Path, Source, Path]] = []
    for position, k in enumerate(order):
        if k is None:
            parts.append((("sides", position), day, ("party",)))
        else:
            parts.append((("sides", position), own, (*origin, "sides", k)))
    parts.append(((), own, origin))
    return _Composed(merged, parts, own.sha256)


# -- what the party carries ---------------------------------------------------------------


@attrs.define
class Member:
    """One party combatant between fights."""

    name: str
    level: int
    max_psy: int
    max_heroism: int
    max_hp: int | None = None  # rolled in its first fight, then kept
    hp: int = 0
    unhealable: int = 0
    psy: int = 0
    fatigue: int = 0
    heroism: int = 0
    morale: int | None = None
    despairing: bool = False
    spirit: int | None = None
    max_spirit: int | None = None
    weakened: bool = False
    status: str = ACTIVE  # active | unconscious (stabilised at 0 HP) | broken | dead | fled
    cause: str | None = None
    ever_down: bool = False
    morale_state: str | None = None
    learned: frozenset[str] = frozenset()
    items: dict[str, int] | None = None  # items left (RULES.md §8), after its first fight
    items_used: int = 0  # over the day

    def hand_over(self, fighter: Fighter) -> None:
        """Give a fighter of a new fight what this member carries (after its first fight)."""
        if self.max_hp is None:
            return
        fighter.max_hp, fighter.hp = self.max_hp, self.hp
        fighter.unhealable, fighter.psy, fighter.fatigue = self.unhealable, self.psy, self.fatigue
        fighter.heroism, fighter.weakened = self.heroism, self.weakened
        if fighter.morale is not None and self.morale is not None:
            fighter.morale, fighter.despairing = self.morale, self.despairing
        if self.max_spirit is not None:
            fighter.spirit, fighter.max_spirit = self.spirit, self.max_spirit
        if self.items is not None:  # a potion drunk in one fight is gone in the next
            fighter.items = dict(self.items)
        if self.status == BROKEN:  # what it dies of, should its side lose (RULES 3, 5)
            fighter.status, fighter.able, fighter.cause = BROKEN, False, self.cause
        elif self.hp == 0:
            fighter.status, fighter.able, fighter.cause = UNCONSCIOUS, False, self.cause

    def take_back(self, fighter: Fighter) -> None:
        """What the fighter leaves the fight with."""
        self.max_hp, self.hp = fighter.max_hp, fighter.hp
        self.unhealable, self.psy, self.fatigue = fighter.unhealable, fighter.psy, fighter.fatigue
        self.heroism, self.weakened = fighter.heroism, fighter.weakened
        self.morale, self.despairing = fighter.morale, fighter.despairing
        self.spirit, self.max_spirit = fighter.spirit, fighter.max_spirit
        self.learned = self.learned | frozenset(fighter.learned)
        self.items, self.items_used = dict(fighter.items), self.items_used + fighter.items_used
        self.morale_state = state_of(fighter)
        self.cause = fighter.cause
        status = fighter.status
        if status == UNCONSCIOUS and fighter.hp > 0:
            status = ACTIVE  # a serious-wound knock-out ends with the fight
        self.status = status
        # A won fight leaves its unconscious at 0 HP: stabilised, as they are.
        if status in (DEAD, BROKEN, UNCONSCIOUS):
            self.ever_down = True

    @property
    def alive(self) -> bool:
        return self.status not in (DEAD, FLED)


def rest(member: Member, kind: str, hours: int, rng: random.Random, report: bool = True
         ) -> dict[str, Any] | None:
    """One rest of ``hours`` hours for one member (RULES 7); with ``report``, the ``rested``
    event's fields (built only when a log wants them)."""
    rule = REST_KINDS[kind]
    before = (member.hp, member.unhealable, member.psy, member.fatigue, member.heroism, member.morale)
    level = member.level
    for _ in range(hours):
        # Ordinary healing never touches HP paid for spells: it stops below them.
        ceiling = (member.max_hp or 0) - member.unhealable
        healed = rule.heal.roll(rng) + level  # rolled every hour, even with nothing to heal
        member.hp = max(member.hp, min(ceiling, member.hp + healed))
        back = min(member.unhealable, rule.unhealable_per_level * level)
        member.unhealable -= back
        member.hp = min(member.max_hp or 0, member.hp + back)
        gain = level // 2 if rule.psy_halved else level
        member.psy = min(member.max_psy, member.psy + gain)
        member.fatigue = max(0, member.fatigue - rule.fatigue)
    if hours >= HEROISM_BACK_AFTER_HOURS:
        member.heroism = member.max_heroism
    if member.morale is not None:
        member.morale += 1  # each rest of an hour or more: +1 token (and despair ends)
        member.despairing = False
    if rule.cures_weakness:
        member.weakened = False
    if member.status == UNCONSCIOUS and member.hp > 0:
        member.status = ACTIVE  # stabilised members wake with the first HP a rest gives
    if not report:
        return None
    hp, unhealable, psy, fatigue, heroism, morale = before
    return {
        "kind": kind, "hours": hours, "level": level,
        "hp_before": hp, "hp_after": member.hp, "max_hp": member.max_hp,
        "unhealable_before": unhealable, "unhealable_after": member.unhealable,
        "psy_before": psy, "psy_after": member.psy, "max_psy": member.max_psy,
        "fatigue_before": fatigue, "fatigue_after": member.fatigue,
        "heroism_before": heroism, "heroism_after": member.heroism,
        "max_heroism": member.max_heroism,
        "morale_before": morale, "morale_after": member.morale,
    }


# -- playing a day ------------------------------------------------------------------------


def step_seed(day_seed: int, encounter: int) -> int:
    """The seed of the day's ``encounter``-th fight: the day's own for the first (so a day of
    one encounter plays exactly that scenario's battle), then SHA-256 of (seed, k)."""
    if encounter == 0:
        return day_seed
    digest = hashlib.sha256(f"combat-sim/day/{day_seed}/{encounter}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


class StepResult(NamedTuple):
    step: int
    reached: bool
    won: bool
    winner: str | None
    rounds: int
    any_down: bool
    any_death: bool
    hp_start: int  # the party's HP (the living members', mounts left out) as the step begins
    heroism_start: int  # their heroism dice left, as the step begins
    psy_start: int  # their PSY left, as the step begins


class DayOutcome(NamedTuple):
    seed: int
    winner: str | None  # the party if it won every fight, OPPOSITION if it lost one, None: a draw
    rounds: int
    rows: tuple[FighterRow, ...]  # party combatants at the day's end, in the day's order
    steps: tuple[StepResult, ...]
    survived: bool  # at least one party member (mounts aside) alive when the day ends
    completed: bool  # every step reached and every fight won


def _roster(day: Day) -> list[Member]:
    return [Member(c.name, c.level, c.psy, c.heroism) for c in day.members]


def _fighting(scenario: Scenario, party: str, dead: set[str]) -> Scenario:
    """The encounter without the party's dead (a rider whose mount died goes on foot)."""
    if not dead:
        return scenario
    sides = []
    for side in scenario.sides:
        if side.name == party:
            members = tuple(attrs.evolve(c, mount=None) if c.mount in dead else c
                            for c in side.members if c.name not in dead)
            side = attrs.evolve(side, members=members)
        sides.append(side)
    return attrs.evolve(scenario, sides=tuple(sides))


def run_day(day: Day, seed: int, log: bool = False, batch: dict | None = None
            ) -> tuple[DayOutcome, list[dict]]:
    """Play one day; its outcome and (with ``log``) one event log for the whole day."""
    events: list[dict] | None = [] if log else None
    members = _roster(day)
    by_name = {m.name: m for m in members}
    counted = {c.name for c in day.members if c.rider is None}
    rest_rng: random.Random | None = None  # made at the first rest (seeding costs)
    destiny = day.destiny_points
    results: list[StepResult] = []
    rounds = 0
    winner: str | None = day.party
    encounters = 0
    if events is not None:
        events.append({"event": "day_started", "round": 0, "t": 0.0, "schema": SCHEMA, "seed": seed,
                       "rules": day.rules, "day": day.name, "day_path": day.path,
                       "day_path_resolved": day.abs_path,
                       "version": __version__,
                       "day_sha256": day.sha256, "party": [m.name for m in members],
                       "steps": len(day.steps),
                       **({"bestiary": list(day.bestiary)} if day.bestiary else {}),
                       **({"overrides": list(day.overrides)} if day.overrides else {}),
                       **({"batch": batch} if batch else {})})
    ended = False
    for step in day.steps:
        if ended:
            results.append(StepResult(step.step, False, False, None, 0, False, False, 0, 0, 0))
            continue
        if isinstance(step, Rest):
            if rest_rng is None:
                rest_rng = random.Random(step_seed(seed, -1))
            for member in members:
                if member.alive and member.max_hp is not None:
                    fields = rest(member, step.kind, step.hours, rest_rng, events is not None)
                    if fields is not None:
                        events.append({"event": "rested", "round": 0, "t": 0.0, "step": step.step,
                                       "actor": member.name, **fields})
            results.append(StepResult(step.step, True, False, None, 0, False, False, 0, 0, 0))
            continue
        dead = {m.name for m in members if not m.alive}
        entered_down = {m.name for m in members if m.status in (BROKEN, UNCONSCIOUS)}
        standing = [m for m in members if m.alive and m.name in counted and m.max_hp is not None]
        hp_start = sum(m.hp for m in standing)
        heroism_start, psy_start = sum(m.heroism for m in standing), sum(m.psy for m in standing)
        scenario = _fighting(step.scenario, day.party, dead)
        if events is not None:
            events.append({"event": "encounter_started", "round": 0, "t": 0.0, "step": step.step,
                           "name": step.name})
        # The first fight has nothing to hand over: the party is as its stat blocks say.
        carry = None if encounters == 0 else (lambda f: by_name[f.name].hand_over(f) if f.party else None)
        battle = Battle(scenario, step_seed(seed, encounters), log, carry=carry)
        battle.destiny_left = destiny
        outcome = battle.run()
        if encounters == 0:  # fresh: what the first fight rolled and gave them
            fresh = [f for f in battle.fighters if f.party and f.name in counted]
            hp_start = sum(f.max_hp for f in fresh)
            heroism_start = sum(f.spec.heroism for f in fresh)
            psy_start = sum(f.spec.psy for f in fresh)
        encounters += 1
        destiny = battle.destiny_left
        won = outcome.winner == day.party
        any_down = any_death = False
        for fighter, row in zip(battle.fighters, outcome.rows, strict=True):
            if not fighter.party:
                continue
            member = by_name[fighter.name]
            member.take_back(fighter)
            if row[3]:
                member.ever_down = True
            if fighter.name in counted and fighter.name not in entered_down:
                any_down = any_down or row[3] or row[1] in (DEAD, BROKEN)
                any_death = any_death or row[1] == DEAD
        rounds += outcome.rounds
        if events is not None:
            events.extend(battle.log or [])
            events.append({"event": "encounter_ended", "round": outcome.rounds, "t": battle.table.t,
                           "step": step.step, "winner": outcome.winner, "rounds": outcome.rounds})
        results.append(StepResult(step.step, True, won, outcome.winner, outcome.rounds, any_down,
                                  any_death, hp_start, heroism_start, psy_start))
        if not won:
            ended = True
            winner = None if outcome.winner is None else OPPOSITION
    party_now = [m for m in members if m.name in counted]
    survived = any(m.status != DEAD for m in party_now)
    rows = tuple((m.hp, m.status, m.cause if m.status == DEAD else None,
                  m.status != DEAD and m.ever_down, m.morale_state, tuple(sorted(m.learned)),
                  m.items_used)
                 for m in members)
    outcome = DayOutcome(seed, winner, rounds, rows, tuple(results), survived, winner == day.party)
    if events is not None:
        events.append({"event": "day_ended", "round": 0, "t": 0.0, "winner": winner,
                       "completed": outcome.completed, "survived": survived, "rounds": rounds,
                       "dead": [m.name for m in members if m.status == DEAD],
                       "survivors": [m.name for m in members if m.status != DEAD]})
    return outcome, events or []


def describe_step(step: Encounter | Rest) -> dict[str, Any]:
    if isinstance(step, Rest):
        return {"step": step.step, "kind": "rest", "name": f"{step.kind} rest, {step.hours} h"}
    return {"step": step.step, "kind": "encounter", "name": step.name}


def load_input(path: pathlib.Path, bestiary_extra: tuple[pathlib.Path, ...] = (),
               overrides: Sequence[str] = ()) -> Scenario | Day:
    """A scenario, or a day when the file has ``steps:``: every command takes either."""
    if is_day_file(path):
        return load_day(path, bestiary_extra, overrides)
    return load_scenario(path, bestiary_extra, overrides=overrides)


def run_any(subject: Scenario | Day, seed: int, log: bool = False, batch: dict | None = None
            ) -> tuple[Any, list[dict]]:
    """Play a scenario's battle or a whole day from its seed; (outcome, events)."""
    if isinstance(subject, Day):
        return run_day(subject, seed, log, batch)
    return run_battle(subject, seed, log, batch)
