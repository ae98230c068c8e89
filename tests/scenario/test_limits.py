"""The caps on every number: at the cap it runs, past it it is refused."""

from __future__ import annotations

import json

import pytest

from tests.scenario.arena import variant


class TestBounds:
    """Numbers at the caps run through a batch; past them they are refused with the cap."""

    def test_largest_numbers_fit_the_results(self, arena, tmp_path):
        """HP and damage at 1,000,000 and the last round allowed go through battles.parquet."""
        text = variant("rules: d20\n", "rules: d20\nmax_rounds: 10000\n",
                       "hp: 24", "hp: 1000000",
                       "{name: sword, damage: 1d8}", "{name: sword, damage: 999990+1d10}",
                       "{use: goblin, count: 2}",
                       "{use: goblin, count: 2, hp: 1000000, weapons: [{name: maul, damage: 1000000}]}")
        arena.load(text)
        code, out, err = arena.cli("batch", "s.yaml", "-n", "3", "--out", "run", "--json",
                                   "--no-progress", "--workers", "1")
        assert (code, err) == (0, "")
        assert json.loads(out)["battles"] == 3

    def test_a_battle_s_length_is_bounded(self, arena):
        """max_rounds times the combatants is at most 100,000 turns: 400 fighters of 1,000,000
        HP played 10,000 rounds (minutes, and GBs of log) before; at the bound it is fine."""
        crowd = variant("{use: goblin, count: 2}", "{use: goblin, count: 100, hp: 1000000}")
        p = arena.one(variant("rules: d20\n", "rules: d20\nmax_rounds: 991\n", text=crowd))
        assert (p.line, p.col, p.path) == (3, 13, "max_rounds")
        assert p.message == ("991 rounds of 101 combatants may take 100,091 turns; a battle may"
                             " take at most 100,000: at most 990 rounds with 101 combatants")
        arena.load(variant("rules: d20\n", "rules: d20\nmax_rounds: 990\n", text=crowd))

    @pytest.mark.parametrize(("old", "new", "message"), [
        ("hp: 24", "hp: 1000001", "must never exceed 1,000,000 (got 1000001, max 1,000,001)"),
        ("damage: 1d8}", "damage: 1001d1000}", "at most 1000 dice per term"),
        ("damage: 1d8}", "damage: 1000d1000+1}", "must never exceed 1,000,000"),
    ])
    def test_past_the_cap(self, arena, old, new, message):
        """A number past its cap names the cap."""
        p = arena.one(variant(old, new))
        assert message in p.message
