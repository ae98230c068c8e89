"""Skills and aspects no roll of a stat block reads, and ``Unused``, a key that would do nothing.

A skill must be rolled by a weapon of its block, a rule of the system or a group check; a
d20 aspect must name a roll the block can make. Both depend on the stat block alone (and
the scenario's group check), so they are warnings wherever written, bestiary files
included. ``sim.scenario.ignored`` holds the other idle keys.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence

import attrs

from sim.model import REST_ASPECTS, Weapon
from sim.rules import d100, open_d10, quality
from sim.rules.d20 import MOVEMENT_ARTS

Path = tuple[str | int, ...]


@attrs.frozen
class Unused:
    """A key that would do nothing: its path (relative to what was checked) and why."""

    path: Path
    message: str


RIDING = "riding"  # the check the engine rolls from the saddle (sim.engine, sim.engine.effects)
# Skills a rule of the system rolls, whatever the weapons: d100 defends with a skill (and
# a d100 skill named after a characteristic stands in for it in that check); every system
# but d20 rolls riding from the saddle.
RULE_SKILLS: dict[str, tuple[str, ...]] = {
    "d100": (d100.DEFENSE, RIDING, *d100.CHARACTERISTICS),
    "2d10": (RIDING,),
    "d10": (RIDING,),
}
# Skills a surprise group check usually rolls (the d20 movement arts, and perception): a
# bestiary entry may carry them for any scenario that asks; a scenario's own
# `group_check` name is accepted too.
GROUP_CHECK_SKILLS = (*sorted(MOVEMENT_ARTS), "perception")
# The purposes of the checks a d20 combatant rolls (sim.rules.d20, sim.engine.effects): its attacks
# and defenses, terror, physique (fire, drowning, falls) and force (poison); with the group
# checks, and its weapons' names and skills, what an aspect can match (rules §3).
D20_PURPOSES = ("attack", "defense", "terror", "physique", "force")


# The skill an attack with a weapon rolls, as each system's attack reads it (d20: none).
ATTACK_SKILL = {"d100": d100.attack_skill, "2d10": quality.attack_skill, "d10": open_d10.attack_skill}


def weapon_skill(rules: str, weapon: Weapon) -> str | None:
    """The skill an attack with this weapon rolls in this system (None: no skill)."""
    skill_of = ATTACK_SKILL.get(rules)
    return None if skill_of is None else skill_of(weapon)


def unread_skills(rules: str, skills: Mapping[str, int], weapons: Sequence[Weapon],
                  group_checks: Iterable[str] = ()) -> list[Unused]:
    """Skills that no weapon of the block, no rule of the system and no group check rolls."""
    rolled = {weapon_skill(rules, w) for w in weapons}
    known = rolled | set(RULE_SKILLS.get(rules, ())) | set(GROUP_CHECK_SKILLS) | set(group_checks)
    found = []
    for name in skills:
        if name in known:
            continue
        message = (f"no weapon and no rule of {rules} rolls the skill '{name}'"
                   f"{_skill_hint(rules, name, weapons, sorted(s for s in rolled if s))}")
        found.append(Unused((name,), message))
    return found


def weapon_aspects(weapons: Iterable[Weapon]) -> list[str]:
    """The aspects a block's attacks concern besides ``attack``: its weapons' names and skills."""
    return [name for w in weapons for name in (w.name, w.skill) if name]


def unread_aspects(aspects: Sequence[str], weapons: Sequence[Weapon],
                   group_checks: Iterable[str] = ()) -> list[Unused]:
    """d20 aspects that no roll of the block can concern: a heroism die is spent only on a roll
    whose purpose, or whose weapon's name or skill, is an aspect (sim.rules.d20)."""
    known = [*D20_PURPOSES, *REST_ASPECTS, *GROUP_CHECK_SKILLS, *group_checks, *weapon_aspects(weapons)]
    if not aspects:
        return [Unused((), "lists no roll, so no heroism die is ever spent (no aspects: every roll"
                           " may use one); name the rolls, or remove it")]
    found = []
    for i, name in enumerate(aspects):
        if name in known:
            continue
        hint = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
        near = f"; did you mean '{hint[0]}'?" if hint else ""
        found.append(Unused((i,), (
            f"no roll concerns the aspect '{name}', so no heroism die is ever spent on it (an"
            f" aspect names a roll: {', '.join(D20_PURPOSES)}, a group check such as stealth,"
            f" {' or '.join(REST_ASPECTS)} (a long rest's hit dice),"
            f" or one of this stat block's weapons or their skill){near}")))
    return found


# Skills other games defend with: here a defense is no weapon's skill, so the hint points to
# where each system keeps it (a d100 skill named `defense`, else the block's `defense:`).
DEFENSIVE_SKILLS = frozenset({"dodge", "parry", "block", "evade", "evasion", "defence", "guard"})
DEFENSE_HINTS = {
    "d100": "; a d100 fighter parries or dodges with the skill 'defense': write skills: {defense: N}",
    "2d10": "; in 2d10 a blow is met by the target's defense (0 to 10): write defense: N on the"
            " stat block, not a skill",
    "d10": "; in d10 an attack must reach the target's defense (about 11 to 15): write defense: N"
           " on the stat block (a dodge skill counts in it), not a skill",
}


def _skill_hint(rules: str, name: str, weapons: Sequence[Weapon], rolled: list[str]) -> str:
    """Point at the weapon the GM probably meant (``club`` -> the weapon ``great club``), or at
    the system's defense for a dodge or parry skill."""
    if name.lower() in DEFENSIVE_SKILLS and rules in DEFENSE_HINTS:
        return DEFENSE_HINTS[rules]
    names = [w.name for w in weapons]
    near = [n for n in names if name.lower() in n.lower() or n.lower() in name.lower()]
    near = near or difflib.get_close_matches(name, names, n=1, cutoff=0.5)
    if near:
        weapon = near[0]
        rolls = weapon_skill(rules, next(w for w in weapons if w.name == weapon))
        if rules == "2d10" and rolls == weapon:
            return (f"; did you mean the weapon '{weapon}'? In 2d10 a weapon rolls the skill of"
                    f" its own name: write skills: {{{weapon}: ...}}, or give the weapon"
                    f" skill: {name}")
        return (f"; did you mean the weapon '{weapon}'? It rolls '{rolls}': rename the skill,"
                f" or give the weapon skill: {name}")
    if rolled:
        return (f" (its weapons roll {', '.join(repr(s) for s in rolled)}); remove it, or give a"
                f" weapon skill: {name}")
    return " (it has no weapon); remove it"
