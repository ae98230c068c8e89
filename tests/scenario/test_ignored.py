"""The scenario reference's "What each system reads" tables say what validation refuses, key by key."""

from __future__ import annotations

import pathlib
import re

import pytest

from sim.model import RULE_SYSTEMS, Options, Weapon
from sim.scenario import ignored, unread
from sim.scenario.blocks import stat_fields, weapon_fields
from sim.scenario.checker import Checker
from sim.scenario.options import read_options
from sim.yamlsrc import load_yaml_text

README = pathlib.Path(__file__).resolve().parent.parent.parent / "docs" / "reference" / "scenario.md"


def readme_table(title: str) -> dict[str, dict[str, bool]]:
    """``{key: {system: read?}}`` from the README table whose first header cell is ``title``."""
    lines = README.read_text(encoding="utf-8").splitlines()
    start = lines.index(f"| {title} | {' | '.join(RULE_SYSTEMS)} |")
    table: dict[str, dict[str, bool]] = {}
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        for key in re.findall(r"`([a-z_]+)`", cells[0]):
            # "rests": read where a day's rests read it (refused by the scenario, not the system)
            table[key] = {s: cell != "no" for s, cell in zip(RULE_SYSTEMS, cells[1:], strict=True)}
    return table


# Values of every kind: a key's field accepts one of them (an idle key's value is still checked).
SAMPLES = (1, True, "sword", 0.5, {"melee": 3}, ["attack"], {"on": True}, "body", "round", "falls")


def refused(table: dict, key: str, rules: str) -> bool:
    """Whether the field of ``key`` warns in ``rules`` that the system does not read it (its
    value, valid, left out: a warning, not an error)."""
    for value in SAMPLES:
        problems: list = []
        c = Checker(load_yaml_text("a: 1\n", "x.yaml"), problems, rules)
        field = table(c).get(key)
        assert field is not None, f"{key} is not a key of {rules} at all"
        field(value, ("k",))
        if all(p.warning for p in problems):
            return any(f"does nothing here: {rules} does not read it" in p.message for p in problems)
    return False  # read, with a value none of the samples is (weapons, terror_per...)


def option_fields(c: Checker) -> dict:
    """The option fields, reached through read_options with each key alone."""
    return {key: (lambda v, p, key=key: read_options(c, {key: v}, p))
            for key in ("destiny_points", "morale", "flee_at", "spirit", "outnumbered_at",
                        "attacks_per_turn", "difficulty", *CONVENTION_OPTIONS)}


# The options that set a Convention of the rules (docs/rules) aside (README, Conventions).
CONVENTION_OPTIONS = ("tie_succeeds", "move_and_attack", "terror_per", "critical_pierces",
                      "critical_ignores_defense", "fumble_ends_turn", "defense_per",
                      "unconscious_rider")


class TestReadmeAgreesWithValidation:
    """Each yes/no cell of the README tables is what validation does in that system."""

    @pytest.mark.parametrize(("title", "fields"), [
        ("stat key", stat_fields), ("weapon key", weapon_fields), ("option", option_fields),
    ])
    def test_table(self, title, fields):
        """A "no" cell is refused as doing nothing; a "yes" cell is a key the system reads."""
        table = readme_table(title)
        assert table, f"no README table '{title}'"
        for key, cells in table.items():
            for rules, read in cells.items():
                assert refused(fields, key, rules) == (not read), (title, key, rules)

    def test_every_stat_and_weapon_key_is_in_a_table(self):
        """No key of the schema is missing from the README tables."""
        stat_keys = set(readme_table("stat key"))
        weapon_keys = set(readme_table("weapon key"))
        for rules in RULE_SYSTEMS:
            c = Checker(load_yaml_text("a: 1\n", "x.yaml"), [], rules)
            assert set(stat_fields(c)) <= stat_keys, rules
            assert set(weapon_fields(c)) <= weapon_keys, rules


class TestSkills:
    """A skill must be rolled by a weapon, a rule of the system or a group check."""

    def test_club_points_at_great_club(self):
        """2d10: ``club`` next to the weapon ``great club`` names the weapon."""
        club = Weapon(name="great club", damage=None)  # type: ignore[arg-type]
        (found,) = unread.unread_skills("2d10", {"club": 3, "great club": 2}, [club])
        assert found.path == ("club",)
        assert "did you mean the weapon 'great club'?" in found.message

    @pytest.mark.parametrize(("rules", "weapon", "skill"), [
        ("d100", Weapon(name="bow", damage=None, range=30), "ranged"),  # type: ignore[arg-type]
        ("d100", Weapon(name="bolt", damage=None, range=20, psy=2), "magic"),  # type: ignore[arg-type]
        ("d10", Weapon(name="axe", damage=None), "melee"),  # type: ignore[arg-type]
        ("2d10", Weapon(name="axe", damage=None, skill="hafted"), "hafted"),  # type: ignore[arg-type]
    ])
    def test_weapon_default_skills_are_read(self, rules, weapon, skill):
        """The skill a weapon rolls by default (or names) is read; a rule skill is too."""
        assert unread.unread_skills(rules, {skill: 3, "riding": 2}, [weapon]) == []


class TestAspects:
    """A d20 aspect must name a roll the block can make: a purpose, a group check, or one of
    its weapons or their skill (a heroism die is spent only on a roll one concerns)."""

    def test_a_typo_is_refused_with_a_hint(self):
        """``atack`` concerns no roll: heroism would never be spent on it."""
        (found,) = unread.unread_aspects(("atack",), [])
        assert found.path == (0,) and "did you mean 'attack'?" in found.message

    def test_an_empty_list_is_refused(self):
        """``aspects: []`` lists no roll, where no aspects at all lets every roll use one."""
        (found,) = unread.unread_aspects((), [])
        assert found.path == () and "lists no roll" in found.message

    def test_what_a_roll_can_concern_is_kept(self):
        """Purposes, group checks (the scenario's own too), and its weapons' names and skills."""
        sword = Weapon(name="sword", damage=None, skill="blades")  # type: ignore[arg-type]
        aspects = ("attack", "defense", "terror", "physique", "force", "stealth", "sneaking",
                   "sword", "blades")
        assert unread.unread_aspects(aspects, [sword], ("sneaking",)) == []
        # an enemy's weapon: a defense roll concerns no weapon (sim.rules.d20)
        assert [u.path for u in unread.unread_aspects(("spear",), [sword])] == [(0,)]


class TestIdleOptions:
    """Options the scenario's sides leave idle (sim.scenario.ignored.unused_options)."""

    def test_d10_difficulty_only_where_a_check_is_rolled(self):
        """d10: `difficulty` is what checks roll against; attacks roll against defense, so
        with no check to roll (no mount, hazard, timeline, fire, poison or group check) it is
        refused, and kept where one is."""
        options = Options(difficulty=14)
        args = ("d10", options, {"difficulty": 14}, False, 1, True, 1)
        (found,) = ignored.unused_options(*args, checks=False)
        assert found.path == ("difficulty",) and "nothing here rolls one" in found.message
        assert ignored.unused_options(*args, checks=True) == []

    @pytest.mark.parametrize(("flee_at", "largest", "idle"), [
        (0.5, 2, True), (0.0, 9, True), (0.51, 2, False), (0.25, 5, False)])
    def test_flee_at_a_side_can_fall_below(self, flee_at, largest, idle):
        """A side routs once 0 < able < flee_at x its members: idle when that is 1 or less for
        the largest side (0 never routs anyone)."""
        found = ignored.unused_options("d20", Options(flee_at=flee_at), {"flee_at": flee_at},
                                       False, 1, True, largest)
        assert (found != []) == idle


class TestIdleConventionOptions:
    """Options setting a Convention aside where the sides give them nothing to change
    (sim.scenario.ignored.unused_conventions); accepted where they can change the result."""

    @pytest.mark.parametrize(("rules", "options", "given", "field", "idle"), [
        ("d20", Options(terror_per="body"), "terror_per", ignored.Field(terror_crowd=True), True),
        ("d20", Options(spirit=True, terror_per="body"), "terror_per", ignored.Field(), True),
        ("d20", Options(spirit=True, terror_per="body"), "terror_per",
         ignored.Field(terror_crowd=True), False),
        ("d100", Options(unconscious_rider="falls"), "unconscious_rider", ignored.Field(), True),
        ("d100", Options(unconscious_rider="falls"), "unconscious_rider",
         ignored.Field(mounts=True), False),
        ("d100", Options(critical_pierces=False), "critical_pierces", ignored.Field(), True),
        ("d100", Options(critical_pierces=False), "critical_pierces",
         ignored.Field(armored=True), False),
        ("d100", Options(fumble_ends_turn=False), "fumble_ends_turn", ignored.Field(), True),
        ("d100", Options(fumble_ends_turn=False), "fumble_ends_turn",
         ignored.Field(half_action_attack=True), False),
        # attacks_per_turn: 1 was accepted where every weapon takes the whole turn
        ("d100", Options(attacks_per_turn=1), "attacks_per_turn", ignored.Field(), True),
        ("d100", Options(attacks_per_turn=1), "attacks_per_turn",
         ignored.Field(half_action_attack=True), False),
        ("2d10", Options(move_and_attack=True), "move_and_attack", ignored.Field(still=True), True),
        ("d10", Options(move_and_attack=True), "move_and_attack", ignored.Field(), False),
        ("d100", Options(defense_per="round"), "defense_per", ignored.Field(), False),
        ("d100", Options(defense_per="round"), "defense_per", ignored.Field(most_attacks=1), True),
    ])
    def test_refused_only_where_idle(self, rules, options, given, field, idle):
        """Each is refused at its key exactly when the scenario leaves it nothing to change."""
        found = ignored.unused_conventions(rules, options, {given}, field)
        assert [u.path for u in found] == ([(given,)] if idle else [])
