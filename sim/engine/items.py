"""Items (rules §8): healing potions drunk or poured into a downed ally, and the policy.

Drinking or giving is a half-action in d100 and the turn's action elsewhere
(``ActionEconomy.item_turn_cost``). The default policy, before attacking:
drink at or below ``tactics.potion_at`` of maximum HP (0.33 unless set), then
pour a potion into an unconscious ally within 2 m, which heals and wakes it.
What is left is battle state (``Fighter.items``), not the spec's. Items take the
table, the fighters concerned and the engine's ``wake``; never the battle.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from sim.engine.state import UNCONSCIOUS
from sim.model import MELEE_REACH_M

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from sim.engine.state import Fighter
    from sim.engine.table import Table
    from sim.model import Item

    Wake = Callable[[Fighter], None]  # the engine's: back in the fight


class Holder(Protocol):
    """Whatever carries items between fights: what ``take_one`` needs of it."""

    items: dict[str, int]
    items_used: int


def use_items(table: Table, fighter: Fighter, allies: Sequence[Fighter], cost: int, budget: int,
              wake: Wake) -> int:
    """Spend what the policy asks of this turn's ``budget`` on items, ``cost`` half-actions a
    drink or a gift; returns the budget left. ``allies``: the fighter's side, itself included."""
    while budget >= cost and fighter.items and fighter.able:
        target = fighter if wants_to_drink(fighter) else downed_ally(allies, fighter)
        if target is None:
            break
        use_item(table, fighter, next_item(fighter), target, wake)
        budget -= cost
    return budget


def heal_ceiling(fighter: Fighter) -> int:
    """The HP healing can bring it to: its maximum, less the HP paid for spells, which
    cannot be healed today (rules §3, §7)."""
    return fighter.max_hp - fighter.unhealable


def wants_to_drink(fighter: Fighter) -> bool:
    """At or below ``potion_at`` of its maximum HP, with HP a potion could still give back.

    The fraction hp / max_hp is compared, not hp with potion_at x max_hp: that product is
    rounded (0.7 x 90 = 62.99999999999999), and a fighter at exactly the threshold (63 of 90)
    did not drink. A quotient of integers and a decimal literal round alike, so the test is
    exact for the fractions written in a scenario."""
    return fighter.hp / fighter.max_hp <= fighter.potion_at and fighter.hp < heal_ceiling(fighter)


def downed_ally(allies: Sequence[Fighter], fighter: Fighter) -> Fighter | None:
    """The first unconscious ally (not a mount) within 2 m that a potion could bring back."""
    for ally in allies:
        if (ally.status == UNCONSCIOUS and ally.counts and ally is not fighter
                and abs(ally.x - fighter.x) <= MELEE_REACH_M and ally.hp < heal_ceiling(ally)):
            return ally
    return None


def next_item(fighter: Fighter) -> Item:
    """The first item of the stat block that the fighter still has."""
    return next(item for item in fighter.spec.items if fighter.items.get(item.name))


def use_item(table: Table, actor: Fighter, item: Item, target: Fighter, wake: Wake) -> None:
    """Drink (``target`` is ``actor``) or pour a potion: heal its dice, never above the
    ceiling; an unconscious target with HP again wakes up."""
    rolled, dice = item.heal.roll_dice(table.rng)
    before = target.hp
    target.hp = after = max(before, min(heal_ceiling(target), before + rolled))
    left = take_one(actor, item.name)
    woke = target.status == UNCONSCIOUS and after > 0
    if table.log is not None:
        table.emit("item_used", actor=actor.name, item=item.name, target=target.name,
                    healed=after - before, hp_before=before, hp_after=after, left=left,
                    rolled=rolled, dice=list(dice), woke=woke)
    if woke:
        revive(target, wake)


def take_one(holder: Fighter | Holder, name: str) -> int:
    """Take one ``name`` from the holder's stock, counted as used: how many are left. An
    empty stock is dropped, so that ``if fighter.items`` stays a cheap test. A fighter in
    battle, or a day's member between fights (sim.day.revive)."""
    left = holder.items[name] - 1
    if left:
        holder.items[name] = left
    else:
        del holder.items[name]
    holder.items_used += 1
    return left


def revive(fighter: Fighter, wake: Wake) -> None:
    """Back in the fight; a serious wound's knock-out ends, its weakness stays (rules §3)."""
    knock_outs = [e for e in fighter.effects if e.name == UNCONSCIOUS]
    for effect in knock_outs:
        effect.end("potion")
        effect.weaken()  # the wound's weakness stays, as when it wakes by itself
    if not knock_outs:
        wake(fighter)
