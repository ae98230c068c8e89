"""Rests and what the party carries between fights (rules §7).

Between steps the party keeps its HP, unhealable HP, PSY, fatigue, heroism
dice, destiny points, morale tokens, spirit, social lost to fire, its dead and
its serious-wound weakness; ongoing effects end with each fight. A ``Member``
holds one party combatant's state between fights (``hand_over`` to a new fight's
fighter, ``take_back`` after it); ``rest`` applies one rest of a given kind and
length, by its system's own seed: d20 (seed 003) heals nothing by the hour but
a long rest re-rolls the hit dice; the others follow seed 002's table per hour.
``read_rest`` reads a day file's ``rest: {kind, hours}`` step.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import attrs

from sim import dice
from sim.dice import roll_die
from sim.engine.morale import state_of
from sim.engine.state import ACTIVE, BROKEN, DEAD, FLED, LEFT_BEHIND, UNCONSCIOUS, Fighter
from sim.model import REST_ASPECTS, Combatant, Item, Tactics
from sim.rules.d100 import load_fatigue
from sim.scenario.checker import did_you_mean
from sim.yamlsrc import shorten


@attrs.frozen
class RestKind:
    """What one hour of a kind of rest gives back (rules §7)."""

    heal: dice.Dice  # plus the level, per hour
    unhealable_per_level: int  # unhealable HP recovered per hour, times the level
    psy_halved: bool  # quick rests give back half the PSY (level / 2 an hour, summed over the rest)
    fatigue: int  # fatigue points lost per hour
    cures_weakness: bool  # serious-wound weakness lasts until a good or intensive rest
    # The rest list's reading (``unhealable_recovery: rest_dice``): its healing dice heal
    # unhealable HP too ("dont les PV insoignables": good and intensive rests).
    dice_heal_unhealable: bool = False


REST_KINDS = {
    "quick": RestKind(dice.parse("1d4"), 0, True, 0, False),
    "calm": RestKind(dice.parse("1d6"), 1, False, 1, False),
    "good": RestKind(dice.parse("1d6"), 2, False, 2, True, True),
    "intensive": RestKind(dice.parse("2d8"), 3, False, 3, True, True),
}
HEROISM_BACK_AFTER_HOURS = 8  # heroism dice come back after a rest this long, in one go
HARDY_DIE = 6  # seed 003: a heroism die spent on the long rest's hit dice adds 1d6 HP
MAX_HOURS = 24 * 7
REST_KEYS = ("kind", "hours")
Fail = Callable[..., None]  # (path within the rest, message, at_key=False)


def read_rest(value: object, fail: Fail) -> tuple[str, int] | None:
    """A day's ``rest: {kind, hours}`` step as (kind, hours); problems through ``fail``, each
    at its key (a misspelt one named, with the key it is close to)."""
    if not isinstance(value, dict):
        fail((), "must be {kind: quick|calm|good|intensive, hours: N}")
        return None
    unknown = [key for key in value if key not in REST_KEYS]
    for key in unknown:
        hint = did_you_mean(key, REST_KEYS) if isinstance(key, str) else ""
        fail((key,), f"unknown key {shorten(key)} in a rest (kind, hours){hint}", at_key=True)
    if "kind" not in value:
        fail((), "missing required key 'kind' (quick, calm, good or intensive)")
    if unknown or "kind" not in value:
        return None
    kind, hours = value["kind"], value.get("hours", 1)
    ok = True
    if not isinstance(kind, str) or kind not in REST_KINDS:  # (a list cannot be looked up)
        hint = did_you_mean(kind, tuple(REST_KINDS)) if isinstance(kind, str) else ""
        fail(("kind",), f"no rest kind {shorten(kind)}: quick, calm, good or intensive{hint}")
        ok = False
    if not isinstance(hours, int) or isinstance(hours, bool) or not 1 <= hours <= MAX_HOURS:
        fail(("hours",), f"must be a whole number of hours 1..{MAX_HOURS} (got {shorten(hours)})")
        ok = False
    return (kind, hours) if ok else None


@attrs.define
class Member:
    """One party combatant between fights."""

    name: str
    level: int
    max_psy: int
    max_heroism: int
    rules: str = "d100"  # whose seed its rests follow: d20 (seed 003) or seed 002's table
    hit_dice: dice.Dice | None = None  # its ``hp`` (d20: re-rolled after a long rest)
    reroll: str = "below_mean"  # tactics.reroll_hp: when a d20 long rest re-rolls them
    hardy: bool = False  # a resistance or healing aspect: +1d6 on that re-roll for a heroism die
    max_hp: int | None = None  # rolled in its first fight, then kept (d20: or re-rolled)
    hp: int = 0
    unhealable: int = 0
    psy: int = 0
    fatigue: int = 0
    heroism: int = 0
    morale: int | None = None
    despairing: bool = False
    spirit: int | None = None
    max_spirit: int | None = None
    weakened: bool = False
    load_fatigue: int = 0  # what its load over carrying capacity costs (d100): rests keep it
    status: str = ACTIVE  # active | unconscious (stabilised at 0 HP) | broken | dead | fled | left_behind
    cause: str | None = None
    ever_down: bool = False
    morale_state: str | None = None
    learned: frozenset[str] = frozenset()
    items: dict[str, int] | None = None  # items left (rules §8), after its first fight
    items_used: int = 0  # over the day
    social_lost: int = 0  # social lost to fire (d100, rules §6): it carries from fight to fight
    tokens_due: int = 0  # morale tokens of rests before its first fight, added once it rolls them
    potions: tuple[Item, ...] = ()  # its stat block's items, by name (``items`` counts what is left)
    revived_by_potion: bool = True  # tactics.revive: a potion raises it at 0 HP between fights

    @classmethod
    def of(cls, spec: Combatant, rules: str, side_tactics: Tactics) -> Member:
        """A party member as it starts the day, from its stat block (its tactics over its
        side's, key by key)."""
        tactics = side_tactics if spec.tactics is None else spec.tactics.over(side_tactics)
        return cls(spec.name, spec.level, spec.psy, spec.heroism, rules, spec.hp, tactics.reroll,
                   bool(set(spec.aspects or ()) & set(REST_ASPECTS)), potions=spec.items,
                   revived_by_potion=tactics.revives)

    def hand_over(self, fighter: Fighter) -> None:
        """Give a fighter of a new fight what this member carries (after its first fight; before
        it, the tokens of the rests taken before the day's first fight)."""
        if self.tokens_due and fighter.morale is not None:
            fighter.morale += self.tokens_due
        self.tokens_due = 0
        if self.max_hp is None:
            return
        fighter.max_hp, fighter.hp = self.max_hp, self.hp
        fighter.unhealable, fighter.psy, fighter.fatigue = self.unhealable, self.psy, self.fatigue
        fighter.heroism, fighter.weakened = self.heroism, self.weakened
        fighter.social_lost = self.social_lost
        if fighter.morale is not None and self.morale is not None:
            fighter.morale, fighter.despairing = self.morale, self.despairing
        if self.max_spirit is not None:
            fighter.spirit, fighter.max_spirit = self.spirit, self.max_spirit
        if self.items is not None:  # a potion drunk in one fight is gone in the next
            fighter.items = dict(self.items)
        if self.status == BROKEN:  # what it dies of, should its side lose (rules §3, 5)
            fighter.status, fighter.able, fighter.cause = BROKEN, False, self.cause
        elif self.hp == 0:
            fighter.status, fighter.able, fighter.cause = UNCONSCIOUS, False, self.cause

    def take_back(self, fighter: Fighter) -> None:
        """What the fighter leaves the fight with."""
        self.max_hp, self.hp = fighter.max_hp, fighter.hp
        self.unhealable, self.psy, self.fatigue = fighter.unhealable, fighter.psy, fighter.fatigue
        self.heroism, self.weakened = fighter.heroism, fighter.weakened
        self.social_lost = fighter.social_lost
        self.load_fatigue = load_fatigue(fighter.spec)
        self.morale, self.despairing = fighter.morale, fighter.despairing
        self.spirit, self.max_spirit = fighter.spirit, fighter.max_spirit
        self.learned = self.learned | frozenset(fighter.learned)
        self.items, self.items_used = dict(fighter.items), self.items_used + fighter.items_used
        self.morale_state = state_of(fighter)
        self.cause = fighter.cause
        status = fighter.status
        if status == UNCONSCIOUS and fighter.hp > 0:
            # A serious-wound knock-out ends with the fight: it wakes weakened, as in the fight,
            # and stays so until a good or intensive rest (rules §3, 7).
            status = ACTIVE
            self.weakened = True
        self.status = status
        # A won fight leaves its unconscious at 0 HP: stabilised, as they are.
        if status in (DEAD, BROKEN, UNCONSCIOUS, LEFT_BEHIND):
            self.ever_down = True

    @property
    def alive(self) -> bool:
        """Still with the party: not dead, not gone (fled, or left behind where it fell)."""
        return self.status not in (DEAD, FLED, LEFT_BEHIND)


def rest(member: Member, kind: str, hours: int, rng: random.Random, report: bool = True,
         rest_dice: bool = False, revives: bool = False) -> dict[str, Any] | None:
    """One rest of ``hours`` hours for one member (rules §7), by its system's seed; with
    ``report``, the ``rested`` event's fields (built only when a log wants them).
    ``rest_dice``: unhealable HP come back with the healing dice of good and intensive
    rests, not at the rates by level. ``revives`` (a day's ``rest_revives``): a member at
    0 HP heals too; by default conventional care can do nothing for it (seed 002), only
    magic (``sim.day.revive``). Before its first fight a member is as its stat block says:
    only the rest's morale token counts (given once the fight rolls its tokens)."""
    if member.max_hp is None:
        member.tokens_due += 1
        if not report:
            return None
        return {"kind": kind, "hours": hours, "level": member.level, "fresh": True,
                **{key: None for key in _STATE_KEYS}}
    before = (member.hp, member.unhealable, member.psy, member.fatigue, member.heroism, member.morale)
    extra = _long_rest_d20(member, hours, rng) if member.rules == "d20" else _rest_by_hour(
        member, REST_KINDS[kind], hours, rng, rest_dice, heals=member.hp > 0 or revives)
    if hours >= HEROISM_BACK_AFTER_HOURS:
        member.heroism = member.max_heroism - extra.get("heroism_spent", 0)
    if member.morale is not None:
        member.morale += 1  # each rest of an hour or more: +1 token (and despair ends)
        member.despairing = False
    if member.status == UNCONSCIOUS and member.hp > 0:
        member.status = ACTIVE  # woken by the first HP a rest gives (d20's re-roll, rest_revives)
    if not report:
        return None
    hp, unhealable, psy, fatigue, heroism, morale = before
    return {
        "kind": kind, "hours": hours, "level": member.level,
        "hp_before": hp, "hp_after": member.hp, "max_hp": member.max_hp,
        "unhealable_before": unhealable, "unhealable_after": member.unhealable,
        "psy_before": psy, "psy_after": member.psy, "max_psy": member.max_psy,
        "fatigue_before": fatigue, "fatigue_after": member.fatigue,
        "heroism_before": heroism, "heroism_after": member.heroism,
        "max_heroism": member.max_heroism,
        "morale_before": morale, "morale_after": member.morale, **extra,
    }


# The fields of a ``rested`` event that say what a member had before and after its rest.
_STATE_KEYS = ("hp_before", "hp_after", "max_hp", "unhealable_before", "unhealable_after",
               "psy_before", "psy_after", "max_psy", "fatigue_before", "fatigue_after",
               "heroism_before", "heroism_after", "max_heroism", "morale_before", "morale_after")


def _rest_by_hour(member: Member, rule: RestKind, hours: int, rng: random.Random,
                  rest_dice: bool, heals: bool = True) -> dict[str, Any]:
    """Seed 002's table, hour by hour (d100; 2d10 and d10 by convention). Without ``heals``
    (a member at 0 HP, seed 002: "la médecine conventionnelle ne peut plus rien pour lui")
    it gets no HP, unhealable ones included; PSY and fatigue come back as usual."""
    level = member.level
    max_hp = member.max_hp or 0
    for hour in range(1, hours + 1):
        healed = rule.heal.roll(rng) + level  # rolled every hour, even with nothing to heal
        if heals and rest_dice and rule.dice_heal_unhealable:
            member.hp = max(member.hp, min(max_hp, member.hp + healed))
            # The HP above the ordinary ceiling were unhealable ones.
            member.unhealable = min(member.unhealable, max_hp - member.hp)
        elif heals:
            # Ordinary healing never touches HP paid for spells: it stops below them.
            member.hp = max(member.hp, min(max_hp - member.unhealable, member.hp + healed))
        if not rest_dice and heals:
            back = min(member.unhealable, rule.unhealable_per_level * level)
            member.unhealable -= back
            member.hp = min(max_hp, member.hp + back)
        # A quick rest's level / 2 an hour adds up over the rest (4 h at level 1 give 2).
        gain = hour * level // 2 - (hour - 1) * level // 2 if rule.psy_halved else level
        member.psy = min(member.max_psy, member.psy + gain)
        # A rest takes off the fatigue of the fight, not the load's: that lasts while the load
        # is carried ("over carrying capacity ... adds 1 fatigue", rules §3).
        floor = min(member.fatigue, member.load_fatigue)
        member.fatigue = max(floor, member.fatigue - rule.fatigue)
    if rule.cures_weakness:
        member.weakened = False
    return {}


def _long_rest_d20(member: Member, hours: int, rng: random.Random) -> dict[str, Any]:
    """Seed 003: no healing by the hour; after 8 hours or more in one go, the hit dice may be
    re-rolled to set the HP (and their maximum) for the fights to come, with +1d6 for a
    heroism die when the member has a resistance or healing aspect. Heroism dice come back
    (``rest``, less the one spent here)."""
    dice_ = member.hit_dice
    if hours < HEROISM_BACK_AFTER_HOURS or dice_ is None or not _rerolls(member, dice_):
        return {}
    rolled = dice_.roll(rng)
    spent = int(member.hardy and member.max_heroism > 0)
    bonus = roll_die(rng, HARDY_DIE) if spent else 0
    member.max_hp = member.hp = max(1, rolled + bonus)  # as a battle rolls it: never below 1
    return {"hp_rolled": rolled, "hardy_bonus": bonus, "heroism_spent": spent}


def _rerolls(member: Member, dice_: dice.Dice) -> bool:
    """The re-roll policy (``tactics.reroll_hp``): below the roll's mean, always or never."""
    if member.reroll == "never":
        return False
    return member.reroll == "always" or member.hp < dice_.mean
