"""Scenario and bestiary loading: every bad input is one clear ``file:line:col: path: message``."""

from __future__ import annotations

import copy
import hashlib
import json
import os
import pathlib
import random

import pytest
import yaml

from sim import dice, yamlsrc
from sim.cli import main
from sim.errors import Problem, ScenarioError
from sim.model import Options, Surprise, Tactics
from sim.scenario import IMPLEMENTED_SYSTEMS, load_scenario

REPO = pathlib.Path(__file__).resolve().parent.parent

# Line numbers of BASE matter: the tests below assert exact line:col positions.
BASE = """\
name: Test
rules: d20
sides:
  - name: heroes
    party: true
    members:
      - name: Aria
        level: 3
        hp: 24
        armor: 4
        weapons: [{name: sword, damage: 1d8}]
  - name: goblins
    members:
      - {use: goblin, count: 2}
"""

BESTIARY = """\
rules: d20
creatures:
  goblin:
    level: 1
    hp: 2d6
    defense_threshold: 11
    weapons: [{name: rusty blade, damage: 1d6}]
  hobgoblin:
    level: 2
    hp: 3d8
    defense_threshold: 12
    weapons: [{name: spear, damage: 1d8}]
"""


def variant(*pairs: str, text: str = BASE) -> str:
    """BASE with each (old, new) pair replaced once; each ``old`` must be there."""
    assert len(pairs) % 2 == 0
    for old, new in zip(pairs[::2], pairs[1::2], strict=True):
        assert text.count(old) == 1, f"{old!r} must occur once in the template"
        text = text.replace(old, new)
    return text


class Arena:
    """A scratch folder (the cwd) with ``bestiary/d20/x.yaml`` and a way to check files."""

    def __init__(self, root: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
        self.root = root
        self.capsys = capsys

    def write(self, text: str | bytes, name: str = "s.yaml") -> pathlib.Path:
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(text, str):
            text = text.encode("utf-8")
        path.write_bytes(text)
        return path

    def cli(self, *argv: str) -> tuple[int, str, str]:
        """Run ``sim ARGV`` in process; returns (exit code, stdout, stderr)."""
        self.capsys.readouterr()
        code = main(list(argv))
        out, err = self.capsys.readouterr()
        return code, out, err

    def problems(self, text: str | bytes | None, name: str = "s.yaml") -> list[Problem]:
        """The problems of a scenario file, checked to be exactly what ``sim validate`` prints."""
        if text is not None:
            self.write(text, name)
        with pytest.raises(ScenarioError) as info:
            load_scenario(pathlib.Path(name))
        problems = info.value.problems
        assert problems, "a ScenarioError must carry at least one problem"
        code, out, err = self.cli("validate", name)
        assert code == 2
        assert "Traceback" not in err
        assert out == ""
        assert err.splitlines() == [str(p) for p in problems]
        return problems

    def one(self, text: str | bytes | None, name: str = "s.yaml") -> Problem:
        """The single problem of a scenario file."""
        problems = self.problems(text, name)
        assert len(problems) == 1, [str(p) for p in problems]
        return problems[0]

    def load(self, text: str, name: str = "s.yaml"):
        """A valid scenario, loaded; also checked to pass ``sim validate``."""
        self.write(text, name)
        scenario = load_scenario(pathlib.Path(name))
        code, out, err = self.cli("validate", name)
        assert (code, err) == (0, "")
        assert out == f"{name}: ok (scenario)\n"
        return scenario


@pytest.fixture
def arena(tmp_path, monkeypatch, capsys) -> Arena:
    """An Arena in tmp_path, made the cwd, with no bestiary but its own."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SIM_BESTIARY", raising=False)
    a = Arena(tmp_path, capsys)
    a.write(BESTIARY, "bestiary/d20/x.yaml")
    return a


def where(problem: Problem) -> tuple[int, int, str]:
    """The position and path of a problem, for one-line asserts."""
    return problem.line, problem.col, problem.path


class TestBaseline:
    """The template itself is valid, so every variant tests one change."""

    def test_base_loads(self, arena):
        """The unmodified template loads with its two sides."""
        scenario = arena.load(BASE)
        assert [s.name for s in scenario.sides] == ["heroes", "goblins"]


class TestWrongTypes:
    """A value of the wrong type is reported at the value, naming what was expected."""

    def test_hp_text(self, arena):
        """``hp: "lots"`` is not dice notation."""
        p = arena.one(variant("hp: 24", 'hp: "lots"'))
        assert where(p) == (9, 13, "sides[0].members[0].hp")
        assert "must be dice notation" in p.message
        assert "'lots'" in p.message

    def test_level_quoted(self, arena):
        """``level: "3"`` is a string, not an integer."""
        p = arena.one(variant("level: 3", 'level: "3"'))
        assert where(p) == (8, 16, "sides[0].members[0].level")
        assert p.message == "must be an integer (got '3')"

    def test_armor_boolean(self, arena):
        """``armor: true`` is refused even though bool is an int in Python."""
        p = arena.one(variant("armor: 4", "armor: true"))
        assert where(p) == (10, 16, "sides[0].members[0].armor")
        assert p.message == "must be an integer (got True)"

    def test_weapons_string(self, arena):
        """``weapons: "sword"`` must be a list."""
        p = arena.one(variant("weapons: [{name: sword, damage: 1d8}]", 'weapons: "sword"'))
        assert where(p) == (11, 18, "sides[0].members[0].weapons")
        assert p.message == "must be a list (got 'sword')"

    def test_weapon_item_string(self, arena):
        """A weapon given as a bare name must be a mapping."""
        p = arena.one(variant("weapons: [{name: sword, damage: 1d8}]", "weapons: [sword]"))
        assert where(p) == (11, 19, "sides[0].members[0].weapons[0]")
        assert p.message == "must be a mapping (got 'sword')"

    def test_sides_mapping(self, arena):
        """``sides: {}`` must be a list."""
        text = "name: Test\nrules: d20\nsides: {}\n"
        p = arena.one(text)
        assert where(p) == (3, 8, "sides")
        assert p.message == "must be a list (got {})"

    def test_party_string(self, arena):
        """``party: 'yes'`` must be a boolean."""
        p = arena.one(variant("party: true", "party: 'yes'"))
        assert where(p) == (5, 12, "sides[0].party")
        assert p.message == "must be true or false (got 'yes')"

    def test_top_level_list(self, arena):
        """A document that is a list, not a mapping, is reported on the whole document."""
        p = arena.one("- a\n- b\n")
        assert where(p) == (1, 1, "")
        assert "must be a mapping at the top level" in p.message


class TestOutOfRange:
    """Numbers outside their range name the range and the value."""

    @pytest.mark.parametrize(
        ("old", "new", "expected"),
        [
            ("level: 3", "level: 99", (8, 16, "sides[0].members[0].level")),
            ("armor: 4", "armor: -1", (10, 16, "sides[0].members[0].armor")),
            ("count: 2", "count: 0", (14, 30, "sides[1].members[0].count")),
            ("count: 2", "count: 101", (14, 30, "sides[1].members[0].count")),
        ],
    )
    def test_integer_out_of_range(self, arena, old, new, expected):
        """An integer field outside its bounds is reported at its value."""
        p = arena.one(variant(old, new))
        assert where(p) == expected
        assert p.message.startswith("must be between ")
        assert f"(got {new.split(': ')[1]})" in p.message

    def test_max_rounds_zero(self, arena):
        """``max_rounds: 0`` is below 1."""
        p = arena.one(variant("rules: d20\n", "rules: d20\nmax_rounds: 0\n"))
        assert where(p) == (3, 13, "max_rounds")
        assert p.message == "must be between 1 and 10000 (got 0)"

    def test_distance_nan(self, arena):
        """``distance: .nan`` is not a usable number."""
        p = arena.one(variant("rules: d20\n", "rules: d20\ndistance: .nan\n"))
        assert where(p) == (3, 11, "distance")
        assert "(got nan)" in p.message

    def test_weapon_range_zero(self, arena):
        """A ranged weapon needs a range of at least half a metre."""
        p = arena.one(variant("damage: 1d8}", "damage: 1d8, range: 0}"))
        assert where(p) == (11, 53, "sides[0].members[0].weapons[0].range")
        assert p.message == "must be between 0.5 and 10000 (got 0)"

    def test_huge_integer(self, arena):
        """An integer too long for Python to convert is a problem, not a crash."""
        p = arena.one(variant("level: 3", "level: 1" + "0" * 5000))
        assert where(p) == (8, 16, "sides[0].members[0].level")
        assert "cannot read" in p.message
        assert len(str(p)) < 200


class TestBadDice:
    """Dice notation that does not parse or is out of bounds, at the dice value."""

    @pytest.mark.parametrize(
        ("damage", "detail"),
        [
            ("1d", "'1d' is not a number or a dice term"),
            ("2d6+", "after '+' at the end"),
            ("1001d6", "at most 1000 dice per term"),
            ("1d8-5", "must never be below 0"),
        ],
    )
    def test_weapon_damage(self, arena, damage, detail):
        """Bad weapon damage is reported at ``weapons[0].damage``."""
        p = arena.one(variant("damage: 1d8", f"damage: {damage}"))
        assert where(p) == (11, 41, "sides[0].members[0].weapons[0].damage")
        assert detail in p.message
        assert damage in p.message

    @pytest.mark.parametrize(("hp", "minimum"), [("0", "min 0"), ("1d6-10", "min -9")])
    def test_hp_below_one(self, arena, hp, minimum):
        """HP that can be below 1 is refused, naming the minimum it can reach."""
        p = arena.one(variant("hp: 24", f"hp: {hp}"))
        assert where(p) == (9, 13, "sides[0].members[0].hp")
        assert "must never be below 1" in p.message
        assert minimum in p.message


class TestUnknownKeys:
    """Unknown keys are errors at every level, at the key, with a 'did you mean' hint."""

    @pytest.mark.parametrize(
        ("old", "new", "expected", "hint"),
        [
            ("sides:\n", "sidez:\n", (3, 1, "sidez"), "sides"),
            ("rules: d20\n", "rules: d20\nmax_round: 5\n", (3, 1, "max_round"), "max_rounds"),
            ("party: true\n", "party: true\n    tactic: {target: weakest}\n",
             (6, 5, "sides[0].tactic"), "tactics"),
            ("armor: 4\n", "armor: 4\n        tactic: {target: weakest}\n",
             (11, 9, "sides[0].members[0].tactic"), "tactics"),
            ("weapons:", "weapon:", (11, 9, "sides[0].members[0].weapon"), "weapons"),
            ("count: 2}", "count: 2, armr: 3}", (14, 33, "sides[1].members[0].armr"), "armor"),
            ("damage: 1d8}", "damage: 1d8, bonnus: 1}",
             (11, 46, "sides[0].members[0].weapons[0].bonnus"), "bonus"),
            ("rules: d20\n", "rules: d20\noptions: {moral: false}\n",
             (3, 11, "options.moral"), "morale"),
            ("party: true\n", "party: true\n    tactics: {targt: weakest}\n",
             (6, 15, "sides[0].tactics.targt"), "target"),
            ("rules: d20\n", "rules: d20\nsurprise: {side: goblins, groupcheck: stealth}\n",
             (3, 27, "surprise.groupcheck"), "group_check"),
        ],
    )
    def test_unknown_key_with_hint(self, arena, old, new, expected, hint):
        """The unknown key is reported at the key itself and the close known key suggested."""
        problems = arena.problems(variant(old, new))
        p = problems[0]
        assert where(p) == expected
        assert p.message.startswith(f"unknown key '{expected[2].split('.')[-1]}'")
        assert p.message.endswith(f"; did you mean '{hint}'?")

    def test_hitpoints_suggests_hp(self, arena):
        """``hitpoints`` is the long name of ``hp`` and should be suggested as such."""
        p = arena.problems(variant("hp: 24", "hitpoints: 24"))[0]
        assert where(p) == (9, 9, "sides[0].members[0].hitpoints")
        assert "did you mean 'hp'?" in p.message

    def test_hitpoints_reported_at_key(self, arena):
        """``hitpoints`` is at least reported as an unknown key, at the key."""
        p = arena.one(variant("hp: 24", "hitpoints: 24"))
        assert where(p) == (9, 9, "sides[0].members[0].hitpoints")
        assert p.message.startswith("unknown key 'hitpoints'")

    def test_unknown_key_in_bestiary_entry(self, arena):
        """An unknown key in a bestiary entry is reported in the bestiary file."""
        arena.write(variant("defense_threshold: 11\n", "defense_threshold: 11\n    weapon: []\n",
                            text=BESTIARY), "bestiary/d20/x.yaml")
        problems = arena.problems(BASE)
        first = problems[0]
        assert first.file == "bestiary/d20/x.yaml"
        assert where(first) == (7, 5, "creatures.goblin.weapon")
        assert first.message == "unknown key 'weapon'; did you mean 'weapons'?"

    def test_unknown_top_level_key_in_bestiary(self, arena):
        """A misspelt top-level key of a bestiary file gets a hint too."""
        path = arena.write(BESTIARY + "creaturs: {}\n", "bestiary/d20/x.yaml")
        code, out, err = arena.cli("validate", str(path.relative_to(arena.root)))
        assert (code, out) == (2, "")
        assert err == ("bestiary/d20/x.yaml:13:1: creaturs: unknown key 'creaturs'; "
                       "did you mean 'creatures'?\n")

    def test_bestiary_without_creatures_key(self, arena):
        """A bestiary file whose ``creatures`` key is misspelt is still checked as a bestiary."""
        arena.write(BESTIARY.replace("creatures:", "creature:"), "bestiary/d20/x.yaml")
        code, _, err = arena.cli("validate", "bestiary/d20/x.yaml")
        assert code == 2
        assert "did you mean 'creatures'?" in err
        assert "missing required key 'sides'" not in err


class TestChoices:
    """Values from a fixed set: tactics and rule systems."""

    def test_unknown_tactic(self, arena):
        """An unknown target policy lists the policies that exist."""
        p = arena.one(variant("party: true\n", "party: true\n    tactics: {target: nearest}\n"))
        assert where(p) == (6, 23, "sides[0].tactics.target")
        assert p.message.startswith(
            "must be one of random, weakest, strongest, focus (got 'nearest')")

    def test_unknown_rules(self, arena):
        """An unknown rule system is refused with a hint."""
        p = arena.one(variant("rules: d20", "rules: d21"))
        assert where(p) == (2, 8, "rules")
        assert p.message == "must be one of d20, d100, 2d10, d10 (got 'd21'); did you mean 'd20'?"

    def test_rules_number(self, arena):
        """``rules: 20`` (an int) is refused without crashing the hint."""
        p = arena.one(variant("rules: d20", "rules: 20"))
        assert where(p) == (2, 8, "rules")
        assert p.message == "must be one of d20, d100, 2d10, d10 (got 20)"

    def test_missing_rules(self, arena):
        """A scenario without ``rules`` says so on the whole document."""
        p = arena.one(variant("rules: d20\n", ""))
        assert where(p) == (1, 1, "")
        assert p.message == "missing required key 'rules'"


class TestYamlLevel:
    """Problems found before any schema check: syntax, tags, encoding, emptiness, files."""

    def test_bad_indentation(self, arena):
        """A mapping value where none is allowed points at the offending colon."""
        p = arena.one("name: T\nrules: d20\n  sides: []\n")
        assert where(p) == (3, 8, "")
        assert p.message.startswith("invalid YAML: ")
        assert "mapping values are not allowed" in p.message

    def test_unclosed_flow_sequence(self, arena):
        """An unclosed ``[`` names where the sequence started."""
        p = arena.one("name: T\nrules: [d20\n")
        assert (p.line, p.path) == (3, "")
        assert p.message.startswith("invalid YAML: ")
        assert "',' or ']'" in p.message
        assert "at 2:8" in p.message

    def test_tab_indentation(self, arena):
        """A tab where indentation is expected is a syntax error at the tab."""
        p = arena.one("name: T\nrules: d20\nsides:\n\t- a\n")
        assert where(p) == (4, 1, "")
        assert p.message.startswith("invalid YAML: ")

    def test_nul_character(self, arena):
        """A NUL byte is located, not a crash."""
        p = arena.one(b"name: T\nrules: d\x0020\n")
        assert where(p) == (2, 9, "")
        assert "0000" in p.message
        assert "not allowed" in p.message

    def test_python_tag_is_not_executed(self, arena):
        """A ``!!python/object/apply`` tag is refused and its command never runs."""
        marker = arena.root / "PWNED"
        text = variant("name: Test", f'name: !!python/object/apply:os.system ["touch {marker}"]')
        p = arena.one(text)
        assert where(p) == (1, 7, "name")
        assert p.message == "YAML tags are not allowed (got '!!python/object/apply:os.system')"
        assert not marker.exists()

    def test_python_tag_on_mapping(self, arena):
        """A tag on a whole mapping is refused at the mapping."""
        marker = arena.root / "PWNED2"
        text = variant("      - {use: goblin, count: 2}",
                       "      - !!python/object/new:os.system {args: [touch " + str(marker) + "]}")
        p = arena.one(text)
        assert where(p) == (14, 9, "sides[1].members[0]")
        assert p.message.startswith("YAML tags are not allowed")
        assert not marker.exists()

    def test_non_utf8(self, arena):
        """A byte that is not UTF-8 is located at its line and column."""
        p = arena.one(b"name: T\nrules: d20 caf\xe9\n")
        assert where(p) == (2, 15, "")
        assert p.message == "not valid UTF-8 (byte 0xe9)"

    @pytest.mark.parametrize("text", [b"", b"\n\n", b"# only a comment\n", b"---\n"])
    def test_empty_file(self, arena, text):
        """An empty (or comment-only) file is one problem on the whole file."""
        p = arena.one(text)
        assert where(p) == (0, 0, "")
        assert p.message == "file is empty"
        assert str(p) == "s.yaml:0:0: (document): file is empty"

    def test_duplicate_key(self, arena):
        """A key given twice names the line of the first."""
        p = arena.one(variant("rules: d20\n", "rules: d20\nrules: d20\n"))
        assert where(p) == (3, 1, "rules")
        assert p.message == "duplicate key 'rules' (first at line 2)"

    def test_alias_loop(self, arena):
        """An alias inside its own anchor is refused, not recursed forever."""
        p = arena.one("a: &a [*a]\n")
        assert where(p) == (1, 8, "a[0]")
        assert "own anchor" in p.message

    def test_billion_laughs(self, arena, monkeypatch):
        """Alias expansion past the node limit stops with one problem."""
        # A lower limit keeps the test fast; the mechanism is the same at 100 000.
        monkeypatch.setattr(yamlsrc, "MAX_NODES", 2000, raising=False)
        rows = ["a: &a [x, x, x, x, x, x, x, x, x]"]
        for prev, name in zip("abcde", "bcdef", strict=True):
            rows.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 9) + "]")
        p = arena.one("\n".join(rows) + "\n")
        assert p.message == "document too large after expanding aliases"

    def test_missing_file(self, arena):
        """A file that does not exist is one problem, no traceback."""
        p = arena.one(None, "nope.yaml")
        assert where(p) == (0, 0, "")
        assert p.file == "nope.yaml"
        assert p.message.startswith("cannot read file")

    def test_directory(self, arena):
        """A directory given as the file is one problem, no traceback."""
        (arena.root / "adir").mkdir()
        p = arena.one(None, "adir")
        assert (p.file, p.line, p.col) == ("adir", 0, 0)
        assert p.message.startswith("cannot read file")

    def test_run_on_directory(self, arena):
        """``sim run DIR`` exits 2 without a traceback."""
        code, out, err = arena.cli("run", "bestiary")
        assert code == 2
        assert out == ""
        assert "Traceback" not in err
        assert err.startswith("bestiary:0:0: (document): cannot read file")


class TestBestiary:
    """``use:`` resolution and the bestiary files themselves."""

    def test_missing_entry_with_hint(self, arena):
        """A misspelt ``use:`` suggests the closest entry."""
        p = arena.one(variant("use: goblin", "use: gobln"))
        assert where(p) == (14, 15, "sides[1].members[0].use")
        assert p.message == ("no bestiary entry 'gobln'; did you mean 'goblin'?; searched:"
                             " bestiary/d20; add the entry to a YAML file there, or name your"
                             " folder with --bestiary DIR or SIM_BESTIARY")

    def test_missing_entry_without_bestiary(self, arena):
        """With no bestiary folder at all, ``use:`` is still one clear problem."""
        (arena.root / "bestiary/d20/x.yaml").unlink()
        (arena.root / "bestiary/d20").rmdir()
        p = arena.one(BASE)
        assert where(p) == (14, 15, "sides[1].members[0].use")
        assert p.message == ("no bestiary entry 'goblin'; searched: no 'd20' bestiary folder;"
                             " add the entry to a YAML file there, or name your folder with"
                             " --bestiary DIR or SIM_BESTIARY")

    def test_missing_entry_names_every_folder(self, arena, tmp_path_factory):
        """The message lists each folder searched, --bestiary ones first."""
        extra = tmp_path_factory.mktemp("extra")
        (extra / "d20").mkdir()
        arena.write(variant("use: goblin", "use: ogre"))
        with pytest.raises(ScenarioError) as info:
            load_scenario(pathlib.Path("s.yaml"), (extra,))
        assert f"searched: {extra / 'd20'}, bestiary/d20;" in info.value.problems[0].message

    def test_rules_subfolder_as_bestiary(self, arena, tmp_path_factory):
        """``--bestiary lib/d20`` (the rules folder itself) works like ``--bestiary lib``."""
        extra = tmp_path_factory.mktemp("lib")
        (extra / "d20").mkdir()
        (extra / "d20" / "y.yaml").write_text(
            "rules: d20\ncreatures:\n  ogre: {hp: 30, level: 4}\n", encoding="utf-8")
        arena.write(variant("use: goblin", "use: ogre"))
        scenario = load_scenario(pathlib.Path("s.yaml"), (extra / "d20",))
        assert scenario.sides[1].members[0].level == 4
        code, _, err = arena.cli("validate", "s.yaml", "--bestiary", str(extra / "d20"))
        assert (code, err) == (0, "")

    def test_bad_bestiary_file_reported_in_place(self, arena):
        """A bad bestiary value is reported with the bestiary's own path and line."""
        bad = variant("defense_threshold: 11", "defense_threshold: lots", text=BESTIARY)
        arena.write(bad, "bestiary/d20/x.yaml")
        problems = arena.problems(BASE)
        assert str(problems[0]) == (
            "bestiary/d20/x.yaml:6:24: creatures.goblin.defense_threshold: must be an integer"
            " (got 'lots')")

    def test_invalid_entry_not_called_missing(self, arena):
        """An entry that exists but is invalid is not reported as missing."""
        bad = variant("defense_threshold: 11", "defense_threshold: lots", text=BESTIARY)
        arena.write(bad, "bestiary/d20/x.yaml")
        problems = arena.problems(BASE)
        assert [p.message for p in problems if "no bestiary entry" in p.message] == []

    def test_validate_bestiary_file(self, arena):
        """``sim validate`` on a bad bestiary file reports every problem of it."""
        bad = variant("defense_threshold: 11", "defense_threshold: lots", "hp: 3d8", "hp: 0", text=BESTIARY)
        arena.write(bad, "bestiary/d20/x.yaml")
        code, out, err = arena.cli("validate", "bestiary/d20/x.yaml")
        assert code == 2
        assert out == ""
        assert err.splitlines() == [
            "bestiary/d20/x.yaml:6:24: creatures.goblin.defense_threshold: must be an integer"
            " (got 'lots')",
            "bestiary/d20/x.yaml:10:9: creatures.hobgoblin.hp: must never be below 1 "
            "(got 0, min 0)",
        ]

    def test_validate_good_bestiary_file(self, arena):
        """``sim validate`` on a good bestiary file says so."""
        code, out, err = arena.cli("validate", "bestiary/d20/x.yaml")
        assert (code, out, err) == (0, "bestiary/d20/x.yaml: ok (bestiary)\n", "")

    def test_override_reported_in_scenario(self, arena):
        """A bad override of a bestiary entry is reported in the scenario."""
        p = arena.one(variant("count: 2}", "count: 2, hp: 0}"))
        assert where(p) == (14, 37, "sides[1].members[0].hp")
        assert p.message.startswith("must never be below 1")

    def test_bestiary_in_parent_folder(self, arena):
        """A scenario in a sub-folder finds ``bestiary/`` in a folder above it."""
        scenario = arena.load(BASE, "deep/er/s.yaml")
        assert [c.name for c in scenario.sides[1].members] == ["goblin 1", "goblin 2"]

    def test_extra_bestiary_option(self, arena, tmp_path_factory):
        """``--bestiary DIR`` and SIM_BESTIARY add folders searched first."""
        extra = tmp_path_factory.mktemp("extra")
        (extra / "d20").mkdir()
        (extra / "d20" / "y.yaml").write_text(
            "rules: d20\ncreatures:\n  ogre: {hp: 30, level: 4}\n", encoding="utf-8")
        arena.write(variant("use: goblin", "use: ogre"))
        with pytest.raises(ScenarioError):
            load_scenario(pathlib.Path("s.yaml"))
        scenario = load_scenario(pathlib.Path("s.yaml"), (extra,))
        assert scenario.sides[1].members[0].hp == dice.parse(30)
        code, _, err = arena.cli("validate", "s.yaml", "--bestiary", str(extra))
        assert (code, err) == (0, "")

    def test_sim_bestiary_env(self, arena, tmp_path_factory, monkeypatch):
        """SIM_BESTIARY adds folders searched before the scenario's own."""
        extra = tmp_path_factory.mktemp("env")
        (extra / "d20").mkdir()
        (extra / "d20" / "y.yaml").write_text(
            "rules: d20\ncreatures:\n  goblin: {hp: 30, level: 4}\n", encoding="utf-8")
        monkeypatch.setenv("SIM_BESTIARY", str(extra))
        scenario = arena.load(BASE)
        assert scenario.sides[1].members[0].level == 4


class TestNames:
    """Combatant and side names are unique; sides are at least two, one party at most."""

    def test_duplicate_explicit_names(self, arena):
        """Two members with one name: the second is reported, naming the first."""
        p = arena.one(variant("      - {use: goblin, count: 2}\n",
                              "      - {use: goblin, count: 2}\n      - {name: Aria, hp: 3}\n"))
        assert where(p) == (15, 9, "sides[1].members[1]")
        assert p.message == "duplicate combatant name 'Aria' (first at sides[0].members[0])"

    def test_count_collides_with_explicit_name(self, arena):
        """``count: 2`` makes 'goblin 2', which collides with a member named so."""
        p = arena.one(variant("      - {use: goblin, count: 2}\n",
                              "      - {use: goblin, count: 2}\n      - {name: goblin 2, hp: 3}\n"))
        assert where(p) == (15, 9, "sides[1].members[1]")
        assert p.message == "duplicate combatant name 'goblin 2' (first at sides[1].members[0])"

    def test_explicit_name_before_count(self, arena):
        """An explicit 'goblin 1' listed first makes the ``count:`` entry the duplicate."""
        p = arena.one(variant("name: Aria", "name: goblin 1"))
        assert where(p) == (14, 9, "sides[1].members[0]")
        assert p.message == "duplicate combatant name 'goblin 1' (first at sides[0].members[0])"

    def test_duplicate_side_names(self, arena):
        """Two sides with one name: the second name is reported."""
        p = arena.one(variant("- name: goblins", "- name: heroes"))
        assert where(p) == (12, 11, "sides[1].name")
        assert p.message == "duplicate side name 'heroes'"

    def test_one_side_only(self, arena):
        """A battle needs two sides."""
        p = arena.one(BASE.split("  - name: goblins")[0])
        assert where(p) == (4, 3, "sides")
        assert p.message == "must have at least 2 item(s) (got 1)"

    def test_two_party_sides(self, arena):
        """Only one side can be the party."""
        p = arena.one(variant("- name: goblins\n", "- name: goblins\n    party: true\n"))
        assert p.path == "sides[1].party"
        assert p.message == "only one side can be the party (the first is at sides[0])"

    def test_two_party_sides_location(self, arena):
        """The second ``party: true`` is where the problem is."""
        p = arena.one(variant("- name: goblins\n", "- name: goblins\n    party: true\n"))
        assert where(p) == (13, 12, "sides[1].party")

    def test_empty_name(self, arena):
        """An empty name is refused at the value."""
        p = arena.one(variant("count: 2}", "count: 2, name: ''}"))
        assert where(p) == (14, 39, "sides[1].members[0].name")
        assert p.message == "must be a non-empty string (got '')"

    def test_control_character_in_name(self, arena):
        """A tab inside a name is refused and shown escaped."""
        p = arena.one(variant("name: Aria", 'name: "A\\tria"'))
        assert where(p) == (7, 15, "sides[0].members[0].name")
        assert p.message == "must not contain control characters (got 'A\\tria')"

    def test_missing_member_name_and_hp(self, arena):
        """A member with neither ``use:`` nor name/hp names both missing keys."""
        problems = arena.problems(variant("count: 2}", "count: 2}\n      - {level: 2}"))
        assert [where(p) for p in problems] == [(15, 9, "sides[1].members[1]")] * 2
        assert [p.message for p in problems] == [
            "missing required key 'name' (and no 'use:')",
            "missing required key 'hp' (and no 'use:')",
        ]


class TestSurprise:
    """``surprise`` must name a side of the scenario."""

    def test_unknown_side(self, arena):
        """A surprise naming no side is reported at its value."""
        p = arena.one(variant("rules: d20\n", "rules: d20\nsurprise: orcs\n"))
        assert where(p) == (3, 11, "surprise")
        assert p.message == "no side named 'orcs'"

    def test_unknown_side_hint(self, arena):
        """A misspelt side gets a hint."""
        p = arena.one(variant("rules: d20\n", "rules: d20\nsurprise: goblin\n"))
        assert p.message == "no side named 'goblin'; did you mean 'goblins'?"

    def test_mapping_without_side(self, arena):
        """The mapping form needs ``side``."""
        p = arena.one(variant("rules: d20\n", "rules: d20\nsurprise: {group_check: stealth}\n"))
        assert where(p) == (3, 11, "surprise")
        assert p.message == "missing required key 'side'"

    def test_mapping_unknown_side_location(self, arena):
        """In the mapping form the bad side is located at ``surprise.side``."""
        p = arena.one(variant("rules: d20\n", "rules: d20\nsurprise: {side: orcs}\n"))
        assert where(p) == (3, 18, "surprise.side")

    def test_reported_with_other_problems(self, arena):
        """A bad surprise is reported together with the other problems of the file."""
        problems = arena.problems(variant("rules: d20\n", "rules: d20\nsurprise: orcs\n",
                                          "hp: 24", "hp: lots"))
        assert [p.path for p in problems] == ["surprise", "sides[0].members[0].hp"]  # file order

    def test_empty_string(self, arena):
        """``surprise: ''`` is refused as an empty name."""
        p = arena.one(variant("rules: d20\n", "rules: d20\nsurprise: ''\n"))
        assert p.message == "must be a non-empty string (got '')"


class TestManyProblems:
    """Every problem of a file is reported at once, one line each."""

    def test_all_reported(self, arena):
        """Five independent problems give five lines, in file order."""
        text = variant(
            "rules: d20\n", "rules: d20\nmax_rounds: 0\n",
            "level: 3", 'level: "3"',
            "hp: 24", "hp: lots",
            "weapons:", "weapon:",
            "count: 2}", "count: 2, armor: true}",
        )
        problems = arena.problems(text)
        assert [where(p) for p in problems] == [
            (3, 13, "max_rounds"),
            (9, 16, "sides[0].members[0].level"),
            (10, 13, "sides[0].members[0].hp"),
            (12, 9, "sides[0].members[0].weapon"),
            (15, 40, "sides[1].members[0].armor"),
        ]
        code, _, err = arena.cli("run", "s.yaml")
        assert code == 2
        assert "Traceback" not in err
        assert len(err.splitlines()) == 5


class TestLongValues:
    """A long bad value is shortened so no message line is unreadably long."""

    LONG = "x" * 300

    def test_long_string_where_integer_expected(self, arena):
        """A 300-character level is cut in the message."""
        p = arena.one(variant("level: 3", f"level: {self.LONG}"))
        assert where(p) == (8, 16, "sides[0].members[0].level")
        assert len(str(p)) < 200

    def test_long_name(self, arena):
        """A 300-character name reports its length, not its text."""
        p = arena.one(variant("name: Aria", f"name: {self.LONG}"))
        assert p.message == "must be at most 80 characters (got 300)"

    def test_very_long_dice(self, arena):
        """Dice text over the 200-character limit is cut in the message."""
        p = arena.one(variant("hp: 24", f"hp: 1d6+{self.LONG}"))
        assert where(p) == (9, 13, "sides[0].members[0].hp")
        assert len(str(p)) < 200

    def test_long_dice_under_limit(self, arena):
        """Bad dice of 150 characters still gives a short message."""
        p = arena.one(variant("hp: 24", f"hp: 1d6+{'x' * 150}"))
        assert len(str(p)) < 200

    def test_long_unknown_key(self, arena):
        """A 300-character unknown key is cut in the path as well as in the message."""
        p = arena.one(variant("armor: 4", f"{self.LONG}: 4"))
        assert (p.line, p.col) == (10, 9)
        assert len(str(p)) < 200

    def test_long_surprise(self, arena):
        """A 300-character surprise side is cut in the message."""
        p = arena.one(variant("rules: d20\n", f"rules: d20\nsurprise: {self.LONG}\n"))
        assert len(str(p)) < 200


class TestGoodInput:
    """Valid scenarios load into the specs the engine plays."""

    def test_use_with_overrides(self, arena):
        """Keys given beside ``use:`` win; the rest comes from the bestiary entry."""
        scenario = arena.load(variant("{use: goblin, count: 2}",
                                      "{use: goblin, name: Boss, hp: 20, defense_threshold: 13}"))
        boss = scenario.sides[1].members[0]
        assert boss.name == "Boss"
        assert boss.hp == dice.parse(20)
        assert boss.defense_threshold == 13
        assert boss.level == 1
        assert [(w.name, str(w.damage)) for w in boss.weapons] == [("rusty blade", "1d6")]
        assert boss.side == "goblins"

    def test_count_names(self, arena):
        """``count: 3`` names the members ``goblin 1`` .. ``goblin 3``, one group."""
        scenario = arena.load(variant("count: 2", "count: 3"))
        members = scenario.sides[1].members
        assert [m.name for m in members] == ["goblin 1", "goblin 2", "goblin 3"]
        assert {m.group for m in members} == {"goblin"}
        assert all(str(m.hp) == "2d6" for m in members)

    def test_terror_kind_is_the_scenario_entry(self, arena):
        """Terror once per kind of creature (RULES 3): the members of one `use:` entry or one
        `count:` entry share a kind; another entry, even of the same bestiary entry, is another."""
        scenario = arena.load(variant(
            "      - {use: goblin, count: 2}\n",
            "      - {use: goblin, count: 2}\n"
            "      - {use: goblin, name: Boss}\n"
            "      - {name: imp, count: 2, hp: 3}\n"
            "      - {name: wisp, hp: 3}\n"))
        kinds = {m.name: m.kind for m in scenario.sides[1].members}
        assert kinds == {"goblin 1": "sides[1].members[0]", "goblin 2": "sides[1].members[0]",
                         "Boss": "sides[1].members[1]", "imp 1": "sides[1].members[2]",
                         "imp 2": "sides[1].members[2]", "wisp": "sides[1].members[3]"}
        assert len({m.kind for m in scenario.sides[0].members}) == len(scenario.sides[0].members)

    def test_count_one_keeps_plain_name(self, arena):
        """``count: 1`` (the default) keeps the name without a number."""
        scenario = arena.load(variant("count: 2", "count: 1"))
        assert [m.name for m in scenario.sides[1].members] == ["goblin"]

    def test_count_with_own_name(self, arena):
        """``count:`` numbers an overridden name too."""
        scenario = arena.load(variant("count: 2}", "count: 2, name: gob}"))
        assert [m.name for m in scenario.sides[1].members] == ["gob 1", "gob 2"]

    def test_hp_dice(self, arena):
        """``hp: 3d8`` is parsed once into dice rolled each battle."""
        scenario = arena.load(variant("hp: 24", "hp: 3d8"))
        hp = scenario.sides[0].members[0].hp
        assert isinstance(hp, dice.Dice)
        assert (str(hp), hp.min, hp.max) == ("3d8", 3, 24)

    def test_hp_number(self, arena):
        """``hp: 24`` is a constant."""
        hp = arena.load(BASE).sides[0].members[0].hp
        assert hp.is_constant
        assert (hp.min, hp.max) == (24, 24)

    def test_surprise_mapping(self, arena):
        """``surprise: {side, group_check}`` is kept as given."""
        text = variant("rules: d20\n",
                       "rules: d20\nsurprise: {side: goblins, group_check: stealth}\n")
        assert arena.load(text).surprise == Surprise(side="goblins", group_check="stealth")

    def test_surprise_string(self, arena):
        """``surprise: goblins`` is a surprise with no group check."""
        text = variant("rules: d20\n", "rules: d20\nsurprise: goblins\n")
        assert arena.load(text).surprise == Surprise(side="goblins")

    def test_defaults(self, arena):
        """Keys left out take the documented defaults."""
        scenario = arena.load(BASE)
        assert scenario.options == Options()
        assert (scenario.options.morale_on, scenario.options.destiny_points) == (None, 0)
        assert scenario.options.outnumbered_at == 3
        assert (scenario.max_rounds, scenario.distance, scenario.surprise) == (100, 0.0, None)
        heroes, goblins = scenario.sides
        assert (heroes.party, goblins.party) == (True, False)
        assert heroes.tactics == Tactics()  # every key inherited: the defaults below
        assert (heroes.tactics.policy, heroes.tactics.drink_at) == ("random", 0.33)
        aria = heroes.members[0]
        assert (aria.level, aria.armor, aria.heroism, aria.attack_threshold) == (3, 4, 0, None)

    def test_options_given(self, arena):
        """Options given in the scenario are kept."""
        text = variant("rules: d20\n", "rules: d20\nmax_rounds: 7\ndistance: 12.5\n"
                       "options: {destiny_points: 2, outnumbered_at: 1}\n")
        scenario = arena.load(text)
        assert scenario.options == Options(destiny_points=2, outnumbered_at=1)
        assert (scenario.max_rounds, scenario.distance) == (7, 12.5)

    def test_sha256_and_rules(self, arena):
        """The scenario remembers its rules and the hash of its bytes."""
        scenario = arena.load(BASE)
        assert scenario.rules == "d20"
        assert scenario.sha256 == hashlib.sha256(BASE.encode()).hexdigest()

    def test_utf8_bom_and_names(self, arena):
        """A UTF-8 BOM is skipped and non-ASCII names are kept."""
        text = "\ufeff" + variant("name: Aria", "name: Élodie")
        scenario = arena.load(text)
        assert scenario.sides[0].members[0].name == "Élodie"

    def test_bom_keeps_positions(self, arena):
        """After a BOM, line:col are those of the text."""
        p = arena.one("\ufeff" + variant("hp: 24", "hp: lots"))
        assert where(p) == (9, 13, "sides[0].members[0].hp")


def _repo_files(pattern: str) -> list[pathlib.Path]:
    return sorted(REPO.glob(pattern))


def _implemented(path: pathlib.Path) -> bool:
    """Whether a content file only uses what is implemented (other systems come later)."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError):
        return True  # let sim validate report it
    if not isinstance(data, dict):
        return True
    return data.get("rules") in IMPLEMENTED_SYSTEMS


class TestRepositoryContent:
    """The repository's own scenarios and bestiary validate."""

    def test_content_found(self):
        """There is at least one scenario and one d20 bestiary file to check."""
        assert _repo_files("scenarios/*.yaml")
        assert _repo_files("bestiary/d20/*.yaml")

    @pytest.mark.parametrize(
        "path",
        _repo_files("scenarios/*.yaml") + _repo_files("bestiary/*/*.yaml"),
        ids=lambda p: str(p.relative_to(REPO)),
    )
    def test_validates(self, path, capsys, monkeypatch):
        """``sim validate`` accepts the file with exit code 0."""
        monkeypatch.delenv("SIM_BESTIARY", raising=False)
        if not _implemented(path):
            pytest.skip("uses a rule system or feature that is not implemented yet")
        code = main(["validate", str(path)])
        out, err = capsys.readouterr()
        assert (code, err) == (0, "")
        assert out.endswith(("ok (scenario)\n", "ok (bestiary)\n"))


class TestTacticsAndItems:
    """The keys of issue 9: `tactics.weapons`, `tactics.potion_at` and `items` (RULES.md §8)."""

    def test_unknown_weapon_in_member_tactics(self, arena):
        """`tactics.weapons` naming no weapon of the stat block: file:line:col and did you mean."""
        p = arena.one(variant("        weapons: [{name: sword, damage: 1d8}]\n",
                              "        weapons: [{name: sword, damage: 1d8}]\n"
                              "        tactics: {weapons: [swrod]}\n"))
        assert where(p) == (12, 29, "sides[0].members[0].tactics.weapons[0]")
        assert p.message == ("no weapon named 'swrod' in this stat block (its weapons: sword);"
                             " did you mean 'sword'?")

    def test_unknown_weapon_in_side_tactics(self, arena):
        """Side `tactics.weapons` must name a weapon of at least one member of the side."""
        p = arena.one(variant("  - name: goblins\n",
                              "  - name: goblins\n    tactics: {weapons: [rusty blde]}\n"))
        assert where(p) == (13, 25, "sides[1].tactics.weapons[0]")
        assert "did you mean 'rusty blade'?" in p.message

    def test_unknown_weapon_in_bestiary_tactics(self, arena):
        """A bestiary entry's `tactics.weapons` is checked against its own weapons, in the bestiary."""
        arena.write(BESTIARY.replace("    weapons: [{name: spear, damage: 1d8}]\n",
                                     "    weapons: [{name: spear, damage: 1d8}]\n"
                                     "    tactics: {weapons: [pike]}\n"), "bestiary/d20/x.yaml")
        code, _, err = arena.cli("validate", "bestiary/d20/x.yaml")
        assert code == 2
        assert err.startswith("bestiary/d20/x.yaml:13:25: creatures.hobgoblin.tactics.weapons[0]:"
                              " no weapon named 'pike'")

    def test_weapon_listed_twice(self, arena):
        """A weapon named twice in `tactics.weapons` is refused."""
        p = arena.one(variant("        weapons: [{name: sword, damage: 1d8}]\n",
                              "        weapons: [{name: sword, damage: 1d8}]\n"
                              "        tactics: {weapons: [sword, sword]}\n"))
        assert p.path == "sides[0].members[0].tactics.weapons[1]" and "twice" in p.message

    def test_potion_at_is_a_fraction(self, arena):
        """`tactics.potion_at` is a fraction of maximum HP, 0 to 1."""
        p = arena.one(variant("party: true\n", "party: true\n    tactics: {potion_at: 33}\n"))
        assert p.path == "sides[0].tactics.potion_at"
        assert p.message == "must be between 0 and 1 (got 33)"

    def test_items_load(self, arena):
        """`items: [{name, heal, count}]` on a member; the name defaults to a healing potion."""
        scenario = arena.load(variant("        armor: 4\n",
                                      "        armor: 4\n        items: [{heal: 2d4+2, count: 3},"
                                      " {name: elixir, heal: 4d4}]\n"))
        items = scenario.sides[0].members[0].items
        assert [(i.name, str(i.heal), i.count) for i in items] == [
            ("healing potion", "2d4+2", 3), ("elixir", "4d4", 1)]

    def test_bad_items(self, arena):
        """An item needs `heal` dice; unknown keys and a name listed twice are refused."""
        problems = arena.problems(variant("        armor: 4\n",
                                          "        armor: 4\n        items: [{name: a, count: 2},"
                                          " {heal: 1d4, colour: red}, {heal: 1d4}, {heal: 1d6}]\n"))
        assert [(p.path, p.message.split(" (")[0]) for p in problems] == [
            ("sides[0].members[0].items[0]", "missing required key 'heal'"),
            ("sides[0].members[0].items[1].colour", "unknown key 'colour'"),
            ("sides[0].members[0].items[3].name", "item 'healing potion' is listed twice"),
        ]

    def test_member_tactics_merge_with_the_bestiary_entry(self, arena):
        """A member's `tactics` override its bestiary entry's key by key."""
        arena.write(BESTIARY.replace("    weapons: [{name: spear, damage: 1d8}]\n",
                                     "    weapons: [{name: spear, damage: 1d8}, {name: net, damage: 1}]\n"
                                     "    tactics: {weapons: [net], target: weakest}\n"),
                    "bestiary/d20/x.yaml")
        scenario = arena.load(variant("{use: goblin, count: 2}",
                                      "{use: hobgoblin, tactics: {potion_at: 0.5}, items: [{heal: 1d4}]}"))
        tactics = scenario.sides[1].members[0].tactics
        assert tactics == Tactics(target="weakest", weapons=("net",), potion_at=0.5)

    def test_potion_at_without_items_is_refused(self, arena):
        """`potion_at` with no items to drink would do nothing: refused, member and side."""
        p = arena.one(variant("        armor: 4\n", "        armor: 4\n"
                                                     "        tactics: {potion_at: 0.5}\n"))
        assert p.path == "sides[0].members[0].tactics.potion_at"
        assert p.message.startswith("does nothing without items")
        p = arena.one(variant("party: true\n", "party: true\n    tactics: {potion_at: 0.5}\n"))
        assert (p.path, p.message) == ("sides[0].tactics.potion_at",
                                       "does nothing: no member of this side carries items")
        arena.write(BESTIARY.replace("    weapons: [{name: spear, damage: 1d8}]\n",
                                     "    weapons: [{name: spear, damage: 1d8}]\n"
                                     "    tactics: {potion_at: 0.5}\n"), "bestiary/d20/x.yaml")
        code, _, err = arena.cli("validate", "bestiary/d20/x.yaml")
        assert code == 2
        assert "creatures.hobgoblin.tactics.potion_at: does nothing without items" in err


CORPUS = REPO / "tests" / "data" / "invalid"


def _corpus_files() -> list[pathlib.Path]:
    return sorted([*CORPUS.glob("*.yaml"), *CORPUS.glob("bad_bestiary/*/*.yaml")])


class TestCorpus:
    """Hostile and careless inputs of tests/data/invalid: exit 2, exactly the expected lines."""

    def test_corpus_found(self):
        """The corpus is there, with an expected file for each input."""
        files = _corpus_files()
        assert len(files) >= 15
        assert all(f.with_suffix(".expected").exists() for f in files)

    @pytest.mark.parametrize("path", _corpus_files(), ids=lambda p: str(p.relative_to(CORPUS)))
    def test_refused_with_expected_lines(self, path, capsys, monkeypatch):
        """``sim validate`` exits 2 and prints the expected problems, in file order."""
        monkeypatch.delenv("SIM_BESTIARY", raising=False)
        monkeypatch.chdir(CORPUS)
        name = str(path.relative_to(CORPUS))
        code = main(["validate", name])
        out, err = capsys.readouterr()
        expected = path.with_suffix(".expected")
        if os.environ.get("SIM_REGEN_INVALID"):
            expected.write_text(err, encoding="utf-8")
        assert (code, out) == (2, "")
        assert "Traceback" not in err
        lines = err.splitlines()
        assert lines == expected.read_text(encoding="utf-8").splitlines()
        positions = [tuple(map(int, line.split(":")[1:3])) for line in lines]
        assert positions == sorted(positions), "problems are reported in file order"


class TestKeysThatMatter:
    """Keys the system and options read are accepted; ``KEY: null`` drops a bestiary key."""

    def test_terror_and_spirit_with_the_option(self, arena):
        """With spirit on, a creature's terror and a party member's spirit both matter."""
        text = variant("rules: d20\n", "rules: d20\noptions: {spirit: true}\n",
                       "armor: 4\n", "armor: 4\n        spirit: 2d12\n",
                       "{use: goblin, count: 2}", "{use: goblin, count: 2, terror: 1d4}")
        scenario = arena.load(text)
        aria, goblin = scenario.sides[0].members[0], scenario.sides[1].members[0]
        assert aria.spirit == dice.parse("2d12")
        assert goblin.terror == dice.parse("1d4")

    def test_null_drops_a_bestiary_key(self, arena):
        """``terror: null`` next to ``use:`` drops the entry's terror: valid without spirit."""
        arena.write(BESTIARY.replace("    level: 1\n", "    level: 1\n    terror: 1d6\n"),
                    "bestiary/d20/x.yaml")
        problems = arena.problems(BASE)
        assert [p.path for p in problems] == ["sides[1].members[0].use"]
        assert "write 'terror: null' here to drop it" in problems[0].message
        scenario = arena.load(variant("{use: goblin, count: 2}",
                                      "{use: goblin, count: 2, terror: null}"))
        assert scenario.sides[1].members[0].terror is None

    def test_heroism_aspects_and_a_weapon_skill(self, arena):
        """In d20 a weapon's skill matters through aspects, which matter through heroism."""
        text = variant("armor: 4\n", "armor: 4\n        heroism: 2\n        aspects: [blades]\n",
                       "{name: sword, damage: 1d8}", "{name: sword, damage: 1d8, skill: blades}")
        aria = arena.load(text).sides[0].members[0]
        assert (aria.heroism, aria.aspects, aria.weapons[0].skill) == (2, ("blades",), "blades")

    def test_morale_on_key_is_read(self, arena):
        """``morale: {on: true, wound_divisor: 3}``: YAML's boolean ``on`` key is the key."""
        text = variant("rules: d20\n", "rules: d20\noptions: {morale: {on: true, wound_divisor: 3}}\n")
        options = arena.load(text).options
        assert (options.morale_on, options.wound_divisor) == (True, 3)

    def test_group_check_skill_on_the_surprising_side(self, arena):
        """A skill named by the side's surprise group check is read (2d10)."""
        arena.write("rules: 2d10\ncreatures:\n  rat: {hp: 3, weapons: [{name: bite, damage: 1d2}]}\n",
                    "bestiary/2d10/x.yaml")
        text = ("name: T\nrules: 2d10\nsurprise: {side: a, group_check: sneaking}\nsides:\n"
                "  - name: a\n    party: true\n    members:\n"
                "      - {name: Wynn, hp: 9, skills: {sneaking: 3, knife: 2},"
                " weapons: [{name: knife, damage: 1d4}]}\n"
                "  - name: b\n    members: [{use: rat}]\n")
        wynn = arena.load(text).sides[0].members[0]
        assert dict(wynn.skills) == {"sneaking": 3, "knife": 2}

    def test_refused_by_run_and_batch_too(self, arena, tmp_path):
        """``sim run`` and ``sim batch`` refuse an idle key like validate, before any run."""
        arena.write(variant("armor: 4\n", "armor: 4\n        spirit: 2d12\n"))
        for argv in (("run", "s.yaml"), ("batch", "s.yaml", "-n", "2", "--out", "out")):
            code, out, err = arena.cli(*argv)
            assert out == ""
            assert code == 2
            assert err.startswith("s.yaml:11:9: sides[0].members[0].spirit: does nothing without")
        assert not (tmp_path / "out").exists()


class TestBounds:
    """Numbers at the caps run through a batch; past them they are refused with the cap."""

    def test_largest_numbers_fit_the_results(self, arena, tmp_path):
        """HP and damage at 1,000,000 and the last round allowed go through battles.parquet."""
        text = variant("rules: d20\n", "rules: d20\nmax_rounds: 10000\n",
                       "hp: 24", "hp: 1000000",
                       "{name: sword, damage: 1d8}", "{name: sword, damage: 999990+1d10}",
                       "{use: goblin, count: 2}",
                       "{use: goblin, count: 2, hp: 1000000, weapons: [{name: maul, damage: 1000000}]}")
        arena.load(text)
        code, out, err = arena.cli("batch", "s.yaml", "-n", "3", "--out", "run", "--json",
                                   "--no-progress", "--workers", "1")
        assert (code, err) == (0, "")
        assert json.loads(out)["battles"] == 3

    @pytest.mark.parametrize(("old", "new", "message"), [
        ("hp: 24", "hp: 1000001", "must never exceed 1,000,000 (got 1000001, max 1,000,001)"),
        ("damage: 1d8}", "damage: 1001d1000}", "at most 1000 dice per term"),
        ("damage: 1d8}", "damage: 1000d1000+1}", "must never exceed 1,000,000"),
    ])
    def test_past_the_cap(self, arena, old, new, message):
        """A number past its cap names the cap."""
        p = arena.one(variant(old, new))
        assert message in p.message


class TestReadmeExamples:
    """The README's scenario example is valid as written: no key in it is refused."""

    def test_writing_a_scenario_example_validates(self, tmp_path, monkeypatch, capsys):
        """The first YAML block of "Writing a scenario" validates against ./bestiary."""
        monkeypatch.delenv("SIM_BESTIARY", raising=False)
        readme = (REPO / "README.md").read_text(encoding="utf-8")
        section = readme[readme.index("## Writing a scenario"):]
        start = section.index("```yaml\n") + len("```yaml\n")
        example = tmp_path / "example.yaml"
        example.write_text(section[start:section.index("```", start)], encoding="utf-8")
        monkeypatch.chdir(REPO)
        code = main(["validate", str(example)])
        out, err = capsys.readouterr()
        assert (code, err) == (0, "")
        assert out.endswith("ok (scenario)\n")


class TestMutatedScenarios:
    """Randomly damaged scenarios are reported, never crash the validator."""

    def test_no_traceback_on_damaged_scenarios(self, tmp_path, monkeypatch):
        """150 seeded random edits of the corpus and shipped scenarios: a Scenario or a
        ScenarioError every time, never another exception."""
        # The corpus bestiary (the cwd's) and the repository's, for the shipped scenarios.
        monkeypatch.setenv("SIM_BESTIARY", str(REPO / "bestiary"))
        monkeypatch.chdir(CORPUS)
        rng = random.Random(20_261_130)
        values = [None, 0, -1, 2**40, "x", "1d6", [], {}, True, 1.5, [None], {"a": 1}]
        keys = ["terror", "spirit", "morale", "skills", "weapons", "hands", "psy", "armor",
                "gifts", "aspects", "heroism", "use", "count", "mount", "round", "do", "targets",
                "side", "height", "damage", "kind", "party", "members", "outnumbered_at"]

        def damage(node: object) -> object:
            if isinstance(node, dict):
                if node and rng.random() < 0.3:
                    key = rng.choice(list(node))
                    node[key] = copy.deepcopy(rng.choice(values))
                if rng.random() < 0.2:
                    node[rng.choice(keys)] = copy.deepcopy(rng.choice(values))
                for key in list(node):
                    if rng.random() < 0.5:
                        node[key] = damage(node[key])
            elif isinstance(node, list) and node and rng.random() < 0.5:
                i = rng.randrange(len(node))
                node[i] = damage(node[i])
            return node

        sources = sorted(CORPUS.glob("*.yaml")) + sorted((REPO / "scenarios").glob("*.yaml"))
        texts = [yaml.safe_load(p.read_text(encoding="utf-8")) for p in sources]
        target = tmp_path / "damaged.yaml"
        for _ in range(150):
            data = damage(copy.deepcopy(rng.choice(texts)))
            target.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
            try:
                load_scenario(target)
            except ScenarioError as exc:
                assert exc.problems
