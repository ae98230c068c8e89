"""The 2d10 quality system of seed 000 (rules §1, §3): Q = SR - R, four bands, morale on."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sim.dice import roll_die
from sim.rules import (
    CRITICAL_FAILURE,
    CRITICAL_SUCCESS,
    FAILURE,
    SUCCESS,
    AttackResult,
    CheckResult,
    DamageResult,
    ScoreSystem,
)

if TYPE_CHECKING:
    from sim.model import Weapon
    from sim.rules.actors import Fighter, Table

EXPLOIT_ABOVE = 7  # Q > 7: exploit
DISASTER_BELOW = -7  # Q < -7: disaster
DEFAULT_CHARACTERISTIC = 5  # a characteristic the stat block leaves out (Convention)
COMBAT = "combat"
MISS = AttackResult(False)


def band(quality: int) -> str:
    """The degree of a quality: disaster, failure, success or exploit."""
    if quality < DISASTER_BELOW:
        return CRITICAL_FAILURE
    if quality < 0:
        return FAILURE
    return SUCCESS if quality <= EXPLOIT_ABOVE else CRITICAL_SUCCESS


def attack_skill(weapon: Weapon) -> str:
    """The skill an attack rolls: the weapon's own, else the skill named after the weapon."""
    return weapon.skill or weapon.name


def characteristic(who: Fighter, name: str) -> int:
    return who.spec.characteristics.get(name, DEFAULT_CHARACTERISTIC)


def score_of(who: Fighter, what: str) -> int:
    """characteristic + skill: a characteristic alone, or a skill on physique (or on combat
    for the weapon skills an attack names)."""
    if what in who.spec.characteristics:
        return characteristic(who, what)
    if what in ("physique", "force", "mental", "social", COMBAT):
        return characteristic(who, "physique" if what == "force" else what)
    return characteristic(who, "physique") + who.spec.skills.get(what, 0)


class Quality(ScoreSystem):
    """Seed 000: roll 2d10 (2d8 with advantage, 2d12 with disadvantage) under SR."""

    name = "2d10"
    morale_default = True

    def scale(self, percent: int) -> int:
        """Percent to ladder points: p / 5, rounded toward zero (-10% is laborious, -2)."""
        return int(percent / 5)

    def roll(self, table: Table, who: Fighter, purpose: str, score: int, difficulty: int,
             advantage: int, skill: str) -> CheckResult:
        """R = 2dN; SR = score + difficulty; Q = SR - R; success iff Q >= 0. Logged."""
        if who.despairing and table.despair_disadvantage:
            advantage = -1 if advantage <= 0 else 0  # despair: every check at disadvantage
        sides = 8 if advantage > 0 else 12 if advantage < 0 else 10
        dice = (roll_die(table.rng, sides), roll_die(table.rng, sides))
        r = dice[0] + dice[1]
        sr = score + difficulty
        quality = sr - r
        degree = band(quality)
        success = quality >= 0
        if table.log is not None:
            table.emit(
                "check_rolled", actor=who.name, purpose=purpose, system="2d10", dice=list(dice),
                kept=r, advantage=advantage, modifier=difficulty, total=r, target=sr,
                success=success, degree=degree, margin=quality, score=score, skill=skill,
            )
        return CheckResult(dice, r, difficulty, r, sr, success, quality, degree)

    def check(
        self, table: Table, who: Fighter, what: str, modifier: int = 0, advantage: int = 0
    ) -> CheckResult:
        """SR = characteristic + skill + difficulty (the percent modifier, scaled)."""
        return self.checked(table, who, what, score_of(who, what), self.scale(modifier),
                             advantage, what)

    def attack(
        self, table: Table, attacker: Fighter, target: Fighter, weapon: Weapon, advantage: int
    ) -> AttackResult:
        """SR = combat + weapon skill - target defense; a hit iff Q >= 0. An exploit adds a
        weapon die; a disaster costs the attacker its next turn."""
        skill = attack_skill(weapon)
        score = characteristic(attacker, COMBAT) + attacker.spec.skills.get(skill, 0)
        check = self.checked(table, attacker, "attack", score, -target.spec.defense, advantage,
                              skill)
        if check.degree == CRITICAL_FAILURE:
            attacker.skip_turns += 1
            return MISS
        if not check.success:
            return MISS
        return AttackResult(True, check.degree == CRITICAL_SUCCESS)

    def damage(
        self, table: Table, attacker: Fighter, target: Fighter, weapon: Weapon,
        attack: AttackResult,
    ) -> DamageResult:
        """Weapon dice (+ one more weapon die on an exploit) + bonus - armor, never below 0."""
        return self.weapon_damage(table, target, weapon, attack.damage_bonus,
                                  weapon.armor_piercing, extra_die=attack.critical)

    def mount_bonus(self, mount: Fighter) -> int:
        """rules §6: a tenth of the mount's force, rounded down (its physique for a mount
        without force)."""
        return characteristic(mount, "force" if "force" in mount.spec.characteristics
                              else "physique") // 10
