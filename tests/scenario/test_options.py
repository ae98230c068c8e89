"""The scenario's ``options:``."""

from __future__ import annotations

from sim.model import Options
from tests.scenario.arena import variant


class TestOptions:
    """Options given in the scenario are read as written."""

    def test_options_given(self, arena):
        """Options given in the scenario are kept."""
        text = variant("rules: d20\n", "rules: d20\nmax_rounds: 7\ndistance: 12.5\n"
                       "options: {destiny_points: 2, outnumbered_at: 1}\n")
        scenario = arena.load(text)
        assert scenario.options == Options(destiny_points=2, outnumbered_at=1)
        assert (scenario.max_rounds, scenario.distance) == (7, 12.5)

    def test_morale_on_key_is_read(self, arena):
        """``morale: {on: true, wound_divisor: 3}``: YAML's boolean ``on`` key is the key."""
        text = variant("rules: d20\n", "rules: d20\noptions: {morale: {on: true, wound_divisor: 3}}\n")
        options = arena.load(text).options
        assert (options.morale_on, options.wound_divisor) == (True, 3)
