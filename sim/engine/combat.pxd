# Types for the compiled build of combat.py: declarations only (see state.pxd and status.pxd).
# HP before and after a hit are C longs, as the fighter's own (state.pxd).
cimport cython

from sim.engine.status cimport Status
from sim.engine.state cimport Fighter
from sim.engine.table cimport Table
from sim.rules.actors cimport Arm

cdef class Combat(Status):
    @cython.locals(table=Table, arm=Arm, surprise=bint, outnumbered=bint, advantage=long, amount=long)
    cpdef attack(self, Fighter attacker, Fighter target, weapon, Arm arm=*)
    @cython.locals(before=long, after=long)
    cpdef deal_damage(self, Fighter target, amount, Fighter source, kind, armor_piercing=*, dice=*,
                      bonus=*, cost=*)
