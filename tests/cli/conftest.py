"""Every CLI test runs without a SIM_BESTIARY from the environment."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _no_env_bestiary(monkeypatch):
    monkeypatch.delenv("SIM_BESTIARY", raising=False)
