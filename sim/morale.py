"""Morale tokens (RULES.md §4, seed 000): rerolls, despair, gains and losses, learning ticks.

On by default with the 2d10 system and with ``options: {morale: true}`` elsewhere.
Every system's check ends in ``after_check``, which rerolls a failed check once
while the combatant has tokens (spending one only if the reroll fails too), or
by despair when it has none.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from sim import dice
from sim.rules import CRITICAL_FAILURE, CRITICAL_SUCCESS, CheckResult

if TYPE_CHECKING:
    from sim.engine import Battle
    from sim.state import Fighter

STARTING_TOKENS = dice.parse("2d6")
EXPLOIT_GAIN = 1
KILL_GAIN = 2
DISASTER_LOSS = 1
ALLY_FELL_LOSS = 4
DESPAIR_GAIN = 1
DEMORALIZED = "demoralized"
DESPAIRING = "despairing"


def give_tokens(battle: Battle, fighter: Fighter) -> None:
    """Roll a combatant's tokens for this battle: its ``morale`` dice, else 2d6.

    One starting with none is demoralized: ``announce_demoralized`` says so once
    ``battle_started`` is logged (it must stay the first line).
    """
    fighter.morale = (fighter.spec.morale or STARTING_TOKENS).roll(battle.rng)


def announce_demoralized(battle: Battle) -> None:
    """Log who starts the battle with no token."""
    for fighter in battle.fighters:
        if fighter.morale == 0:
            _mark(battle, fighter, DEMORALIZED, True)


def _mark(battle: Battle, fighter: Fighter, state: str, on: bool) -> None:
    if battle.log is not None:
        event = "effect_started" if on else "effect_ended"
        battle.emit(event, target=fighter.name, effect=state)


def change(battle: Battle, fighter: Fighter, delta: int, reason: str) -> None:
    """Add or take tokens (never below 0); 0 demoralizes, a gain ends demoralized and despair."""
    before = fighter.morale
    if before is None:
        return
    after = max(0, before + delta)
    if after == before:
        return
    fighter.morale = after
    if battle.log is not None:
        battle.emit("morale_changed", actor=fighter.name, delta=after - before, reason=reason,
                    tokens=after)
    if before > 0 and after == 0:
        _mark(battle, fighter, DEMORALIZED, True)
    elif before == 0 and after > 0:
        _mark(battle, fighter, DEMORALIZED, False)
        if fighter.despairing:
            fighter.despairing = False
            _mark(battle, fighter, DESPAIRING, False)


def after_check(
    battle: Battle, who: Fighter, skill: str, result: CheckResult,
    again: Callable[[str], CheckResult],
) -> CheckResult:
    """The morale reroll of a failed check, then what the final result earns or costs.

    ``again(purpose)`` rolls the same check anew (logged with that purpose).
    """
    if not result.success and who.morale is not None and not who.despairing:
        if who.morale > 0:
            result = again("morale_reroll")
            if not result.success:  # the token is spent only when the reroll fails too
                who.morale -= 1
                if battle.log is not None:
                    battle.emit("resource_spent", actor=who.name, resource="morale", amount=1,
                                left=who.morale)
                if who.morale == 0:
                    _mark(battle, who, DEMORALIZED, True)
        else:
            result = again("despair")
            if result.success:
                change(battle, who, DESPAIR_GAIN, "despair")
            else:
                who.despairing = True
                _mark(battle, who, DESPAIRING, True)
    if result.degree == CRITICAL_SUCCESS:
        change(battle, who, EXPLOIT_GAIN, "exploit")
        tick_learning(battle, who, skill)
    elif result.degree == CRITICAL_FAILURE:
        change(battle, who, -DISASTER_LOSS, "disaster")
        tick_learning(battle, who, skill)
    return result


def tick_learning(battle: Battle, fighter: Fighter, skill: str) -> None:
    """Every exploit or disaster ticks the learning box of the skill used."""
    fighter.learned.add(skill)
    if battle.log is not None:
        battle.emit("learning_ticked", actor=fighter.name, skill=skill)


def fallen(battle: Battle, fighter: Fighter, source: Fighter | None) -> None:
    """A combatant dropped: its killer gains 2, each of its conscious allies loses 4."""
    if source is not None and source.side != fighter.side:
        change(battle, source, KILL_GAIN, "kill")
    for ally in battle.fighters:
        if ally is not fighter and ally.side == fighter.side and ally.able:
            change(battle, ally, -ALLY_FELL_LOSS, "ally_fell")


def wounded(battle: Battle, fighter: Fighter, amount: int, divisor: int) -> None:
    """A wound of k damage costs floor(k / divisor) tokens (divisor 2 by default)."""
    if fighter.able and amount >= divisor:
        change(battle, fighter, -(amount // divisor), "wound")


def state_of(fighter: Fighter) -> str | None:
    """How a combatant ends, morale-wise: despairing, demoralized, or None."""
    if fighter.morale is None:
        return None
    if fighter.despairing:
        return DESPAIRING
    return DEMORALIZED if fighter.morale == 0 else None
