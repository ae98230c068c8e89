# Types for the compiled build of tactics.py: declarations only (see state.pxd).
cimport cython

from sim.engine.state cimport Fighter
from sim.rules.actors cimport Arm

@cython.locals(n=long)
cpdef choose_target(Fighter fighter, enemies, spread, draw, focus)
cpdef arm(Fighter fighter, economy, fatigue)
@cython.locals(held=Arm)
cpdef choose_weapon(Fighter fighter, gap)
cpdef usable(Fighter fighter, weapon)
cpdef affordable(Fighter fighter, weapon)
cpdef hopeless(Fighter fighter, weapon)
cpdef approach_gap(Fighter fighter)
