"""Builders for tests: scenarios made in code, battles ready to roll, scripted dice, and a few
battle rows as the engine leaves them for a batch."""

from __future__ import annotations

import random
from collections.abc import Iterable

import attrs

from sim import dice
from sim.engine import Battle
from sim.engine.outcome import FighterRow
from sim.engine.state import Fighter
from sim.engine.tactics import choose_target
from sim.model import Combatant, Options, Scenario, Side, Surprise, Tactics, Weapon
from sim.tally.columns import BattleRow

SWORD = Weapon(name="sword", damage=dice.parse("1d8"))


def fighter(name: str, **fields: object) -> Combatant:
    """A combatant spec with sensible defaults (a sword, 10 HP)."""
    fields.setdefault("hp", dice.parse(10))
    fields.setdefault("weapons", (SWORD,))
    if isinstance(fields["hp"], int | str):
        fields["hp"] = dice.parse(fields["hp"])  # type: ignore[arg-type]
    return Combatant(name=name, side="", **fields)  # type: ignore[arg-type]


def side(name: str, *members: Combatant, party: bool = False, target: str = "random") -> Side:
    """A side whose members know their side's name."""
    named = tuple(attrs.evolve(m, side=name) for m in members)
    return Side(name=name, members=named, party=party, tactics=Tactics(target))


def scenario(
    *sides: Side,
    surprise: str | Surprise | None = None,
    max_rounds: int = 100,
    distance: float = 0.0,
    **options: object,
) -> Scenario:
    """A d20 scenario built in code."""
    if isinstance(surprise, str):
        surprise = Surprise(surprise)
    return Scenario(
        name="test", rules="d20", sides=sides, max_rounds=max_rounds, distance=distance,
        surprise=surprise, options=Options(**options),  # type: ignore[arg-type]
    )


def duel(hero: dict | None = None, monster: dict | None = None, **options: object) -> Scenario:
    """A party hero against one monster: the smallest real battle."""
    return scenario(
        side("heroes", fighter("Hero", **(hero or {})), party=True),
        side("monsters", fighter("Monster", **(monster or {}))),
        **options,
    )


def battle(spec: Scenario, seed: int = 1, log: bool = True) -> Battle:
    """A battle set up (HP rolled) but not yet run."""
    b = Battle(spec, seed, log)
    b._setup()
    return b


class ScriptedRandom(random.Random):
    """A Random whose draws are chosen by the test: each value is a die face to show.

    ``roll_die`` computes ``int(random() * sides) + 1``, so a face f on a d``s``
    comes from random() = (f - 0.5) / s. Faces are given as (face, sides) pairs.
    """

    def __init__(self, faces: Iterable[tuple[int, int]]) -> None:
        super().__init__(0)
        self._faces = list(faces)

    def random(self) -> float:
        if not self._faces:
            msg = "the test scripted fewer dice than the code rolled"
            raise AssertionError(msg)
        face, sides = self._faces.pop(0)
        return (face - 0.5) / sides

    @property
    def unused(self) -> int:
        return len(self._faces)


def target_of(b: Battle, fighter: Fighter) -> Fighter | None:
    """The target the fighter's tactics choose now, as the engine asks on its turn."""
    return choose_target(fighter, b.able_enemies(fighter), b.spread, b.table.draw, b.focus)


def d100(*sides: Side, **kwargs: object) -> Scenario:
    """A d100 scenario built in code (``scenario`` builds d20 ones)."""
    return attrs.evolve(scenario(*sides, **kwargs), rules="d100")


def events(log: list[dict], name: str) -> list[dict]:
    """The events of one kind in a battle's log, in order."""
    return [e for e in log if e["event"] == name]


def mounted(knight: dict | None = None, **kwargs: object) -> Scenario:
    """A knight (melee 60, riding 50) on a horse (force 45, movement 16) against a sturdy foe."""
    hooves = Weapon(name="hooves", damage=dice.parse("1d6"))
    fields = {"hp": 20, "skills": {"melee": 60, "riding": 50}, "mount": "Horse", **(knight or {})}
    return d100(
        side("riders", fighter("Knight", **fields),
             fighter("Horse", hp=30, rider="Knight", movement=16, weapons=(hooves,),
                     characteristics={"force": 45}, skills={"melee": 50}), party=True),
        side("monsters", fighter("Monster", hp=40)),
        **kwargs,
    )


def turn(b: Battle, who: Fighter) -> None:
    """Start ``who``'s turn for its ongoing effects only, and let them tick."""
    who.start_turn()
    b.env.run()


# Fighter rows (sim.tally.columns.FighterRow) and three battles of two combatants made of them.
ALIVE_ROW: FighterRow = (12, "active", None, False, None, (), 0)
DEAD_ROW: FighterRow = (0, "dead", "weapon", False, None, (), 0)
OUT_ROW: FighterRow = (0, "unconscious", None, True, "demoralized", ("melee",), 1)
BATTLE_ROWS: list[BattleRow] = [
    (7, 101, "heroes", 3, (ALIVE_ROW, DEAD_ROW)),
    (8, 102, None, 9, (OUT_ROW, DEAD_ROW)),
    (9, 103, "heroes", 4, (ALIVE_ROW, ALIVE_ROW)),
]
