"""Frozen specs of an encounter: weapons, combatants, sides, options and the scenario.

Everything here is immutable and shared by every battle of a run; what changes
during one battle (HP, positions, pools) lives in ``sim.engine.state``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

import attrs

from sim.dice import Dice
from sim.errors import Problem

RULE_SYSTEMS = ("d20", "d100", "2d10", "d10")
TARGET_POLICIES = ("random", "weakest", "strongest", "focus")
DEFAULT_TARGET = "random"
DEFAULT_POTION_AT = 0.33  # rules §8: drink at or below a third of maximum HP
# rules §7 (d20, seed 003): after a long rest, re-roll the hit dice to set HP when the HP
# are below the roll's mean (below_mean), every time (always) or never.
REROLL_POLICIES = ("below_mean", "always", "never")
DEFAULT_REROLL = "below_mean"
# rules §7 (d100, 2d10, d10): between a day's fights the party pours a potion it carries into
# each member at 0 HP (between_fights), or keeps them (never).
REVIVE_POLICIES = ("between_fights", "never")
DEFAULT_REVIVE = "between_fights"
# Aspects "evoking resistance or healing" (seed 003): one heroism die on that re-roll, +1d6 HP.
REST_ASPECTS = ("resistance", "healing")
MELEE_REACH_M = 2.0  # rules §2: melee needs a gap of at most 2 m
HUMAN_MOVEMENT_M = 8.0  # rules §2: 8 m per move
INITIATIVE_GIFT = "initiative"  # the gift that rolls 1d8 for initiative and group ties


class Memo(dict):
    """What the engine works out from a spec once and keeps on it (``Combatant.armory``). It
    never travels with its spec: pickled for a worker process or copied, it starts empty, as
    it holds closures (dice samplers) and is checked by object identity, which means nothing
    in another process or a copy (the engine works it out again there)."""

    def __reduce__(self) -> tuple[type[Memo], tuple[()]]:
        return (Memo, ())


@attrs.frozen
class Weapon:
    """A weapon or natural attack: its damage dice and how it is used."""

    name: str
    damage: Dice
    bonus: int = 0
    skill: str | None = None
    attribute: str | None = None
    hands: int = 1
    range: float | None = None  # metres; None for a melee weapon
    armor_piercing: bool = False
    fire: bool = False
    poison: bool = False
    area: bool = False
    psy: int = 0  # > 0: a spell, costing this much PSY (then unhealable HP) per cast
    thrown: bool = False  # a ranged weapon thrown by hand (knife, javelin, firepot): not a bow
    # d20 (seed 003, "une attaque particulièrement adaptée"): the creatures it is made for,
    # by bestiary name or kind; a hit on one adds 1d4 (never stacked with another +1d4).
    suited: tuple[str, ...] = ()
    # Derived once: a plain hit (no area, fire, poison or spell) takes the short path.
    plain: bool = attrs.field(init=False, eq=False, repr=False)
    # Derived once: how far it strikes, in metres (read on every weapon choice at a distance).
    reach: float = attrs.field(init=False, eq=False, repr=False)
    # Derived once: a bow or a crossbow, a ranged weapon that is neither thrown nor a spell,
    # whatever its ``hands`` (rules §2: in d100 a full action, and it tires).
    bow: bool = attrs.field(init=False, eq=False, repr=False)
    # Derived once: an attack with it is a half-action in d100 (one-handed, thrown or not).
    half_action: bool = attrs.field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        plain = not (self.area or self.fire or self.poison or self.psy)
        object.__setattr__(self, "plain", plain)  # attrs' way to fill a frozen derived field
        object.__setattr__(self, "reach", MELEE_REACH_M if self.range is None else self.range)
        bow = self.range is not None and not self.thrown and not self.psy
        object.__setattr__(self, "bow", bow)
        object.__setattr__(self, "half_action", self.hands < 2 and not bow and not self.psy)


@attrs.frozen
class Item:
    """An item a stat block carries (rules §8): a healing potion by default."""

    heal: Dice
    name: str = "healing potion"
    count: int = 1


@attrs.frozen
class Tactics:
    """How a side, a stat block or one member fights. A key left out (None) is inherited:
    member over bestiary entry over side, then the defaults below (``resolved``)."""

    target: str | None = attrs.field(
        default=None, validator=attrs.validators.optional(attrs.validators.in_(TARGET_POLICIES)))
    # Weapon names in order of preference; the weapons left out come after, in the default order.
    weapons: tuple[str, ...] | None = None
    potion_at: float | None = None  # drink at or below this fraction of maximum HP
    reroll_hp: str | None = attrs.field(  # d20 long rest: when to re-roll the hit dice
        default=None, validator=attrs.validators.optional(attrs.validators.in_(REROLL_POLICIES)))
    revive: str | None = attrs.field(  # a day: a potion for a member at 0 HP between fights
        default=None, validator=attrs.validators.optional(attrs.validators.in_(REVIVE_POLICIES)))

    def over(self, base: Tactics | None) -> Tactics:
        """These tactics, with every key they leave out taken from ``base``."""
        if base is None:
            return self
        return Tactics(
            target=base.target if self.target is None else self.target,
            weapons=base.weapons if self.weapons is None else self.weapons,
            potion_at=base.potion_at if self.potion_at is None else self.potion_at,
            reroll_hp=base.reroll_hp if self.reroll_hp is None else self.reroll_hp,
            revive=base.revive if self.revive is None else self.revive,
        )

    @property
    def policy(self) -> str:
        """The target policy, ``random`` unless set."""
        return DEFAULT_TARGET if self.target is None else self.target

    @property
    def drink_at(self) -> float:
        """The potion threshold, ``potion_at`` or the default 0.33."""
        return DEFAULT_POTION_AT if self.potion_at is None else self.potion_at

    @property
    def reroll(self) -> str:
        """When a d20 long rest re-rolls the hit dice: ``reroll_hp``, else below_mean."""
        return DEFAULT_REROLL if self.reroll_hp is None else self.reroll_hp

    @property
    def revives(self) -> bool:
        """Whether the party revives a member at 0 HP with a potion between a day's fights."""
        return (DEFAULT_REVIVE if self.revive is None else self.revive) == "between_fights"


@attrs.frozen
class Combatant:
    """One fighter's stat block, resolved from the scenario and the bestiary."""

    name: str
    side: str
    hp: Dice
    level: int = 1
    armor: int = 0
    attack_threshold: int | None = None
    defense_threshold: int | None = None
    heroism: int = 0
    aspects: tuple[str, ...] | None = None  # None: every roll concerns an aspect
    gifts: tuple[str, ...] = ()
    terror: Dice | None = None
    spirit: Dice | None = None
    weapons: tuple[Weapon, ...] = ()
    movement: float = HUMAN_MOVEMENT_M
    # The scenario entry it was made from (its path, e.g. `sides[1].members[0]`): the
    # members of one entry (`count: 3`) are one kind, and terror frightens once per kind
    # (rules §3). Empty: a kind of its own.
    kind: str = ""
    # What a weapon's ``suited:`` list knows it by: its bestiary entry, its entry's name (the
    # members of ``count: 3`` share it) and the ``kind:`` names its block gives (d20).
    kinds: tuple[str, ...] = ()
    tactics: Tactics | None = None  # overrides the side's tactics, key by key
    items: tuple[Item, ...] = ()  # potions (rules §8)
    # d100 (seed 002)
    characteristics: Mapping[str, int] = attrs.field(factory=dict, eq=False)
    skills: Mapping[str, int] = attrs.field(factory=dict, eq=False)
    psy: int = 0
    load: float = 0.0  # kg carried: over force / 2 + 20, each started 5 kg is 1 fatigue
    # 2d10 (seed 000) and d10 (seed 001)
    attributes: Mapping[str, int] = attrs.field(factory=dict, eq=False)  # d10
    defense: int = 0  # 2d10: subtracted from the attacker's SR; d10: the attack difficulty
    morale: Dice | None = None  # starting morale tokens (default 2d6)
    mount: str | None = None  # the name of the combatant it rides
    rider: str | None = None  # for a mount: the name of who rides it
    # Derived once here rather than in every battle (see __attrs_post_init__).
    effective_attack_threshold: int = attrs.field(init=False, eq=False, repr=False)
    effective_defense_threshold: int = attrs.field(init=False, eq=False, repr=False)
    reach: float = attrs.field(init=False, eq=False, repr=False)
    # A memo, not state: its weapons in order of preference with their costs and Arms, per
    # tactics and action economy (see sim.engine.tactics.arm), and what a fighter takes from it
    # and its side (sim.engine.state.Fighter), so a battle's set-up does not work them out again.
    armory: dict = attrs.field(init=False, eq=False, repr=False, hash=False, factory=Memo)

    def __attrs_post_init__(self) -> None:
        # Frozen class: object.__setattr__ is attrs' documented way to fill derived fields.
        derived = {
            # Threshold a party member's defense roll must beat; default 10 + level.
            "effective_attack_threshold": (10 + self.level if self.attack_threshold is None
                                           else self.attack_threshold),
            # Threshold an attack roll against it must beat; default 10 + level.
            "effective_defense_threshold": (10 + self.level if self.defense_threshold is None
                                            else self.defense_threshold),
            # How far its farthest weapon strikes (0 without weapons).
            "reach": max((w.reach for w in self.weapons), default=0.0),
        }
        for name, value in derived.items():
            object.__setattr__(self, name, value)

    def suits(self, weapon: Weapon) -> bool:
        """Whether ``weapon`` is particularly suited to this combatant (d20, rules §3)."""
        return any(kind in weapon.suited for kind in self.kinds)

    def has_gift(self, gift: str) -> bool:
        """Whether this combatant has the named gift (e.g. ``initiative``)."""
        return gift in self.gifts


@attrs.frozen
class Side:
    """A side of the battle: its members in listed (acting) order."""

    name: str
    members: tuple[Combatant, ...]
    party: bool = False
    tactics: Tactics = Tactics()


@attrs.frozen
class Options:
    """Optional rules of the rules (docs/rules), all off (or at their default) unless the scenario says."""

    destiny_points: int = 0  # > 0: 0 HP kills party members, with that many saves (rules §5)
    spirit: bool = False
    outnumbered_at: int = 3
    attacks_per_turn: int | None = None  # d100: cap on attacks in one turn (None: no cap)
    morale_on: bool | None = None  # None: the system's default (on with 2d10)
    # Who holds morale tokens (rules §4): the party's members (seed 000: "pour chaque joueur"),
    # or every side's; without a party side every side holds them either way.
    morale_who: str = "party"
    wound_divisor: int = 2  # morale: a wound of k damage costs floor(k / divisor) tokens
    flee_at: float | None = None  # rout: a side below this fraction of able members flees
    difficulty: int = 10  # d10: the difficulty of a check nothing else sets
    # The Conventions (docs/rules/conventions.md), each a default a scenario may set aside.
    tie_succeeds: bool = True  # d10: a total equal to the difficulty succeeds (rules §1)
    move_and_attack: bool = False  # 2d10, d10: a turn may move, then attack, as d20 (rules §2)
    terror_per: str = "kind"  # d20: terror frightens once per kind of creature, or per body (rules §3)
    critical_pierces: bool = True  # d100: a critical hit ignores armor (rules §3)
    critical_ignores_defense: bool = True  # d100: a critical hit cannot be parried (rules §3)
    fumble_ends_turn: bool = True  # d100: a critical failure on an attack ends the turn (rules §3)
    defense_per: str = "attack"  # d100: a defense roll against every attack, or once a round
    despair_disadvantage: bool = True  # morale: a despairing combatant rolls at disadvantage
    despair_again: bool = False  # morale: a despairing combatant may despair again (rules §4)
    unconscious_rider: str = "slides"  # d100: slides out unhurt, or falls (riding check, 1d10)

    def holds_tokens(self, party: bool, party_side: bool) -> bool:
        """Whether a member of a side holds morale tokens (morale on): the party's members,
        every side's without a party side, or everyone's with ``morale: {who: everyone}``."""
        return party or not party_side or self.morale_who == "everyone"


MORALE_WHO = ("party", "everyone")
TERROR_PER = ("kind", "body")
DEFENSE_PER = ("attack", "round")
UNCONSCIOUS_RIDER = ("slides", "falls")
HAZARD_KINDS = ("water", "smoke", "fire")
ESCAPES = ("move", "none")
TIMELINE_ACTIONS = ("ignite", "poison", "expose", "explode", "fall")


@attrs.frozen
class Hazard:
    """A zone some combatants start in: water or smoke (asphyxia) or fire."""

    kind: str
    members: tuple[str, ...]
    zone: str = ""
    escape: str = "move"  # move: one move leaves the zone; none: only a rescue (water, smoke)


@attrs.frozen
class Scripted:
    """A timeline entry: something happens to some combatants at the start of a round."""

    round: int
    do: str
    targets: tuple[str, ...] = ()  # names; empty with ``side``: every member of that side
    side: str | None = None
    damage: Dice | None = None  # explode (default 3d6+4)
    height: float = 0.0  # fall, in metres
    kind: str = "water"  # expose: water or smoke
    escape: str = "move"  # expose


@attrs.frozen
class Surprise:
    """A surprise round for ``side``; with ``group_check`` it must first pass that group check."""

    side: str
    group_check: str | None = None


@attrs.frozen
class Scenario:
    """A whole encounter, ready to be simulated any number of times."""

    name: str
    rules: str
    sides: tuple[Side, ...]
    max_rounds: int = 100
    distance: float = 0.0
    surprise: Surprise | None = None
    options: Options = Options()
    hazards: tuple[Hazard, ...] = ()
    timeline: tuple[Scripted, ...] = ()
    path: str = ""  # as given on the command line
    abs_path: str = ""  # the same file as an absolute path: a log verifies from anywhere
    sha256: str = ""
    bestiary: tuple[str, ...] = ()  # extra bestiary folders it was loaded with (absolute)
    overrides: tuple[str, ...] = ()  # the --set PATH=VALUE texts applied before validation
    # Valid data this fight leaves idle (sim.scenario.ignored): told before the results, never played.
    warnings: tuple[Problem, ...] = attrs.field(default=(), eq=False, repr=False)

    @property
    def resolved_sha256(self) -> str:
        """SHA-256 of everything a battle depends on, bestiary entries included: a run
        can tell whether its scenario *or its bestiary* changed since."""
        content = (self.name, self.rules, self.sides, self.max_rounds, self.distance,
                   self.surprise, self.options, self.hazards, self.timeline)
        return hashlib.sha256(repr(content).encode()).hexdigest()

    @property
    def combatants(self) -> tuple[Combatant, ...]:
        """Every combatant, side by side in listed order."""
        return tuple(c for side in self.sides for c in side.members)
