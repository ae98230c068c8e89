# Types for the compiled build of d20.py (docs/contributing/architecture.md, "Compiled and pure
# paths"): declarations only, never logic. The fused attack-and-damage of the engine's hot path
# reads its fighters and table in place; its dice and sums are C longs (sim.scenario.limits
# bounds every level, bonus, threshold and damage far below them).
cimport cython

from sim.rules cimport actors


cpdef concerns_aspect(actors.Fighter who, purpose, weapon)

cpdef _spend_heroism(actors.Table table, actors.Fighter who)

cpdef long despaired(actors.Table table, actors.Fighter who, long advantage) except? -2

@cython.locals(first=long, second=long, kept=long, total=long)
cpdef (long, long, long, long) roll_d20(actors.Table table, actors.Fighter who, purpose,
                                         long modifier, long target, long advantage, weapon,
                                         aspect) except *

cpdef degree_of(long kept, long margin)

cpdef (bint, long, long, long) attack_roll(actors.Fighter attacker, actors.Fighter target,
                                            long bonus, long advantage) except *

cpdef (bint, bint) landed(bint attacking, degree) except *

@cython.locals(roller=actors.Fighter, modifier=long, threshold=long, kept=long, bonus=long,
               amount=long, hit=bint, critical=bint, attacking=bint)
cpdef strike(actors.Table table, actors.Fighter attacker, actors.Fighter target, actors.Arm arm,
             advantage)
