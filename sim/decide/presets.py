"""Named ways of fighting for ``sim spread``: each a set of today's tactics keys.

A preset sets its keys on a side and on every member of it (mounts included), over
what the file gives them, key by key: the whole side plays that way, and every other
key, stat, rule and die stays as written. Nothing else of the encounter is touched,
so a preset that sets what the file already plays fights the very same battles.

Presets change tactics only. What a table may also do that is no tactic is left out:
``flee_at`` (a rout) is an option of the encounter that holds for every side at once,
so a "cowards" preset would change the party's rules too; ``sim compare --vary
options.flee_at=...`` asks that question.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import attrs

from sim.day.file import Day, Encounter
from sim.errors import InputError
from sim.model import Combatant, Scenario, Side, Tactics

Subject = Scenario | Day


@attrs.frozen
class Preset:
    """A way of fighting: its name, what a side does under it (a plural verb: ``goblins go for
    the weakest``), the tactics keys it sets, and what they mean at the table."""

    name: str
    does: str
    keys: tuple[tuple[str, Any], ...]
    means: str

    @property
    def tactics(self) -> dict[str, Any]:
        return dict(self.keys)


PRESETS = (
    Preset("weakest", "go for the weakest", (("target", "weakest"),),
           "each fighter strikes the enemy in reach with the fewest HP (a pack picks off the weak)"),
    Preset("strongest", "go for the strongest", (("target", "strongest"),),
           "each fighter strikes the enemy in reach with the most HP (the brute first)"),
    Preset("focus", "strike one foe together", (("target", "focus"),),
           "the whole side shares one target until it falls, then the weakest next"),
    Preset("spread", "spread their blows", (("target", "random"),),
           "each fighter strikes an enemy in reach at random"),
    Preset("drink-early", "drink potions early", (("potion_at", 0.5),),
           "drink a potion at half HP rather than at a third"),
    Preset("medic", "keep potions for the fallen", (("potion_at", 0.0),),
           "never drink while standing: every potion is kept to wake a downed ally"),
    Preset("no-revive", "raise nobody between fights", (("revive", "never"),),
           "in a day (d100, 2d10, d10), no potion is poured into a member left at 0 HP between fights"),
)
ROLES = ("party", "opposition")


@attrs.frozen
class Group:
    """Who a preset is played by: the party, or the opposition (every other side, or the one
    ``--side`` names). ``side`` is what the results call it, ``label`` what a GM reads."""

    role: str
    side: str
    label: str
    names: frozenset[str]

    def plays(self, side: Side) -> bool:
        return side.name in self.names


def scenarios(subject: Subject) -> list[Scenario]:
    """The encounters of a day, or the scenario itself."""
    return [step.scenario for step in subject.encounters] if isinstance(subject, Day) else [subject]


def groups(subject: Subject, wanted: str | None) -> list[Group]:
    """The party and the opposition (``wanted``: None), or the one ``--side`` asks for: ``party``,
    ``opposition``, or a side's name."""
    sides = [side for scenario in scenarios(subject) for side in scenario.sides]
    party = sorted({s.name for s in sides if s.party})
    if not party:
        msg = (f"{subject.path}:0:0: sides: sim spread needs a side with 'party: true' (the figures it"
               " ranges are the party's); mark the players' side")
        raise InputError(msg)
    others = list(dict.fromkeys(s.name for s in sides if not s.party))
    foes = others[0] if len(others) == 1 else "the foes"
    found = [Group("party", "party", _named(party[0]), frozenset(party)),
             Group("opposition", "opposition", _named(foes), frozenset(others))]
    if wanted is None or wanted in ROLES:
        return [g for g in found if wanted in (None, g.role)]
    if wanted in party:
        return found[:1]
    if wanted in others:
        return [Group("opposition", wanted, _named(wanted), frozenset([wanted]))]
    choices = ", ".join([*ROLES, *party, *others])
    msg = f"{subject.path}:0:0: --side: no side {wanted!r} here; one of {choices}"
    raise InputError(msg)


def _named(side: str) -> str:
    """A side as the sentence names it: ``the party`` for a side named ``party``."""
    return f"the {side}" if side in ROLES else side


def _over(base: Tactics | None, preset: Preset) -> Tactics:
    """``base`` with the preset's keys set (the others as they were)."""
    return attrs.evolve(base or Tactics(), **preset.tactics)


def _side(side: Side, preset: Preset) -> Side:
    members = tuple(attrs.evolve(c, tactics=_over(c.tactics, preset)) for c in side.members)
    return attrs.evolve(side, tactics=_over(side.tactics, preset), members=members)


def _scenario(scenario: Scenario, chosen: Sequence[tuple[Group, Preset]]) -> Scenario:
    sides = list(scenario.sides)
    for group, preset in chosen:
        sides = [_side(side, preset) if group.plays(side) else side for side in sides]
    return attrs.evolve(scenario, sides=tuple(sides))


def apply(subject: Subject, chosen: Sequence[tuple[Group, Preset]]) -> Subject:
    """The encounter (or every encounter of the day) with each group playing its preset."""
    return _each(subject, lambda scenario: _scenario(scenario, chosen))


def _played(c: Combatant, side: Side, day: bool, potions: bool) -> Tactics:
    """The tactics a fighter acts on, defaults written out; a potion threshold only where the
    fighter carries potions, the re-roll policy only in a day's party and the revive policy only
    in a day's party that carries potions (they are read nowhere else)."""
    t = side.tactics if c.tactics is None else c.tactics.over(side.tactics)
    resting = day and side.party
    revive = "between_fights" if t.revives else "never"
    return attrs.evolve(t, target=t.policy, potion_at=t.drink_at if c.items else None,
                        reroll_hp=t.reroll if resting else None,
                        revive=revive if resting and potions else None)


def played(subject: Subject) -> tuple[Tactics, ...]:
    """Every fighter's tactics as it acts on them: two subjects with equal ``played`` that differ
    only in tactics fight the same battles on the same seeds."""
    day = isinstance(subject, Day)
    potions = any(c.items for scenario in scenarios(subject) for side in scenario.sides if side.party
                  for c in side.members)
    return tuple(_played(c, side, day, potions) for scenario in scenarios(subject)
                 for side in scenario.sides for c in side.members)


def without_tactics(subject: Subject) -> Subject:
    """The subject with every tactics key dropped: what a preset must leave as it was."""
    def strip(scenario: Scenario) -> Scenario:
        sides = tuple(attrs.evolve(side, tactics=Tactics(),
                                   members=tuple(attrs.evolve(c, tactics=None) for c in side.members))
                      for side in scenario.sides)
        return attrs.evolve(scenario, sides=sides)
    return _each(subject, strip)


def _each(subject: Subject, change: Callable[[Scenario], Scenario]) -> Subject:
    if isinstance(subject, Day):
        return attrs.evolve(subject, steps=tuple(
            attrs.evolve(step, scenario=change(step.scenario)) if isinstance(step, Encounter) else step
            for step in subject.steps))
    return change(subject)
