"""The ``arena`` fixture of the scenario tests."""

from __future__ import annotations

import pytest

from tests.scenario.arena import BESTIARY, Arena


@pytest.fixture
def arena(tmp_path, monkeypatch, capsys, no_shipped_bestiary) -> Arena:
    """An Arena in tmp_path, made the cwd, with no bestiary but its own (not the shipped one)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SIM_BESTIARY", raising=False)
    a = Arena(tmp_path, capsys)
    a.write(BESTIARY, "bestiary/d20/x.yaml")
    return a
