"""Another d20 game's numbers as this d20's (docs/guide/stat-blocks.md, "From another d20
game"): armor class, attack bonus, challenge rating, hit points, speed and multiattack.

D&D and its kin hit on ``d20 + attack bonus >= AC``. Here a party member (or anyone attacking
a non-party target) hits on ``1d20 + level + weapon bonus > defense_threshold``, and a
creature's attack on a party member is the member's defense roll, ``1d20 + armor >
attack_threshold``, a hit when it fails (rules §3). Strictly greater against meeting: the
thresholds below keep every face of the die a hit or a miss as it was, but the natural 1
and 20 (an automatic miss and hit there, only the total here): at most 5 points apart.
``sim.scenario.foreign`` (the hints) and ``sim.scenario.srd`` (``sim import``) use them.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable
from fractions import Fraction

from sim import dice

# d20 + b >= AC is d20 + b > AC - 1.
AC_TO_DEFENSE = 1
# The party member defends on d20 + armor > T and is hit when d20 <= T - armor; the monster
# hit when d20 >= AC - b, 21 + b - AC faces. With armor = AC - 10 both count the same
# faces when T = 11 + b, whatever the AC.
AC_TO_ARMOR = 10
BONUS_TO_ATTACK = 11
THRESHOLD_RANGE = (0, 60)  # what the stat block's keys accept
LEVEL_RANGE = (0, 30)
METRES_A_FOOT = 0.3048
DEFAULT_FEET = 30  # a human's move in D&D, and 9 m: this engine's default of 8 m is close

_NUMBER = re.compile(r"-?\d+")
_TERM = re.compile(r"([+-]?)([^+-]+)")  # a term of canonical dice text
_FEET = re.compile(r"(\d+)\s*(?:ft|feet|foot)")


def _clamp(value: int, bounds: tuple[int, int]) -> int:
    return max(bounds[0], min(bounds[1], value))


def defense_threshold(ac: int) -> int:
    """A creature's ``defense_threshold`` from its armor class: AC - 1."""
    return _clamp(ac - AC_TO_DEFENSE, THRESHOLD_RANGE)


def party_armor(ac: int) -> int:
    """A party member's ``armor`` from its armor class: AC - 10 (never below 0)."""
    return _clamp(ac - AC_TO_ARMOR, (0, 30))


def attack_threshold(bonus: int) -> int:
    """A creature's ``attack_threshold`` from its attack bonus: 11 + bonus, for a party
    whose armor is its AC - 10."""
    return _clamp(BONUS_TO_ATTACK + bonus, THRESHOLD_RANGE)


def weapon_bonus(bonus: int, level: int) -> int:
    """A weapon's ``bonus`` from an attack bonus: the roll adds the level, so bonus - level."""
    return _clamp(bonus - level, (-50, 50))


def challenge(value: object) -> Fraction | None:
    """A challenge rating as written (``2``, ``0.25``, ``"1/4"``, ``"CR 1/2"``), or None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        finite = math.isfinite(value) and value >= 0
        return Fraction(value).limit_denominator(8) if finite else None
    if isinstance(value, str):
        found = re.search(r"(\d+)\s*/\s*(\d+)|\d+(?:\.\d+)?", value)
        if found is None:
            return None
        if found.group(1) is not None:
            return Fraction(int(found.group(1)), int(found.group(2)) or 1)
        return Fraction(found.group(0)).limit_denominator(8)
    return None


def level_of(cr: Fraction) -> int:
    """``level`` from a challenge rating: the CR (the level of a party it is a fair fight for),
    1 for the fractions (level adds to checks: level 0 is for the harmless), 0 for CR 0."""
    if cr == 0:
        return 0
    return _clamp(max(1, round(cr)), LEVEL_RANGE)


def cr_text(cr: Fraction) -> str:
    """A challenge rating as books print it: 1/4, 2."""
    return str(cr.numerator) if cr.denominator == 1 else f"{cr.numerator}/{cr.denominator}"


def first_number(value: object) -> int | None:
    """The number a GM most likely meant: ``13``, ``"13 (natural armor)"``, ``[{"value": 13}]``
    (5e-database's armor class), ``{"walk": 30}``; None when there is none."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return round(value) if math.isfinite(value) else None
    if isinstance(value, str):
        found = _NUMBER.search(value)
        return None if found is None else int(found.group(0))
    if isinstance(value, list) and value:
        return first_number(value[0])
    if isinstance(value, dict):
        for key in ("value", "ac", "walk", "average", "bonus"):
            if key in value:
                return first_number(value[key])
    return None


def metres(feet: float) -> int:
    """``movement`` or ``range`` in metres from feet (30 ft: 9 m), within 1 and 1,000 m."""
    return _clamp(round(feet * METRES_A_FOOT), (1, 1000))


def feet_in(text: str) -> int | None:
    """The first distance in feet a text gives (``range 80/320 ft.``: 80), or None."""
    found = re.search(r"range\s+(\d+)", text) or _FEET.search(text)
    return None if found is None else int(found.group(1))


def hp_of(hit_points: int | None, rolled: str | None) -> str | int | None:
    """``hp`` from the book's hit points and hit dice: the dice rolled anew each battle, their
    modifier set so that their average (rounded down, as books print it) is the hit points
    (Open5e's ``2d8`` beside 9 HP is ``2d8``; 5e-database's ``5d8+5`` stays). The plain
    number when the dice are missing, unreadable or could roll below 1."""
    if rolled is None:
        return hit_points
    try:
        parsed = dice.parse(rolled)
        if hit_points is None:
            return str(parsed) if parsed.min >= 1 else None
        mod = hit_points - int(parsed.mean_fraction)
        text = sum_dice([str(parsed), str(mod)]) if mod else str(parsed)
        return text if dice.parse(text).min >= 1 else hit_points
    except ValueError:  # DiceError: unreadable, or past what notation holds
        return hit_points


def sum_dice(parts: Iterable[str]) -> str:
    """Dice added up, like dice gathered (``1d6+2`` and ``1d6+2``: ``2d6+4``; ``1d8+2`` and
    ``2d6``: ``1d8+2d6+2``): the multiattack's damage in one roll, its average their sum."""
    counts: Counter[int] = Counter()
    flat = 0
    other: list[str] = []  # keep-highest or exploding dice: no monster manual has them
    for part in parts:
        for sign, body in _TERM.findall(str(dice.parse(part))):
            roll = re.fullmatch(r"(\d+)d(\d+)", body)
            if roll is not None:
                counts[int(roll.group(2))] += (-1 if sign == "-" else 1) * int(roll.group(1))
            elif body.isdigit():
                flat += -int(body) if sign == "-" else int(body)
            else:
                other.append((sign or "+") + body)
    words = [f"{'+' if n > 0 else '-'}{abs(n)}d{sides}"
             for sides, n in sorted(counts.items(), reverse=True) if n]
    words += other
    if flat or not words:
        words.append(f"{flat:+d}")
    return str(dice.parse("".join(words).lstrip("+")))
