"""The bestiary: ``use:`` resolution, its folders and its files, each reported in place."""

from __future__ import annotations

import pathlib

import pytest

from sim import dice
from sim.errors import ScenarioError
from sim.scenario import load_scenario
from tests.scenario.arena import BASE, BESTIARY, variant, where


class TestBestiary:
    """``use:`` resolution and the bestiary files themselves."""

    def test_missing_entry_with_hint(self, arena):
        """A misspelt ``use:`` suggests the closest entry."""
        p = arena.one(variant("use: goblin", "use: gobln"))
        assert where(p) == (14, 15, "sides[1].members[0].use")
        assert p.message == ("no bestiary entry 'gobln'; did you mean 'goblin'?; searched:"
                             " bestiary/d20; add the entry to a YAML file in a bestiary/d20/"
                             " folder beside the scenario, or name your folder with"
                             " --bestiary DIR or SIM_BESTIARY")

    def test_missing_entry_without_a_close_one_has_no_hint(self, arena):
        """``use: ogre`` with a rogue in the bestiary: no 'did you mean rogue?' (they only
        share letters), only where it was looked for."""
        arena.write(variant("  goblin:", "  rogue:", text=BESTIARY), "bestiary/d20/x.yaml")
        p = arena.one(variant("use: goblin", "use: ogre"))
        assert p.message.startswith("no bestiary entry 'ogre'; searched: bestiary/d20;")

    def test_missing_entry_without_bestiary(self, arena):
        """With no bestiary folder at all, ``use:`` is still one clear problem."""
        (arena.root / "bestiary/d20/x.yaml").unlink()
        (arena.root / "bestiary/d20").rmdir()
        p = arena.one(BASE)
        assert where(p) == (14, 15, "sides[1].members[0].use")
        assert p.message == ("no bestiary entry 'goblin'; searched: no 'd20' bestiary folder;"
                             " add the entry to a YAML file in a bestiary/d20/ folder beside the"
                             " scenario, or name your folder with --bestiary DIR or SIM_BESTIARY")

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

    def test_file_of_other_rules_in_a_rules_folder_is_refused(self, arena):
        """A d100 file in bestiary/d20 would give a d20 scenario a d100 stat block (its skills
        doing nothing): refused where `rules:` says so, by validate and by the scenario."""
        arena.write("rules: d100\ncreatures:\n  spearman: {hp: 12, skills: {melee: 50}}\n",
                    "bestiary/d20/odd.yaml")
        message = ("bestiary/d20/odd.yaml:1:8: rules: must be d20, the rules of the folder it is in"
                   " (got d100): move the file to a 'd100' bestiary folder")
        assert message in [str(p) for p in arena.problems(BASE)]
        code, _, err = arena.cli("validate", "bestiary/d20/odd.yaml")
        assert (code, err) == (2, message + "\n")

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

    def test_extra_bestiary_option(self, arena, tmp_path_factory, monkeypatch):
        """``--bestiary DIR`` and SIM_BESTIARY add folders searched first."""
        extra = tmp_path_factory.mktemp("extra")
        (extra / "d20").mkdir()
        (extra / "d20" / "y.yaml").write_text(
            "rules: d20\ncreatures:\n  ogre: {hp: 30, level: 4}\n", encoding="utf-8")
        arena.write(variant("use: goblin", "use: ogre"))
        with pytest.raises(ScenarioError) as refused:
            load_scenario(pathlib.Path("s.yaml"))
        assert "'ogre'" in str(refused.value) and "searched" in str(refused.value)
        scenario = load_scenario(pathlib.Path("s.yaml"), (extra,))
        assert scenario.sides[1].members[0].hp == dice.parse(30)
        code, _, err = arena.cli("validate", "s.yaml", "--bestiary", str(extra))
        assert (code, err) == (0, "")
        monkeypatch.setenv("SIM_BESTIARY", str(extra))
        assert load_scenario(pathlib.Path("s.yaml")).sides[1].members[0].hp == dice.parse(30)

    def test_sim_bestiary_env(self, arena, tmp_path_factory, monkeypatch):
        """SIM_BESTIARY adds folders searched before the scenario's own."""
        extra = tmp_path_factory.mktemp("env")
        (extra / "d20").mkdir()
        (extra / "d20" / "y.yaml").write_text(
            "rules: d20\ncreatures:\n  goblin: {hp: 30, level: 4}\n", encoding="utf-8")
        monkeypatch.setenv("SIM_BESTIARY", str(extra))
        scenario = arena.load(BASE)
        assert scenario.sides[1].members[0].level == 4

    def test_unknown_key_in_bestiary_entry(self, arena):
        """An unknown key in a bestiary entry is reported in the bestiary file."""
        arena.write(variant("defense_threshold: 11\n", "defense_threshold: 11\n    weapon: []\n",
                            text=BESTIARY), "bestiary/d20/x.yaml")
        problems = arena.problems(BASE)
        first = problems[0]
        assert first.file == "bestiary/d20/x.yaml"
        assert where(first) == (7, 5, "creatures.goblin.weapon")
        assert first.message == "unknown key 'weapon'; did you mean 'weapons'?"

    def test_entry_name_is_stripped_like_use(self, arena):
        """An entry written `"goblin ":` is the one `use: goblin` finds (it was unreachable:
        `use:` is stripped, the key was not, and the miss suggested 'goblin ' for 'goblin');
        `goblin` and `"goblin "` in one file are one name written twice."""
        arena.write(variant("  goblin:", '  "goblin ":', text=BESTIARY), "bestiary/d20/x.yaml")
        scenario = arena.load(BASE)
        assert scenario.sides[1].members[0].name == "goblin 1"
        code, out, _ = arena.cli("bestiary", "d20")
        assert code == 0 and "  goblin: level 1" in out
        arena.write(BESTIARY + '  "goblin ": {hp: 3}\n', "bestiary/d20/x.yaml")
        p = arena.one(BASE)
        assert (p.file, *where(p)) == ("bestiary/d20/x.yaml", 13, 3, "creatures['goblin ']")
        assert p.message == "duplicate bestiary entry 'goblin' (also written 'goblin' in this file)"

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
