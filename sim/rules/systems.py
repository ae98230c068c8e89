"""Which rule system a scenario names: one instance per system and options, built once."""

from __future__ import annotations

import functools

from sim.model import Options
from sim.rules import RuleSystem
from sim.rules.d20 import D20
from sim.rules.d100 import D100
from sim.rules.open_d10 import OpenD10
from sim.rules.quality import Quality

SYSTEMS: dict[str, type[D20 | D100 | Quality | OpenD10]] = {
    "d20": D20, "d100": D100, "2d10": Quality, "d10": OpenD10,
}


@functools.lru_cache(maxsize=256)  # a tune run may try many option sets
def system_for(name: str, options: Options = Options()) -> RuleSystem:  # noqa: B008 (frozen)
    """The rule system a scenario names, set for its options (cached: options are frozen)."""
    try:
        return SYSTEMS[name](options)
    except KeyError:
        msg = f"rule system {name!r} is not implemented yet (available: {', '.join(SYSTEMS)})"
        raise NotImplementedError(msg) from None
