"""combat-sim: how deadly is this encounter? A turn-based combat simulator for tabletop RPGs.

Specs (everything under ``sim.model``) are frozen attrs classes; the mutable
state of one battle lives in ``sim.engine.state`` and never outlives that battle.
"""

__version__ = "0.1.0"

# Before any other submodule: the import hook that chooses the compiled or the pure path.
from sim.compiled import install as _install_path_finder

_install_path_finder()
