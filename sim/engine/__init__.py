"""The engine: one battle on a SimPy round clock (see ``sim.engine.battle``).

``from sim.engine import Battle, run_battle`` is the way in; the modules split it by
concept::

    battle    set-up and outcome of one battle
    clock     rounds and initiative
    turn      the action economy of one turn
    combat    an attack and its damage
    status    status and victory
    effects   ongoing effects ticking at their owner's turns, and the one-off harms
    morale    morale checks and who flees
    tactics   target and weapon choice policies
    items     healing potions, drunk or poured into a downed ally
    timeline  the scripted timeline: ignite, poison, expose, explode, fall at a round
    state     a combatant's mutable state in one battle (apart from its frozen spec)
    table     the table a battle is played on: dice, event log, the clock, listeners
    outcome   what one battle leaves for the batch

May import: ``sim.rules``, ``sim.model``, ``sim.dice``, ``sim.io``, ``sim.errors`` and
``sim.terminal``; never a layer above (scenario, day, batch, reports, commands).
"""

from sim.engine.battle import SCHEMA, Battle, run_battle
from sim.engine.outcome import BattleOutcome

__all__ = ["SCHEMA", "Battle", "BattleOutcome", "run_battle"]
