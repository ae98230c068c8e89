"""What the exact-odds tests share: a scenario from YAML text, solved or checked against a batch."""

from __future__ import annotations

import pathlib

from sim.model import Scenario
from sim.odds import Result, Solver
from sim.scenario import load_scenario


def scenario_of(tmp_path: pathlib.Path, text: str, name: str = "fight.yaml") -> Scenario:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return load_scenario(path)


def solve(tmp_path: pathlib.Path, text: str) -> Result:
    return Solver(scenario_of(tmp_path, text)).solve()


def duel(rules: str, hero: str, foe: str, options: str = "{}", extra: str = "") -> str:
    """A party of one (``hero``, a YAML flow mapping) against one foe."""
    return f"""\
name: Duel
rules: {rules}
options: {options}
{extra}sides:
  - name: heroes
    party: true
    members:
      - {hero}
  - name: foes
    members:
      - {foe}
"""
