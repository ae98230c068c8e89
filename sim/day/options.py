"""A day's ``options:``: the campaign's destiny points and how its rests treat its members.

Every other option belongs to each encounter. ``unhealable_recovery`` sets rules §7's
Convention aside: by default (``level_rates``) calm, good and intensive rests give back
1, 2 and 3 x level unhealable HP an hour and ordinary healing never touches them; with
``rest_dice`` the healing dice of good and intensive rests heal them too (the rest list's
reading, "dont les PV insoignables"), and nothing else does. ``rest_revives: true`` sets
aside seed 002's "la médecine conventionnelle ne peut plus rien pour lui": a rest then gives
HP to a member at 0 HP too (and wakes it), for tables that rule so (d100, 2d10, d10; a d20
long rest re-rolls everyone's hit dice either way).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sim.model import Combatant
from sim.yamlsrc import Path, shorten

DAY_OPTIONS = ("destiny_points", "unhealable_recovery", "rest_revives")
UNHEALABLE_RECOVERY = ("level_rates", "rest_dice")
# The rests that give back unhealable HP under each reading (sim.day.rest.REST_KINDS).
RECOVERING_RESTS = {"level_rates": ("calm", "good", "intensive"), "rest_dice": ("good", "intensive")}
Fail = Callable[[Path, str], None]


def read_day_options(options: object, rules: object, fail: Fail, warn: Fail
                     ) -> tuple[int, str, bool]:
    """(destiny points, unhealable recovery, rest revives) of a day's ``options``; problems
    through ``fail``, valid keys the day leaves idle through ``warn``."""
    if options is None:
        options = {}
    if not isinstance(options, dict) or set(options) - set(DAY_OPTIONS):
        fail(("options",), "a day's options hold only destiny_points (the campaign's),"
                           " unhealable_recovery and rest_revives (its rests'); other options"
                           " belong to each encounter")
        return 0, UNHEALABLE_RECOVERY[0], False
    destiny = options.get("destiny_points", 0)
    if not isinstance(destiny, int) or isinstance(destiny, bool) or not 0 <= destiny <= 100:
        fail(("options", "destiny_points"), f"must be an integer 0..100 (got {shorten(destiny)})")
        destiny = 0
    recovery = options.get("unhealable_recovery", UNHEALABLE_RECOVERY[0])
    if recovery not in UNHEALABLE_RECOVERY:
        fail(("options", "unhealable_recovery"),
             f"must be one of {', '.join(UNHEALABLE_RECOVERY)} (got {shorten(recovery)})")
        recovery = UNHEALABLE_RECOVERY[0]
    elif "unhealable_recovery" in options and isinstance(rules, str) and rules != "d100":
        warn(("options", "unhealable_recovery"),
             f"does nothing in {rules}: unhealable HP are those a caster pays for a spell, and"
             " spells are d100's (seed 002); remove it")
    revives = options.get("rest_revives", False)
    if not isinstance(revives, bool):
        fail(("options", "rest_revives"), f"must be true or false (got {shorten(revives)})")
        revives = False
    elif revives and rules == "d20":
        warn(("options", "rest_revives"),
             "does nothing in d20: its 8-hour rest re-rolls every member's hit dice, the"
             " unconscious included (seed 003), and shorter rests heal nobody; remove it")
    return destiny, recovery, revives


def idle_recovery(recovery: str, rests: Sequence[str], party: Sequence[Combatant]) -> str | None:
    """Why a written ``unhealable_recovery`` does nothing in this day, or None."""
    if not any(w.psy for member in party for w in member.weapons):
        return "no party member casts a spell, so nobody ever has unhealable HP; remove it"
    if not set(rests) & set(RECOVERING_RESTS[recovery]):
        kinds = " or ".join(RECOVERING_RESTS[recovery])
        return f"no rest of this day gives unhealable HP back with it (only {kinds}); remove it"
    return None
