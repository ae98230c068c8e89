"""The d100 system of seed 002 (rules §1, §3): roll under a skill, criticals, wounds, fatigue."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from sim.dice import roll_die
from sim.model import Options
from sim.rules import (
    CRITICAL_FAILURE,
    CRITICAL_SUCCESS,
    FAILURE,
    SUCCESS,
    ActionEconomy,
    AttackResult,
    BaseSystem,
    CheckResult,
    DamageResult,
)

if TYPE_CHECKING:
    from sim.model import Combatant, Weapon
    from sim.rules.actors import Fighter, Table

CRITICAL_SUCCESS_MAX = 5  # 01-05: always a critical success
CRITICAL_FAILURE_MIN = 96  # 96-100: always a critical failure
UNSKILLED = -20  # no skill: the characteristic - 20
FATIGUE_PENALTY = 5  # per fatigue point, on physical checks
WEAKENED_PENALTY = 20  # on every check, after a serious wound
DEFAULT_CHARACTERISTIC = 50  # a characteristic the stat block leaves out
CHARACTERISTICS = ("physique", "mental", "social", "force")
PHYSICAL = frozenset({"physique", "force"})
# The characteristic an unskilled check falls back on; anything else is physical.
MENTAL_SKILLS = frozenset({"magic", "spells", "lore", "medicine", "memory", "perception",
                           "observation", "willpower"})
SOCIAL_SKILLS = frozenset({"persuasion", "intimidation", "deception", "sagacity", "speech",
                           "leadership"})
MISS = AttackResult(False)
FUMBLE = AttackResult(False, ends_turn=True)
PARRIED = AttackResult(False, defended=True)
DEFENSE = "defense"


def characteristic(who: Fighter, name: str) -> int:
    """A characteristic's current value (fire may have cost some social)."""
    value = who.spec.characteristics.get(name, DEFAULT_CHARACTERISTIC)
    return value - who.social_lost if name == "social" else value


def base_of(what: str) -> str:
    """The characteristic a skill falls back on when the fighter lacks it."""
    if what in CHARACTERISTICS:
        return what
    if what in MENTAL_SKILLS:
        return "mental"
    return "social" if what in SOCIAL_SKILLS else "physique"


def score_of(who: Fighter, what: str) -> tuple[int, bool]:
    """The score a check rolls under, and whether the check is physical (fatigue counts)."""
    base = base_of(what)
    physical = base in PHYSICAL
    skills = who.spec.skills
    if what in skills:
        return skills[what], physical
    if what in CHARACTERISTICS:
        return characteristic(who, what), physical
    return characteristic(who, base) + UNSKILLED, physical


def attack_skill(weapon: Weapon) -> str:
    """The skill an attack with this weapon rolls: its own, else magic, ranged or melee."""
    return weapon.skill or ("magic" if weapon.psy else "ranged" if weapon.range is not None
                            else "melee")


def attack_score(who: Fighter, weapon: Weapon) -> int:
    """What an attack with this weapon rolls under before the dice: the skill, less fatigue
    (physical skills) and weakness. At 0 or below only the 01-05 critical can still hit."""
    score, physical = score_of(who, attack_skill(weapon))
    return score - penalty(who, physical)


def penalty(who: Fighter, physical: bool) -> int:
    """What the fighter's state takes off a check: 5 a fatigue point (physical checks only),
    20 while weakened by a serious wound."""
    tired = FATIGUE_PENALTY * who.fatigue if physical else 0
    return tired + WEAKENED_PENALTY if who.weakened else tired


def _degree(roll: int, success: bool) -> str:
    if roll <= CRITICAL_SUCCESS_MAX:
        return CRITICAL_SUCCESS
    if roll >= CRITICAL_FAILURE_MIN:
        return CRITICAL_FAILURE
    return SUCCESS if success else FAILURE


def load_fatigue(spec: Combatant) -> int:
    """Encumbrance: over force / 2 + 20 kg, each started 5 kg is 1 fatigue, for as long as the
    load is carried (a rest takes off the fatigue of a fight, never this: rules §3, 7)."""
    force = spec.characteristics.get("force", DEFAULT_CHARACTERISTIC)
    over = spec.load - (force / 2 + 20)
    return math.ceil(over / 5) if over > 0 else 0


def tire(table: Table, fighter: Fighter, points: int, why: str) -> None:
    """Fatigue: each point costs 5 on physical checks."""
    fighter.fatigue += points
    if table.log is not None:
        table.emit("fatigue_gained", actor=fighter.name, amount=points, fatigue=fighter.fatigue,
                   reason=why)


class D100(BaseSystem):
    """Seed 002: roll-under checks, defense rolls, armor, criticals, fatigue, serious wounds."""

    name = "d100"
    serious_wounds = True

    fatigue = True

    def __init__(self, options: Options = Options()) -> None:  # noqa: B008 (frozen, shared)
        super().__init__(options)
        # The Conventions of rules §3 a scenario may set aside (read once, here).
        self.critical_pierces = options.critical_pierces
        self.critical_ignores_defense = options.critical_ignores_defense
        self.fumble = FUMBLE if options.fumble_ends_turn else MISS
        self.defense_per_round = options.defense_per == "round"
        # One action or two half-actions; ``attacks_per_turn`` caps attacks.
        self.economy = ActionEconomy(
            budget=2, move_cost=1, attack_cost=1, two_handed_cost=2, ranged_cost=2,
            max_moves=2, max_attacks=options.attacks_per_turn or 2, move_after_attack=True,
            run_cost=2, spell_cost=2, stand_cost=1, item_cost=1,
        )

    def scale(self, percent: int) -> int:
        """The seeds write modifiers in d100 percent: unchanged."""
        return percent

    def check(
        self, table: Table, who: Fighter, what: str, modifier: int = 0, advantage: int = 0,
        purpose: str | None = None,
    ) -> CheckResult:
        """A roll (see ``roll``), then the morale reroll when morale is on."""
        result = self.roll(table, who, what, modifier, advantage, purpose)
        if table.on_check is None:
            return result
        return table.on_check(who, what, result, lambda again: self.roll(
            table, who, what, modifier, advantage, again))

    def roll(
        self, table: Table, who: Fighter, what: str, modifier: int = 0, advantage: int = 0,
        purpose: str | None = None,
    ) -> CheckResult:
        """1d100 under score + modifiers; 01-05 and 96-100 are criticals whatever the target.

        Fatigue costs 5 a point on physical checks; weakened costs 20 on every check.
        Advantage rolls twice and keeps the better (lower) roll. ``purpose`` names the
        check in the log when it differs from the skill rolled (an attack rolls melee).
        """
        if who.despairing and table.despair_disadvantage:  # morale: despair's disadvantage
            advantage = -1 if advantage <= 0 else 0
        score, physical = score_of(who, what)
        modifier -= penalty(who, physical)
        target = score + modifier
        first = roll_die(table.rng, 100)
        if advantage:
            second = roll_die(table.rng, 100)
            dice: tuple[int, ...] = (first, second)
            roll = min(first, second) if advantage > 0 else max(first, second)
        else:
            dice, roll = (first,), first
        degree = _degree(roll, roll <= target)
        success = degree in (SUCCESS, CRITICAL_SUCCESS)
        margin = target - roll
        if table.log is not None:
            table.emit(
                "check_rolled", actor=who.name, purpose=purpose or what, system="d100",
                dice=list(dice), kept=roll, advantage=advantage, modifier=modifier, total=roll,
                target=target, success=success, degree=degree, margin=margin, score=score,
                skill=what,
            )
        return CheckResult(dice, roll, modifier, roll, target, success, margin, degree)

    def attack(
        self, table: Table, attacker: Fighter, target: Fighter, weapon: Weapon, advantage: int
    ) -> AttackResult:
        """Roll under the weapon skill; a hit may be parried or dodged once, unless critical.

        A two-handed weapon costs 1 fatigue; a fumble (critical failure) ends the turn.
        Options set aside each Convention: ``critical_ignores_defense: false`` lets a
        critical be parried, ``fumble_ends_turn: false`` makes a fumble a plain miss,
        ``defense_per: round`` gives the target one defense roll a round.
        """
        check = self.check(table, attacker, attack_skill(weapon), 0, advantage, purpose="attack")
        if weapon.hands >= 2 or weapon.bow:  # a bow's fatigue, whatever its hands (rules §2)
            tire(table, attacker, 1, "bow" if weapon.bow else "two-handed weapon")
        if check.degree == CRITICAL_FAILURE:
            return self.fumble
        if not check.success:
            return MISS
        critical = check.degree == CRITICAL_SUCCESS
        if (not critical or not self.critical_ignores_defense) and target.able \
                and self._defends(table, target):
            return PARRIED
        return AttackResult(True, critical)

    def _defends(self, table: Table, target: Fighter) -> bool:
        """The target's defense roll; with ``defense_per: round``, only its first this round."""
        if self.defense_per_round:
            if target.defended_round == table.round:
                return False
            target.defended_round = table.round
        return self.check(table, target, DEFENSE).success

    def damage(
        self, table: Table, attacker: Fighter, target: Fighter, weapon: Weapon,
        attack: AttackResult,
    ) -> DamageResult:
        """Weapon dice + bonuses - armor, never below 0; a critical hit pierces armor (unless
        ``critical_pierces: false``)."""
        piercing = weapon.armor_piercing or (attack.critical and self.critical_pierces)
        return self.weapon_damage(table, target, weapon, attack.damage_bonus, piercing)

    def after_damage(self, table: Table, target: Fighter, amount: int) -> int:
        """Serious wound: one instance of at least half the maximum HP, still conscious:
        physique check; failure, unconscious 1d4 rounds (returned), then weakened."""
        if amount * 2 < target.max_hp or not target.able or target.hp == 0:
            return 0
        if self.check(table, target, "physique").success:
            return 0
        return roll_die(table.rng, 4)

    def mount_bonus(self, mount: Fighter) -> int:
        """A good riding check adds a tenth of the mount's force to the damage."""
        return characteristic(mount, "force") // 10

    def prepare(self, table: Table, fighter: Fighter) -> None:
        """Encumbrance: over force / 2 + 20 kg, each started 5 kg is 1 fatigue."""
        fighter.fatigue += load_fatigue(fighter.spec)
