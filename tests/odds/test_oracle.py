"""The oracle: ``sim batch`` agrees with the exact figures of ``sim odds`` within 4 standard
errors, for small fights of every system (fixed seed). A rule changed in the engine and not in
the rules pages (or the other way round) shows here as a z-score past 4.

The fights are tests/data/odds/*.yaml, three or more per system: d20 heroism, a suited
weapon, surprise with the weakest target, outnumbered with focus, a side's weapon order,
heroism before a morale reroll; d100 two-handed fatigue, serious wounds, surprise and
criticals against armor, a knock-out and waking, a thrown shot made hopeless by fatigue, a
bow at 0 from the start; 2d10 morale with and without a party side, exploits and disasters;
d10 open-ended duels, the strongest target with armor-piercing and surprise, morale.
"""

from __future__ import annotations

import pathlib

import pytest

from tests.cli.helpers import answer

TOLERANCE = 4.0  # standard errors
BATTLES = 3000
FIGHTS = sorted((pathlib.Path(__file__).parent.parent / "data" / "odds").glob("*.yaml"))


def test_every_system_has_three_fights():
    systems = [path.read_text(encoding="utf-8").split("rules: ", 1)[1].split()[0] for path in FIGHTS]
    assert all(systems.count(rules) >= 3 for rules in ("d20", "d100", "2d10", "d10")), systems


@pytest.mark.parametrize("path", FIGHTS, ids=[p.stem for p in FIGHTS])
def test_batch_agrees_with_the_exact_figures(capsys, path):
    """Every figure of sim batch (3000 battles, seed 1) within 4 standard errors of sim odds."""
    out = answer(capsys, "odds", str(path), "--vs-batch", "-n", str(BATTLES), "--seed", "1")
    assert out["exact"] is True
    figures = out["vs_batch"]["figures"]
    assert {"draw", "rounds.mean"} <= set(figures)
    # every side's wins, the only win figures of a fight with no party side
    assert {k for k in figures if k.endswith(".win") and not k.startswith("party.")} == {
        f"{side}.win" for side in out["sides"]}
    far = {k: (round(f["exact"], 4), f["batch"], round(f["z"], 2)) for k, f in figures.items()
           if abs(f["z"]) > TOLERANCE}
    assert not far, far
