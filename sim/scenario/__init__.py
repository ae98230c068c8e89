"""Scenario and bestiary YAML: loading, ``use:`` resolution and validation with file:line:col.

Every problem found is collected and reported at once as a ``ScenarioError``
(``file:line:col: path: message``); valid data the fight leaves idle is a
warning instead (``Problem.warning``, kept in ``Scenario.warnings``): the
scenario loads. Validation is per key, so a value keeps
the position of the file it was written in: an override in the scenario is
reported there, a bad entry in the bestiary is reported in the bestiary.

The modules, in the order a scenario flows through them: ``load`` (the entry
points), ``checker`` (the Checker and its hints), ``limits``, ``blocks`` (stat
blocks, weapons, items, tactics, mounts), ``bestiary``, ``members`` and ``sides``
(``use:``, ``count:``, the roster), ``orders`` (weapon orders that change
nothing), ``options``, ``timeline`` (surprise, hazards,
timeline entries), ``unused`` (idle keys, through ``ignored``, ``idle_fights`` and
``unread``: keys a system, an option or the fight leaves idle, skills no roll reads;
``context`` holds what of the scenario they judge a block by).
Beside them: ``overrides`` (``--set PATH=VALUE`` before validation), ``show`` (stat
blocks as a GM reads them: ``sim show``, ``sim bestiary``) and ``starter`` (``sim new``).
Import of other books' stat blocks: ``convert`` (another d20 game's numbers as this
d20's), ``foreign`` (their keys in a d20 stat block, told with the conversion), ``srd`` and
``srd_actions`` (``sim import``: 5e-database and Open5e JSON as bestiary entries).

May import: ``sim.engine`` (the policies and effects a key names), ``sim.rules``,
``sim.model``, ``sim.dice``, ``sim.yamlsrc``, ``sim.io``, ``sim.errors`` and
``sim.terminal``; never a day, a batch, a report or a command.
"""

from sim.scenario.limits import (
    DEFAULT_ROUNDS,
    IMPLEMENTED_SYSTEMS,
    MAX_COMBATANTS,
    MAX_COUNT,
    MAX_DAMAGE,
    MAX_HP,
    MAX_MESSAGE,
    MAX_NAME,
    MAX_ROUNDS,
    MAX_TOKENS,
)
from sim.scenario.load import load_scenario, scenario_from_source, validate_file

__all__ = [
    "DEFAULT_ROUNDS", "IMPLEMENTED_SYSTEMS", "MAX_COMBATANTS", "MAX_COUNT", "MAX_DAMAGE",
    "MAX_HP", "MAX_MESSAGE", "MAX_NAME", "MAX_ROUNDS", "MAX_TOKENS", "load_scenario",
    "scenario_from_source", "validate_file",
]
