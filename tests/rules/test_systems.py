"""Which rule system a scenario names, built once per system and option set (sim.rules.systems)."""

from __future__ import annotations

from sim.model import Options
from sim.rules.systems import forget, system_for


def test_one_system_per_option_set_whatever_the_object() -> None:
    """The same options object, or an equal one, gives the same system; other options another:
    the identity shortcut of a batch's battles never hands a system built for other options."""
    forget()
    first = Options(flee_at=0.5)
    system = system_for("d100", first)
    assert system_for("d100", first) is system
    assert system_for("d100", Options(flee_at=0.5)) is system  # equal, not identical
    other = system_for("d100", Options(flee_at=0.25))
    assert other is not system and other.options.flee_at == 0.25
    assert system_for("d100", first) is system  # back to the first object: its own system
    assert system_for("d20", first).name == "d20"  # one entry per system name


def test_forget_builds_anew() -> None:
    options = Options()
    before = system_for("2d10", options)
    forget()
    assert system_for("2d10", options) is not before
