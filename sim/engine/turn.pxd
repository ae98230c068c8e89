# Types for the compiled build of turn.py: declarations only (see state.pxd and status.pxd).
from sim.engine.combat cimport Combat
from sim.engine.state cimport Fighter
from sim.engine.table cimport Table

cdef class Turns(Combat):
    cpdef _take_turn(self, Fighter fighter, announced=*)
    cpdef _prepare_turn(self, Fighter fighter)
