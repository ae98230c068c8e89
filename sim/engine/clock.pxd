# Types for the compiled build of clock.py: declarations only (see state.pxd and status.pxd).
cimport cython

from sim.engine.turn cimport Turns
from sim.engine.state cimport Fighter

cdef class Clock(Turns):
    @cython.locals(f=Fighter)
    cpdef _initiative(self)
    cpdef bint _waiting(self) except -1
    @cython.locals(i=long, fighter=Fighter)
    cpdef long _turns(self, list order, long start, long number, long slots) except? -2
