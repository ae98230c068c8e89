"""Narration of a battle from its events."""

from __future__ import annotations

import pathlib

from sim.engine import run_battle
from sim.narrate import narrate
from sim.scenario import load_scenario

SKIRMISH = pathlib.Path(__file__).parent / "data" / "golden" / "skirmish.yaml"


class TestNarrate:
    """The story a GM reads on the terminal."""

    def test_tells_who_attacks_rolls_damage_falls_wins(self) -> None:
        """Narration names attacks, rolls, damage, knock-outs and the winner."""
        _, events = run_battle(load_scenario(SKIRMISH), 1, log=True)
        text = "\n".join(narrate(events))
        assert "attacks" in text and "rolls attack" in text and "damage" in text
        assert "knocked out" in text
        end = events[-1]
        assert (f"{end['winner']} win" if end["winner"] else "draw") in text

    def test_attack_headline_before_its_rolls(self) -> None:
        """The dice of an attack are told right after its headline."""
        _, events = run_battle(load_scenario(SKIRMISH), 1, log=True)
        lines = list(narrate(events))
        for i, line in enumerate(lines):
            if "rolls attack" in line or "rolls defense" in line:
                headline = next(h for h in reversed(lines[:i]) if not h.startswith("  "))
                assert " attacks " in headline, (headline, line)

    def test_item_used(self) -> None:
        """Items: a potion drunk, or poured into an ally who wakes, is one line with the HP."""
        from sim.narrate import NARRATORS

        drink = {"event": "item_used", "round": 2, "t": 1.5, "actor": "Aria",
                 "item": "healing potion", "target": "Aria", "healed": 5, "hp_before": 3,
                 "hp_after": 8, "left": 1, "woke": False}
        assert NARRATORS["item_used"](drink) == (
            "Aria drinks a healing potion: +5 HP (3 -> 8), 1 left.")
        pour = {**drink, "target": "Brom", "hp_before": 0, "hp_after": 5, "left": 0, "woke": True}
        assert NARRATORS["item_used"](pour) == (
            "Aria pours a healing potion into Brom: +5 HP (0 -> 5); Brom wakes up, 0 left.")
