"""The open-ended d10 system of seed 001 (rules §1, §3): attribute + skill + open d10."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sim.model import Options
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
    import random

    from sim.model import Weapon
    from sim.rules.actors import Fighter, Table

MAX_CHAIN = 100  # a safety valve, never reached in practice (rules §1)
DEFAULT_ATTRIBUTE = 3  # an attribute the stat block leaves out (Convention)
MARGIN_PER_DAMAGE = 5  # damage + floor(margin / 5)
# The attribute a check leans on when its name is not an attribute itself.
ALIASES = {"force": "strength"}
MISS = AttackResult(False)


def open_d10(rng: random.Random) -> tuple[int, tuple[int, ...]]:
    """The open-ended d10: sign +1; add sign x die; a 10 rolls again; a 1 flips the sign of
    what follows and rolls again; 2..9 stops. Returns (sum, every die in order).

    7 -> 7; 10,4 -> 14; 1,6 -> 1-6 = -5; 1,10,3 -> 1-10-3 = -12; 1,1,5 -> 1-1+5 = 5.
    """
    sign, total, chain = 1, 0, []
    while len(chain) < MAX_CHAIN:
        die = int(rng.random() * 10) + 1  # roll_die(rng, 10), inlined
        chain.append(die)
        total += sign * die
        if die == 1:
            sign = -sign
        elif die != 10:
            break
    return total, tuple(chain)


def attack_skill(weapon: Weapon) -> str:
    """The skill an attack rolls: the weapon's own, else ranged or melee."""
    return weapon.skill or ("ranged" if weapon.range is not None else "melee")


def attribute(who: Fighter, name: str) -> int:
    name = ALIASES.get(name, name)
    return who.spec.attributes.get(name, DEFAULT_ATTRIBUTE)


def score_of(who: Fighter, what: str) -> int:
    """attribute + skill: an attribute alone, or a skill on physique."""
    name = ALIASES.get(what, what)
    if name in who.spec.attributes or name in ("physique", "strength", "agility"):
        return attribute(who, name)
    return attribute(who, "physique") + who.spec.skills.get(what, 0)


class OpenD10(ScoreSystem):
    """Seed 001: the open-ended d10 plus attribute and skill against a difficulty."""

    name = "d10"

    def __init__(self, options: Options = Options()) -> None:  # noqa: B008 (frozen, shared)
        super().__init__(options)
        # What a total must reach past the difficulty: 0, a tie succeeds (the Convention);
        # 1 with ``tie_succeeds: false``, the seed's "greater succeeds" read strictly.
        self.beat = 0 if options.tie_succeeds else 1

    def scale(self, percent: int) -> int:
        """p / 10, rounded toward zero (a difficulty change of the opposite sign)."""
        return int(percent / 10)

    def roll(self, table: Table, who: Fighter, purpose: str, score: int, difficulty: int,
             advantage: int, skill: str) -> CheckResult:
        """total = score + open d10 (+ modifier); success iff total >= difficulty (ties succeed;
        with ``tie_succeeds: false`` iff total > difficulty).

        Advantage (when a rule grants it) rolls two chains and keeps the better sum.
        """
        if who.despairing and table.despair_disadvantage:
            advantage = -1 if advantage <= 0 else 0
        kept, chain = open_d10(table.rng)
        dice = chain
        if advantage:
            other, other_chain = open_d10(table.rng)
            dice = (*chain, *other_chain)  # every natural die, in order
            if (other > kept) if advantage > 0 else (other < kept):
                kept, chain = other, other_chain
        total = kept + score
        success = total - difficulty >= self.beat
        if success:
            degree = CRITICAL_SUCCESS if 10 in chain else SUCCESS
        else:
            degree = CRITICAL_FAILURE if 1 in chain else FAILURE
        margin = total - difficulty
        if table.log is not None:
            table.emit(
                "check_rolled", actor=who.name, purpose=purpose, system="d10", dice=list(dice),
                kept=kept, advantage=advantage, modifier=score, total=total, target=difficulty,
                success=success, degree=degree, margin=margin, chain=list(chain), skill=skill,
            )
        return CheckResult(dice, kept, score, total, difficulty, success, margin, degree)

    def check(
        self, table: Table, who: Fighter, what: str, modifier: int = 0, advantage: int = 0
    ) -> CheckResult:
        """attribute + skill + open d10 + the scaled modifier against the scenario's difficulty."""
        score = score_of(who, what) + self.scale(modifier)
        return self.checked(table, who, what, score, self.options.difficulty,
                             advantage, what)

    def attack(
        self, table: Table, attacker: Fighter, target: Fighter, weapon: Weapon, advantage: int
    ) -> AttackResult:
        """open d10 + attribute + weapon skill against the target's defense."""
        skill = attack_skill(weapon)
        score = attribute(attacker, weapon.attribute or "agility") + attacker.spec.skills.get(skill, 0)
        check = self.checked(table, attacker, "attack", score, target.spec.defense, advantage,
                              skill)
        if not check.success:
            return MISS
        # The margin rides along as a damage bonus: floor(margin / 5).
        return AttackResult(True, check.degree == CRITICAL_SUCCESS,
                            check.margin // MARGIN_PER_DAMAGE)

    def damage(
        self, table: Table, attacker: Fighter, target: Fighter, weapon: Weapon,
        attack: AttackResult,
    ) -> DamageResult:
        """Weapon dice + floor(margin / 5) + bonus - armor, never below 0."""
        return self.weapon_damage(table, target, weapon, attack.damage_bonus,
                                  weapon.armor_piercing)

    def mount_bonus(self, mount: Fighter) -> int:
        """rules §6: a tenth of the mount's force (strength, this system's force), rounded down."""
        return attribute(mount, "strength") // 10
