"""The table's dice: one ``random.Random`` a battle, seeded as ``random.Random(seed)`` is."""

from __future__ import annotations

import random

import pytest

from sim.engine.table import Table, seeded


@pytest.mark.parametrize("seed", [0, 1, 2, 12345, 2**32 - 1, 2**32, 2**63 - 1, -7])
def test_seeded_is_random_random_of_the_seed(seed: int) -> None:
    """The same class, the same state (Gaussian slot included) and the same draws."""
    rng, reference = seeded(seed), random.Random(seed)
    assert type(rng) is random.Random
    assert rng.getstate() == reference.getstate()
    assert [rng.random() for _ in range(5)] == [reference.random() for _ in range(5)]
    assert rng.gauss(0, 1) == reference.gauss(0, 1)  # gauss_next: none pending, then one
    assert rng.gauss(0, 1) == reference.gauss(0, 1)


def test_draw_is_the_tables_rng() -> None:
    """``draw`` is the rng's ``random``, bound once; ``use`` swaps both (a test's dice)."""
    table = Table(5, log=False)
    assert table.draw() == random.Random(5).random()
    scripted = random.Random(9)
    table.use(scripted)
    assert table.rng is scripted
    assert table.draw() == random.Random(9).random()
