"""Keys of other d20 games in a d20 stat block: one error line each, naming what this d20
uses instead with the number converted; taking the hint keeps the book's hit chance
within 5 points (exact, face by face: tests/scenario/chances.py)."""

from __future__ import annotations

import re

import pytest
import yaml

from sim.scenario.convert import sum_dice
from tests.scenario.chances import book_chance, hit_chance

HERO = "level: 3, armor: 6, weapons: [{name: sword, damage: 1d8, bonus: 2}]"  # +5, AC 16
MONSTER = "attack_threshold: 15, defense_threshold: 14, weapons: [{name: claw, damage: 1d6}]"


def duel(hero: str = HERO, monster: str = MONSTER, party: bool = True) -> str:
    """Aria (a party member unless ``party`` is False) against Gob."""
    return f"""\
name: Duel
rules: d20
sides:
  - name: heroes
    party: {'true' if party else 'false'}
    members:
      - {{name: Aria, hp: 30, {hero}}}
  - name: monsters
    members:
      - {{name: Gob, hp: 30, {monster}}}
"""


def told(arena, text: str) -> str:
    """The one problem of ``text``: an unknown key told what to write, never a did-you-mean."""
    p = arena.one(text)
    assert p.message.startswith("unknown key ")
    assert "did you mean" not in p.message
    return p.message


def taken(message: str, key: str) -> str:
    """``key: N`` as the hint writes it."""
    found = re.search(rf"\b{key}: (-?\d+)", message)
    assert found is not None, message
    return f"{key}: {found.group(1)}"


class TestArmorClass:
    """``ac`` was "did you mean 'armor'?", which passes and leaves the AC doing nothing."""

    @pytest.mark.parametrize("ac", [10, 12, 13, 15, 17, 19, 21])
    def test_a_creature_ac_is_its_defense_threshold(self, arena, ac):
        message = told(arena, duel(monster=MONSTER.replace("defense_threshold: 14", f"ac: {ac}")))
        assert "a hit needs 1d20 + level + weapon bonus > defense_threshold" in message
        fix = taken(message, "defense_threshold")
        assert fix == f"defense_threshold: {ac - 1}"
        spec = arena.load(duel(monster=MONSTER.replace("defense_threshold: 14", fix)))
        assert abs(hit_chance(spec, "Aria", "Gob") - book_chance(5, ac)) <= 0.05

    @pytest.mark.parametrize("ac", [12, 14, 16, 18, 20])
    def test_a_party_member_ac_is_its_armor(self, arena, ac):
        """The monster (+4 to hit: attack_threshold 15) hits as often as in the book."""
        message = told(arena, duel(hero=HERO.replace("armor: 6", f"ac: {ac}")))
        fix = taken(message, "armor")
        assert fix == f"armor: {ac - 10}"
        spec = arena.load(duel(hero=HERO.replace("armor: 6", fix)))
        assert abs(hit_chance(spec, "Gob", "Aria") - book_chance(4, ac)) <= 0.05

    def test_armor_class_as_5e_database_writes_it(self, arena):
        message = told(arena, duel(monster=MONSTER.replace(
            "defense_threshold: 14", "armor_class: [{type: natural, value: 15}]")))
        assert taken(message, "defense_threshold") == "defense_threshold: 14"

    def test_in_a_bestiary_entry(self, arena):
        arena.write("rules: d20\ncreatures:\n  ogre:\n    hp: 30\n    AC: 11\n"
                    "    weapons: [{name: club, damage: 2d8}]\n", "bestiary/d20/x.yaml")
        code, _, err = arena.cli("validate", "bestiary/d20/x.yaml")
        assert code == 2
        assert err.startswith("bestiary/d20/x.yaml:5:5: creatures.ogre.AC: unknown key 'AC': an"
                              " armor class; d20 here: a hit needs 1d20 + level + weapon bonus >"
                              " defense_threshold: from AC 11, write defense_threshold: 10")
        assert len(err.splitlines()) == 1


class TestAttackBonus:
    @pytest.mark.parametrize("bonus", [2, 4, 6, 8])
    @pytest.mark.parametrize("key", ["to_hit", "attack_bonus"])
    def test_a_creature_bonus_is_its_attack_threshold(self, arena, key, bonus):
        """Against Aria's armor 6 (AC 16), as often as d20 + bonus >= 16."""
        message = told(arena, duel(monster=MONSTER.replace("attack_threshold: 15", f"{key}: {bonus}")))
        assert "1d20 + armor > attack_threshold" in message
        fix = taken(message, "attack_threshold")
        assert fix == f"attack_threshold: {11 + bonus}"
        spec = arena.load(duel(monster=MONSTER.replace("attack_threshold: 15", fix)))
        assert abs(hit_chance(spec, "Gob", "Aria") - book_chance(bonus, 16)) <= 0.05

    @pytest.mark.parametrize("bonus", [3, 5, 7])
    def test_a_weapon_bonus_less_the_level(self, arena, bonus):
        """Aria (level 3) with a +B sword: bonus B - 3, against AC 15."""
        message = told(arena, duel(hero=HERO.replace("bonus: 2", f"to_hit: {bonus}")))
        found = re.search(r"write bonus: ([+-]\d+) - level", message)
        assert found is not None and int(found.group(1)) == bonus
        spec = arena.load(duel(hero=HERO.replace("bonus: 2", f"bonus: {bonus - 3}")))
        assert abs(hit_chance(spec, "Aria", "Gob") - book_chance(bonus, 15)) <= 0.05


class TestChallengeRating:
    @pytest.mark.parametrize(("cr", "level"), [("1/4", 1), ("1/2", 1), (1, 1), (3, 3), (8, 8)])
    def test_cr_is_the_level(self, arena, cr, level):
        """Gob (+6 to hit) against Aria, no party: it rolls 1d20 + level + (6 - level) > 14,
        as often as d20 + 6 >= 15."""
        hero = "level: 3, defense_threshold: 14, weapons: [{name: sword, damage: 1d8}]"
        claw = "defense_threshold: 14, weapons: [{name: claw, damage: 1d6, bonus: %d}]"
        message = told(arena, duel(hero, claw % 0 + f", cr: {cr}", party=False))
        fix = taken(message, "level")
        assert fix == f"level: {level}"
        spec = arena.load(duel(hero, claw % (6 - level) + f", {fix}", party=False))
        assert abs(hit_chance(spec, "Gob", "Aria") - book_chance(6, 15)) <= 0.05


class TestOtherKeys:
    @pytest.mark.parametrize(("written", "fix"), [
        ("speed: 30", "movement: 9"), ("speed: 40 ft.", "movement: 12"),
        ("speed: {walk: 30 ft., fly: 60 ft.}", "movement: 9"),
        ("hit_points: 27", "hp: 27"), ("hit_points_roll: 5d8+5", "hp: 5d8+5")])
    def test_told_the_key_and_the_value(self, arena, written, fix):
        message = told(arena, duel(monster=f"{MONSTER}, {written}"))
        assert f"write {fix}" in message
        text = duel(monster=f"{MONSTER}, {fix}")
        spec = arena.load(text.replace("Gob, hp: 30, ", "Gob, ") if fix.startswith("hp") else text)
        gob = spec.sides[1].members[0]
        assert fix in (f"hp: {gob.hp}", f"movement: {gob.movement:g}")

    def test_multiattack_is_one_weapon_of_the_summed_damage(self, arena):
        """Two claws of 1d6+2 are one weapon of 2d6+4: the same roll, the same mean a turn."""
        message = told(arena, duel(monster=f"{MONSTER}, multiattack: 2"))
        assert "damage: 2d6+4" in message and "one move and one attack" in message
        summed = sum_dice(["1d6+2", "1d6+2"])
        assert summed == "2d6+4"
        spec = arena.load(duel(monster=MONSTER.replace("damage: 1d6", f"damage: {summed}")))
        assert spec.sides[1].members[0].weapons[0].damage.mean == 2 * (3.5 + 2)

    @pytest.mark.parametrize("written", [
        "saving_throws: {dex: 2}", "senses: darkvision 60 ft.", "str: 8", "dex: 14",
        "legendary_actions: []", "special_abilities: []", "damage_resistances: [fire]",
        "challenge_rating: 2", "actions: []", "proficiency_bonus: 2", "xp: 50"])
    def test_one_line_each_never_a_spelling_hint(self, arena, written):
        message = told(arena, duel(monster=f"{MONSTER}, {written}"))
        assert ": " in message.removeprefix("unknown key ")

    def test_a_creature_type_is_its_kind(self, arena):
        """``type: undead`` becomes ``kind: undead``, which a weapon's suited: names (+1d4)."""
        message = told(arena, duel(monster=f"{MONSTER}, type: undead"))
        assert "write kind: undead" in message and "suited: [undead]" in message
        hero = HERO.replace("bonus: 2}", "bonus: 2, suited: [undead]}")
        spec = arena.load(duel(hero=hero, monster=f"{MONSTER}, kind: undead"))
        gob, sword = spec.sides[1].members[0], spec.sides[0].members[0].weapons[0]
        assert gob.suits(sword)

    def test_damage_dice_is_not_also_a_missing_damage(self, arena):
        """One line: the weapon's damage_dice, not a second 'missing required key'."""
        message = told(arena, duel(monster=MONSTER.replace("damage: 1d6", "damage_dice: 1d6+2")))
        assert "write damage: 1d6+2" in message
        spec = arena.load(duel(monster=MONSTER.replace("damage: 1d6", "damage: 1d6+2")))
        assert str(spec.sides[1].members[0].weapons[0].damage) == "1d6+2"

    def test_other_systems_keep_their_hints(self, arena):
        """Only d20 stat blocks are told another d20 game's conversions."""
        text = ("name: D\nrules: d100\nsides:\n  - name: a\n    party: true\n    members:\n"
                "      - {name: A, hp: 10, ac: 3, weapons: [{name: s, damage: 1d6}]}\n"
                "  - name: b\n    members:\n      - {name: B, hp: 10, weapons: [{name: s, damage: 1d6}]}\n")
        assert "did you mean 'armor'?" in arena.one(text).message


BOOK_GOBLIN = """\
name: By the hints alone
rules: d20
sides:
  - name: heroes
    party: true
    members:
      - {name: Aria, hp: 24, level: 3, armor: 6, weapons: [{name: sword, damage: 1d8, bonus: 2}]}
      - {name: Bran, hp: 20, level: 2, armor: 3, weapons: [{name: axe, damage: 1d8, bonus: 1}]}
  - name: goblins
    members:
      - name: goblin                 # as the monster manual prints it
        count: 3
        armor_class: 15
        hit_points: 2d6
        speed: 30 ft.
        challenge: 1/4
        to_hit: 4
        senses: darkvision 60 ft., passive Perception 9
        saving_throws: {dex: 2}
        dex: 14
        weapons: [{name: scimitar, damage_dice: 1d6+2, damage_type: slashing}]
"""


def test_a_book_monster_goes_in_by_the_hints_alone(arena):
    """Each line's "write KEY: VALUE" taken, each "drop it" dropped: the goblin validates
    with --strict, plays, and keeps the book's odds (+4 against the heroes' AC, +5 and +3
    heroes against AC 15) within 5 points."""
    problems = arena.problems(BOOK_GOBLIN)
    assert len(problems) == 10 and not any("did you mean" in p.message for p in problems)
    data = yaml.safe_load(BOOK_GOBLIN)
    goblin = data["sides"][1]["members"][0]
    for p in problems:
        *where, key = re.findall(r"[a-z_]+", p.path.split("members[0].")[1])
        block = goblin["weapons"][0] if where == ["weapons"] else goblin
        written = re.search(r"\bwrite ([a-z_]+): ([^ ;,]+)", p.message)
        if written is None:
            assert "drop it" in p.message, p.message
        else:
            block[written.group(1)] = yaml.safe_load(written.group(2))
        del block[key]
    text = yaml.safe_dump(data, sort_keys=False)
    spec = arena.load(text)
    assert (arena.cli("validate", "--strict", "s.yaml")[0], arena.cli("batch", "s.yaml", "-n", "20",
            "--workers", "1", "--out", "run")[0]) == (0, 0)
    for hero, ac, bonus in (("Aria", 16, 5), ("Bran", 13, 3)):
        assert abs(hit_chance(spec, "goblin 1", hero) - book_chance(4, ac)) <= 0.05
        assert abs(hit_chance(spec, hero, "goblin 1") - book_chance(bonus, 15)) <= 0.05
