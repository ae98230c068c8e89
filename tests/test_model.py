"""The scenario model: what a spec keeps of the engine's work, and what it never carries."""

from __future__ import annotations

import copy
import pickle

import pytest

from sim.engine import run_battle
from tests.builders import battle, duel


@pytest.mark.parametrize("travel", [lambda s: pickle.loads(pickle.dumps(s)), copy.deepcopy],
                         ids=["pickled", "deep-copied"])
def test_a_specs_memo_never_travels(travel) -> None:
    """The armory memo holds closures and keys made of object identities: a worker's copy of
    the scenario starts it empty (a stale identity could name another weapon there), and
    plays the same battles."""
    scenario = duel()
    battle(scenario, 1).run()
    spec = scenario.sides[0].members[0]
    assert spec.armory  # the battle filled it
    copied = travel(scenario)
    assert all(not m.armory for side in copied.sides for m in side.members)
    assert run_battle(copied, 7)[0] == run_battle(scenario, 7)[0]
