# Types for the compiled build of status.py: declarations only (see state.pxd). Status is the
# root of Battle's line of classes, so the battle's state is declared here once, as fields the
# compiled layers read in place instead of through an instance dict (a battle has no other
# attribute). The hot methods are cpdef: a C call from the compiled layers.
cimport cython

from sim.engine.state cimport Fighter
from sim.engine.table cimport Table

cdef class Status:
    cdef public Table table
    cdef public object log, emit, scenario, seed, batch, rules, _env, economy
    cdef public object _carry, _resolve_attack, _roll_damage, _strike
    cdef public list fighters, _roller_first, _others_first, _gifted
    cdef public dict _by_side, _able, _starting, enemies_cache, focus
    cdef public set _ever_down, _routed
    cdef public object surprise_side, _roller
    cdef public object _flee_at, _outnumbered_at, _last_scripted
    cdef public object destiny_left, winner
    cdef public long _standing, _armed, _budget, _max_attacks
    cdef public bint morale_on, spread, _perils, _special, _outnumbering, _wounds
    cdef public bint _destiny, _rider_falls, ended, _move_after_attack

    cpdef _drop(self, Fighter fighter, cause, Fighter source)
    cpdef _set_status(self, Fighter fighter, status)
    @cython.locals(f=Fighter)
    cpdef able_enemies(self, Fighter fighter)
    cpdef _decided(self)
    @cython.locals(fighter=Fighter, f=Fighter)
    cpdef _finish(self, winner, stopped=*)
