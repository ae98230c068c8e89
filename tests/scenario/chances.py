"""Exact hit chances, face by face: another d20 game's (d20 + bonus >= AC, a natural 20
always hits and a natural 1 always misses) and this d20's, through the real rules on each
of the 20 faces of a scripted die."""

from __future__ import annotations

from fractions import Fraction

from sim.model import Scenario
from sim.rules.d20 import D20
from tests.builders import ScriptedRandom, battle

FACES = range(1, 21)


def book_chance(bonus: int, ac: int) -> Fraction:
    """D&D 5e: d20 + bonus >= AC hits; a natural 20 always, a natural 1 never."""
    return Fraction(sum(1 for f in FACES if f == 20 or (f != 1 and f + bonus >= ac)), 20)


def hit_chance(spec: Scenario, attacker: str, target: str) -> Fraction:
    """The chance ``attacker``'s first weapon hits ``target`` here: D20.attack on each face of
    the d20 (no heroism, no advantage), whoever rolls it (the attacker, or a party target's
    defense)."""
    b = battle(spec, log=False)
    by_name = {f.name: f for f in b.fighters}
    hitter, struck = by_name[attacker], by_name[target]
    hits = 0
    for face in FACES:
        b.table.use(ScriptedRandom([(face, 20)]))
        hits += D20().attack(b.table, hitter, struck, hitter.spec.weapons[0], 0).hit
    return Fraction(hits, 20)
