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


DEFAULT_OPTIONS = Options()
# name -> (options, system) of the last call: a batch asks with the same options object for every
# battle, and the cache below then compares options field by field (attrs' __eq__ and __hash__,
# 3% of a compiled battle) whenever its entry came from an equal but other object.
_LAST: dict[str, tuple[Options, RuleSystem]] = {}


def system_for(name: str, options: Options = DEFAULT_OPTIONS) -> RuleSystem:
    """The rule system a scenario names, set for its options (cached: options are frozen)."""
    last = _LAST.get(name)
    if last is not None and last[0] is options:
        return last[1]
    system = _built(name, options)
    _LAST[name] = (options, system)
    return system


@functools.lru_cache(maxsize=256)  # a tune run may try many option sets
def _built(name: str, options: Options) -> RuleSystem:
    try:
        return SYSTEMS[name](options)
    except KeyError:
        msg = f"rule system {name!r} is not implemented yet (available: {', '.join(SYSTEMS)})"
        raise NotImplementedError(msg) from None


def forget() -> None:
    """Build every rule system anew from the next call: a test of a mutated system's
    ``__init__`` must run it (tests/conftest.py)."""
    _LAST.clear()
    _built.cache_clear()
