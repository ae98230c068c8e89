"""Morale tokens (rules §4, seed 000): rerolls, despair, gains and losses, learning ticks.

On by default with the 2d10 system and with ``options: {morale: true}`` elsewhere. The
players' characters hold tokens (seed 000: "2d6 pour chaque joueur"): the party's members,
every side's without a party side or with ``morale: {who: everyone}``; a combatant holding
none (``morale`` None) never rerolls, despairs or ticks learning boxes.
Morale listens to what happens and is never called by a rule system: every check
ends in ``table.on_check``, which the engine points at ``after_check`` when morale
is on (it rerolls a failed check once while the combatant has tokens, spending one
only if the reroll fails too, or by despair when it has none); the engine tells it
of falls (``fallen``) and wounds (``wounded``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sim import dice
from sim.rules import CRITICAL_FAILURE, CRITICAL_SUCCESS, CheckResult

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from sim.engine.state import Fighter
    from sim.engine.table import Table

STARTING_TOKENS = dice.parse("2d6")
EXPLOIT_GAIN = 1
KILL_GAIN = 2
DISASTER_LOSS = 1
ALLY_FELL_LOSS = 4
DESPAIR_GAIN = 1
DEMORALIZED = "demoralized"
DESPAIRING = "despairing"


def give_tokens(table: Table, fighter: Fighter) -> None:
    """Roll a combatant's tokens for this battle: its ``morale`` dice, else 2d6. Mounts take no
    part in morale (rules §4): they hold none, so never reroll (the engine gives them none).

    One starting with none is demoralized: ``announce_demoralized`` says so once
    ``battle_started`` is logged (it must stay the first line).
    """
    fighter.morale = (fighter.spec.morale or STARTING_TOKENS).roll(table.rng)


def announce_demoralized(table: Table, fighters: Sequence[Fighter]) -> None:
    """Log who starts the battle with no token."""
    for fighter in fighters:
        if fighter.morale == 0:
            _mark(table, fighter, DEMORALIZED, True)


def _mark(table: Table, fighter: Fighter, state: str, on: bool) -> None:
    if table.log is not None:
        event = "effect_started" if on else "effect_ended"
        table.emit(event, target=fighter.name, effect=state)


def change(table: Table, fighter: Fighter, delta: int, reason: str) -> None:
    """Add or take tokens (never below 0); 0 demoralizes, a gain ends demoralized and despair."""
    before = fighter.morale
    if before is None:
        return
    after = max(0, before + delta)
    if after == before:
        return
    fighter.morale = after
    if table.log is not None:
        table.emit("morale_changed", actor=fighter.name, delta=after - before, reason=reason,
                    tokens=after)
    if before > 0 and after == 0:
        _mark(table, fighter, DEMORALIZED, True)
    elif before == 0 and after > 0:
        _mark(table, fighter, DEMORALIZED, False)
        if fighter.despairing:
            fighter.despairing = False
            _mark(table, fighter, DESPAIRING, False)


def after_check(
    table: Table, who: Fighter, skill: str, result: CheckResult,
    again: Callable[[str], CheckResult],
) -> CheckResult:
    """The morale reroll of a failed check, then what the final result earns or costs.

    ``again(purpose)`` rolls the same check anew (logged with that purpose). A despairing
    combatant cannot despair again (Convention), unless the table says so (the option
    ``despair_again``).
    """
    if who.morale is None:  # holds no tokens (rules §4: a monster, a mount): nothing to do
        return result
    if not result.success and (not who.despairing or table.despair_again):
        if who.morale > 0:
            result = again("morale_reroll")
            if not result.success:  # the token is spent only when the reroll fails too
                who.morale -= 1
                if table.log is not None:
                    table.emit("resource_spent", actor=who.name, resource="morale", amount=1,
                                left=who.morale)
                if who.morale == 0:
                    _mark(table, who, DEMORALIZED, True)
        else:
            result = again("despair")
            if result.success:
                change(table, who, DESPAIR_GAIN, "despair")
            elif not who.despairing:
                who.despairing = True
                _mark(table, who, DESPAIRING, True)
    if result.degree == CRITICAL_SUCCESS:
        change(table, who, EXPLOIT_GAIN, "exploit")
        tick_learning(table, who, skill)
    elif result.degree == CRITICAL_FAILURE:
        change(table, who, -DISASTER_LOSS, "disaster")
        tick_learning(table, who, skill)
    return result


def tick_learning(table: Table, fighter: Fighter, skill: str) -> None:
    """Every exploit or disaster ticks the learning box of the skill used."""
    fighter.learned.add(skill)
    if table.log is not None:
        table.emit("learning_ticked", actor=fighter.name, skill=skill)


def fallen(table: Table, allies: Sequence[Fighter], fighter: Fighter, source: Fighter | None
           ) -> None:
    """A combatant dropped: its killer gains 2, each of its conscious allies (``allies``: its
    side, itself included) loses 4. A mount is neither friend nor enemy here (rules §4): its
    fall gives and costs nothing."""
    if not fighter.counts:
        return
    if source is not None and source.side != fighter.side:
        change(table, source, KILL_GAIN, "kill")
    for ally in allies:
        if ally is not fighter and ally.able:
            change(table, ally, -ALLY_FELL_LOSS, "ally_fell")


def wounded(table: Table, fighter: Fighter, lost: int, divisor: int) -> None:
    """A wound costs floor(k / divisor) tokens (divisor 2 by default), k the HP the damage
    took (rules §4): a blow of 9 on 5 HP is a wound of 5, and a body already at 0 HP loses
    none. The engine calls it before a blow's knock-out, so the blow that drops a combatant
    costs it tokens too."""
    if lost >= divisor:
        change(table, fighter, -(lost // divisor), "wound")


def state_of(fighter: Fighter) -> str | None:
    """How a combatant ends, morale-wise: despairing, demoralized, or None."""
    if fighter.morale is None:
        return None
    if fighter.despairing:
        return DESPAIRING
    return DEMORALIZED if fighter.morale == 0 else None
