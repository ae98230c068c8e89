"""A bare-loop implementation of the d20 rules, the yardstick for the engine's throughput.

Same rules as sim.rules.d20 + sim.engine for an encounter where everyone
stands in reach and every side targets at random (the reference encounter):
HP dice rolled per battle, a surprise round, group initiative each round
(d8 with the gift), player-facing attack and defense rolls, advantage from
surprise and from being outnumbered, +1d4 on surprise or critical hits,
heroism dice spent when a d6 can still help, knock-outs, and the losing
side's unconscious dying. No SimPy, no objects per event, no logging: plain
lists and one random.Random per battle. Written to be direct, not clever.

It rolls its own dice (plain ``NdM+C`` only, one ``int(random() * M)`` a die, the draw
order the engine uses), never sim.dice's samplers: the yardstick stays plain Python when
the engine runs compiled (docs/contributing/architecture.md, "Compiled and pure paths").
"""

from __future__ import annotations

import random

from sim.dice.terms import Constant, Roll
from sim.model import Scenario


def plain_dice(dice: object) -> tuple[tuple[int, int], ...]:
    """An ``NdM+C`` expression as ((N, M), ..., (C, 0)): what ``roll_plain`` below needs."""
    parts = []
    for term in dice._terms:  # type: ignore[attr-defined]
        if isinstance(term, Constant):
            parts.append((term.value, 0))
        else:
            assert isinstance(term, Roll) and term.sign > 0 and not (term.keep or term.explode), \
                "bare loop: plain NdM+C dice only"
            parts.append((term.count, term.sides))
    return tuple(parts)


def roll_plain(rng: random.Random, dice: tuple[tuple[int, int], ...]) -> int:
    """Roll plain dice: each die ``int(random() * sides) + 1``, terms in written order."""
    total = 0
    for count, sides in dice:
        if sides == 0:
            total += count
        else:
            for _ in range(count):
                total += int(rng.random() * sides) + 1
    return total


def compile_roster(scenario: Scenario) -> list[tuple]:
    """Per combatant: (side index, party, level, armor, AT, DT, heroism, aspects, gifted,
    hp dice, weapon damage dice, weapon bonus, weapon name)."""
    roster = []
    for side_index, side in enumerate(scenario.sides):
        for c in side.members:
            tactics = side.tactics if c.tactics is None else c.tactics.over(side.tactics)
            assert tactics.policy == "random", "bare loop: random tactics only"
            assert not (c.items or tactics.weapons), "bare loop: no items, no weapon order"
            # The engine's choice at a gap of 0 m without spells: the first melee weapon, else
            # the first one.
            weapon = next((w for w in c.weapons if w.range is None), c.weapons[0])
            roster.append((
                side_index, side.party, c.level, c.armor, c.effective_attack_threshold,
                c.effective_defense_threshold, c.heroism, c.aspects, "initiative" in c.gifts,
                plain_dice(c.hp), plain_dice(weapon.damage), weapon.bonus, weapon.name,
            ))
    return roster


def battle(scenario: Scenario, roster: list[tuple], seed: int) -> tuple[int | None, int]:
    """One battle; returns (winning side index or None, rounds)."""
    rng = random.Random(seed)
    rand = rng.random
    n = len(roster)
    sides = len(scenario.sides)
    hp = [max(1, roll_plain(rng, r[9])) for r in roster]
    heroism = [r[6] for r in roster]
    able = [True] * n
    able_count = [0] * sides
    for r in roster:
        able_count[r[0]] += 1
    party = next((i for i, s in enumerate(scenario.sides) if s.party), 0)
    surprise = None
    if scenario.surprise is not None:
        surprise = [s.name for s in scenario.sides].index(scenario.surprise.side)
    outnumbered_at = scenario.options.outnumbered_at
    attacked_round = [0] * n
    attackers: list[set[int]] = [set() for _ in range(n)]

    def d20_check(who: int, purpose: str, weapon: str | None, modifier: int, target: int,
                  advantage: int) -> tuple[bool, int, int, int]:
        """(success, kept, margin, heroism d6)."""
        kept = int(rand() * 20) + 1
        if advantage:
            other = int(rand() * 20) + 1
            kept = max(kept, other) if advantage > 0 else min(kept, other)
        total = kept + modifier
        bonus = 0
        if heroism[who] > 0 and total <= target and target - total < 6:
            aspects = roster[who][7]
            if aspects is None or purpose in aspects or weapon in aspects:
                heroism[who] -= 1
                bonus = int(rand() * 6) + 1
                total += bonus
        return total > target, kept, total - target, bonus

    def standing() -> int:
        return sum(1 for count in able_count if count > 0)

    for number in range(1, scenario.max_rounds + 1):
        if number == 1 and surprise is not None:
            order = [i for i in range(n) if roster[i][0] == surprise]
        else:
            gifted = any(roster[i][8] and hp[i] > 0 for i in range(n) if roster[i][0] == party)
            roll = int(rand() * (8 if gifted else 6)) + 1
            side_order = [party, *[s for s in range(sides) if s != party]]
            if roll < 4:
                side_order = side_order[1:] + side_order[:1]
            order = [i for s in side_order for i in range(n) if roster[i][0] == s]
        for actor in order:
            if not able[actor]:
                continue
            me = roster[actor]
            enemies = [i for i in range(n) if able[i] and roster[i][0] != me[0]]
            target = enemies[0] if len(enemies) == 1 else enemies[int(rand() * len(enemies))]
            them = roster[target]
            if attacked_round[target] != number:
                attacked_round[target] = number
                attackers[target].clear()
            crowded = len(attackers[target]) >= outnumbered_at
            attackers[target].add(actor)
            surprised = number == 1 and surprise == me[0]
            advantage = 1 if surprised or crowded else 0
            if me[1] or not them[1]:
                ok, kept, margin, bonus = d20_check(actor, "attack", me[12], me[2] + me[11],
                                                    them[5], advantage)
                hit = ok
                critical = ok and (kept == 20 or margin >= 10)
                extra = bonus if ok else 0
            else:
                ok, kept, margin, _ = d20_check(target, "defense", None, them[3], me[4], -advantage)
                hit = not ok
                critical = hit and (kept == 1 or margin <= -10)
                extra = 0
            if not hit:
                continue
            damage = roll_plain(rng, me[10]) + extra
            if critical or surprised:
                damage += int(rand() * 4) + 1
            before = hp[target]
            hp[target] = max(0, before - max(0, damage))
            if before > 0 and hp[target] == 0:
                able[target] = False
                able_count[them[0]] -= 1
            if standing() <= 1:
                winner = next((s for s in range(sides) if able_count[s] > 0), None)
                return winner, number
    return None, scenario.max_rounds


def main() -> None:
    """``python -m benchmarks.bare_d20 [-n N] [--seed S] [SCENARIO]``: play a batch's battles
    (the seeds ``sim batch --seed S`` gives battles 0..N-1) and print the party's wins: the
    bare loop as a process of its own, timed against ``sim batch`` (benchmarks/bench.py pairs)."""
    import argparse
    import pathlib

    from sim.batch.chunk import battle_seeds
    from sim.scenario import load_scenario

    parser = argparse.ArgumentParser()
    parser.add_argument("scenario", nargs="?", default="scenarios/road_ambush.yaml")
    parser.add_argument("-n", type=int, default=40_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    scenario = load_scenario(pathlib.Path(args.scenario))
    roster = compile_roster(scenario)
    party = next((i for i, s in enumerate(scenario.sides) if s.party), 0)
    wins = sum(battle(scenario, roster, seed)[0] == party
               for seed in battle_seeds(args.seed, 0, args.n))
    print(f"party wins {wins} of {args.n}")


if __name__ == "__main__":
    main()
