# Types for the compiled build of d20.py (docs/contributing/architecture.md, "Compiled and pure
# paths"): declarations only, never logic. The fused attack-and-damage of the engine's hot path
# reads its fighters and table in place; its dice and sums are C longs (sim.scenario.limits
# bounds every level, bonus, threshold and damage far below them).
cimport cython

from sim.rules cimport actors


cpdef concerns_aspect(actors.Fighter who, purpose, weapon)

cpdef _spend_heroism(actors.Table table, actors.Fighter who)

@cython.locals(roller=actors.Fighter, modifier=long, threshold=long, kept=long, second=long,
               total=long, bonus=long, margin=long, amount=long)
cpdef strike(actors.Table table, actors.Fighter attacker, actors.Fighter target, actors.Arm arm,
             advantage)
