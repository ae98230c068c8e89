# Types for the compiled build of combat.py: declarations only (see state.pxd and status.pxd).
from sim.engine.status cimport Status
from sim.engine.state cimport Fighter
from sim.engine.table cimport Table

cdef class Combat(Status):
    cpdef attack(self, Fighter attacker, Fighter target, weapon)
    cpdef deal_damage(self, Fighter target, amount, Fighter source, kind, armor_piercing=*, dice=*,
                      bonus=*, cost=*)
