# Types for the compiled build of tactics.py: declarations only (see state.pxd).
from sim.engine.state cimport Fighter

cpdef choose_target(Fighter fighter, enemies, spread, rng, focus)
cpdef choose_weapon(Fighter fighter, gap)
cpdef usable(Fighter fighter, weapon)
cpdef affordable(Fighter fighter, weapon)
cpdef hopeless(Fighter fighter, weapon)
cpdef approach_gap(Fighter fighter)
