"""Magic between a day's fights (rules §7, seed 002): a potion for a member at 0 HP.

In d100, 2d10 and d10 a member left at 0 HP by a won fight is beyond conventional care
("la médecine conventionnelle ne peut plus rien pour lui (en revanche, la magie reste une
possibilité, parfois)"): rests give it nothing, and until magic raises it, it is carried
along, alive and down, and takes no part in the day's fights. As a GM's players would,
the party pours a potion into it as soon as a won fight leaves it so, when another fight
is to come (``tactics: {revive: between_fights}``, the default; ``never`` keeps them):
the member's own potion first, else the first living member who still carries one, in
the party's order. d20 is not concerned: its long rest re-rolls every member's hit dice.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from sim.day.rest import Member
from sim.engine.items import take_one
from sim.engine.state import ACTIVE, UNCONSCIOUS
from sim.model import Item


def beyond_rest(member: Member) -> bool:
    """Stabilised at 0 HP after a won fight: down until magic raises it."""
    return member.status == UNCONSCIOUS and member.hp == 0 and member.alive


def revive_downed(members: Sequence[Member], counted: set[str], rng: random.Random,
                  report: bool) -> list[dict[str, Any]]:
    """Pour a potion into each member (mounts aside) at 0 HP whose policy says so; with
    ``report``, the fields of one ``revived`` event per potion."""
    events: list[dict[str, Any]] = []
    for member in members:
        if member.name not in counted or not member.revived_by_potion or not beyond_rest(member):
            continue
        found = _potion_for(member, members)
        if found is None:
            continue
        giver, item = found
        rolled = item.heal.roll(rng)
        before = member.hp
        ceiling = (member.max_hp or 0) - member.unhealable
        member.hp = max(before, min(ceiling, before + rolled))
        left = take_one(giver, item.name)  # type: ignore[arg-type]  # _potion_for found it there
        woke = member.hp > 0
        if woke:
            member.status = ACTIVE
        if report:
            events.append({"actor": giver.name, "item": item.name, "target": member.name,
                           "healed": member.hp - before, "hp_before": before,
                           "hp_after": member.hp, "left": left, "rolled": rolled, "woke": woke})
    return events


def _potion_for(member: Member, members: Sequence[Member]) -> tuple[Member, Item] | None:
    """Who gives ``member`` a potion, and which: its own first, then the party's order."""
    for giver in (member, *(m for m in members if m is not member)):
        if not giver.alive or not giver.items:
            continue
        for item in giver.potions:
            if giver.items.get(item.name):
                return giver, item
    return None
