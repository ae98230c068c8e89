"""Shared fixtures, and the hypothesis profiles of the property tests."""

from __future__ import annotations

import os
import pathlib
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from sim.engine import Battle
from sim.rules.systems import forget as forget_rule_systems
from sim.scenario import bestiary
from tests.builders import ScriptedRandom

# "ci" (the default): derandomized, so a run is the same everywhere and every time, with few
# examples (50) so the property tests stay fast (a few seconds); no example database.
# "explore": HYPOTHESIS_PROFILE=explore pytest tests/test_properties.py hunts with fresh,
# random examples, ten times as many (500).
settings.register_profile(
    "ci", max_examples=50, deadline=None, derandomize=True, database=None, print_blob=True,
    # differing_executors: mutmut forks its workers from a process that already ran each
    # property test, so a test method meets a second instance of its (stateless) class.
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.differing_executors],
)
settings.register_profile("explore", max_examples=500, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


# The browser tests drive Debian's Chromium (never a browser a test tool downloads).
CHROMIUM = pathlib.Path("/usr/bin/chromium")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Debian Chromium, shared by the browser tests of a module (never longer: a
    running Playwright keeps an event loop, and later asyncio.run calls, as Textual's, fail)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(CHROMIUM), args=[
            "--no-sandbox", "--headless=new", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--no-first-run"])
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture(autouse=True)
def fresh_rule_systems() -> None:
    """Each test builds its rule systems anew. mutmut forks each mutant's run from a process
    whose ``system_for`` caches already hold systems built by the unmutated code, so a mutant of
    a system's ``__init__`` (d100's two half-actions, its critical options) never ran, and
    survived every test that would have caught it (benchmarks/MUTATION.md)."""
    forget_rule_systems()


@pytest.fixture
def scripted():
    """Install scripted dice into a battle: ``scripted(b, (20, 20), (3, 6))``."""

    def install(b: Battle, *faces: tuple[int, int]) -> ScriptedRandom:
        rng = ScriptedRandom(faces)
        b.table.use(rng)
        return rng

    return install


@pytest.fixture
def no_shipped_bestiary(monkeypatch: pytest.MonkeyPatch) -> None:
    """Leave out the bestiary shipped with sim (searched last from any folder): a test's own
    bestiary is all there is, its messages and listings exactly what it wrote."""
    monkeypatch.setattr(bestiary, "shipped_bestiary", lambda: None)
