"""What the solver can represent, and its bound: anything else is refused by name.

The solver plays the rules' fights (docs/rules) at distance 0 between armed fighters: group initiative,
surprise, target policies, weapon orders, the action economy of each system, heroism,
morale, fatigue and serious wounds. A rule that would need a map, a clock of its own or
items (hazards, a timeline, a day, potions, mounts...) is refused, never approximated.
"""

from __future__ import annotations

import math

from sim.errors import InputError
from sim.model import Combatant, Scenario
from sim.odds.fight import MAX_FIGHTERS, MAX_HP_PRODUCT, MAX_STATES

BATCH_HINT = "use sim batch for it"


def refusals(scenario: Scenario) -> list[str]:
    """``path: what`` for each thing of the scenario the solver cannot represent."""
    out = []
    opts = scenario.options
    if scenario.hazards:
        out.append("hazards: hazard zones (fire, water, smoke)")
    if scenario.timeline:
        out.append("timeline: a timeline of scripted events")
    if scenario.distance:
        out.append("distance: a fight at a distance (movement)")
    if scenario.surprise is not None and scenario.surprise.group_check:
        out.append("surprise.group_check: a surprise earned by a group check")
    if opts.destiny_points:
        out.append("options.destiny_points: destiny points")
    if opts.flee_at is not None:
        out.append("options.flee_at: a rout")
    if opts.spirit:
        out.append("options.spirit: spirit and terror")
    if opts.defense_per != "attack":
        out.append("options.defense_per: one defense roll a round")
    for c in scenario.combatants:
        out += _fighter(scenario, c)
    return out


def _fighter(scenario: Scenario, c: Combatant) -> list[str]:
    where = f"sides[{c.side}].members[{c.name}]"
    out = []
    if c.items:
        out.append(f"{where}.items: potions")
    if c.mount or c.rider:
        out.append(f"{where}.mount: mounted combat")
    if not c.weapons:
        out.append(f"{where}.weapons: a fighter without a weapon (a stalemate)")
    for w in c.weapons:
        for flag, what in (("psy", "a spell"), ("fire", "a fire weapon"), ("poison", "a poisoned weapon"),
                           ("area", "an area weapon")):
            if getattr(w, flag):
                out.append(f"{where}.weapons[{w.name}].{flag}: {what}")
    return out


def check(scenario: object) -> Scenario:
    """The scenario, if the solver can represent it; else InputError, one line a reason."""
    path = getattr(scenario, "path", "") or "(scenario)"
    if not isinstance(scenario, Scenario):
        raise InputError(f"{path}:0:0: steps: sim odds solves one fight, not a day; {BATCH_HINT}")
    lines = [f"{path}:0:0: {what}: sim odds cannot represent it exactly; {BATCH_HINT}"
             for what in refusals(scenario)]
    if lines:
        raise InputError("\n".join(lines))
    if len(scenario.combatants) > MAX_FIGHTERS:
        raise InputError(too_big(scenario, f"{len(scenario.combatants)} combatants"))
    product = math.prod(c.hp.max + 1 for c in scenario.combatants)
    if product > MAX_HP_PRODUCT:
        raise InputError(too_big(scenario, f"{product:,} combinations of HP"))
    return scenario


def too_big(scenario: Scenario, what: str) -> str:
    """The one line that states the bound."""
    return (f"{scenario.path or '(scenario)'}:0:0: sides: too big to solve exactly ({what}); the bound is"
            f" {MAX_FIGHTERS} combatants, {MAX_HP_PRODUCT:,} combinations of HP (the product of"
            f" max HP + 1) and {MAX_STATES:,} states at a time: use sim batch")
