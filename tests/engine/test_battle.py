"""One battle end to end: the hot path (a fused attack-and-damage when nothing logs and nothing
listens to checks) plays exactly the battles the general path plays."""

from __future__ import annotations

import pathlib
import random

import pytest

from sim.engine import Battle
from sim.rules.d20 import D20
from sim.scenario import load_scenario
from tests.builders import SWORD, battle, duel, fighter, scenario, side

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCENARIOS = sorted((ROOT / "scenarios").glob("*.yaml"))


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_fast_path_plays_the_same_battles(path: pathlib.Path) -> None:
    """Every shipped scenario, 60 seeds: the same outcome (winner, rounds, every fighter's row)
    with the hot path, with the general path, and with a log."""
    spec = load_scenario(path)
    for seed in range(60):
        fast = Battle(spec, seed).run()
        assert fast == Battle(spec, seed, fast=False).run(), seed
        assert fast == Battle(spec, seed, log=True).run(), seed


def test_fast_path_is_taken_only_when_nothing_logs_or_listens() -> None:
    """The fused strike is used with logging off and morale off, and never otherwise."""
    assert Battle(duel(), 1)._strike is not None
    assert Battle(duel(), 1, log=True)._strike is None
    assert Battle(duel(), 1, fast=False)._strike is None
    assert Battle(duel(morale_on=True), 1)._strike is None


class TestStrike:
    """D20.strike equals D20.attack then D20.damage: same dice, same order, same heroism."""

    @pytest.mark.parametrize("advantage", [-1, 0, 1])
    @pytest.mark.parametrize("surprise", [False, True])
    @pytest.mark.parametrize("hero_attacks", [False, True])
    @pytest.mark.parametrize("heroism", [0, 3])
    def test_strike_matches_attack_then_damage(self, advantage: int, surprise: bool,
                                               hero_attacks: bool, heroism: int) -> None:
        """2,000 seeded strikes each way: equal damage (-1 for a miss), heroism left, dice used."""
        rules = D20()
        spec = scenario(
            side("heroes", fighter("Hero", level=1, armor=2, heroism=heroism, weapons=(SWORD,)),
                 party=True),
            side("goblins", fighter("Gob", attack_threshold=12, defense_threshold=13,
                                    weapons=(SWORD,))),
        )
        for seed in range(2000):
            results = []
            for fused in (True, False):
                b = battle(spec, seed, log=False)
                hero, gob = b.fighters
                attacker, target = (hero, gob) if hero_attacks else (gob, hero)
                b.table.surprising = attacker.side if surprise else None
                if fused:
                    amount = rules.strike(b.table, attacker, target, SWORD, advantage)
                else:
                    hit = rules.attack(b.table, attacker, target, SWORD, advantage)
                    amount = rules.damage(b.table, attacker, target, SWORD, hit).amount \
                        if hit.hit else -1
                results.append((amount, hero.heroism, b.table.rng.random()))
            assert results[0] == results[1], seed

    def test_despairing_roller_is_at_disadvantage(self) -> None:
        """A despairing defender rolls with disadvantage in the strike as in the check."""
        rules = D20()
        for seed in range(500):
            results = []
            for fused in (True, False):
                b = battle(duel(hero={"armor": 2}, monster={"attack_threshold": 12}), seed,
                           log=False)
                hero, gob = b.fighters
                hero.despairing = True
                b.table.rng = random.Random(seed)
                if fused:
                    results.append(rules.strike(b.table, gob, hero, SWORD, 0))
                else:
                    hit = rules.attack(b.table, gob, hero, SWORD, 0)
                    results.append(rules.damage(b.table, gob, hero, SWORD, hit).amount
                                   if hit.hit else -1)
            assert results[0] == results[1], seed
