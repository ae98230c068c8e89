# Types for the compiled build of state.py (docs/contributing/architecture.md, "Compiled and
# pure paths"): declarations only, never logic. Fighter becomes an extension type whose fields
# the compiled engine reads in place. Counts and HP stay Python ints (no C overflow on a
# hostile stat block); only flags are C booleans.
cdef class Fighter:
    cdef public object _turn_event, arsenal, attack_threshold, attacked_by, attacked_round
    cdef public object cause, cost_at_hand, defended_round, defense_threshold, effects, fatigue
    cdef public object fire_damage, heroism, hp, index, items, items_used, learned, max_hp
    cdef public object max_spirit, morale, mounted_on, name, policy, potion_at, prefers, psy
    cdef public object reach, ridden_by, side, skip_turns, social_lost, spec, spirit, status
    cdef public object unhealable, weapon_at_hand, x
    cdef public bint able, counts, despairing, fatigues, fixed_at_hand, fixed_reach, party
    cdef public bint prone, saved, social_burnt, weakened
