"""The small interface every rule system provides: check, attack, damage, scale, economy.

A rule system is built once per scenario options (``sim.rules.systems.system_for``)
and holds no battle state: it rolls with the ``Table`` it is handed (dice, event
log, clock) and reads or changes only the fighters it is given. It never calls
morale: a check ends in ``table.on_check``, where morale listens when it is on.
Modifiers passed to ``check`` are in d100 percent, as the seeds write them; each
system converts them with its own ``scale``.

May import: ``sim.model``, ``sim.dice`` and the layers below; never the engine that
calls them, not even for type hints (``sim.rules.actors`` holds the Protocols of the
fighter and the table it hands over).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple, Protocol

import attrs

from sim.dice import roll_die
from sim.model import Options, Weapon

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from sim.rules.actors import Fighter, Table

    # (member, spirit lost, the creature that frightened it): d20 terror, applied by the engine.
    Frighten = Callable[[Fighter, int, Fighter], None]

CRITICAL_FAILURE = "critical_failure"
FAILURE = "failure"
SUCCESS = "success"
CRITICAL_SUCCESS = "critical_success"
GROUP_TIE_SUCCESS = 4  # a tied group action succeeds on 4+ (rules §3, seed 003)


# The three result records below are NamedTuples rather than frozen attrs classes:
# one is built on every roll, and a frozen attrs instance costs three times as much
# to create (measured: 1.5 us against 0.5 us). They are just as immutable.


class CheckResult(NamedTuple):
    """The outcome of one check, as rules §1 defines its fields."""

    dice: tuple[int, ...]
    kept: int
    modifier: int
    total: int
    target: int
    success: bool
    margin: int
    degree: str
    bonus: int = 0  # a heroism d6 already counted in modifier and total (d20)


def flat_part(table: Table, total: int, dice: tuple[int, ...]) -> int:
    """What a roll adds to its natural dice (bonuses), for the log only: 0 when nothing logs."""
    return total - sum(dice) if table.log is not None else 0


class AttackResult(NamedTuple):
    """Whether an attack hit, and what the hit carries into the damage roll."""

    hit: bool
    critical: bool = False  # an extra-damage hit (d20: +1d4; d100: armor-piercing)
    damage_bonus: int = 0  # flat damage added on a hit (d20: the heroism d6)
    defended: bool = False  # hit, then parried or dodged (d100)
    ends_turn: bool = False  # a fumble (d100 critical failure) ends the attacker's turn


class DamageResult(NamedTuple):
    """Damage of one hit before it is applied, and the natural dice behind it."""

    amount: int
    dice: tuple[int, ...]
    armor_piercing: bool = False
    bonus: int = 0  # the flat part added to the dice, before armor (filled when logging)


@attrs.frozen
class ActionEconomy:
    """What a turn allows, in half-action units (rules §2, action economy)."""

    budget: int
    move_cost: int
    attack_cost: int
    two_handed_cost: int
    ranged_cost: int
    max_moves: int
    max_attacks: int
    move_after_attack: bool = True  # d20 is "move, then a single attack": False
    run_cost: int | None = None  # d100: run (2 x Movement) is a full action
    spell_cost: int = 2
    stand_cost: int = 1  # standing up after a fall
    # Drinking a potion or giving an item (rules §8): a half-action in d100; None, the
    # whole turn (the turn's action in d20, 2d10 and d10).
    item_cost: int | None = None
    # d20 (rules §2, §8): a drink or a gift takes the attack's place, never the move: the
    # fighter moves first (if it means to), then uses the item instead of attacking.
    item_after_move: bool = False

    @property
    def item_turn_cost(self) -> int:
        """Half-actions a drink or a gift takes."""
        return self.budget if self.item_cost is None else self.item_cost

    def cost_of(self, weapon: Weapon) -> int:
        """Half-actions an attack with this weapon uses."""
        if weapon.psy:
            return self.spell_cost
        if weapon.bow:  # a ranged weapon not thrown, whatever its hands (rules §2)
            return self.ranged_cost
        # A one-handed weapon, thrown or not (knives, darts, a firepot), is a half-action.
        return self.two_handed_cost if weapon.hands >= 2 else self.attack_cost


class RuleSystem(Protocol):
    """What the engine needs from a resolution system."""

    name: str
    outnumbering: bool  # whether the outnumbered rule of seed 003 applies
    morale_default: bool  # morale tokens on unless the scenario says (2d10: on)
    serious_wounds: bool  # whether after_damage does anything (d100)
    fatigue: bool  # whether fighters tire (d100): a shot can become hopeless
    economy: ActionEconomy  # what a turn allows under the scenario's options
    # attack then damage fused, for battles with no log and no check listener: the HP a plain
    # weapon's hit takes, or -1 for a miss (d20 has one; None: the engine calls both). Only for
    # a system whose attacks never end the turn: the engine's fused path never does.
    strike: Callable[[Table, Fighter, Fighter, Weapon, int], int] | None

    def scale(self, percent: int) -> int:
        """Convert a d100-percent modifier into this system's units, rounding toward zero."""
        ...

    def check(
        self, table: Table, who: Fighter, what: str, modifier: int = 0, advantage: int = 0
    ) -> CheckResult:
        """Roll a check for ``who``; ``modifier`` is in percent; logs ``check_rolled``."""
        ...

    def attack(
        self, table: Table, attacker: Fighter, target: Fighter, weapon: Weapon, advantage: int
    ) -> AttackResult:
        """Resolve whether ``attacker`` hits ``target`` (attack and defense rolls)."""
        ...

    def damage(
        self, table: Table, attacker: Fighter, target: Fighter, weapon: Weapon,
        attack: AttackResult,
    ) -> DamageResult:
        """Roll the damage of a hit (minus armor where the system says so), never below 0."""
        ...

    def absorb(self, target: Fighter, amount: int) -> int:
        """What armor leaves of ``amount`` (an explosion, say); never below 0."""
        ...

    def mount_bonus(self, mount: Fighter) -> int:
        """Damage a successful riding check adds for an attack from this mount's saddle."""
        ...

    def after_damage(self, table: Table, target: Fighter, amount: int) -> int:
        """Whatever one instance of damage triggers: the turns a serious wound knocks the
        target out for (d100), 0 for none. The engine starts the knock-out."""
        ...

    def prepare(self, table: Table, fighter: Fighter) -> None:
        """Roll the per-battle pools this system gives a fighter (after its HP)."""
        ...

    def round_started(self, table: Table, fighters: Sequence[Fighter], frighten: Frighten) -> None:
        """Anything the system does at the start of a round, after initiative (d20: terror,
        which costs spirit through ``frighten``)."""
        ...

    def group_check(self, table: Table, members: Sequence[Fighter], what: str) -> bool:
        """A group action of ``members``: one check each, then the system's majority rule."""
        ...


def majority_check(
    table: Table, members: Sequence[Fighter], what: str,
    check: Callable[[Fighter], CheckResult], tie_die: int,
) -> bool:
    """Group action: a majority of successes; a tie rolls 1d``tie_die``, 4+ succeeds."""
    successes = sum(check(m).success for m in members)
    failures = len(members) - successes
    tie_roll = None
    if successes == failures:
        tie_roll = roll_die(table.rng, tie_die)
        success = tie_roll >= GROUP_TIE_SUCCESS
    else:
        success = successes > failures
    if table.log is not None:
        table.emit(
            "group_check_resolved", what=what, members=[m.name for m in members],
            successes=successes, failures=failures, tie_roll=tie_roll, success=success,
        )
    return success


class BaseSystem:
    """Defaults a system keeps unless its seed says otherwise: no serious wounds, no
    fatigue, nothing to prepare or to do at a round's start, armor absorbing its value of
    damage, and the seed-003 group action (majority, a tie on 4+ of 1d6) for want of
    another. Built once per scenario ``options``: what a system reads of them it reads
    here, never during a battle."""

    serious_wounds = False
    outnumbering = False
    morale_default = False
    fatigue = False
    economy: ActionEconomy
    strike: Callable[[Table, Fighter, Fighter, Weapon, int], int] | None = None

    def __init__(self, options: Options = Options()) -> None:  # noqa: B008 (frozen, shared)
        self.options = options

    def check(self, table: Table, who: Fighter, what: str, modifier: int = 0,
              advantage: int = 0) -> CheckResult:
        raise NotImplementedError

    def absorb(self, target: Fighter, amount: int) -> int:
        """Armor absorbs its value of any damage that is not armor-piercing."""
        return max(0, amount - target.spec.armor)

    def weapon_damage(self, table: Table, target: Fighter, weapon: Weapon, bonus: int,
                      piercing: bool, extra_die: bool = False) -> DamageResult:
        """The weapon's dice (+ one more of its dice, its largest; for constant damage such as
        ``damage: 4``, that constant again) + its bonus + ``bonus``, armor absorbed unless
        ``piercing``, never below 0: the damage roll d100, 2d10 and d10 share."""
        if table.log is None:  # nobody will read the natural dice: take the fast sampler
            amount, dice = weapon.damage.roll(table.rng), ()
        else:
            amount, dice = weapon.damage.roll_dice(table.rng)
        if extra_die:
            sides = weapon.damage.die_sides
            if sides:
                more = roll_die(table.rng, sides)
                amount += more
                dice = (*dice, more)
            elif weapon.damage.is_constant:  # no die to add: the constant is the weapon's "die"
                amount += weapon.damage.min
        amount += weapon.bonus + bonus
        flat = flat_part(table, amount, dice)
        amount = max(0, amount) if piercing else self.absorb(target, amount)
        return DamageResult(amount, dice, piercing, flat)

    def after_damage(self, table: Table, target: Fighter, amount: int) -> int:
        """No serious wounds."""
        return 0

    def prepare(self, table: Table, fighter: Fighter) -> None:
        """Nothing to roll beyond HP (morale tokens are morale's)."""

    def round_started(self, table: Table, fighters: Sequence[Fighter], frighten: Frighten) -> None:
        """Nothing happens at the start of a round."""

    def group_check(self, table: Table, members: Sequence[Fighter], what: str) -> bool:
        """A majority of successes; a tie rolls 1d6, 4+."""
        return majority_check(table, members, what, lambda m: self.check(table, m, what), 6)


# One action a turn (move or attack): rules §2, the 2d10 and d10 Convention.
ONE_ACTION = ActionEconomy(budget=1, move_cost=1, attack_cost=1, two_handed_cost=1,
                           ranged_cost=1, max_moves=1, max_attacks=1, move_after_attack=False,
                           spell_cost=1, stand_cost=1)


# d20's "move, then a single attack" (seed 003): two slots, at most one move and one attack.
# 2d10 and d10 play it with ``move_and_attack: true``, the reading their Convention set aside.
MOVE_THEN_ATTACK = ActionEconomy(budget=2, move_cost=1, attack_cost=1, two_handed_cost=1,
                                 ranged_cost=1, max_moves=1, max_attacks=1,
                                 move_after_attack=False)
# d20 itself: the same turn, where drinking or giving an item is the attack's slot (seed 003:
# "se déplacer et effectuer une attaque unique"; rules §8: the move stays).
D20_TURN = attrs.evolve(MOVE_THEN_ATTACK, item_cost=1, item_after_move=True)


class ScoreSystem(BaseSystem):
    """2d10 and d10: a roll of a score against a difficulty, then the morale reroll."""

    def __init__(self, options: Options = Options()) -> None:  # noqa: B008 (frozen, shared)
        super().__init__(options)
        self.economy = MOVE_THEN_ATTACK if options.move_and_attack else ONE_ACTION

    def roll(self, table: Table, who: Fighter, purpose: str, score: int, difficulty: int,
             advantage: int, skill: str) -> CheckResult:
        raise NotImplementedError

    def checked(self, table: Table, who: Fighter, purpose: str, score: int, difficulty: int,
                advantage: int, skill: str) -> CheckResult:
        """A roll, then (morale on) the reroll of a failure, logged with its own purpose."""
        result = self.roll(table, who, purpose, score, difficulty, advantage, skill)
        if table.on_check is None:
            return result
        return table.on_check(who, skill, result, lambda again: self.roll(
            table, who, again, score, difficulty, advantage, skill))
