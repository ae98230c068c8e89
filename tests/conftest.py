"""Shared fixtures."""

from __future__ import annotations

import pytest

from sim.engine import Battle
from tests.builders import ScriptedRandom


@pytest.fixture
def scripted():
    """Install scripted dice into a battle: ``scripted(b, (20, 20), (3, 6))``."""

    def install(b: Battle, *faces: tuple[int, int]) -> ScriptedRandom:
        rng = ScriptedRandom(faces)
        b.rng = rng
        return rng

    return install
