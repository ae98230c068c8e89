# Types for the compiled build of state.py (docs/contributing/architecture.md, "Compiled and
# pure paths"): declarations only, never logic. Fighter becomes an extension type whose fields
# the compiled engine reads in place; the fields the rules read are its base's (actors.pxd).
# Counts are C longs (sim.scenario.limits bounds every number far below them); what may be
# None, a float or a name stays a Python object.
from sim.rules cimport actors


cdef class Fighter(actors.Fighter):
    cdef public object _turn_event, arsenal, arm_at_hand, cause
    # Containers a battle fills and reads in place (set.add, list truth, dict.get in C).
    cdef public set attacked_by, learned
    cdef public list effects
    cdef public dict items
    cdef public object morale, mounted_on, policy, potion_at, prefers, reach, ridden_by
    cdef public object status, weapon_at_hand, x
    cdef public long psy, index, items_used, cost_at_hand, attacked_round, fire_damage
    cdef public long unhealable
    cdef public bint counts, fatigues, fixed_at_hand, fixed_reach, initiative_gift, prone, saved
    cdef public bint social_burnt
