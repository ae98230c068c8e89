"""One battle end to end: the hot path (a fused attack-and-damage when nothing logs and nothing
listens to checks) plays exactly the battles the general path plays."""

from __future__ import annotations

import itertools
import pathlib
import random

import pytest

from sim import dice
from sim.engine import Battle
from sim.model import Weapon
from sim.rules.actors import Arm
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


STAB = Weapon(name="stab", damage=dice.parse("1d4-3"))  # a hit that may take nothing
# A bonus to hit, and suited to both fighters' kinds: +1d4 on a hit (rules §3).
BANE = Weapon(name="bane", damage=dice.parse("2d6"), bonus=2, suited=("hero", "goblin"))


class TestStrike:
    """D20.strike equals D20.attack then D20.damage: same dice, same order, same heroism."""

    @pytest.mark.parametrize("weapon", [SWORD, STAB, BANE], ids=lambda w: w.name)
    @pytest.mark.parametrize("aspects", [None, ("sword",), ("stealth",)])
    @pytest.mark.parametrize("hero_attacks", [False, True])
    def test_strike_matches_attack_then_damage(self, weapon: Weapon,
                                               aspects: tuple[str, ...] | None,
                                               hero_attacks: bool) -> None:
        """Every advantage, surprise, heroism and despair, 150 seeds each: equal damage (-1 for
        a miss), heroism left and the next draw of the dice."""
        rules = D20()
        spec = scenario(
            side("heroes", fighter("Hero", level=1, armor=2, heroism=3, aspects=aspects,
                                   weapons=(weapon,), kinds=("hero",)), party=True),
            side("goblins", fighter("Gob", attack_threshold=12, defense_threshold=13,
                                    weapons=(weapon,), kinds=("goblin",))),
        )
        b = battle(spec, 1, log=False)
        hero, gob = b.fighters
        attacker, target = (hero, gob) if hero_attacks else (gob, hero)
        cases = itertools.product((-1, 0, 1), (False, True), (0, 3), (False, True), range(150))
        for advantage, surprise, heroism, despairing, seed in cases:
            results = []
            for fused in (True, False):
                b.table.use(random.Random(seed))
                b.table.surprising = attacker.side if surprise else None
                hero.heroism, hero.despairing = heroism, despairing
                if fused:
                    amount = rules.strike(b.table, attacker, target, Arm(weapon), advantage)
                else:
                    hit = rules.attack(b.table, attacker, target, weapon, advantage)
                    amount = rules.damage(b.table, attacker, target, weapon, hit).amount \
                        if hit.hit else -1
                results.append((amount, hero.heroism, b.table.rng.random()))
            assert results[0] == results[1], (advantage, surprise, heroism, despairing, seed)
