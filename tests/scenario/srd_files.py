"""Small monsters in the two open SRD JSON shapes, written for the tests (never downloaded):
5e-database's (armor class as a list, damage as a list, a structured multiattack) and
Open5e's (numbers as they print, challenge rating as text, multiattack in words)."""

from __future__ import annotations

import json
import pathlib
from typing import Any


def _db_attack(name: str, bonus: int, damage: str, ranged: str = "") -> dict[str, Any]:
    kind = f"Ranged Weapon Attack: +{bonus} to hit, range {ranged} ft." if ranged else \
        f"Melee Weapon Attack: +{bonus} to hit, reach 5 ft."
    return {"name": name, "desc": f"{kind}, one target. Hit: ({damage}) damage.",
            "attack_bonus": bonus,
            "damage": [{"damage_type": {"index": "slashing", "name": "Slashing"},
                        "damage_dice": damage}]}


DB_GOBLIN = {
    "index": "goblin", "name": "Goblin", "armor_class": [{"type": "armor", "value": 15}],
    "hit_points": 7, "hit_dice": "2d6", "hit_points_roll": "2d6",
    "speed": {"walk": "30 ft."}, "challenge_rating": 0.25, "proficiency_bonus": 2,
    "special_abilities": [{"name": "Nimble Escape", "desc": "Disengage or Hide."}],
    "actions": [_db_attack("Scimitar", 4, "1d6+2"), _db_attack("Shortbow", 4, "1d6+2", "80/320")],
}

DB_APE = {
    "index": "ape", "name": "Ape", "armor_class": [{"type": "dex", "value": 12}],
    "hit_points": 19, "hit_dice": "3d8", "hit_points_roll": "3d8+6",
    "speed": {"walk": "30 ft.", "climb": "30 ft."}, "challenge_rating": 0.5,
    "actions": [
        {"name": "Multiattack", "desc": "The ape makes two fist attacks.",
         "multiattack_type": "actions",
         "actions": [{"action_name": "Fist", "count": "2", "type": "melee"}]},
        _db_attack("Fist", 5, "1d6+3"), _db_attack("Rock", 5, "1d6+3", "25/50")],
}

DB_DRAGON = {
    "index": "young-red-dragon", "name": "Young Red Dragon",
    "armor_class": [{"type": "natural", "value": 18}], "hit_points": 178,
    "hit_points_roll": "17d10+85", "speed": {"walk": "40 ft.", "climb": "40 ft.", "fly": "80 ft."},
    "challenge_rating": 10, "damage_immunities": ["fire"],
    "proficiencies": [{"value": 4, "proficiency": {"name": "Saving Throw: DEX"}}],
    "actions": [
        {"name": "Multiattack", "desc": "The dragon makes three attacks: one with its bite"
                                        " and two with its claws.",
         "multiattack_type": "actions",
         "actions": [{"action_name": "Bite", "count": 1, "type": "melee"},
                     {"action_name": "Claw", "count": 2, "type": "melee"}]},
        _db_attack("Bite", 10, "2d10+6"), _db_attack("Claw", 10, "2d6+6"),
        {"name": "Fire Breath", "desc": "Each creature in a 30-foot cone must make a DC 17"
                                        " Dexterity saving throw.",
         "usage": {"type": "recharge on roll", "dice": "1d6", "min_value": 5},
         "dc": {"dc_type": {"index": "dex"}, "dc_value": 17, "success_type": "half"},
         "damage": [{"damage_dice": "16d6"}]}],
    "legendary_actions": [{"name": "Wing Attack", "desc": "..."}],
}

DB_MAGE = {  # no attack this d20 plays: skipped, saying so
    "index": "archmage-spirit", "name": "Archmage Spirit", "armor_class": 12,
    "hit_points": 99, "hit_points_roll": "18d8+18", "challenge_rating": 12,
    "special_abilities": [{"name": "Spellcasting", "desc": "..."}],
    "actions": [{"name": "Fireball", "desc": "a DC 17 Dexterity saving throw",
                 "dc": {"dc_value": 17}}],
}

O5E_OWLBEAR = {
    "slug": "owlbear", "name": "Owlbear", "armor_class": 13, "armor_desc": "natural armor",
    "hit_points": 59, "hit_dice": "7d10+21", "speed": {"walk": 40}, "challenge_rating": "3",
    "cr": 3.0, "strength_save": None, "legendary_actions": "",
    "actions": [
        {"name": "Multiattack", "desc": "The owlbear makes two attacks: one with its beak and"
                                        " one with its claws."},
        {"name": "Beak", "desc": "Melee Weapon Attack: +7 to hit, reach 5 ft., one creature.",
         "attack_bonus": 7, "damage_dice": "1d10", "damage_bonus": 5},
        {"name": "Claws", "desc": "Melee Weapon Attack: +7 to hit, reach 5 ft., one target.",
         "attack_bonus": 7, "damage_dice": "2d8", "damage_bonus": 5}],
    "special_abilities": [{"name": "Keen Sight and Smell", "desc": "..."}],
}

O5E_KOBOLD = {
    "slug": "kobold", "name": "Kobold", "armor_class": 12, "hit_points": 5, "hit_dice": "2d6",
    "speed": {"walk": 30}, "challenge_rating": "1/8",
    "actions": [
        {"name": "Dagger", "desc": "Melee Weapon Attack: +4 to hit, reach 5 ft., one target.",
         "attack_bonus": 4, "damage_dice": "1d4", "damage_bonus": 2},
        {"name": "Sling", "desc": "Ranged Weapon Attack: +4 to hit, range 30/120 ft., one"
                                  " target.", "attack_bonus": 4, "damage_dice": "1d4",
         "damage_bonus": 2}],
    "special_abilities": [{"name": "Pack Tactics", "desc": "..."},
                          {"name": "Sunlight Sensitivity", "desc": "..."}],
}

O5E_BUGBEAR = {
    "slug": "bugbear", "name": "Bugbear", "armor_class": 16, "hit_points": 27,
    "hit_dice": "5d8", "speed": {"walk": 30}, "challenge_rating": "1",
    "actions": [
        {"name": "Morningstar", "desc": "Melee Weapon Attack: +4 to hit, reach 5 ft., one"
                                        " target.", "attack_bonus": 4, "damage_dice": "2d8",
         "damage_bonus": 2},
        {"name": "Javelin", "desc": "Melee or Ranged Weapon Attack: +4 to hit, reach 5 ft. or"
                                    " range 30/120 ft., one target.", "attack_bonus": 4,
         "damage_dice": "2d6", "damage_bonus": 2}],
}


def write(folder: pathlib.Path, name: str, data: object) -> pathlib.Path:
    path = folder / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path
