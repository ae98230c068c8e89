# Types for the compiled build of actors.py (docs/contributing/architecture.md, "Compiled and
# pure paths"): declarations only, never logic. Counts, HP and pools are C longs:
# sim.scenario.limits bounds every number a scenario holds far below them (HP and damage at
# 1,000,000); what may be None, a float or a name stays a Python object.
cdef class Fighter:
    cdef public object spec, name, side, spirit, max_spirit
    cdef public long hp, max_hp, heroism, level, armor, fatigue, social_lost, skip_turns
    cdef public long attack_threshold, defense_threshold, defended_round
    cdef public bint party, able, weakened, despairing

cdef class Arm:
    cdef public object weapon, roll
    cdef public long bonus, psy
    cdef public double reach
    cdef public bint plain, armor_piercing, suited

cdef class Table:
    cdef public object rng, draw, log, t, surprising, on_check
    cdef public long round
    cdef public bint despair_disadvantage
