"""Morale tokens (rules §4) around one check, and the gains and losses a blow brings.

``checked`` turns the law of one roll into the law of the kept roll for a roller in a given
state: a failure is rerolled while tokens last (a token is spent only if the reroll fails
too), by despair at 0 tokens (success +1 token, failure: despairing), and a despairing
roller rolls at a disadvantage. The kept roll's exploit gives a token, its disaster costs one.
"""

from __future__ import annotations

from collections.abc import Callable

import attrs

from sim.odds.rolls import CRIT, CRIT_FAIL, Dist, Roll
from sim.odds.roster import DESP, TOK, Local


@attrs.frozen
class MoraleRules:
    on: bool
    wound_divisor: int = 2
    despair_disadvantage: bool = True
    despair_again: bool = False


def combine(*advantages: int) -> int:
    """Advantage and disadvantage cancel (rules §1)."""
    total = sum(1 if a > 0 else -1 if a < 0 else 0 for a in advantages)
    return 1 if total > 0 else -1 if total < 0 else 0


def gain(local: Local, amount: int) -> Local:
    """``amount`` tokens more (or fewer), never below 0; a gain ends despair."""
    if local[TOK] < 0 or amount == 0:
        return local
    tokens = max(0, local[TOK] + amount)
    despairing = 0 if amount > 0 else local[DESP]
    return (*local[:TOK], tokens, despairing, *local[DESP + 1:])


def checked(roll: Callable[[int], Dist], advantage: int, local: Local, rules: MoraleRules
            ) -> list[tuple[float, Roll, Local]]:
    """The kept roll and the roller's state after it, for a roller in state ``local``."""
    holder = rules.on and local[TOK] >= 0
    despairing = holder and local[DESP] == 1
    adv = combine(advantage, -1 if despairing and rules.despair_disadvantage else 0)
    first = roll(adv)
    rerolls = holder and (local[TOK] > 0 or not despairing or rules.despair_again)
    if not rerolls:
        out = [(p, r, local) for p, r in first]
    else:  # every failure is rerolled alike: its own result no longer matters
        out = [(p, r, local) for p, r in first if r.success]
        failed = sum(p for p, r in first if not r.success)
        for q, second in roll(adv):
            if local[TOK] > 0:
                after = local if second.success else gain(local, -1)
            else:  # despair: a success gives a token, a failure leaves it despairing
                after = gain(local, 1) if second.success else (*local[:DESP], 1, *local[DESP + 1:])
            out.append((failed * q, second, after))
    if not holder:
        return out
    return [(p, r, gain(after, 1 if r.degree == CRIT else -1 if r.degree == CRIT_FAIL else 0))
            for p, r, after in out]
