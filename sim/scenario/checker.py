"""The Checker: validates plain YAML data of one Source, collecting every Problem.

Owns the scalar and container checks every field uses (text, integer, dice, mapping
with unknown-key hints), ``INVALID`` (a value whose problem is already recorded), the
did-you-mean hints (spelling and ``ALIASES``) and the ``rules:`` header of a file.
"""

from __future__ import annotations

import difflib
import math
import pathlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import attrs
import yaml
import yaml.resolver

from sim import dice
from sim.errors import DiceError, Problem, idle_message
from sim.scenario.limits import IMPLEMENTED_SYSTEMS, MAX_DAMAGE, MAX_MESSAGE, MAX_NAME
from sim.yamlsrc import Path, Source, format_path, shorten

if TYPE_CHECKING:
    from sim.scenario.foreign import Told

    Foreign = Callable[[object, object], Told | None]


class _Invalid:
    """Marker for a value that failed validation (its problem is already recorded)."""


INVALID: Any = _Invalid()


class _Idle:
    """Marker for a valid key the fight leaves idle (warned about): left out of its mapping."""


IDLE: Any = _Idle()


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

    def warn(self, path: Path, message: str, at_key: bool = True) -> None:
        """Record a warning: valid data this system or this fight leaves idle (the run goes
        ahead; ``--strict`` refuses it). ``message`` says why; it becomes ``does nothing
        here: why``."""
        problem = self.source.problem(path, idle_message(message), at_key)
        self.problems.append(attrs.evolve(problem, warning=True))

    def errors(self) -> int:
        """How many problems refuse the input so far (warnings aside)."""
        return sum(1 for p in self.problems if not p.warning)

    # -- scalar kinds ------------------------------------------------------------

    def text(self, value: object, path: Path, limit: int = MAX_NAME) -> Any:
        if not isinstance(value, str) or not value.strip():
            # YAML reads a bare yes, no, on, off, null or 1984 as a boolean, null or number.
            hint = "" if isinstance(value, str | list | dict) else ": quote it to write it as text"
            return self.fail(path, f"must be a non-empty string (got {shorten(value)}){hint}")
        if len(value) > limit:
            return self.fail(path, f"must be at most {limit} characters (got {len(value)})")
        if any(ord(ch) < 32 for ch in value):
            return self.fail(path, f"must not contain control characters (got {shorten(value)})")
        return value.strip()

    def integer(self, value: object, path: Path, lo: int, hi: int) -> Any:
        if isinstance(value, bool) or not isinstance(value, int):
            return self.fail(path, f"must be an integer (got {shorten(value)}){_number_hint(value, True)}")
        if not lo <= value <= hi:
            return self.fail(path, f"must be between {lo} and {hi} (got {value})")
        return value

    def number(self, value: object, path: Path, lo: float, hi: float) -> Any:
        if isinstance(value, bool) or not isinstance(value, int | float):
            return self.fail(path, f"must be a number (got {shorten(value)}){_number_hint(value)}")
        if not math.isfinite(value) or not lo <= value <= hi:
            return self.fail(path, f"must be between {lo:g} and {hi:g} (got {shorten(value)})")
        return float(value)

    def boolean(self, value: object, path: Path) -> Any:
        if not isinstance(value, bool):
            return self.fail(path, f"must be true or false (got {shorten(value)})")
        return value

    def choice(self, value: object, path: Path, choices: tuple[str, ...]) -> Any:
        if not isinstance(value, str) or value not in choices:
            hint = did_you_mean(value, choices)
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

    def idle(self, message: str, field: Callable[[object, Path], Any] | None = None
             ) -> Callable[[object, Path], Any]:
        """A field this system never reads (another system's key): checked by ``field`` when
        given (a wrong value is still a mistake), then warned about and left out (IDLE)."""
        def read(value: object, path: Path) -> Any:
            if field is not None and field(value, path) is INVALID:
                return INVALID
            self.warn(path, message)
            return IDLE
        return read

    def each(self, value: object, path: Path, read: Callable[[object, Path], Any],
             min_len: int = 0) -> Any:
        """A list whose items ``read`` validates, each at its own index: a tuple, or INVALID
        once any item is (every item still checked, so all its problems are reported)."""
        items = self.sequence(value, path, min_len)
        if items is INVALID:
            return INVALID
        out = [read(item, (*path, i)) for i, item in enumerate(items)]
        return INVALID if INVALID in out else tuple(out)

    def names(self, value: object, path: Path, min_len: int = 0) -> Any:
        """A list of names, each once: a name listed again would do nothing more."""
        names = self.each(value, path, self.text, min_len)
        if names is INVALID:
            return INVALID
        first: dict[str, int] = {}
        for i, name in enumerate(names):
            if first.setdefault(name, i) != i:
                self.fail((*path, i), f"{shorten(name)} is listed twice (first at"
                                      f" {format_path((*path, first[name]))}): once is enough")
        return names if len(first) == len(names) else INVALID

    # -- containers --------------------------------------------------------------

    def sequence(self, value: object, path: Path, min_len: int = 0) -> Any:
        if not isinstance(value, list):
            return self.fail(path, f"must be a list (got {shorten(value)})")
        if len(value) < min_len:
            items = "an item" if min_len == 1 else f"{min_len} items"
            return self.fail(path, f"must have at least {items} (got {len(value)})")
        return value

    def mapping(
        self, value: object, path: Path, fields: dict[str, Callable[[object, Path], Any]],
        required: tuple[str, ...] = (), partial: dict[str, Any] | None = None,
        foreign: Foreign | None = None,
    ) -> Any:
        """Check a mapping's keys, convert each value with its field; INVALID on any problem.

        ``partial`` receives every value converted (INVALID where it failed), so checks
        across keys can still run next to a problem elsewhere in the mapping. ``foreign``
        tells an unknown key that another game uses (``sim.scenario.foreign``) instead of a
        did-you-mean."""
        if not isinstance(value, dict):
            return self.fail(path, f"must be a mapping (got {shorten(value)})")
        before = self.errors()
        out: dict[str, Any] = {}
        hinted: set[str] = set()
        for key, item in value.items():
            if not isinstance(key, str) or key not in fields:
                told = None if foreign is None else foreign(key, item)
                if told is not None:
                    hinted.add(f"; did you mean '{told.instead}'?")
                    self.fail((*path, key), f"unknown key {shorten(key)}: {told.message}",
                              at_key=True)
                    continue
                hint = did_you_mean(key, tuple(fields))
                hinted.add(hint)
                self.fail((*path, key), f"unknown key {shorten(key)}{hint}", at_key=True)
                continue
            out[key] = fields[key](item, (*path, key))
            if out[key] is IDLE:
                del out[key]
        if partial is not None:
            partial.update(out)
        for key in required:
            # A misspelt key already hinted at this one says it all: no second line.
            if key not in value and f"; did you mean '{key}'?" not in hinted:
                self.fail(path, f"missing required key '{key}'")
        if self.errors() > before:
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


def _number_hint(value: object, integer: bool = False) -> str:
    """Why a number came as text: quoted ('0.5', "3"), or written 1e5, which YAML 1.1 reads as
    text (its floats need a dot). Told apart by what the text would be unquoted."""
    if not isinstance(value, str):
        return ""
    if _PLAIN.resolve(yaml.ScalarNode, value, (True, False)) in _NUMBER_TAGS:
        return ": quoted, it is text; write it without quotes"
    try:
        float(value)
    except ValueError:
        return ""
    return " (YAML reads 1e5 as text: write 100000" + (")" if integer else " or 1.0e+5)")


_PLAIN = yaml.resolver.Resolver()
_NUMBER_TAGS = ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float")


def did_you_mean(got: object, choices: tuple[str, ...]) -> str:
    """``"; did you mean 'X'?"`` for the alias or closest spelling of ``got`` in ``choices``, else ``""``."""
    if not isinstance(got, str):
        return ""
    alias = ALIASES.get(got.lower())
    if alias in choices:
        return f"; did you mean '{alias}'?"
    close = difflib.get_close_matches(got, choices, n=1, cutoff=0.6)
    return f"; did you mean '{close[0]}'?" if close else ""


def plain_name(value: object) -> str | None:
    """A name as ``Checker.text`` would accept it (stripped), else None (reported there)."""
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_NAME:
        return None
    return None if any(ord(ch) < 32 for ch in value) else value.strip()


def validate_header(c: Checker, data: object, rules: tuple[str, ...]) -> Any:
    """The ``rules:`` of a scenario or bestiary file (a mapping at the top), or INVALID."""
    if not isinstance(data, dict):
        return c.fail((), f"must be a mapping at the top level (got {shorten(data)})")
    if "rules" not in data:
        return c.fail((), "missing required key 'rules'")
    return c.choice(data["rules"], ("rules",), rules)


def not_implemented(rules: str) -> str:
    """The message for a rule system the model knows but the engine does not play yet."""
    return (f"rule system '{rules}' is not implemented yet "
            f"(available: {', '.join(IMPLEMENTED_SYSTEMS)})")
