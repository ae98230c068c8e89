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


# A roll's own saving throw before morale looks at it: d20's heroism die (rules §3), which may
# turn a failure into a success; (p, roll, the die it added or 0, the roller's state after).
Save = Callable[[Roll, Local], list[tuple[float, Roll, int, Local]]]


def _unsaved(roll: Roll, local: Local) -> list[tuple[float, Roll, int, Local]]:
    return [(1.0, roll, 0, local)]


def checked(roll: Callable[[int], Dist], advantage: int, local: Local, rules: MoraleRules
            ) -> list[tuple[float, Roll, Local]]:
    """The kept roll and the roller's state after it, for a roller in state ``local``."""
    return [(p, r, after) for p, r, after, _ in checked_saved(roll, advantage, local, rules, _unsaved)]


def checked_saved(roll: Callable[[int], Dist], advantage: int, local: Local, rules: MoraleRules,
                  save: Save) -> list[tuple[float, Roll, Local, int]]:
    """``checked`` for a roll with a saving die: the die comes first, on each roll (the engine's
    and docs/rules/d20.md's order: a heroism die at the first failure it can save, then the
    morale reroll of a failure it left, which may spend one again); (p, kept roll, state after,
    the kept roll's die)."""
    holder = rules.on and local[TOK] >= 0
    despairing = holder and local[DESP] == 1
    adv = combine(advantage, -1 if despairing and rules.despair_disadvantage else 0)
    first = [(p * q, r, after, die) for p, raw in roll(adv) for q, r, die, after in save(raw, local)]
    rerolls = holder and (local[TOK] > 0 or not despairing or rules.despair_again)
    if not rerolls:
        out = first
    else:  # a failure is rerolled from the state its saving die left
        out = [entry for entry in first if entry[1].success]
        for p, _, saved, _ in (entry for entry in first if not entry[1].success):
            for q, raw in roll(adv):
                for s, second, die, state in save(raw, saved):
                    if local[TOK] > 0:
                        after = state if second.success else gain(state, -1)
                    else:  # despair: a success gives a token, a failure leaves it despairing
                        after = (gain(state, 1) if second.success
                                 else (*state[:DESP], 1, *state[DESP + 1:]))
                    out.append((p * q * s, second, after, die))
    if not holder:
        return out
    return [(p, r, gain(after, 1 if r.degree == CRIT else -1 if r.degree == CRIT_FAIL else 0), die)
            for p, r, after, die in out]
