"""The d20 system of seed 003 (rules §1, §3): 1d20 + modifier > threshold, heroism dice."""

from __future__ import annotations

from typing import TYPE_CHECKING

from sim.dice import roll_die
from sim.model import INITIATIVE_GIFT
from sim.rules import (
    CRITICAL_FAILURE,
    CRITICAL_SUCCESS,
    D20_TURN,
    FAILURE,
    SUCCESS,
    AttackResult,
    BaseSystem,
    CheckResult,
    DamageResult,
    flat_part,
    majority_check,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

    from sim.dice import Dice
    from sim.model import Weapon
    from sim.rules import Frighten
    from sim.rules.actors import Arm, Fighter, Table

STANDARD_TARGET = 16  # "1d20 + niveau du personnage > 16"
MOVEMENT_ARTS = frozenset({"acrobatics", "athletics", "stealth"})
MOVEMENT_ART_TRAINING = 6
CRITICAL_MARGIN = 10  # margin >= 10 (or <= -10) is a critical, whatever the die
HEROISM_DIE = 6
EXTRA_DAMAGE_DIE = 4  # the +1d4 of a surprise attack, a critical or a suited weapon
# Shared: a miss, a plain hit and an extra-damage hit carry nothing else (no heroism d6).
MISS = AttackResult(False)
HIT = AttackResult(True)
EXTRA_HIT = AttackResult(True, True)


def concerns_aspect(who: Fighter, purpose: str, weapon: Weapon | None) -> bool:
    """Whether a roll concerns one of ``who``'s aspects (no aspects listed: every roll does).

    An aspect matches a roll's purpose (``attack``, ``defense``, ``terror``,
    ``stealth``...), or the name or skill of the weapon used.
    """
    aspects = who.spec.aspects
    if aspects is None:
        return True
    if purpose in aspects:
        return True
    return weapon is not None and (weapon.name in aspects or weapon.skill in aspects)


def _spend_heroism(table: Table, who: Fighter) -> int:
    """Spend one heroism die and return the d6 it adds."""
    who.heroism -= 1
    bonus = roll_die(table.rng, HEROISM_DIE)
    if table.log is not None:
        table.emit(
            "resource_spent", actor=who.name, resource="heroism", amount=1,
            roll=bonus, left=who.heroism,
        )
    return bonus


def despaired(table: Table, who: Fighter, advantage: int) -> int:
    """The advantage a check is rolled at: despair (morale) makes it a disadvantage, unless
    the options set that aside (rules §4)."""
    if who.despairing and table.despair_disadvantage:
        return -1 if advantage <= 0 else 0
    return advantage


def roll_d20(table: Table, who: Fighter, purpose: str, modifier: int, target: int, advantage: int,
             weapon: Weapon | None, aspect: str | None) -> tuple[int, int, int, int]:
    """The dice of one check at ``advantage``: (first d20, second d20 or 0, the one kept, the
    heroism d6 spent or 0). Heroism "when it can help": only after a failure short by 5 or
    less, the most a d6 can make up, and only on a roll concerning an aspect. Every d20 roll
    of an attack, a defense or a check comes here (``roll_check``, ``strike``)."""
    draw = table.draw
    first = kept = int(draw() * 20) + 1  # roll_die(rng, 20), inlined
    second = 0
    if advantage:
        second = int(draw() * 20) + 1
        kept = max(first, second) if advantage > 0 else min(first, second)
    total = kept + modifier
    if (total <= target and who.heroism > 0 and target - total < HEROISM_DIE
            and concerns_aspect(who, aspect or purpose, weapon)):
        return first, second, kept, _spend_heroism(table, who)
    return first, second, kept, 0


def degree_of(kept: int, margin: int) -> str:
    """A check's degree (rules §1): a success beats the target; a natural 20 (1) or a margin
    of 10 or more (-10 or less) is a critical one, whatever the die."""
    if margin > 0:
        return CRITICAL_SUCCESS if kept == 20 or margin >= CRITICAL_MARGIN else SUCCESS
    return CRITICAL_FAILURE if kept == 1 or margin <= -CRITICAL_MARGIN else FAILURE


def attack_roll(attacker: Fighter, target: Fighter, bonus: int, advantage: int
                ) -> tuple[bool, int, int, int]:
    """How an attack is rolled, as (whether the attacker rolls, modifier, target number,
    advantage): the players roll (rules §3). A party member, or anyone attacking a non-party
    target, rolls 1d20 + level + weapon ``bonus`` > defense threshold. A non-party attacker
    makes the party member defend: 1d20 + armor > attack threshold, and anything that favours
    the attacker puts the defender at disadvantage."""
    if attacker.party or not target.party:
        return True, attacker.level + bonus, target.defense_threshold, advantage
    return False, target.armor, attacker.attack_threshold, -advantage


def landed(attacking: bool, degree: str) -> tuple[bool, bool]:
    """(hit, critical) of an attack's check: the attacker's success or the defender's
    failure; critical at a critical one."""
    if attacking:
        return degree in (SUCCESS, CRITICAL_SUCCESS), degree == CRITICAL_SUCCESS
    return degree in (FAILURE, CRITICAL_FAILURE), degree == CRITICAL_FAILURE


def roll_check(
    table: Table,
    who: Fighter,
    purpose: str,
    modifier: int,
    target: int,
    advantage: int = 0,
    weapon: Weapon | None = None,
    morale: bool = True,
    aspect: str | None = None,
) -> CheckResult:
    """Roll 1d20 (2d20 keep best/worst with advantage), spend heroism if it can help, log it.

    Heroism policy "when it can help": only after a failure short by 5 or
    less, the most a d6 can make up, and only on a roll concerning an aspect.
    The d6 joins the modifier so that ``kept + modifier == total`` still holds.
    ``aspect`` is what the roll concerns when it is not its purpose: a morale reroll
    concerns the aspect of the roll it repeats (rules §3).
    """
    advantage = despaired(table, who, advantage)
    first, second, kept, bonus = roll_d20(table, who, purpose, modifier, target, advantage, weapon,
                                          aspect)
    dice = tuple([first, second] if advantage else [first])  # lists: both branches one type
    modifier += bonus
    total = kept + modifier
    success = total > target
    margin = total - target
    degree = degree_of(kept, margin)
    log = table.log
    if log is not None:
        # A dict literal, not emit(**fields): the most frequent event, built once.
        event = {
            "event": "check_rolled", "round": table.round, "t": table.t,
            "actor": who.name, "purpose": purpose, "system": "d20", "dice": list(dice),
            "kept": kept, "advantage": advantage, "modifier": modifier, "total": total,
            "target": target, "success": success, "degree": degree, "margin": margin,
        }
        if bonus:
            event["heroism"] = bonus
        log.append(event)
    result = CheckResult(dice, kept, modifier, total, target, success, margin, degree, bonus)
    if morale and table.on_check is not None:  # morale listens: the reroll of a failure
        base = modifier - bonus
        result = table.on_check(who, purpose, result, lambda again: roll_check(
            table, who, again, base, target, advantage, weapon, morale=False, aspect=purpose))
    return result


def strike(
    table: Table, attacker: Fighter, target: Fighter, arm: Arm, advantage: int
) -> int:
    """``attack`` then ``damage`` in one call, for a battle that logs nothing and where
    nothing listens to checks (no morale): the HP a plain weapon's hit takes, or -1 for a
    miss. The same dice in the same order, the same heroism; no result objects on the
    way (the engine's hot path, tested equal to the two calls). The weapon comes as its
    ``Arm``, its numbers read in place. A module function, the class's ``strike``, so a
    compiled build types it (d20.pxd)."""
    weapon = arm.weapon
    attacking, modifier, threshold, advantage = attack_roll(attacker, target, arm.bonus, advantage)
    if attacking:
        roller, purpose, used = attacker, "attack", weapon
    else:
        roller, purpose, used = target, "defense", None
    advantage = despaired(table, roller, advantage)
    _, _, kept, bonus = roll_d20(table, roller, purpose, modifier, threshold, advantage, used, None)
    hit, critical = landed(attacking, degree_of(kept, kept + modifier + bonus - threshold))
    if not hit:
        return -1
    if not attacking:
        bonus = 0  # a defender's heroism d6 is no damage
    amount = arm.roll(table.rng)
    if critical or attacker.side == table.surprising or (
            arm.suited and target.spec.suits(weapon)):
        amount += roll_die(table.rng, EXTRA_DAMAGE_DIE)
    amount += bonus
    return amount if amount > 0 else 0


class D20(BaseSystem):
    """Seed 003: checks, player-facing attack and defense rolls, heroism, spirit and terror."""

    name = "d20"
    serious_wounds = False
    outnumbering = True
    morale_default = False
    economy = D20_TURN  # "move, then a single attack" (or an item in the attack's place)

    def scale(self, percent: int) -> int:
        """Percent to d20 points: p / 5, rounded toward zero."""
        return int(percent / 5)

    def check(
        self, table: Table, who: Fighter, what: str, modifier: int = 0, advantage: int = 0
    ) -> CheckResult:
        """Standard check 1d20 + level > 16; movement arts add 6 and subtract armor."""
        base = who.spec.level
        if what in MOVEMENT_ARTS:
            base += MOVEMENT_ART_TRAINING - who.spec.armor
        return roll_check(table, who, what, base + self.scale(modifier), STANDARD_TARGET, advantage)

    def attack(
        self, table: Table, attacker: Fighter, target: Fighter, weapon: Weapon, advantage: int
    ) -> AttackResult:
        """Player-facing rolls: the party always rolls, attacking or defending (``attack_roll``)."""
        # +1d4 on a hit: a surprise attack, or one particularly suited to its target
        extra = attacker.side == table.surprising or (
            bool(weapon.suited) and target.spec.suits(weapon))
        attacking, modifier, threshold, advantage = attack_roll(attacker, target, weapon.bonus,
                                                                advantage)
        if attacking:
            check = roll_check(table, attacker, "attack", modifier, threshold, advantage, weapon)
        else:
            check = roll_check(table, target, "defense", modifier, threshold, advantage)
        hit, critical = landed(attacking, check.degree)
        if not hit:
            return MISS
        bonus = check.bonus if attacking else 0  # a defender's heroism d6 is no damage
        if bonus:
            return AttackResult(True, extra or critical, bonus)
        return EXTRA_HIT if extra or critical else HIT

    strike = staticmethod(strike)  # attack then damage, fused (the module's strike)

    def damage(
        self, table: Table, attacker: Fighter, target: Fighter, weapon: Weapon,
        attack: AttackResult,
    ) -> DamageResult:
        """The weapon's dice, +1d4 once on an extra-damage hit (surprise, critical, suited: they
        never stack), + the heroism d6; no armor."""
        if table.log is None:  # nobody will read the natural dice: take the fast sampler
            amount, dice = weapon.damage.roll(table.rng), ()
        else:
            amount, dice = weapon.damage.roll_dice(table.rng)
        if attack.critical:
            extra = roll_die(table.rng, EXTRA_DAMAGE_DIE)
            amount += extra
            dice = (*dice, extra)
        amount += attack.damage_bonus
        flat = flat_part(table, amount, dice)
        return DamageResult(amount if amount > 0 else 0, dice, weapon.armor_piercing, flat)

    def prepare(self, table: Table, fighter: Fighter) -> None:
        """With the spirit option, a party member rolls its spirit points for the battle."""
        if not (self.options.spirit and fighter.party):
            return
        spec = fighter.spec
        if spec.spirit is not None:
            points = spec.spirit.roll(table.rng)
        else:
            # 1d12+3 at level 1, +1d12 per level after: level d12 + 3.
            points = sum(roll_die(table.rng, 12) for _ in range(max(1, spec.level))) + 3
        fighter.spirit = fighter.max_spirit = max(0, points)

    def round_started(self, table: Table, fighters: Sequence[Fighter], frighten: Frighten) -> None:
        """Round 1 with the spirit option: terror creatures frighten the party."""
        if table.round == 1 and self.options.spirit:
            self._terror(table, fighters, frighten)

    def _terror(self, table: Table, fighters: Sequence[Fighter], frighten: Frighten) -> None:
        """Each kind of terror creature (the members made from one stat block) frightens each
        party member once, in round 1 (it is seen then): a failed standard check loses the
        kind's terror dice in spirit. Rolled per kind, not per body (rules §3, Convention);
        ``terror_per: body`` makes every body a kind of its own."""
        per_body = self.options.terror_per == "body"
        kinds: dict[str, tuple[Fighter, Dice]] = {}  # kind -> its first able member, terror
        for creature in fighters:
            terror = creature.spec.terror
            if not creature.party and terror is not None and creature.able:
                kind = creature.name if per_body else creature.spec.kind or creature.name
                kinds.setdefault(kind, (creature, terror))
        for creature, terror in kinds.values():
            for member in fighters:
                frightened = member.party and member.able and member.spirit is not None
                if frightened and not self.check(table, member, "terror").success:
                    frighten(member, terror.roll(table.rng), creature)

    def group_check(self, table: Table, members: Sequence[Fighter], what: str) -> bool:
        """Group action: a majority of successes; a tie rolls 1d6 (1d8 with the gift), 4+."""
        die = 8 if any(m.spec.has_gift(INITIATIVE_GIFT) for m in members) else 6
        return majority_check(table, members, what, lambda m: self.check(table, m, what), die)

    def mount_bonus(self, mount: Fighter) -> int:
        """d20 stat blocks have no force: riding adds nothing."""
        return 0

    def absorb(self, target: Fighter, amount: int) -> int:
        """Armor feeds the defense roll in this system; it never reduces damage."""
        return amount

    def after_damage(self, table: Table, target: Fighter, amount: int) -> int:
        """Nothing: the d20 system has no serious wounds."""
        return 0
