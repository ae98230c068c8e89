"""Keys of other d20 games in a d20 stat block (``ac``, ``hit_points``, ``speed``, ``cr``,
``to_hit``, ``multiattack``...): still unknown keys, refused, but told with what this d20
uses instead and the conversion (``sim.scenario.convert``), not a spelling's did-you-mean
(``ac`` is not ``armor``: a creature's AC is its defense_threshold).

``stat_key`` and ``weapon_key`` answer a key as written and its value (the message names
the converted number when the value gives one); ``Told.instead`` is the key it stands for,
so that a weapon's ``damage_dice`` is not also reported as a missing ``damage``.
"""

from __future__ import annotations

from collections.abc import Callable

import attrs

from sim.scenario import convert

D20_RULE = "d20 here: a hit needs 1d20 + level + weapon bonus > defense_threshold"
DEFENSE_ROLL = ("a creature's attack on a party member is the member's defense roll,"
                " 1d20 + armor > attack_threshold, a hit when it fails")
NOT_MODELLED = "drop it, or say it in the description"


@attrs.frozen
class Told:
    """What a key of another game is here: the key to write instead (None when there is
    none) and the one-line message."""

    instead: str | None
    message: str


def _ac(value: object) -> Told:
    ac = convert.first_number(value)
    if ac is None:
        return Told("defense_threshold", f"an armor class; {D20_RULE}: from an AC, a creature's"
                    " defense_threshold is AC - 1 (a party member's armor is AC - 10)")
    return Told("defense_threshold", f"an armor class; {D20_RULE}: from AC {ac}, write"
                f" defense_threshold: {convert.defense_threshold(ac)} (AC - 1) on a creature,"
                f" armor: {convert.party_armor(ac)} (AC - 10, its defense roll) on a party member")


def _bonus(value: object) -> tuple[str, str]:
    """An attack bonus as written (``+4``, or ``B`` when unreadable), and the creature's
    attack_threshold it gives."""
    bonus = convert.first_number(value)
    if bonus is None:
        return "B", "11 + B"
    return f"{bonus:+d}", str(convert.attack_threshold(bonus))


def _attack_bonus(value: object) -> Told:
    b, threshold = _bonus(value)
    return Told("attack_threshold", f"an attack bonus; {DEFENSE_ROLL}: from {b} to hit, write"
                f" attack_threshold: {threshold} (11 + bonus) on a creature; a party member's"
                f" weapon takes bonus: {b} - level (its roll adds the level)")


def _weapon_bonus(value: object) -> Told:
    b, threshold = _bonus(value)
    return Told("bonus", f"an attack bonus; {D20_RULE}: from {b} to hit, write bonus: {b} -"
                f" level (+5 at level 3: bonus: 2); a creature attacking the party rolls"
                f" nothing: give its stat block attack_threshold: {threshold} (11 + bonus)")


def _cr(value: object) -> Told:
    cr = convert.challenge(value)
    level = "the CR (1 below CR 1)" if cr is None else (
        f"{convert.level_of(cr)} (CR {convert.cr_text(cr)}; 1 below CR 1)")
    return Told("level", f"a challenge rating; write level: {level}: it adds to the creature's"
                " checks and to its attacks on non-party foes (their weapons' bonus is the"
                " attack bonus - level); how deadly a fight is, sim batch tells")


def _hp(value: object) -> Told:
    shown = value if isinstance(value, int | str) and not isinstance(value, bool) else "27"
    return Told("hp", f"hit points; write hp: {shown} (a number, or the book's dice with their"
                " modifier: 27 (5d8+5) is hp: 5d8+5, rolled anew each battle)")


def _speed(value: object) -> Told:
    feet = convert.first_number(value)
    if feet is None:
        return Told("movement", "a speed; write movement in metres a move (30 ft: movement: 9)")
    return Told("movement", f"a speed; write movement: {convert.metres(feet)} (metres a move:"
                f" {feet} ft x 0.3; everyone stands on one line, flying or not)")


MULTIATTACK = ("a d20 turn here is one move and one attack: give one weapon the sum of the"
               " attacks' damage (two claws of 1d6+2: damage: 2d6+4): the same hit chance a"
               " roll and the same damage a turn on average, all or nothing")


def _fixed(instead: str | None, message: str) -> Callable[[object], Told]:
    return lambda value: Told(instead, message)


def _kind(value: object) -> Told:
    shown = value if isinstance(value, str) and value.strip() else "undead"
    return Told("kind", f"a creature type is its kind here: write kind: {shown}, and a"
                        f" weapon with suited: [{shown}] adds 1d4 on a hit against it")


def _damage(value: object) -> Told:
    shown = value if isinstance(value, str | int) and not isinstance(value, bool) else "1d6+2"
    return Told("damage", f"write damage: {shown} (dice, the modifier in them)")


_STAT: dict[str, Callable[[object], Told]] = {
    **dict.fromkeys(("ac", "armor_class", "armour_class", "armorclass"), _ac),
    **dict.fromkeys(("to_hit", "tohit", "attack_bonus", "hit_bonus", "attack_modifier"),
                    _attack_bonus),
    **dict.fromkeys(("cr", "challenge", "challenge_rating", "challengerating"), _cr),
    **dict.fromkeys(("hit_points", "hitpoints", "hp_max", "max_hp", "maxhp", "hit_dice",
                     "hitdice", "hd", "hit_points_roll"), _hp),
    **dict.fromkeys(("speed", "spd", "walk"), _speed),
    **dict.fromkeys(("multiattack", "multi_attack", "extra_attack", "attacks_per_round"),
                    _fixed("weapons", MULTIATTACK)),
    **dict.fromkeys(("actions", "action", "attacks", "attack"), _fixed(
        "weapons", "the attacks are weapons here: weapons: [{name: claw, damage: 1d6+2}];"
                   " the attack bonus gives the creature's attack_threshold (11 + bonus)")),
    **dict.fromkeys(("damage", "damage_dice", "dmg"), _fixed(
        "weapons", "damage belongs to a weapon: weapons: [{name: claw, damage: 1d6+2}]")),
    **dict.fromkeys(("saving_throws", "saves", "save", "saving_throw", "save_dc", "dc",
                     "spell_save_dc"), _fixed(None, "saving throws are not rolled in d20 here"
                                                    f" (a creature resists through its"
                                                    f" defense_threshold): {NOT_MODELLED}")),
    **dict.fromkeys(("senses", "darkvision", "blindsight", "truesight", "tremorsense",
                     "passive_perception", "perception"), _fixed(
        None, f"senses are not modelled (everyone sees everyone): {NOT_MODELLED}")),
    **dict.fromkeys(("str", "dex", "con", "int", "wis", "cha", "strength", "dexterity",
                     "constitution", "intelligence", "wisdom", "charisma", "abilities",
                     "ability_scores", "stats"), _fixed(
        None, "ability scores are not read in d20 here: their modifiers are already in the"
              " attack bonus (attack_threshold: 11 + bonus), the AC (defense_threshold: AC - 1)"
              f" and the hit points (hp); {NOT_MODELLED}")),
    **dict.fromkeys(("proficiency_bonus", "proficiency", "pb", "prof"), _fixed(
        "level", "a proficiency bonus is already in the attack bonus (attack_threshold:"
                 " 11 + bonus); the creature's level is its CR")),
    **dict.fromkeys(("legendary_actions", "lair_actions", "reactions", "bonus_actions",
                     "special_abilities", "traits", "features", "spells", "spellcasting",
                     "spell_slots", "damage_resistances", "resistances", "damage_immunities",
                     "immunities", "damage_vulnerabilities", "vulnerabilities",
                     "condition_immunities", "conditions"), _fixed(
        None, "not modelled in d20 here (an area attack can be a weapon with area: true, a"
              f" tough hide more hp); {NOT_MODELLED}")),
    **dict.fromkeys(("type", "subtype", "creature_type"), _kind),
    **dict.fromkeys(("size", "alignment", "languages", "xp", "source",
                     "environment"), _fixed(None, f"not read by the fight; {NOT_MODELLED}")),
    **dict.fromkeys(("initiative", "init"), _fixed(
        "gifts", "d20 here rolls group initiative (the party's 1d6, 4+ acts first): drop it;"
                 " gifts: [initiative] makes the party's die a d8")),
}

_WEAPON: dict[str, Callable[[object], Told]] = {
    **dict.fromkeys(("to_hit", "tohit", "attack_bonus", "hit_bonus", "attack_modifier"),
                    _weapon_bonus),
    **dict.fromkeys(("damage_dice", "dice", "dmg", "damage_roll"), _damage),
    **dict.fromkeys(("damage_bonus", "dmg_bonus"), _fixed(
        None, "put the modifier in the damage dice: damage: 1d6+2")),
    **dict.fromkeys(("damage_type", "type"), _fixed(
        None, f"damage types are not modelled (no resistances here); {NOT_MODELLED}")),
    "reach": _fixed(None, "melee reaches 2 m here (everyone stands on one line): drop it"),
    **dict.fromkeys(("count", "attacks", "multiattack"), _fixed("damage", MULTIATTACK)),
    **dict.fromkeys(("save", "dc", "save_dc"), _fixed(
        None, f"saving throws are not rolled in d20 here; {NOT_MODELLED}")),
}


def _folded(key: object) -> str | None:
    """``Armor Class`` and ``armor-class`` as ``armor_class``."""
    if not isinstance(key, str):
        return None
    return "_".join(key.strip().casefold().replace("-", " ").split())


def stat_key(key: object, value: object) -> Told | None:
    """What an unknown key of a d20 stat block is in another d20 game, or None."""
    tell = _STAT.get(_folded(key) or "")
    return None if tell is None else tell(value)


def weapon_key(key: object, value: object) -> Told | None:
    """What an unknown key of a d20 weapon is in another d20 game, or None."""
    tell = _WEAPON.get(_folded(key) or "")
    return None if tell is None else tell(value)
