"""The solver against small fights computed by hand: closed forms, exactly (to 1e-12)."""

from __future__ import annotations

import pytest

from tests.odds.helpers import duel, solve


def one_hit_duel(p: float, q: float, party_first: float = 0.5) -> tuple[float, float]:
    """A duel where any hit kills: the party hits with p a turn, the foe with q; the party
    acts first with ``party_first`` (group initiative, rules §2). P(party wins), E[rounds]."""
    go_on = (1 - p) * (1 - q)
    win = party_first * p + (1 - party_first) * (1 - q) * p
    return win / (1 - go_on), 1 / (1 - go_on)


class TestOneHitDuels:
    """A hit kills (1 HP, constant damage): the party's chances are a geometric series."""

    def test_d20_attack_and_defense_rolls(self, tmp_path):
        """d20: the hero rolls d20+1 > 11 (10 of 20 faces), and defends d20+2 > 11 against the
        goblin (11 of 20 faces: the goblin hits 9 in 20)."""
        text = duel("d20", "{name: Aria, level: 1, hp: 1, armor: 2, weapons: [{name: sword, damage: 1}]}",
                    "{name: Gob, level: 1, hp: 1, weapons: [{name: blade, damage: 1}]}")
        result = solve(tmp_path, text)
        win, rounds = one_hit_duel(10 / 20, 9 / 20)
        assert result.wins["heroes"] == pytest.approx(win, abs=1e-12)
        assert result.rounds_mean == pytest.approx(rounds, abs=1e-9)
        assert result.party_deaths[1] == pytest.approx(1 - win, abs=1e-12)

    def test_d20_initiative_gift_rolls_a_d8(self, tmp_path):
        """With the initiative gift the party acts first on 4-8 of a d8: 5 in 8."""
        text = duel("d20", "{name: Aria, level: 1, hp: 1, armor: 2, gifts: [initiative],"
                           " weapons: [{name: sword, damage: 1}]}",
                    "{name: Gob, level: 1, hp: 1, weapons: [{name: blade, damage: 1}]}")
        win, _ = one_hit_duel(10 / 20, 9 / 20, party_first=5 / 8)
        assert solve(tmp_path, text).wins["heroes"] == pytest.approx(win, abs=1e-12)

    def test_d100_two_half_actions_and_the_fumble(self, tmp_path):
        """d100: a one-handed fighter attacks twice a turn, but a fumble (96-100) ends its turn.
        Melee 50 against no defense skill (physique 50 - 20 = 30 parries): a hit is 1-5 (never
        parried) or 6-50 unparried."""
        hero = ("{name: Osric, hp: 1, characteristics: {physique: 50}, skills: {melee: 50},"
                " weapons: [{name: sword, damage: 1}]}")
        foe = ("{name: Bandit, hp: 1, characteristics: {physique: 50}, skills: {melee: 40, defense: 0},"
               " weapons: [{name: club, damage: 1}]}")
        hit_hero = 0.05 + 0.45 * (1 - 0.05)  # the bandit's defense 0 still parries on 1-5
        hit_foe = 0.05 + 0.35 * (1 - 0.30)  # Osric parries under 30 (physique 50 - 20)
        turn_hero = hit_hero + (1 - hit_hero - 0.05) * hit_hero  # a fumble leaves no second attack
        turn_foe = hit_foe + (1 - hit_foe - 0.05) * hit_foe
        win, rounds = one_hit_duel(turn_hero, turn_foe)
        result = solve(tmp_path, duel("d100", hero, foe))
        assert result.wins["heroes"] == pytest.approx(win, abs=1e-12)
        assert result.rounds_mean == pytest.approx(rounds, abs=1e-9)

    def test_2d10_quality_without_morale(self, tmp_path):
        """2d10 with morale off: SR 13 on both sides hits on 2d10 <= 13, 72 of 100 (no disaster
        can happen: it needs R > 20)."""
        hero = ("{name: Aria, hp: 1, characteristics: {combat: 6}, skills: {sword: 7},"
                " weapons: [{name: sword, damage: 1}]}")
        foe = ("{name: Wolf, hp: 1, characteristics: {combat: 5}, skills: {bite: 8},"
               " weapons: [{name: bite, damage: 1}]}")
        win, _ = one_hit_duel(0.72, 0.72)
        result = solve(tmp_path, duel("2d10", hero, foe, "{morale: false}"))
        assert result.wins["heroes"] == pytest.approx(win, abs=1e-12)

    def test_surprise_round_gives_advantage(self, tmp_path):
        """A surprise round: only the party acts, with advantage (d20: 1 - (10/20)^2 to hit),
        then ordinary rounds."""
        text = duel("d20", "{name: Aria, level: 1, hp: 1, armor: 2, weapons: [{name: sword, damage: 1}]}",
                    "{name: Gob, level: 1, hp: 1, weapons: [{name: blade, damage: 1}]}",
                    extra="surprise: heroes\n")
        first = 1 - 0.5**2
        win, _ = one_hit_duel(10 / 20, 9 / 20)
        assert solve(tmp_path, text).wins["heroes"] == pytest.approx(first + (1 - first) * win, abs=1e-12)


class TestRoundLimit:
    """A fight that cannot end is a draw after max_rounds, exactly."""

    def test_nobody_can_hurt_anybody(self, tmp_path):
        """d100 armor 10 against 1d4 without criticals piercing: every round a draw, 3 rounds."""
        block = "hp: 5, armor: 10, skills: {melee: 50, defense: 0}, weapons: [{name: s, damage: 1d4}]}"
        text = duel("d100", "{name: A, " + block, "{name: B, " + block, "{critical_pierces: false}")
        text = text.replace("options:", "max_rounds: 3\noptions:")
        result = solve(tmp_path, text)
        assert result.draw == pytest.approx(1.0, abs=1e-12)
        assert result.rounds_mean == pytest.approx(3.0)
