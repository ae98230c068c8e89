"""The scenario's ``options:`` (morale, destiny, spirit, attacks per turn, rout, difficulty,
and the keys that set a Convention of the rules (docs/rules) aside).

Options another rule system reads are warned about, saying why (see sim.scenario.ignored).
"""

from __future__ import annotations

from typing import Any

from sim.model import DEFENSE_PER, MORALE_WHO, TERROR_PER, UNCONSCIOUS_RIDER, Options
from sim.scenario import ignored
from sim.scenario.blocks import system_only
from sim.scenario.checker import INVALID, Checker
from sim.yamlsrc import Path


def _morale(c: Checker, value: object, path: Path) -> Any:
    """``morale: true|false``, or ``morale: {who: everyone, wound_divisor: 3, ...}`` (on,
    with settings); settings with ``on: false`` do nothing (a warning)."""
    if isinstance(value, bool):
        return {"morale_on": value}
    if isinstance(value, dict) and True in value and "on" not in value:
        # YAML 1.1 reads a plain `on:` key as the boolean true: it is the `on` key here.
        value = {("on" if key is True else key): item for key, item in value.items()}
        c.source.rename_key(path, True, "on")
    fields = c.mapping(value, path, {
        "on": c.boolean,
        "wound_divisor": lambda v, p: c.integer(v, p, 1, 100),
        "despair_disadvantage": c.boolean,
        "despair_again": c.boolean,
        "who": lambda v, p: c.choice(v, p, MORALE_WHO),
    })
    if fields is INVALID:
        return INVALID
    if "who" in fields:
        fields["morale_who"] = fields.pop("who")
    on = fields.pop("on", True)
    if not on and fields:
        for key in fields:
            c.warn((*path, key), "morale is off (on: false); turn morale on to use it")
        return {"morale_on": on}
    return {"morale_on": on, **fields}


def _attacks_per_turn(c: Checker, value: object, path: Path) -> Any:
    """d100: a turn is two half-actions, so 2 attacks at most; only 1 caps anything."""
    if isinstance(value, int) and not isinstance(value, bool) and value >= 2:
        return c.fail(path, f"must be 1 (got {value}): a d100 turn holds at most 2 attacks"
                            " (two half-actions) without it, so only 1 caps anything")
    return c.integer(value, path, 1, 1)


def read_options(c: Checker, value: object, path: Path) -> Any:
    """``options:`` into ``model.Options``; options of another system warned about."""
    fields = c.mapping(value, path, system_only(c, {
        "morale": lambda v, p: _morale(c, v, p),
        "destiny_points": lambda v, p: c.integer(v, p, 0, 100),
        "spirit": c.boolean,
        "outnumbered_at": lambda v, p: c.integer(v, p, 1, 100),
        "attacks_per_turn": lambda v, p: _attacks_per_turn(c, v, p),
        "flee_at": lambda v, p: c.number(v, p, 0, 1),  # one no side can reach: sim.scenario.ignored
        "difficulty": lambda v, p: c.integer(v, p, -50, 100),
        # The Conventions a scenario may set aside (rules §1 to 6; README, Conventions).
        "tie_succeeds": c.boolean,
        "move_and_attack": c.boolean,
        "terror_per": lambda v, p: c.choice(v, p, TERROR_PER),
        "critical_pierces": c.boolean,
        "critical_ignores_defense": c.boolean,
        "fumble_ends_turn": c.boolean,
        "defense_per": lambda v, p: c.choice(v, p, DEFENSE_PER),
        "unconscious_rider": lambda v, p: c.choice(v, p, UNCONSCIOUS_RIDER),
        "unhealable_recovery": c.idle("only a day's rests read it (rules §7): set it in the"
                                        " day file's options"),
    }, ignored.SYSTEM_OPTIONS, ignored.OPTION_WHY))
    if fields is INVALID:
        return INVALID
    morale = fields.pop("morale", {})
    return Options(**fields, **morale)
