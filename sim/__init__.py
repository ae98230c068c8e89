"""combat-sim: how deadly is this encounter? A turn-based combat simulator for tabletop RPGs.

Specs (everything under ``sim.model``) are frozen attrs classes; the mutable
state of one battle lives in ``sim.engine.state`` and never outlives that battle.
"""

__version__ = "0.1.0"
