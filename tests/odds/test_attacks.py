"""The per-attack table against the figures the rules pages state."""

from __future__ import annotations

import pytest

from sim.odds.attacks import attack_table
from tests.odds.helpers import duel, scenario_of


def rows(tmp_path, text):
    return {(r.attacker, r.target): r for r in attack_table(scenario_of(tmp_path, text))}


class TestDocumentedExamples:
    """docs/rules: each system's worked example, one attack."""

    def test_d20_sir_bors_against_a_goblin(self, tmp_path):
        """Sir Bors (level 3, longsword +1, armor 5) hits a goblin (thresholds 11) on 8+: 65%;
        the goblin hits him 30% (he defends on 7+)."""
        table = rows(tmp_path, duel(
            "d20", "{name: Bors, level: 3, hp: 20, armor: 5,"
                   " weapons: [{name: longsword, damage: 1d8, bonus: 1}]}",
            "{name: Gob, hp: 5, attack_threshold: 11, defense_threshold: 11,"
            " weapons: [{name: blade, damage: 1d6}]}"))
        bors, gob = table[("Bors", "Gob")], table[("Gob", "Bors")]
        assert bors.rolls == {"attack_roll": pytest.approx(0.65)}
        assert bors.hit == pytest.approx(0.65)
        assert bors.critical == pytest.approx(0.20)  # a natural 20, or 10 past 11: 17-20 with +4
        assert bors.damage_mean == pytest.approx((0.20 * (4.5 + 2.5) + 0.45 * 4.5) / 0.65)
        assert gob.hit == pytest.approx(0.30)
        assert gob.rolls == {"defense_roll": pytest.approx(0.70)}

    def test_2d10_sr_11(self, tmp_path):
        """SR 11 (combat 6 + sword 5): 55% success, an exploit needs R <= 3: 3%."""
        table = rows(tmp_path, duel(
            "2d10", "{name: A, hp: 10, characteristics: {combat: 6}, skills: {sword: 5},"
                    " weapons: [{name: sword, damage: 1d6}]}",
            "{name: B, hp: 10, defense: 0, weapons: [{name: bite, damage: 1d4}]}", "{morale: false}"))
        row = table[("A", "B")]
        assert row.hit == pytest.approx(0.55)
        assert row.rolls["exploit"] == pytest.approx(0.03)
        assert row.critical == pytest.approx(0.03)

    def test_d10_agility_5_melee_4_against_12(self, tmp_path):
        """The chain must give 3 or more (rules §1, open-ended d10: a 10 rolls again and adds,
        a 1 rolls again and subtracts). With X the chain, P(X >= k) for k <= 9 is
        (10 - k) / 10 (faces k..9) + P(X' >= k - 10) / 10 (a 10) + P(X' <= 1 - k) / 10 (a 1):
        0.8061862178 for k = 3, exactly enough to tell a 1 counted as -1 (0.8041)."""
        table = rows(tmp_path, duel(
            "d10", "{name: A, hp: 10, attributes: {agility: 5}, skills: {melee: 4},"
                   " weapons: [{name: sword, damage: 1d6}]}",
            "{name: B, hp: 10, defense: 12, weapons: [{name: bite, damage: 1d4}]}"))
        assert table[("A", "B")].hit == pytest.approx(0.8061862178, abs=1e-9)

    def test_d100_parry_and_critical(self, tmp_path):
        """Melee 55 against defense 40: 5% criticals never parried, 50% parried 40% of the time."""
        table = rows(tmp_path, duel(
            "d100", "{name: A, hp: 10, skills: {melee: 55}, weapons: [{name: sword, damage: 1d6}]}",
            "{name: B, hp: 10, armor: 2, skills: {defense: 40}, weapons: [{name: bite, damage: 1d4}]}"))
        row = table[("A", "B")]
        assert row.hit == pytest.approx(0.05 + 0.50 * 0.60)
        assert row.rolls == {"attack_roll": pytest.approx(0.55), "defense_roll": pytest.approx(0.40)}
        assert (row.damage_min, row.damage_max) == (0, 6)  # armor 2, but a critical pierces


def test_expected_attacks_to_down_a_one_hp_target_is_one_over_the_hit_chance(tmp_path):
    table = rows(tmp_path, duel(
        "d20", "{name: A, level: 1, hp: 5, weapons: [{name: s, damage: 1d4}]}",
        "{name: B, hp: 1, defense_threshold: 11, weapons: [{name: s, damage: 1d4}]}"))
    assert table[("A", "B")].attacks_to_down == pytest.approx(1 / 0.5)


def test_d20_suited_weapon_adds_1d4_once(tmp_path):
    """A weapon suited to its target adds 1d4 on a hit, never stacked with a critical's."""
    table = rows(tmp_path, duel(
        "d20", "{name: A, level: 1, hp: 5, weapons: [{name: silver, damage: 1d6, suited: [B]}]}",
        "{name: B, hp: 9, defense_threshold: 11, weapons: [{name: s, damage: 1d4}]}"))
    assert table[("A", "B")].damage_mean == pytest.approx(3.5 + 2.5)
