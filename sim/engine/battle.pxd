# Types for the compiled build of battle.py: declarations only (see state.pxd and status.pxd).
cimport cython

from sim.engine.clock cimport Clock
from sim.engine.state cimport Fighter
from sim.engine.tactics cimport arm

cdef class Battle(Clock):
    @cython.locals(fighter=Fighter, f=Fighter)
    cpdef _setup(self)
    @cython.locals(f=Fighter)
    cpdef _outcome(self)
