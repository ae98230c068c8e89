"""Scenario and bestiary YAML: loading, ``use:`` resolution and validation with file:line:col.

Every problem found is collected and reported at once as a ``ScenarioError``
(``file:line:col: path: message``). Validation is per key, so a value keeps
the position of the file it was written in: an override in the scenario is
reported there, a bad entry in the bestiary is reported in the bestiary.
"""

from __future__ import annotations

import difflib
import math
import os
import pathlib
from collections.abc import Callable, Sequence
from typing import Any

import attrs

from sim import dice, ignored
from sim.errors import DiceError, Problem, ScenarioError
from sim.model import (
    ESCAPES,
    HAZARD_KINDS,
    INITIATIVE_GIFT,
    RULE_SYSTEMS,
    TARGET_POLICIES,
    TIMELINE_ACTIONS,
    Combatant,
    Hazard,
    Item,
    Options,
    Scenario,
    Scripted,
    Side,
    Surprise,
    Tactics,
    Weapon,
)
from sim.overrides import apply as apply_overrides
from sim.overrides import blame
from sim.overrides import parse_all as parse_overrides
from sim.yamlsrc import Path, Source, format_path, load_yaml, shorten

IMPLEMENTED_SYSTEMS = ("d20", "d100", "2d10", "d10")
MAX_NAME = 80
MAX_COUNT = 100
MAX_COMBATANTS = 500
MAX_ROUNDS = 10_000
DEFAULT_ROUNDS = 100
# Bounds that keep every number within what the engine, the log and the int32 columns
# of battles.parquet hold (HP, damage and rounds are int32 there).
MAX_HP = 1_000_000
MAX_DAMAGE = 1_000_000  # any one roll of harm: a weapon, an explosion, terror
MAX_TOKENS = 1_000  # starting morale tokens
MAX_MESSAGE = 160
BESTIARY_DIR = "bestiary"
BESTIARY_ENV = "SIM_BESTIARY"  # extra bestiary folders, os.pathsep-separated


class _Invalid:
    """Marker for a value that failed validation (its problem is already recorded)."""


INVALID: Any = _Invalid()


class Checker:
    """Validates plain YAML data of one Source, collecting Problems."""

    def __init__(self, source: Source, problems: list[Problem], rules: str = "d20") -> None:
        self.source = source
        self.problems = problems
        self.rules = rules  # which system's stat keys are allowed
        self.searched: list[pathlib.Path] = []  # the bestiary folders `use:` looked in

    def fail(self, path: Path, message: str, at_key: bool = False) -> Any:
        """Record a problem and return INVALID."""
        self.problems.append(self.source.problem(path, message, at_key))
        return INVALID

    # -- scalar kinds ------------------------------------------------------------

    def text(self, value: object, path: Path, limit: int = MAX_NAME) -> Any:
        if not isinstance(value, str) or not value.strip():
            return self.fail(path, f"must be a non-empty string (got {shorten(value)})")
        if len(value) > limit:
            return self.fail(path, f"must be at most {limit} characters (got {len(value)})")
        if any(ord(ch) < 32 for ch in value):
            return self.fail(path, f"must not contain control characters (got {shorten(value)})")
        return value.strip()

    def integer(self, value: object, path: Path, lo: int, hi: int) -> Any:
        if isinstance(value, bool) or not isinstance(value, int):
            return self.fail(path, f"must be an integer (got {shorten(value)})")
        if not lo <= value <= hi:
            return self.fail(path, f"must be between {lo} and {hi} (got {value})")
        return value

    def number(self, value: object, path: Path, lo: float, hi: float) -> Any:
        if isinstance(value, bool) or not isinstance(value, int | float):
            hint = ""
            if isinstance(value, str) and _looks_numeric(value):
                hint = " (YAML reads 1e5 as text: write 100000 or 1.0e+5)"
            return self.fail(path, f"must be a number (got {shorten(value)}){hint}")
        if not math.isfinite(value) or not lo <= value <= hi:
            return self.fail(path, f"must be between {lo:g} and {hi:g} (got {shorten(value)})")
        return float(value)

    def boolean(self, value: object, path: Path) -> Any:
        if not isinstance(value, bool):
            return self.fail(path, f"must be true or false (got {shorten(value)})")
        return value

    def choice(self, value: object, path: Path, choices: tuple[str, ...]) -> Any:
        if not isinstance(value, str) or value not in choices:
            hint = _did_you_mean(value, choices)
            return self.fail(path, f"must be one of {', '.join(choices)} (got {shorten(value)}){hint}")
        return value

    def dice(self, value: object, path: Path, lo: int | None = None, hi: int = MAX_DAMAGE) -> Any:
        """Dice notation, never below ``lo`` nor above ``hi`` (by default every dice value,
        HP or harm or healing, stays within what battles.parquet's int32 columns hold)."""
        if isinstance(value, bool) or not isinstance(value, int | str):
            return self.fail(path, f"must be dice notation like '1d6+2' (got {shorten(value)})")
        try:
            parsed = dice.parse(value)
        except DiceError as exc:
            message = str(exc)
            if len(message) > MAX_MESSAGE:  # long notation: keep the line short
                message = f"must be dice notation like '1d6+2' (got {shorten(value)})"
            return self.fail(path, message)
        if lo is not None and parsed.min < lo:
            return self.fail(path, f"must never be below {lo} (got {shorten(value)}, min {parsed.min})")
        if parsed.max > hi:
            return self.fail(path, f"must never exceed {hi:,} (got {shorten(value)}, max {parsed.max:,})")
        return parsed

    def refuse(self, message: str) -> Callable[[object, Path], Any]:
        """A field that is refused whatever its value (a key that would do nothing)."""
        return lambda value, path: self.fail(path, message, at_key=True)

    def names(self, value: object, path: Path) -> Any:
        items = self.sequence(value, path)
        if items is INVALID:
            return INVALID
        out = [self.text(item, (*path, i)) for i, item in enumerate(items)]
        return INVALID if INVALID in out else tuple(out)

    # -- containers --------------------------------------------------------------

    def sequence(self, value: object, path: Path, min_len: int = 0) -> Any:
        if not isinstance(value, list):
            return self.fail(path, f"must be a list (got {shorten(value)})")
        if len(value) < min_len:
            return self.fail(path, f"must have at least {min_len} item(s) (got {len(value)})")
        return value

    def mapping(
        self, value: object, path: Path, fields: dict[str, Callable[[object, Path], Any]],
        required: tuple[str, ...] = (), partial: dict[str, Any] | None = None,
    ) -> Any:
        """Check a mapping's keys, convert each value with its field; INVALID on any problem.

        ``partial`` receives every value converted (INVALID where it failed), so checks
        across keys can still run next to a problem elsewhere in the mapping."""
        if not isinstance(value, dict):
            return self.fail(path, f"must be a mapping (got {shorten(value)})")
        before = len(self.problems)
        out: dict[str, Any] = {}
        hinted: set[str] = set()
        for key, item in value.items():
            if not isinstance(key, str) or key not in fields:
                hint = _did_you_mean(key, tuple(fields))
                hinted.add(hint)
                self.fail((*path, key), f"unknown key {shorten(key)}{hint}", at_key=True)
                continue
            out[key] = fields[key](item, (*path, key))
        if partial is not None:
            partial.update(out)
        for key in required:
            # A misspelt key already hinted at this one says it all: no second line.
            if key not in value and f"; did you mean '{key}'?" not in hinted:
                self.fail(path, f"missing required key '{key}'")
        if len(self.problems) > before:
            return INVALID
        return out


# Words GMs use for our keys that spelling similarity alone would not find.
ALIASES = {
    "hitpoints": "hp", "hit_points": "hp", "health": "hp", "pv": "hp", "life": "hp",
    "ac": "armor", "armour": "armor", "lvl": "level", "niveau": "level",
    "attack": "weapons", "attacks": "weapons", "weapon": "weapons", "arms": "weapons",
    "creature": "creatures", "monsters": "creatures", "bestiary": "creatures",
    "side": "sides", "member": "members", "tactic": "tactics", "option": "options",
}


def _looks_numeric(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _did_you_mean(got: object, choices: tuple[str, ...]) -> str:
    if not isinstance(got, str):
        return ""
    alias = ALIASES.get(got.lower())
    if alias in choices:
        return f"; did you mean '{alias}'?"
    close = difflib.get_close_matches(got, choices, n=1, cutoff=0.6)
    return f"; did you mean '{close[0]}'?" if close else ""


# -- field tables ------------------------------------------------------------------


def _system_only(c: Checker, table: dict[str, Callable[[object, Path], Any]],
                 systems: dict[str, tuple[str, ...]], why: dict[str, str]
                 ) -> dict[str, Callable[[object, Path], Any]]:
    """``table`` with the keys other systems read refused, saying why (not 'unknown key')."""
    for key in systems:
        message = ignored.system_refusal(key, c.rules, systems, why)
        if message is not None:
            table[key] = c.refuse(message)
    return table


def _weapon_fields(c: Checker) -> dict[str, Callable[[object, Path], Any]]:
    return _system_only(c, {
        "name": c.text,
        "damage": lambda v, p: c.dice(v, p, lo=0, hi=MAX_DAMAGE),
        "bonus": lambda v, p: c.integer(v, p, -50, 50),
        "skill": c.text,
        "attribute": c.text,
        "hands": lambda v, p: c.integer(v, p, 1, 2),
        "range": lambda v, p: c.number(v, p, 0.5, 10_000),
        "armor_piercing": c.boolean,
        "fire": c.boolean,
        "poison": c.boolean,
        "area": c.boolean,
        "psy": lambda v, p: c.integer(v, p, 0, 100),
        "description": lambda v, p: c.text(v, p, 2000),
    }, ignored.SYSTEM_WEAPON_KEYS, ignored.WEAPON_KEY_WHY)


def _weapon(c: Checker, value: object, path: Path) -> Any:
    """A Weapon; with a problem in it, still the weapon its valid keys make (so the checks
    that read weapons, such as skills, run too: the problem itself is already recorded)."""
    fields: dict[str, Any] = {}
    c.mapping(value, path, _weapon_fields(c), required=("name", "damage"), partial=fields)
    if fields.get("name", INVALID) is INVALID or fields.get("damage", INVALID) is INVALID:
        return INVALID
    return Weapon(**{k: v for k, v in fields.items() if k != "description" and v is not INVALID})


def _tactics(c: Checker, value: object, path: Path) -> Any:
    """``tactics: {target, weapons, potion_at}``; weapon names are checked against the stat
    block (or the side's members) once they are known (``_check_weapon_names``)."""
    fields = c.mapping(value, path, {
        "target": lambda v, p: c.choice(v, p, TARGET_POLICIES),
        "weapons": c.names,
        "potion_at": lambda v, p: c.number(v, p, 0, 1),
    })
    if fields is INVALID:
        return INVALID
    for j, name in enumerate(fields.get("weapons", ())):
        if name in fields["weapons"][:j]:
            return c.fail((*path, "weapons", j), f"weapon {shorten(name)} is listed twice")
    return Tactics(**fields)


def _check_weapon_names(c: Checker, tactics: Tactics | None, weapons: tuple[Weapon, ...],
                        path: Path, whose: str = "this stat block") -> None:
    """Every name in ``tactics.weapons`` must be one of ``weapons``; ``path`` is the list's."""
    if tactics is None or not tactics.weapons:
        return
    known = tuple(dict.fromkeys(w.name for w in weapons))
    for j, name in enumerate(tactics.weapons):
        if name not in known:
            listed = ", ".join(known) if known else "none"
            c.fail((*path, j), f"no weapon named {shorten(name)} in {whose} (its weapons: "
                               f"{listed}){_did_you_mean(name, known)}")


def _items(c: Checker, value: object, path: Path) -> Any:
    """``items: [{name, heal: DICE, count}]`` (RULES.md §8); names are unique in a block."""
    listed = c.sequence(value, path)
    if listed is INVALID:
        return INVALID
    out: list[Any] = []
    for i, raw in enumerate(listed):
        fields = c.mapping(raw, (*path, i), {
            "name": c.text,
            "heal": lambda v, p: c.dice(v, p, lo=0),
            "count": lambda v, p: c.integer(v, p, 1, 100),
            "description": lambda v, p: c.text(v, p, 2000),
        }, required=("heal",))
        if fields is INVALID:
            out.append(INVALID)
            continue
        fields.pop("description", None)
        item = Item(**fields)
        if any(isinstance(o, Item) and o.name == item.name for o in out):
            out.append(c.fail((*path, i, "name"), f"item {shorten(item.name)} is listed twice "
                                                  "(give one entry a count instead)"))
            continue
        out.append(item)
    return INVALID if INVALID in out else tuple(out)


D100_CHARACTERISTICS = ("physique", "mental", "social", "force")


def _scores(c: Checker, value: object, path: Path, names: tuple[str, ...] | None,
            top: int = 100) -> Any:
    """A mapping of name -> score on 0..``top`` (``names``: the only keys allowed, if given)."""
    if not isinstance(value, dict):
        return c.fail(path, f"must be a mapping of name: score (got {shorten(value)})")
    out: dict[str, int] = {}
    for key, score in value.items():
        if not isinstance(key, str) or (names is not None and key not in names):
            hint = _did_you_mean(key, names or ())
            c.fail((*path, key), f"unknown key {shorten(key)}{hint}", at_key=True)
            continue
        checked = c.integer(score, (*path, key), 0, top)
        if checked is not INVALID:
            out[key] = checked
    return out if len(out) == len(value) else INVALID


def stat_fields(c: Checker, mount: bool = True) -> dict[str, Callable[[object, Path], Any]]:
    """The keys of a stat block (bestiary entry or scenario member) of ``c.rules``."""

    def weapons(value: object, path: Path) -> Any:
        items = c.sequence(value, path)
        if items is INVALID:
            return INVALID
        out = [_weapon(c, item, (*path, i)) for i, item in enumerate(items)]
        return INVALID if INVALID in out else tuple(out)

    common: dict[str, Callable[[object, Path], Any]] = {
        "name": c.text,
        "level": lambda v, p: c.integer(v, p, 0, 30),  # d20 rolls it; rests of a day, all
        "hp": lambda v, p: c.dice(v, p, lo=1, hi=MAX_HP),
        "armor": lambda v, p: c.integer(v, p, 0, 30),
        "weapons": weapons,
        "movement": lambda v, p: c.number(v, p, 0, 1000),
        "tactics": lambda v, p: _tactics(c, v, p),
        "items": lambda v, p: _items(c, v, p),
        "morale": lambda v, p: c.dice(v, p, lo=0, hi=MAX_TOKENS),
        "description": lambda v, p: c.text(v, p, 2000),
    }
    if c.rules in ("2d10", "d10"):
        scores = "characteristics" if c.rules == "2d10" else "attributes"
        seeds: dict[str, Callable[[object, Path], Any]] = {
            scores: lambda v, p: _scores(c, v, p, None, 30),
            "skills": lambda v, p: _scores(c, v, p, None, 30),
            "defense": lambda v, p: c.integer(v, p, 0, 40),
        }
        table = {**common, **seeds}
    elif c.rules == "d100":
        d100: dict[str, Callable[[object, Path], Any]] = {
            "characteristics": lambda v, p: _scores(c, v, p, D100_CHARACTERISTICS),
            "skills": lambda v, p: _scores(c, v, p, None),
            "psy": lambda v, p: c.integer(v, p, 0, 1000),
            "load": lambda v, p: c.number(v, p, 0, 1000),
        }
        table = {**common, **d100}
    else:
        table = {
            **common,
            "attack_threshold": lambda v, p: c.integer(v, p, 0, 60),
            "defense_threshold": lambda v, p: c.integer(v, p, 0, 60),
            "heroism": lambda v, p: c.integer(v, p, 0, 50),
            "aspects": c.names,
            "gifts": lambda v, p: _gifts(c, v, p),
            "terror": lambda v, p: c.dice(v, p, lo=0, hi=MAX_DAMAGE),
            "spirit": lambda v, p: c.dice(v, p, lo=1, hi=MAX_HP),
        }
    table = _system_only(c, table, ignored.SYSTEM_STAT_KEYS, ignored.STAT_KEY_WHY)
    if mount and "mount" not in table:
        table["mount"] = lambda v, p: _mount(c, v, p)
    elif not mount:
        table.pop("mount", None)  # a mount rides nothing: 'mount' is an unknown key there
    return table


def _gifts(c: Checker, value: object, path: Path) -> Any:
    """d20 gifts: the engine reads one, ``initiative``; any other name would do nothing."""
    names = c.names(value, path)
    if names is INVALID:
        return INVALID
    for i, name in enumerate(names):
        if name != INITIATIVE_GIFT:
            c.fail((*path, i), f"unknown gift {shorten(name)}: the only gift the engine reads is"
                               f" '{INITIATIVE_GIFT}' (1d8 for initiative and group ties)")
    return names if all(n == INITIATIVE_GIFT for n in names) else INVALID


def _check_skills(c: Checker, fields: dict[str, Any], path: Path, group_checks: tuple[str, ...] = ()
                  ) -> None:
    """Each skill must be rolled by a weapon of the block, a rule of the system or a group check
    (not checked while the skills or the weapons themselves are invalid)."""
    skills, weapons = fields.get("skills", {}), fields.get("weapons", ())
    if skills is INVALID or weapons is INVALID:
        return
    for unused in ignored.unread_skills(c.rules, skills, weapons, group_checks):
        c.fail((*path, "skills", *unused.path), unused.message, at_key=True)


def _mount(c: Checker, value: object, path: Path) -> Any:
    """``mount: {use: warhorse, ...overrides}`` or an inline stat block (a mount rides nothing)."""
    table = {**stat_fields(c, mount=False), "use": c.text}
    return c.mapping(value, path, table)


# -- bestiary ----------------------------------------------------------------------


@attrs.frozen
class Entry:
    """A validated bestiary entry: its fields and where it was written."""

    key: str
    fields: dict[str, Any]
    source: Source


def _display(path: pathlib.Path) -> str:
    """The file name for messages: relative to here when it is below here, else as given."""
    try:
        relative = os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return str(path)
    return str(path) if relative.startswith("..") else relative


def _validate_header(c: Checker, data: object, rules: tuple[str, ...]) -> Any:
    if not isinstance(data, dict):
        return c.fail((), f"must be a mapping at the top level (got {shorten(data)})")
    if "rules" not in data:
        return c.fail((), "missing required key 'rules'")
    return c.choice(data["rules"], ("rules",), rules)


def load_bestiary_file(path: pathlib.Path, problems: list[Problem]) -> dict[str, Entry]:
    """Validate one bestiary file (``rules:`` and ``creatures:``) into its entries."""
    try:
        source = load_yaml(path, _display(path))
    except ScenarioError as exc:
        problems.extend(exc.problems)
        return {}
    c = Checker(source, problems)
    data = source.data
    rules = _validate_header(c, data, RULE_SYSTEMS)
    if rules is INVALID:
        return {}
    c.rules = rules
    assert isinstance(data, dict)
    for key in data:
        if key not in ("rules", "creatures", "description"):
            hint = _did_you_mean(key, ("rules", "creatures", "description"))
            c.fail((key,), f"unknown key {shorten(key)}{hint}", at_key=True)
    creatures = data.get("creatures")
    if not isinstance(creatures, dict) or not creatures:
        c.fail(("creatures",), f"must be a non-empty mapping of name: stat block (got {shorten(creatures)})")
        return {}
    if rules not in IMPLEMENTED_SYSTEMS:
        c.fail(("rules",), _not_implemented(rules))
        return {}
    entries: dict[str, Entry] = {}
    for key, block in creatures.items():
        path_ = ("creatures", key)
        if c.text(key, path_) is INVALID:
            continue
        partial: dict[str, Any] = {}
        fields = c.mapping(block, path_, stat_fields(c), partial=partial)
        _check_skills(c, partial, path_)
        if fields is not INVALID:
            _check_weapon_names(c, fields.get("tactics"), fields.get("weapons", ()),
                                (*path_, "tactics", "weapons"))
            _check_potion_at(c, fields.get("tactics"), fields, path_)
        # An invalid entry is kept (marked INVALID) so `use:` of it is not also
        # reported as missing: its own problems were reported in the bestiary.
        entries[key] = Entry(key, fields, source)
    return entries


def bestiary_dirs(scenario_path: pathlib.Path, extra: tuple[pathlib.Path, ...] = ()) -> list[pathlib.Path]:
    """Where ``use:`` looks, in order: explicit folders, $SIM_BESTIARY, then every
    ``bestiary/`` beside the scenario or in a folder above it, then ``./bestiary``."""
    found: list[pathlib.Path] = list(extra)
    found += [pathlib.Path(p) for p in os.environ.get(BESTIARY_ENV, "").split(os.pathsep) if p]
    for folder in [scenario_path.resolve().parent, *scenario_path.resolve().parents]:
        found.append(folder / BESTIARY_DIR)
    found.append(pathlib.Path.cwd() / BESTIARY_DIR)
    unique: list[pathlib.Path] = []
    for folder in found:
        if folder.is_dir() and folder.resolve() not in [u.resolve() for u in unique]:
            unique.append(folder)
    return unique


def rules_folder(folder: pathlib.Path, rules: str) -> pathlib.Path | None:
    """The folder of ``rules`` entries in a bestiary folder: ``folder/<rules>``, or
    ``folder`` itself when it is named after the rules (``--bestiary bestiary/d20``)."""
    if (folder / rules).is_dir():
        return folder / rules
    return folder if folder.name == rules and folder.is_dir() else None


def load_bestiary(dirs: list[pathlib.Path], rules: str, problems: list[Problem]) -> dict[str, Entry]:
    """All entries of ``<dir>/<rules>/*.yaml``; an earlier folder wins a name clash."""
    entries: dict[str, Entry] = {}
    for folder in dirs:
        system_dir = rules_folder(folder, rules)
        if system_dir is None:
            continue
        seen_here: dict[str, Entry] = {}
        for file in sorted([*system_dir.glob("*.yaml"), *system_dir.glob("*.yml")]):
            for key, entry in load_bestiary_file(file, problems).items():
                if key in seen_here:
                    first = seen_here[key].source.file
                    problems.append(entry.source.problem(
                        ("creatures", key), f"duplicate bestiary entry '{key}' (also in {first})",
                        at_key=True))
                    continue
                seen_here[key] = entry
        for key, entry in seen_here.items():
            entries.setdefault(key, entry)
    return entries


# -- scenario ----------------------------------------------------------------------

def _not_implemented(rules: str) -> str:
    return (f"rule system '{rules}' is not implemented yet "
            f"(available: {', '.join(IMPLEMENTED_SYSTEMS)})")


def _in_file_order(problems: list[Problem]) -> list[Problem]:
    """Problems sorted by file, then position: the order a GM fixes them in."""
    return sorted(problems, key=lambda p: (p.file, p.line, p.col))


def _morale(c: Checker, value: object, path: Path) -> Any:
    """``morale: true|false``, or ``morale: {wound_divisor: 3}`` (on, with settings)."""
    if isinstance(value, bool):
        return {"morale_on": value}
    if isinstance(value, dict) and True in value and "on" not in value:
        # YAML 1.1 reads a plain `on:` key as the boolean true: it is the `on` key here.
        value = {("on" if key is True else key): item for key, item in value.items()}
        c.source.key_marks[(*path, "on")] = c.source.key_mark((*path, True))
        c.source.marks[(*path, "on")] = c.source.mark((*path, True))
    fields = c.mapping(value, path, {
        "on": c.boolean,
        "wound_divisor": lambda v, p: c.integer(v, p, 1, 100),
    })
    if fields is INVALID:
        return INVALID
    if fields.get("on") is False and "wound_divisor" in fields:
        return c.fail((*path, "wound_divisor"), "does nothing with morale off; remove it, or turn"
                      " morale on", at_key=True)
    return {"morale_on": fields.get("on", True),
            **({"wound_divisor": fields["wound_divisor"]} if "wound_divisor" in fields else {})}


def _attacks_per_turn(c: Checker, value: object, path: Path) -> Any:
    """d100: a turn is two half-actions, so 2 attacks at most; only 1 caps anything."""
    if isinstance(value, int) and not isinstance(value, bool) and value > 2:
        return c.fail(path, f"must be 1 or 2 (got {value}): a d100 turn holds at most 2 attacks"
                            " (two half-actions), so more would do nothing")
    return c.integer(value, path, 1, 2)


def _flee_at(c: Checker, value: object, path: Path) -> Any:
    """Rout below this fraction of the side's able members; 0 would never rout anyone."""
    fraction = c.number(value, path, 0, 1)
    if fraction == 0:
        return c.fail(path, "0 never routs anyone (a side flees below this fraction of its able"
                            " members); remove it, or give a fraction such as 0.5")
    return fraction


def _options(c: Checker, value: object, path: Path) -> Any:
    fields = c.mapping(value, path, _system_only(c, {
        "morale": lambda v, p: _morale(c, v, p),
        "destiny_points": lambda v, p: c.integer(v, p, 0, 100),
        "spirit": c.boolean,
        "outnumbered_at": lambda v, p: c.integer(v, p, 1, 100),
        "attacks_per_turn": lambda v, p: _attacks_per_turn(c, v, p),
        "flee_at": lambda v, p: _flee_at(c, v, p),
        "difficulty": lambda v, p: c.integer(v, p, -50, 100),
    }, ignored.SYSTEM_OPTIONS, ignored.OPTION_WHY))
    if fields is INVALID:
        return INVALID
    morale = fields.pop("morale", {})
    return Options(**fields, **morale)


def _hazards(c: Checker, value: object, path: Path) -> Any:
    items = c.sequence(value, path)
    if items is INVALID:
        return INVALID
    out = []
    for i, item in enumerate(items):
        fields = c.mapping(item, (*path, i), {
            "kind": lambda v, p: c.choice(v, p, HAZARD_KINDS),
            "zone": c.text,
            "members": c.names,
            "escape": lambda v, p: c.choice(v, p, ESCAPES),
        }, required=("kind", "members"))
        out.append(INVALID if fields is INVALID else Hazard(**fields))
    return INVALID if INVALID in out else tuple(out)


def _timeline(c: Checker, value: object, path: Path) -> Any:
    items = c.sequence(value, path)
    if items is INVALID:
        return INVALID
    out = []
    for i, item in enumerate(items):
        where = (*path, i)
        fields = c.mapping(item, where, {
            "round": lambda v, p: c.integer(v, p, 1, 10_000),
            "do": lambda v, p: c.choice(v, p, TIMELINE_ACTIONS),
            "targets": c.names,
            "side": c.text,
            "damage": lambda v, p: c.dice(v, p, lo=0, hi=MAX_DAMAGE),
            "height": lambda v, p: c.number(v, p, 0, 10_000),
            "kind": lambda v, p: c.choice(v, p, ("water", "smoke")),
            "escape": lambda v, p: c.choice(v, p, ESCAPES),
        }, required=("round", "do"))
        if fields is not INVALID and ("targets" in fields) == ("side" in fields):
            fields = c.fail(where, "needs either 'targets' (a list of names) or 'side'")
        if fields is not INVALID and fields["do"] == "fall" and "height" not in fields:
            fields = c.fail(where, "a fall needs a 'height' in metres")
        if fields is not INVALID:
            for unused in ignored.unused_in_timeline(fields["do"], fields):
                fields = c.fail((*where, *unused.path), unused.message, at_key=True)
        out.append(INVALID if fields is INVALID else Scripted(**fields))
    return INVALID if INVALID in out else tuple(out)


def _plain_name(value: object) -> str | None:
    """A name as ``Checker.text`` would accept it (stripped), else None (reported there)."""
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_NAME:
        return None
    return None if any(ord(ch) < 32 for ch in value) else value.strip()


def _check_names(c: Checker, data: dict, sides: list[Side], failed: set[str]) -> None:
    """Names in hazards and the timeline must be combatants (and sides) of the scenario.

    Read from the raw entries, so an entry's other problems (a bad ``do:``) do not hide
    an unknown name in it: every problem is reported at once."""
    names = tuple(m.name for side in sides for m in side.members)
    side_names = tuple(side.name for side in sides)
    known = set(names) | failed  # a member that failed validation is not also "unknown"
    for key, field in (("hazards", "members"), ("timeline", "targets")):
        entries = data.get(key)
        for i, entry in enumerate(entries if isinstance(entries, list) else ()):
            if not isinstance(entry, dict):
                continue
            listed = entry.get(field)
            for j, raw in enumerate(listed if isinstance(listed, list) else ()):
                name = _plain_name(raw)
                if name is not None and name not in known:
                    c.fail((key, i, field, j), f"no combatant named {shorten(name)}"
                           f"{_did_you_mean(name, names)}")
            side = _plain_name(entry.get("side")) if key == "timeline" else None
            if side is not None and side not in side_names:
                c.fail((key, i, "side"), f"no side named {shorten(side)}{_did_you_mean(side, side_names)}")


def _surprise(c: Checker, value: object, path: Path) -> Any:
    if not isinstance(value, dict):
        side = c.text(value, path)
        return INVALID if side is INVALID else Surprise(side=side)
    fields = c.mapping(value, path, {"side": c.text, "group_check": c.text}, required=("side",))
    return INVALID if fields is INVALID else Surprise(**fields)


def _check_surprise(c: Checker, data: dict, surprise: Surprise) -> None:
    """The surprising side must exist (reported at the side's name where it was written)."""
    raw_sides = data.get("sides")
    if not isinstance(raw_sides, list):
        return  # the sides themselves are reported
    names = tuple(s["name"].strip() for s in raw_sides
                  if isinstance(s, dict) and isinstance(s.get("name"), str))
    if surprise.side in names:
        return
    path: Path = ("surprise", "side") if isinstance(data.get("surprise"), dict) else ("surprise",)
    hint = _did_you_mean(surprise.side, names)
    c.fail(path, f"no side named {shorten(surprise.side)}{hint}")


@attrs.define
class _Member:
    """One validated scenario member before names are expanded and specs built."""

    fields: dict[str, Any]
    path: Path
    count: int
    mount: dict[str, Any] | None = None  # the resolved fields of its mount
    use: str | None = None  # the bestiary entry it is made from
    written: frozenset[str] = frozenset()  # keys written in the scenario (else from `use:`)
    mount_use: str | None = None
    mount_written: frozenset[str] = frozenset()


def _resolve(c: Checker, fields: dict[str, Any], path: Path, bestiary: dict[str, Entry] | None
             ) -> Any:
    """Merge ``use:`` (a bestiary entry) under the given keys; INVALID when it cannot."""
    use = fields.pop("use", None)
    if use is None:
        return fields
    entry = None if bestiary is None else bestiary.get(use)
    if entry is None:
        hint = _did_you_mean(use, tuple(bestiary or ()))
        where = where_searched(c.searched, (c.rules,))
        return c.fail((*path, "use"), f"no bestiary entry '{use}'{hint}; {where}")
    if entry.fields is INVALID:
        return INVALID  # its own problems were reported in the bestiary
    merged = {"name": use, **entry.fields, **fields}
    if "tactics" in fields and "tactics" in entry.fields:  # key by key, like a side's
        merged["tactics"] = fields["tactics"].over(entry.fields["tactics"])
    return merged


def _check_potion_at(c: Checker, tactics: Tactics | None, block: dict[str, Any], path: Path
                     ) -> None:
    """``potion_at`` written on a stat block that carries no items would do nothing."""
    if tactics is not None and tactics.potion_at is not None and not block.get("items"):
        c.fail((*path, "tactics", "potion_at"), "does nothing without items: give this stat "
                                                "block `items: [{heal: 2d4+2}]` or leave potion_at out")


def _check_member_weapons(c: Checker, given: dict[str, Any], merged: dict[str, Any],
                          path: Path) -> None:
    """``tactics.weapons`` against the weapons the member ends up with: reported where the
    list was written, or at the member's ``weapons`` when they replaced the entry's."""
    tactics, weapons = merged.get("tactics"), merged.get("weapons", ())
    own = given.get("tactics")
    _check_potion_at(c, own, merged, path)
    if own is not None and own.weapons is not None:
        _check_weapon_names(c, tactics, weapons, (*path, "tactics", "weapons"))
    elif "weapons" in given and tactics is not None and tactics.weapons:
        known = {w.name for w in weapons}
        missing = [name for name in tactics.weapons if name not in known]
        if missing:
            c.fail((*path, "weapons"), f"the bestiary entry's tactics.weapons names "
                                      f"{', '.join(map(shorten, missing))}, not among these weapons")


def where_searched(dirs: list[pathlib.Path], systems: tuple[str, ...]) -> str:
    """Where a bestiary entry was looked for, and how to make it look elsewhere."""
    found = [f for d in dirs for rules in systems if (f := rules_folder(d, rules)) is not None]
    where = ", ".join(_display(f) for f in found) or f"no '{'/'.join(systems)}' bestiary folder"
    return (f"searched: {where}; add the entry to a YAML file there, or name your folder"
            f" with --bestiary DIR or {BESTIARY_ENV}")


def _dropped(value: object, table: dict[str, Any]) -> tuple[str, ...]:
    """Keys set to null next to ``use:``: the bestiary entry's value is dropped, not replaced."""
    if not isinstance(value, dict) or "use" not in value:
        return ()
    return tuple(k for k, v in value.items()
                 if v is None and k in table and k not in ("use", "name", "hp", "count"))


def _drop(c: Checker, merged: dict[str, Any], dropped: tuple[str, ...], path: Path,
          use: object) -> None:
    for key in dropped:
        if merged.pop(key, None) is None:
            c.fail((*path, key), f"nothing to drop: bestiary entry {shorten(use)} has no '{key}'",
                   at_key=True)


def _member(c: Checker, value: object, path: Path, bestiary: dict[str, Entry] | None) -> Any:
    fields_table = stat_fields(c)
    fields_table["use"] = c.text
    fields_table["count"] = lambda v, p: c.integer(v, p, 1, MAX_COUNT)
    dropped = _dropped(value, fields_table)
    if dropped:
        assert isinstance(value, dict)
        value = {k: v for k, v in value.items() if k not in dropped}
    partial: dict[str, Any] = {}
    fields = c.mapping(value, path, fields_table, partial=partial)
    if fields is INVALID:
        if "use" in partial:
            return INVALID
        # A whole stat block written here: what is valid in it can still be checked.
        _check_skills(c, partial, path)
        valid = {k: v for k, v in partial.items() if v is not INVALID and k != "mount"}
        return _Failed(_Member(valid, path, 1, written=frozenset(valid)))
    count = fields.pop("count", 1)
    use = fields.get("use")
    written = frozenset(fields) - {"use"}
    given = dict(fields)
    merged = _resolve(c, fields, path, bestiary)
    if merged is INVALID:
        return INVALID
    _drop(c, merged, dropped, path, use)
    _check_member_weapons(c, given, merged, path)
    for key in ("name", "hp"):
        if key not in merged:
            c.fail(path, f"missing required key '{key}'" + (" (and no 'use:')" if use is None else ""))
    if "name" not in merged or "hp" not in merged:
        return INVALID
    mount, mount_use, mount_written = None, None, frozenset()
    if "mount" in merged:
        mount_path = (*path, "mount")
        given_mount = dict(merged.pop("mount"))
        mount_use = given_mount.get("use")
        if "mount" in written:
            mount_written = frozenset(given_mount) - {"use"}
        mount = _resolve(c, dict(given_mount), mount_path, bestiary)
        if mount is INVALID:
            return INVALID
        _check_member_weapons(c, given_mount, mount, mount_path)
        if "hp" not in mount:
            return c.fail(mount_path, "missing required key 'hp' (and no 'use:')")
    return _Member(merged, path, count, mount, use=use, written=written, mount_use=mount_use,
                   mount_written=mount_written)


def _expand(members: list[_Member], side: str) -> list[tuple[Combatant, Path]]:
    """Build specs; ``count: N`` names them ``NAME 1`` .. ``NAME N``; a mount follows its rider."""
    out: list[tuple[Combatant, Path]] = []
    for m in members:
        base = m.fields["name"]
        fields = {k: v for k, v in m.fields.items() if k not in ("description",)}
        for i in range(1, m.count + 1):
            name = f"{base} {i}" if m.count > 1 else base
            mount_name = None
            if m.mount is not None:
                mount_name = f"{m.mount.get('name', 'mount')} of {name}"
            # One scenario entry is one kind of creature (RULES 3 terror): the `count:` members
            # of an entry share it; two entries are two kinds, even of one bestiary entry.
            spec = Combatant(**{**fields, "name": name, "side": side, "group": base,
                                "kind": format_path(m.path), "mount": mount_name})
            out.append((spec, m.path))
            if m.mount is not None:
                mount_fields = {k: v for k, v in m.mount.items() if k not in ("description", "name")}
                out.append((Combatant(**{**mount_fields, "name": mount_name, "side": side,
                                         "group": mount_name, "kind": format_path((*m.path, "mount")),
                                         "rider": name}), (*m.path, "mount")))
    return out


@attrs.frozen
class _Failed:
    """A member that failed validation: what was valid in it, still checked for idle keys."""

    member: _Member


@attrs.define
class _Roster:
    """What the sides held, for the checks that need the whole scenario: each valid member
    entry with its side, and the names of the members that failed validation."""

    members: list[tuple[_Member, Side]] = attrs.Factory(list)
    failed_names: set[str] = attrs.Factory(set)
    complete: bool = True  # every side was read and every failed member's name is known

    def note_failed(self, raw: object) -> None:
        """Remember the names a member that failed validation would have had."""
        if isinstance(raw, dict) and raw.get("use") is None and raw.get("count") is None:
            name = _plain_name(raw.get("name"))
            if name is not None:
                self.failed_names.add(name)
                return
        if isinstance(raw, dict):
            name = _plain_name(raw.get("name", raw.get("use")))
            count = raw.get("count", 1)
            if name is not None and type(count) is int and 1 <= count <= MAX_COUNT:
                self.failed_names.update([name] if count == 1 else
                                         [f"{name} {i}" for i in range(1, count + 1)])
                return
        self.complete = False


def _sides(c: Checker, value: object, bestiary: dict[str, Entry] | None, roster: _Roster) -> Any:
    """The sides, their members expanded into specs; ``roster`` gets each member entry
    with its side (for the checks that need the whole scenario)."""
    items = c.sequence(value, ("sides",), min_len=2)
    if items is INVALID:
        roster.complete = False
        return INVALID
    sides: list[Side] = []
    seen_names: dict[str, Path] = {}
    side_names: set[str] = set()
    total = 0  # combatants so far, counted before any is built
    for i, raw in enumerate(items):
        path: Path = ("sides", i)
        members: list[_Member] = []
        failed: list[_Member] = []

        def members_field(v: object, p: Path, members: list[_Member] = members,
                          failed: list[_Member] = failed) -> Any:
            listed = c.sequence(v, p, min_len=1)
            if listed is INVALID:
                return INVALID
            for j, item in enumerate(listed):
                member = _member(c, item, (*p, j), bestiary)
                if member is INVALID or isinstance(member, _Failed):
                    roster.note_failed(item)
                    if isinstance(member, _Failed):
                        failed.append(member.member)
                else:
                    members.append(member)
            return members

        # A side is built from its valid members even next to a bad one, so that the
        # checks of the whole scenario still run (a bad member is reported on its own).
        fields: dict[str, Any] = {}
        c.mapping(raw, path, {
            "name": c.text, "party": c.boolean,
            "tactics": lambda v, p: _tactics(c, v, p),
            "members": members_field,
            "description": lambda v, p: c.text(v, p, 2000),
        }, required=("name", "members"), partial=fields)
        if INVALID in (fields.get("name", INVALID), fields.get("party"), fields.get("members")):
            roster.complete = False
            continue
        name = fields["name"]
        if fields.get("tactics") is INVALID:
            del fields["tactics"]  # reported where it was written
        side_weapons = tuple(w for m in (*members, *failed) for w in m.fields.get("weapons", ()))
        _check_weapon_names(c, fields.get("tactics"), side_weapons,
                            (*path, "tactics", "weapons"), "any member of this side")
        side_tactics = fields.get("tactics")
        if (side_tactics is not None and side_tactics.potion_at is not None
                and not any(m.fields.get("items") for m in (*members, *failed))):
            c.fail((*path, "tactics", "potion_at"), "does nothing: no member of this side "
                                                    "carries items")
        if name in side_names:
            c.fail((*path, "name"), f"duplicate side name '{name}'")
            roster.complete = False
            continue
        side_names.add(name)
        total += sum(m.count * (2 if m.mount is not None else 1) for m in members)
        if total > MAX_COMBATANTS:
            roster.complete = False
            continue  # reported below; never build more than the cap allows
        specs = _expand(members, name)
        for spec, member_path in specs:
            if spec.name in seen_names:
                first = format_path(seen_names[spec.name])
                c.fail(member_path, f"duplicate combatant name '{spec.name}' (first at {first})")
            seen_names.setdefault(spec.name, member_path)
        side = Side(
            name=name, party=fields.get("party") or False,
            tactics=fields.get("tactics", Tactics()),
            members=tuple(s for s, _ in specs),
        )
        sides.append(side)
        roster.members += [(m, side) for m in (*members, *failed)]
    if total > MAX_COMBATANTS:
        c.fail(("sides",), f"at most {MAX_COMBATANTS} combatants in all, mounts included"
                           f" (got {total})")
    party_paths = [("sides", i, "party") for i, raw in enumerate(items)
                   if isinstance(raw, dict) and raw.get("party") is True]
    for extra in party_paths[1:]:
        roster.complete = False  # who is the party is unknown: no check that depends on it
        c.fail(extra, f"only one side can be the party (the first is at {format_path(party_paths[0][:2])})")
    return sides


def _check_rounds(c: Checker, data: dict, max_rounds: int) -> None:
    """A timeline entry after the last round would never happen."""
    timeline = data.get("timeline")
    for i, entry in enumerate(timeline if isinstance(timeline, list) else ()):
        at = entry.get("round") if isinstance(entry, dict) else None
        if isinstance(at, int) and not isinstance(at, bool) and max_rounds < at <= MAX_ROUNDS:
            c.fail(("timeline", i, "round"), f"round {at} never comes: the battle stops after"
                   f" max_rounds {max_rounds}; raise max_rounds, or remove the entry")


def _check_unused(c: Checker, rules: str, sides: list[Side], resolved: list[tuple[_Member, Side]],
                  options: Options, data_options: object, surprise: Surprise | None) -> None:
    """Keys the scenario's options and sides leave idle (see sim.ignored), reported where
    they were written: at the key in the scenario, or at `use:` for a bestiary entry's."""
    system_default = rules == "2d10"  # RuleSystem.morale_default, without importing the rules
    morale_on = system_default if options.morale_on is None else options.morale_on
    party_side = any(side.party for side in sides)
    home = next((side for side in sides if side.party), sides[0] if sides else None)
    for member, side in resolved:
        group_check = surprise.group_check if surprise and surprise.side == side.name else None
        ctx = ignored.Context(
            rules=rules, options=options, morale_on=morale_on, party=side.party,
            party_side=party_side,
            enemies_all_party=all(other.party for other in sides if other is not side),
            rolls_initiative=side is home, group_check=group_check)
        checks = [((), member.fields, member.path, member.use, member.written)]
        if member.mount is not None and "mount" in member.written:
            checks.append(((), member.mount, (*member.path, "mount"), member.mount_use,
                           member.mount_written))
        elif member.mount is not None:  # the entry's mount: reported as the entry's key
            checks.append((("mount",), member.mount, member.path, member.use, frozenset()))
        for prefix, fields, path, use, written in checks:
            found = ignored.unused_in_block(ctx, fields)
            if written & {"skills", "weapons"}:  # else checked in the bestiary already
                found += [ignored.Unused(("skills", *u.path), u.message) for u in
                          ignored.unread_skills(rules, fields.get("skills", {}),
                                                fields.get("weapons", ()),
                                                (group_check,) if group_check else ())]
            for unused in found:
                _report_unused(c, ignored.Unused((*prefix, *unused.path), unused.message), path,
                               use, written)
    terror = any(m.fields.get("terror") for m, _ in resolved)
    armed = {side.name: sum(1 for m in side.members if m.weapons) for side in sides}
    most_enemies = max((sum(armed.values()) - armed[side.name] for side in sides), default=0)
    given = data_options if isinstance(data_options, dict) else {}
    for unused in ignored.unused_options(rules, options, given, terror, most_enemies,
                                         party_side):
        c.fail(("options", *unused.path), unused.message, at_key=True)


def _report_unused(c: Checker, unused: ignored.Unused, path: Path, use: str | None,
                   written: frozenset[str]) -> None:
    key = unused.path[0]
    if key not in written and use is not None and not (
            key == "terror" and unused.message.startswith(ignored.TERROR_WITHOUT_SPIRIT)):
        # A bestiary entry serves any scenario: what it gives is kept quietly, except terror
        # without the spirit option (RULES 3 makes that a validation error).
        return
    if key in written or use is None:
        c.fail((*path, *unused.path), unused.message, at_key=True)
        return
    how = f"write '{key}: null' here to drop it" if len(unused.path) == 1 else f"override '{key}' here"
    message = unused.message.replace(", or remove it", "").replace("; remove it", "")
    c.fail((*path, "use"), f"'{format_path(unused.path)}' of bestiary entry '{use}': {message};"
                           f" or {how}")


def load_scenario(
    path: pathlib.Path, bestiary_extra: tuple[pathlib.Path, ...] = (), display: str | None = None,
    overrides: Sequence[str] = (),
) -> Scenario:
    """Load, resolve and validate a scenario; raises ScenarioError listing every problem.

    ``overrides`` are ``--set PATH=VALUE`` texts, applied to the YAML before validation."""
    source = load_yaml(path, display or _display(path))
    touched: list = []
    if overrides:
        source, touched = apply_overrides(source, parse_overrides(overrides, source.file))
    try:
        return scenario_from_source(path, source, bestiary_extra, tuple(overrides))
    except ScenarioError as exc:
        raise ScenarioError(blame(exc.problems, touched)) from None


def scenario_from_source(path: pathlib.Path, source: Source, bestiary_extra: tuple[pathlib.Path, ...],
                         overrides: tuple[str, ...] = ()) -> Scenario:
    """Validate loaded data into a Scenario (``source`` may be composed, see sim.day);
    bestiary folders are searched from ``path``'s folder."""
    problems: list[Problem] = []
    c = Checker(source, problems)
    data = source.data
    rules = _validate_header(c, data, RULE_SYSTEMS)
    if rules is INVALID:
        raise ScenarioError(problems)
    assert isinstance(data, dict)
    if rules not in IMPLEMENTED_SYSTEMS:
        c.fail(("rules",), _not_implemented(rules))
        raise ScenarioError(problems)
    c.rules = rules
    c.searched = bestiary_dirs(path, bestiary_extra)
    bestiary = load_bestiary(c.searched, rules, problems)
    surprise = _surprise(c, data["surprise"], ("surprise",)) if "surprise" in data else None
    if isinstance(surprise, Surprise):
        _check_surprise(c, data, surprise)
    roster = _Roster()
    parsed: dict[str, Any] = {}  # each top-level value as validated, even when another is not

    def keep(key: str, field: Callable[[object, Path], Any]) -> Callable[[object, Path], Any]:
        def run(value: object, where: Path) -> Any:
            before = len(problems)
            parsed[key] = result = field(value, where)
            parsed[key + "/clean"] = len(problems) == before
            return result
        return run

    fields = c.mapping(data, (), {key: keep(key, field) for key, field in {
        "name": c.text,
        "rules": lambda v, p: v,
        "max_rounds": lambda v, p: c.integer(v, p, 1, MAX_ROUNDS),
        "distance": lambda v, p: c.number(v, p, 0, 100_000),
        "surprise": lambda v, p: surprise,
        "options": lambda v, p: _options(c, v, p),
        "sides": lambda v, p: _sides(c, v, bestiary, roster),
        "hazards": lambda v, p: _hazards(c, v, p),
        "timeline": lambda v, p: _timeline(c, v, p),
        "description": lambda v, p: c.text(v, p, 5000),
    }.items()}, required=("name", "sides"))
    if roster.complete and isinstance(parsed.get("sides"), list):
        # Checked whatever else is wrong, so one problem never hides another.
        _check_names(c, data, parsed["sides"], roster.failed_names)
        if parsed.get("options/clean", True) and surprise is not INVALID:
            _check_unused(c, rules, parsed["sides"], roster.members,
                          parsed.get("options", Options()), data.get("options"), surprise)
    if parsed.get("max_rounds/clean", True):
        _check_rounds(c, data, parsed.get("max_rounds", DEFAULT_ROUNDS))
    if fields is INVALID or problems:
        raise ScenarioError(_in_file_order(problems))
    return Scenario(
        name=fields["name"], rules=rules, sides=tuple(fields["sides"]),
        max_rounds=fields.get("max_rounds", DEFAULT_ROUNDS), distance=fields.get("distance", 0.0),
        surprise=surprise, options=fields.get("options", Options()),
        hazards=fields.get("hazards", ()), timeline=fields.get("timeline", ()),
        path=str(path), abs_path=os.path.abspath(path), sha256=source.sha256,
        bestiary=tuple(os.path.abspath(folder) for folder in bestiary_extra),
        overrides=overrides,
    )


def _looks_like_bestiary(path: pathlib.Path, data: object) -> bool:
    """A bestiary has `creatures:`; without `sides:`, a near miss or a bestiary/ folder counts."""
    if not isinstance(data, dict):
        return False
    if "creatures" in data:
        return True
    if "sides" in data:
        return False
    near = any(isinstance(k, str) and _did_you_mean(k, ("creatures",)) for k in data)
    return near or BESTIARY_DIR in path.resolve().parts


def validate_file(path: pathlib.Path, bestiary_extra: tuple[pathlib.Path, ...] = (),
                  overrides: Sequence[str] = ()) -> str:
    """Validate a scenario or a bestiary file; returns what it was; raises ScenarioError."""
    source = load_yaml(path, _display(path))
    if _looks_like_bestiary(path, source.data):
        problems: list[Problem] = []
        if overrides:
            problems.append(Problem(source.file, 0, 0, "--set",
                                    "--set edits scenarios, not bestiary files"))
        load_bestiary_file(path, problems)
        if problems:
            raise ScenarioError(_in_file_order(problems))
        return "bestiary"
    load_scenario(path, bestiary_extra, overrides=overrides)
    return "scenario"
