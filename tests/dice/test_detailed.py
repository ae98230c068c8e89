"""Tests of sim.dice.detailed: roll_dice() shows every natural die and mirrors roll() draw for draw."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from sim.dice import MAX_EXPLOSIONS, parse
from tests.dice.references import REFERENCE, Fixed


class TestRollDice:
    """roll_dice() gives roll()'s total from the same draws and lists every natural die."""

    @pytest.mark.parametrize("text", list(REFERENCE))
    def test_roll_dice_total_and_draws_match_roll(self, text: str) -> None:
        """roll_dice gives roll's total and leaves the rng exactly where roll leaves it."""
        dice = parse(text)
        for seed in range(100):
            fast, detailed = random.Random(seed), random.Random(seed)
            total = dice.roll(fast)
            assert dice.roll_dice(detailed)[0] == total
            assert fast.getstate() == detailed.getstate()

    @pytest.mark.parametrize(
        ("text", "count", "total_of"),
        [
            ("2d6+3", 2, lambda n: sum(n) + 3),
            ("4d6kh3", 4, lambda n: sum(sorted(n)[1:])),
            ("2d20kl1", 2, min),
            ("3d6-1d4", 4, lambda n: sum(n[:3]) - n[3]),
            ("5", 0, lambda n: 5),
        ],
    )
    def test_roll_dice_naturals(
        self, text: str, count: int, total_of: Callable[[tuple[int, ...]], int]
    ) -> None:
        """roll_dice returns every natural die, dropped ones included, consistent with the total."""
        dice, rng = parse(text), random.Random(3)
        for _ in range(300):
            total, naturals = dice.roll_dice(rng)
            assert len(naturals) == count
            assert total == total_of(naturals)

    def test_roll_dice_exploding_naturals(self) -> None:
        """An exploding die lists each roll; every roll but the last shows the top face."""
        dice, rng = parse("1d4!"), random.Random(5)
        lengths = set()
        for _ in range(2000):
            total, naturals = dice.roll_dice(rng)
            assert total == sum(naturals)
            assert all(face == 4 for face in naturals[:-1])
            assert naturals[-1] != 4
            lengths.add(len(naturals))
        assert {1, 2, 3} <= lengths

    def test_explosion_cap(self) -> None:
        """A die that always shows its top face stops after MAX_EXPLOSIONS extra rolls."""
        dice, top = parse("1d6!"), Fixed(0.9999999999)
        total, naturals = dice.roll_dice(top)
        assert naturals == (6,) * (MAX_EXPLOSIONS + 1)
        assert total == dice.roll(top) == dice.max == 6 * (MAX_EXPLOSIONS + 1)
