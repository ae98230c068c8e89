# Types for the compiled build of turn.py: declarations only (see state.pxd and status.pxd).
# A turn's budget, moves, attacks and costs are half-actions: small C longs.
cimport cython

from sim.engine.combat cimport Combat
from sim.engine.state cimport Fighter

cdef class Turns(Combat):
    @cython.locals(budget=long, moves=long, attacks=long, cost=long, target=Fighter)
    cpdef _take_turn(self, Fighter fighter, announced=*)
    cpdef _prepare_turn(self, Fighter fighter)

from sim.engine.tactics cimport approach_gap, choose_target, choose_weapon
