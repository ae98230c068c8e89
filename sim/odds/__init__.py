"""Exact odds: per-attack tables for any encounter, and an absorbing Markov chain solver for
small fights (``sim odds``). Written from the rules (docs/rules), never from the engine's code: it is the
engine's oracle, a second computation every rule change must agree with.

Modules: ``rolls`` (the exact law of one check in each system), ``roster`` (the fighters'
fixed numbers and starting states), ``morale`` (tokens around a check), ``strikes`` (one attack
in each system), ``fight`` (rounds, turns, victory: the solver), ``support`` (what it refuses,
its bound), ``attacks`` (the per-attack table), ``summary`` (figures shaped like a batch's).

May import: ``sim.tally`` (the difficulty words), ``sim.scenario`` (what a scenario's options
mean), ``sim.model``, ``sim.dice``, ``sim.errors``;
never ``sim.engine`` nor ``sim.rules`` (checked by import-linter).
"""

from sim.odds.fight import MAX_FIGHTERS, MAX_STATES, Result, Solver, TooBig
from sim.odds.support import check, refusals

__all__ = ["MAX_FIGHTERS", "MAX_STATES", "Result", "Solver", "TooBig", "check", "refusals"]
