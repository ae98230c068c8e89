"""A run folder's ``summary.json`` read back as hostile input: the shape every reader needs.

``sim batch --resume`` of a finished run prints the summary again and ``sim report`` draws
it; both index it freely, so a hand-edited or damaged file (``"sides": {"a": 1}``, a missing
``rounds``) must be refused here, as one ``file:line:col`` line, not crash them later (nor
make the report draw thousands of rows: no more combatants or steps than a run can have). The
shape is that of ``sim.tally.stats``'s summary; keys added since schema 1 began are optional, as
the readers treat them (a summary written before ``party`` existed still reads).
"""

from __future__ import annotations

import math
import pathlib
from collections.abc import Callable
from typing import Any

import attrs

from sim.day.file import MAX_STEPS
from sim.errors import InputError
from sim.scenario import MAX_COMBATANTS
from sim.yamlsrc import Path, format_path, shorten


class _Bad(Exception):
    """The first value that does not fit, at ``path``: ``message`` says what it must be."""

    def __init__(self, path: Path, message: str, got: object = None, shown: bool = True) -> None:
        super().__init__(message)
        self.path = path
        self.message = f"{message} (got {shorten(got)})" if shown else message


@attrs.frozen
class _Opt:
    """A key that may be missing (``nullable``: or null)."""

    spec: Any
    nullable: bool = False


@attrs.frozen
class _MapOf:
    """A JSON object of any keys (at most ``most``), each value checked by ``spec``."""

    spec: Any
    most: int | None = None


@attrs.frozen
class _ListOf:
    spec: Any
    length: int | None = None


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _integer(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


_Check = tuple[Callable[[object], bool], str]
NUMBER: _Check = (_number, "must be a finite number")
INTEGER: _Check = (_integer, "must be an integer")
TEXT: _Check = (lambda v: isinstance(v, str), "must be a string")
CI = {"p": NUMBER, "lo": NUMBER, "hi": NUMBER}
_MAYBE_CI = _Opt(CI, nullable=True)
_COUNTS = {"mean": NUMBER, "dist": _ListOf(NUMBER)}
_SPREAD = {"mean": NUMBER, "p10": NUMBER, "p50": NUMBER, "p90": NUMBER,
           "deciles": _Opt(_ListOf(NUMBER, 9), nullable=True)}

PARTY = {"side": TEXT, "win": CI, "tpk": _MAYBE_CI, "any_down": CI, "any_death": CI,
         "left_behind": _MAYBE_CI, "deaths": _COUNTS, "downs": _COUNTS, "difficulty": TEXT,
         "difficulty_range": _Opt({"lo": TEXT, "hi": TEXT}, nullable=True)}
COMBATANT = {"side": TEXT, "death": CI, "down": _MAYBE_CI, "knocked_out": CI,
             "left_behind": _MAYBE_CI, "death_causes": _MapOf(NUMBER),
             "death_causes_ci": _Opt(_MapOf(CI), nullable=True),
             "hp_left": {"mean": NUMBER, "p10": _Opt(NUMBER), "p50": _Opt(NUMBER), "p90": _Opt(NUMBER)},
             "items_used": _Opt({"mean": NUMBER}), "demoralized": _MAYBE_CI,
             "despairing": _MAYBE_CI, "learning": _Opt(_MapOf(CI), nullable=True)}
_STEP_KIND: _Check = (lambda v: v in ("encounter", "rest"), "must be encounter or rest")
REST_STEP = {"step": INTEGER, "name": TEXT, "kind": _STEP_KIND, "reached": CI}
ENCOUNTER_STEP = {**REST_STEP, "won": CI, "any_down": CI, "any_death": CI, "ended_here": CI,
                  "hp_start": _SPREAD,
                  # newer: what else the party has left as the fight begins
                  **{key: _Opt(_SPREAD) for key in ("heroism_start", "psy_start", "potions_start",
                                                    "destiny_start", "fatigue_start", "down_start")}}
SUMMARY = {"scenario": TEXT, "rules": TEXT, "battles": INTEGER, "seed": INTEGER,
           "sides": _MapOf({"win_rate": CI}, MAX_COMBATANTS), "draw_rate": _MAYBE_CI,
           "draws_by": _Opt(_MapOf(INTEGER), nullable=True), "tpk": _MAYBE_CI,
           "party": _Opt(PARTY, nullable=True), "combatants": _MapOf(COMBATANT, MAX_COMBATANTS),
           "rounds": {"mean": NUMBER, "p50": NUMBER, "p90": NUMBER, "max": NUMBER},
           "stopped_by": _Opt(TEXT, nullable=True), "warnings": _Opt(_ListOf(TEXT))}
DAY = {"survived": CI, "completed": CI, "any_death": CI}


def check_summary(path: pathlib.Path, summary: object) -> dict[str, Any]:
    """``summary`` if it has the shape of this program's schema 1 summary; else InputError
    naming the first key that does not, at ``file:0:0``."""
    try:
        if not isinstance(summary, dict) or summary.get("schema") != 1:
            raise _Bad((), "not a schema 1 summary of this program", shown=False)
        _check(SUMMARY, summary, ())
        steps = summary.get("steps")
        if steps:  # a day's run: each step and the day's own rates
            _check(_ListOf(dict), steps, ("steps",))
            if len(steps) > MAX_STEPS:
                raise _Bad(("steps",), f"must hold at most {MAX_STEPS} steps (a day's most)", len(steps))
            for i, step in enumerate(steps):
                shape = REST_STEP if step.get("kind") == "rest" else ENCOUNTER_STEP
                _check(shape, step, ("steps", i))
            _check(DAY, summary.get("day"), ("day",))
    except _Bad as bad:
        msg = f"{path}:0:0: {format_path(bad.path) or '(document)'}: damaged: {bad.message}"
        raise InputError(msg) from None
    return summary


# What a summary and its run's manifest both say, and must say alike (summary key, manifest key).
_OF_THE_RUN = (("scenario", "scenario"), ("rules", "rules"), ("seed", "seed"), ("battles", "battles_done"))


def check_run_summary(path: pathlib.Path, summary: object, manifest: dict[str, Any]) -> dict[str, Any]:
    """``check_summary``, and the summary of the run ``manifest`` describes: another run's
    summary.json copied in was printed (and drawn by ``sim report``, beside this run's
    battles) as this run's."""
    checked = check_summary(path, summary)
    for key, of_run in _OF_THE_RUN:
        if checked[key] != manifest[of_run]:
            msg = (f"{path}:0:0: {key}: not this run's summary: its manifest says"
                   f" {shorten(manifest[of_run])} (got {shorten(checked[key])}); it is not used")
            raise InputError(msg)
    return checked


def _check(spec: Any, value: object, path: Path) -> None:
    if isinstance(spec, _Opt):
        if value is not None or not spec.nullable:
            _check(spec.spec, value, path)
    elif isinstance(spec, dict):
        if not isinstance(value, dict):
            raise _Bad(path, "must be a JSON object", value)
        for key, inner in spec.items():
            if key in value:
                _check(inner, value[key], (*path, key))
            elif not isinstance(inner, _Opt):
                raise _Bad((*path, key), "missing", shown=False)
    elif isinstance(spec, _MapOf):
        if not isinstance(value, dict):
            raise _Bad(path, "must be a JSON object", value)
        if spec.most is not None and len(value) > spec.most:
            raise _Bad(path, f"must hold at most {spec.most} entries (a battle's most)", len(value))
        for key, inner in value.items():
            _check(spec.spec, inner, (*path, key))
    elif isinstance(spec, _ListOf):
        if not isinstance(value, list) or (spec.length is not None and len(value) != spec.length):
            size = "a list" if spec.length is None else f"a list of {spec.length}"
            raise _Bad(path, f"must be {size}", value)
        for i, inner in enumerate(value):
            _check(spec.spec, inner, (*path, i))
    elif spec is dict:
        if not isinstance(value, dict):
            raise _Bad(path, "must be a JSON object", value)
    else:
        ok, expected = spec
        if not ok(value):
            raise _Bad(path, expected, value)
