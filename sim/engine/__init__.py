"""The engine: one battle on a SimPy round clock (see ``sim.engine.battle``).

``from sim.engine import Battle, run_battle`` is the way in; the modules split it by
concept: ``clock`` (rounds, initiative), ``turn`` (action economy), ``combat`` (attack
and damage), ``status`` (status and victory), ``battle`` (set-up, outcome).
"""

from sim.engine.battle import SCHEMA, Battle, run_battle
from sim.engine.outcome import BattleOutcome

__all__ = ["SCHEMA", "Battle", "BattleOutcome", "run_battle"]
