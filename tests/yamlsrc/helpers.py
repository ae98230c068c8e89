"""A nested YAML text and helpers that collect the problems of loading a text."""

from __future__ import annotations

import pytest

from sim.errors import Problem, ScenarioError
from sim.yamlsrc import load_yaml_text

NESTED = """\
name: Skirmish
sides:
  - name: heroes
    members:
      - name: Ana
        weapons:
          - {name: sword, damage: 1d8+2}
  - name: goblins
    members: []
"""


def problems_of(text: str | bytes, display: str = "s.yaml") -> list[Problem]:
    """The problems that loading ``text`` reports (fails if it loads)."""
    with pytest.raises(ScenarioError) as info:
        load_yaml_text(text, display)
    return info.value.problems


def only_problem(text: str | bytes, display: str = "s.yaml") -> Problem:
    """The single problem that loading ``text`` reports."""
    found = problems_of(text, display)
    assert len(found) == 1, found
    return found[0]
