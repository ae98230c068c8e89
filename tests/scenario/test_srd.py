"""Reading other d20 games' monsters (sim.scenario.srd): both JSON shapes, the conversions
and what each monster's figures leave out."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sim import dice
from sim.errors import Problem
from sim.model import Weapon
from sim.scenario.bestiary import load_bestiary_file
from sim.scenario.srd import Imported, Skipped, file_text, monsters, read_monster
from tests.builders import fighter, scenario, side
from tests.scenario import srd_files as f
from tests.scenario.chances import book_chance, hit_chance


def imported(raw: object) -> Imported:
    got = read_monster(raw, "m.json", "")
    assert isinstance(got, Imported), got
    return got


def weapons(entry: Imported) -> list[tuple]:
    return [(w["name"], w["damage"], w.get("bonus"), w.get("range")) for w in entry.block["weapons"]]


class TestShapes:
    def test_a_5e_database_monster(self):
        goblin = imported(f.DB_GOBLIN)
        assert goblin.name == "goblin" and goblin.stem == "goblin"
        b = goblin.block
        assert (b["level"], b["hp"], b["defense_threshold"], b["attack_threshold"], b["movement"]) \
            == (1, "2d6", 14, 15, 9)
        assert weapons(goblin) == [("scimitar", "1d6+2", 3, None), ("shortbow", "1d6+2", 3, 24)]
        assert goblin.left_out == ("Nimble Escape: special ability",)

    def test_an_open5e_monster(self):
        kobold = imported(f.O5E_KOBOLD)
        b = kobold.block
        assert (b["level"], b["hp"], b["defense_threshold"], b["attack_threshold"]) == (1, 5, 11, 15)
        assert weapons(kobold) == [("dagger", "1d4+2", 3, None), ("sling", "1d4+2", 3, 9)]
        assert [x.split(":")[0] for x in kobold.left_out] == ["Pack Tactics", "Sunlight Sensitivity"]

    def test_open5e_hit_dice_get_their_modifier(self):
        """Open5e's 5d8 beside 27 HP is 5d8+5, 27 on average."""
        bugbear = imported(f.O5E_BUGBEAR)
        assert bugbear.block["hp"] == "5d8+5"
        assert weapons(bugbear)[1] == ("javelin", "2d6+2", 3, 9)

    @pytest.mark.parametrize(("data", "prefix", "count"), [
        (f.DB_GOBLIN, "", 1), ([f.DB_GOBLIN, f.DB_APE], "", 2),
        ({"count": 2, "results": [f.O5E_KOBOLD, f.O5E_OWLBEAR]}, "results", 2)])
    def test_one_a_list_or_an_api_page(self, data, prefix, count):
        assert (monsters(data)[0], len(monsters(data)[1])) == (prefix, count)

    @pytest.mark.parametrize(("change", "path", "words"), [
        ({"armor_class": "tough"}, "results[0].armor_class", "no armor class"),
        ({"hit_points": None, "hit_dice": None}, "results[0].hit_points", "no hit points"),
        ({"name": 3}, "results[0].name", "needs a name")])
    def test_a_monster_that_cannot_be_read(self, change, path, words):
        got = read_monster({**f.O5E_KOBOLD, **change}, "m.json", "results[0]")
        assert isinstance(got, Problem)
        assert (got.path, words in got.message) == (path, True)

    def test_nothing_to_play_is_skipped(self):
        got = read_monster(f.DB_MAGE, "m.json", "")
        assert isinstance(got, Skipped) and "no attack" in got.why


def test_conditions_and_saves_an_attack_leaves_out():
    """Open5e: a hit that grapples, a saving throw bonus."""
    beak = {**f.O5E_OWLBEAR["actions"][1], "desc": "Melee Weapon Attack: +7 to hit. Hit: 10,"
            " and the target is grappled (escape DC 15) and must succeed on a DC 13 Constitution"
            " saving throw or be poisoned."}
    owlbear = imported({**f.O5E_OWLBEAR, "actions": [beak], "dexterity_save": 3})
    assert owlbear.left_out[:2] == ("Beak: the saving throw its hit forces",
                                    "Beak: the conditions it imposes (grappled, poisoned)")
    assert "saving throw bonuses: DEX 3" in owlbear.left_out


class TestMultiattack:
    def test_structured(self):
        """5e-database's list: two fists are one weapon of their summed damage."""
        assert weapons(imported(f.DB_APE)) == [("fist x2", "2d6+6", 4, None), ("rock", "1d6+3", 4, 8)]

    def test_in_words(self):
        """Open5e's words: "one with its beak and one with its claws"."""
        owlbear = imported(f.O5E_OWLBEAR)
        assert weapons(owlbear) == [("beak + claws", "1d10+2d8+10", 4, None)]
        assert owlbear.block["attack_threshold"] == 18

    @pytest.mark.parametrize(("desc", "name", "damage"), [
        ("The owlbear makes two attacks: one with its beak and one with its claws.",
         "beak + claws", "1d10+2d8+10"),
        ("The owlbear makes three beak attacks.", "beak x3", "3d10+15"),
        ("It makes two attacks with its claws.", "claws x2", "4d8+10"),
        ("The owlbear makes two attacks.", "beak x2", "2d10+10")])
    def test_the_words_books_use(self, desc, name, damage):
        actions = [{**f.O5E_OWLBEAR["actions"][0], "desc": desc}, *f.O5E_OWLBEAR["actions"][1:]]
        assert weapons(imported({**f.O5E_OWLBEAR, "actions": actions}))[0][:2] == (name, damage)

    def test_what_a_dragon_leaves_out(self):
        dragon = imported(f.DB_DRAGON)
        assert weapons(dragon) == [("bite + claw x2", "2d10+4d6+18", None, None)]
        assert (dragon.block["level"], dragon.block["attack_threshold"],
                dragon.block["defense_threshold"], dragon.block["movement"]) == (10, 21, 17, 12)
        told = " | ".join(dragon.left_out)
        for words in ("Fire Breath: a saving-throw action", "Wing Attack: legendary action",
                      "damage immunities: fire", "fly 80 ft.", "saving throw bonuses: DEX 4"):
            assert words in told
        assert "Not carried: Fire Breath" in dragon.block["description"]


@pytest.mark.parametrize("raw", [f.DB_GOBLIN, f.DB_APE, f.DB_DRAGON, f.O5E_OWLBEAR,
                                 f.O5E_KOBOLD, f.O5E_BUGBEAR])
def test_imported_rolls_keep_the_books_hit_chance(raw):
    """Against a party member of AC 12 to 20 (armor AC - 10) the imported monster hits as
    often as its first attack's bonus does in the book, and a +5 party member hits it as
    often as against its AC: within 5 points, exactly."""
    entry = imported(raw)
    b = entry.block
    ac = b["defense_threshold"] + 1
    attacks = [a for a in raw["actions"] if "attack_bonus" in a]
    bonus = attacks[0]["attack_bonus"]
    blade = Weapon(name="blade", damage=dice.parse("1d8"), bonus=2)
    for pc_ac in range(12, 21):
        hero = fighter("A", level=3, armor=pc_ac - 10, weapons=(blade,))
        monster = fighter("M", attack_threshold=b["attack_threshold"],
                          defense_threshold=b["defense_threshold"])
        spec = scenario(side("heroes", hero, party=True), side("foes", monster))
        assert abs(hit_chance(spec, "M", "A") - book_chance(bonus, pc_ac)) <= Fraction(5, 100)
        assert abs(hit_chance(spec, "A", "M") - book_chance(5, ac)) <= Fraction(5, 100)


def test_file_text_is_a_bestiary_file():
    text = file_text(imported(f.DB_GOBLIN), "monsters.json")
    assert text.startswith("# goblin: AC 15, 7 HP (2d6), CR 1/4, +4 to hit")
    assert "\nrules: d20\n" in text and "\ncreatures:\n  goblin:\n" in text


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-10**30, 10**30) | st.floats(allow_nan=True)
    | st.text(max_size=30) | st.sampled_from(["1d6+2", "2d8", "1/4", "range 80/320 ft.", "30 ft."]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["name", "value", "damage_dice", "dc", "from", "options", "walk", "count",
                         "action_name", "attack_bonus", "damage_bonus", "desc", "damage"]),
        inner, max_size=5),
    max_leaves=20)
KEYS = ["armor_class", "hit_points", "hit_dice", "hit_points_roll", "challenge_rating", "speed",
        "actions", "special_abilities", "legendary_actions", "damage_immunities", "name"]


@given(base=st.sampled_from([f.DB_GOBLIN, f.DB_APE, f.DB_DRAGON, f.O5E_OWLBEAR, f.O5E_BUGBEAR]),
       changes=st.dictionaries(st.sampled_from(KEYS), JSON_VALUES, max_size=4))
def test_any_json_is_read_or_refused_never_a_crash(base, changes, tmp_path_factory):
    """Whatever a file holds in a monster's keys, it is an entry, a skip or a problem; an
    entry's file is a d20 bestiary file `sim validate` accepts, unless its hit points are
    past every range (refused there, one line)."""
    got = read_monster({**base, **changes}, "m.json", "")
    assert isinstance(got, Imported | Skipped | Problem)
    if isinstance(got, Imported):
        path = tmp_path_factory.mktemp("d20") / "x.yaml"
        path.write_text(file_text(got, "m.json"), encoding="utf-8")
        problems: list[Problem] = []
        load_bestiary_file(path, problems)
        assert all(p.path.endswith(".hp") for p in problems), [str(p) for p in problems]
