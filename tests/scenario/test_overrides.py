"""--set PATH=VALUE: edits by index and by name, their errors, and their replay."""

from __future__ import annotations

import json
import pathlib

import pytest

from sim import cli
from sim.errors import ScenarioError
from sim.scenario import load_scenario

ROOT = pathlib.Path(__file__).parent.parent.parent
AMBUSH = ROOT / "scenarios" / "road_ambush.yaml"


def goblins(scenario) -> list[str]:
    return [c.name for c in scenario.combatants if c.side == "goblins"]


def problems(*overrides: str) -> list[str]:
    with pytest.raises(ScenarioError) as caught:
        load_scenario(AMBUSH, overrides=list(overrides))
    return [str(p) for p in caught.value.problems]


class TestPaths:
    """A path is written as in our error messages, by index or by name."""

    def test_count_by_name_and_by_index(self):
        """members[goblin] finds the entry made from the bestiary entry 'goblin'; [1] indexes."""
        by_name = load_scenario(AMBUSH, overrides=["sides[goblins].members[goblin].count=4"])
        by_index = load_scenario(AMBUSH, overrides=["sides[1].members[0].count=4"])
        assert goblins(by_name) == goblins(by_index) == [f"goblin {i}" for i in range(1, 5)]

    def test_index_is_ascii_digits(self):
        """[\u00b2] (a superscript two: a digit int() refuses) is a name, and no side has it."""
        (line,) = problems("sides[\u00b2].members[0].count=2")
        assert "no entry named '\u00b2'" in line

    def test_key_over_a_bestiary_value(self):
        """A key the entry does not write (hp comes from the bestiary) is added."""
        scenario = load_scenario(AMBUSH, overrides=["sides[heroes].members[Aria].hp=30"])
        aria = next(c for c in scenario.combatants if c.name == "Aria")
        assert aria.hp.max == aria.hp.min == 30

    def test_section_not_written_yet(self):
        """options.destiny_points with no options: section creates it."""
        scenario = load_scenario(AMBUSH, overrides=["options.destiny_points=2"])
        assert scenario.options.destiny_points == 2

    def test_value_is_yaml(self):
        """VALUE is YAML: a dice string, a list, a mapping."""
        scenario = load_scenario(AMBUSH, overrides=[
            "sides[goblins].members[goblin].hp=3d6",
            "sides[heroes].members[Wren].weapons=[{name: club, damage: 1d4}]"])
        wren = next(c for c in scenario.combatants if c.name == "Wren")
        assert [w.name for w in wren.weapons] == ["club"]
        assert scenario.combatants[-1].hp.max == 18

    def test_an_override_inside_an_earlier_one_applies_after_it(self):
        """Overrides apply in order: a key set inside a value set before it is kept."""
        scenario = load_scenario(AMBUSH, overrides=["sides[1].members[0]={use: goblin, count: 2}",
                                                    "sides[1].members[0].count=3"])
        assert len(goblins(scenario)) == 3

    @pytest.mark.parametrize(("first", "second"), [
        ("sides[1].members[0].count=2", "sides[goblins].members[goblin].count=3"),
        ("sides[1].members[0].hp=3", "sides[1].members[0]={use: goblin, count: 2}"),
    ], ids=["same-key-spelt-twice", "replaced-whole"])
    def test_an_override_another_replaces_is_refused(self, first, second):
        """A --set that a later one replaces (the same key, however spelt, or a value holding
        it) would do nothing: refused, as -n given twice is (the first was dropped silently)."""
        (line,) = problems(first, second)
        assert line.endswith(f":0:0: --set {second}: replaces what --set {first} set, which"
                             " would then do nothing: give one --set for it")

    def test_recorded_on_the_scenario(self):
        """The scenario keeps the texts (for the manifest and the log)."""
        text = "sides[1].members[0].count=2"
        assert load_scenario(AMBUSH, overrides=[text]).overrides == (text,)


class TestErrors:
    """A path that does not exist, or a bad value, is exit 2 with a did-you-mean."""

    def test_unknown_side_name(self):
        """A side name that does not exist suggests the closest one."""
        (line,) = problems("sides[gobbos].members[0].count=2")
        assert "--set sides[gobbos].members[0].count=2: no entry named 'gobbos'" in line
        assert "did you mean 'goblins'?" in line
        assert line.startswith("scenarios/road_ambush.yaml:0:0: ")

    def test_index_out_of_range(self):
        """An index past the end says how many entries there are."""
        (line,) = problems("sides[1].members[3].count=2")
        assert "has 1 entries (indexes 0 to 0), no [3]" in line

    def test_a_mount_key_beside_use_is_not_made_from_nothing(self):
        """mount.hp=30 on a knight whose warhorse comes from its bestiary entry made the member
        `mount: {hp: 30}`, which replaced the warhorse whole: a bare beast, no weapons nor
        skills, without a word. Refused, saying how to set it; given whole, it edits."""
        charge = ROOT / "scenarios" / "mounted_charge.yaml"
        with pytest.raises(ScenarioError) as caught:
            load_scenario(charge, overrides=["sides[0].members[0].mount.hp=30"])
        (line,) = map(str, caught.value.problems)
        assert line.endswith("--set sides[0].members[0].mount.hp=30: no 'mount' written in"
                             " sides[0].members[0]: its mount, if any, comes from bestiary entry"
                             " 'knight', and one written here replaces it whole; set it whole,"
                             " e.g. mount={use: warhorse, hp: 30}")
        scenario = load_scenario(charge, overrides=["sides[0].members[0].mount={use: warhorse}",
                                                    "sides[0].members[0].mount.hp=30"])
        horse = next(c for c in scenario.combatants if c.name == "warhorse of Sir Bors")
        assert horse.hp.max == 30 and horse.weapons

    def test_unknown_key_goes_to_validation(self):
        """A key of no schema is refused by validation, with its hint and the --set named."""
        (line,) = problems("sides[goblins].members[goblin].hpp=30")
        assert "unknown key 'hpp'; did you mean 'hp'?" in line
        assert line.endswith("(from --set sides[goblins].members[goblin].hpp=30)")
        (line,) = problems("sides[goblins].members[goblin].hitpoints=30")  # another d20 game's
        assert "unknown key 'hitpoints': hit points; write hp: 30" in line

    def test_misspelt_section(self):
        """A misspelt section is reported at the section, naming the --set."""
        (line,) = problems("option.destiny_points=2")
        assert "unknown key 'option'; did you mean 'options'?" in line
        assert "(from --set option.destiny_points=2)" in line

    def test_bad_value_is_validated(self):
        """An overridden value is validated like a written one."""
        (line,) = problems("sides[goblins].members[goblin].count=0")
        assert "sides[1].members[0].count" in line and "from --set" in line

    @pytest.mark.parametrize(("text", "message"), [
        ("sides[1].members[0].count", "must be PATH=VALUE"),
        ("sides[1].members[0].count=", "needs a value"),
        ("sides[1.members=2", "never closed"),
        ("sides..name=x", "empty key"),
        ("sides[1].members[0].count=[1,", "not valid YAML"),
        ("name.first=x", "not a mapping or a list"),
    ])
    def test_malformed(self, text, message):
        """Malformed overrides are one clear line each."""
        (line,) = problems(text)
        assert message in line

    def test_cli_exit_2(self, capsys):
        """sim validate --set with a bad path exits 2 without a traceback."""
        assert cli.main(["validate", str(AMBUSH), "--set", "sides[9].name=x"]) == 2
        err = capsys.readouterr().err
        assert "no [9]" in err and "Traceback" not in err


class TestReproduced:
    """The manifest and the log record the overrides, so resume, replay and --verify agree."""

    def test_batch_manifest_and_replay(self, tmp_path, capsys):
        """A batch with --set records it; replaying battle 0 gives the overridden roster."""
        out = tmp_path / "run"
        args = ["batch", str(AMBUSH), "-n", "20", "--workers", "1", "--out", str(out), "--json",
                "--no-progress", "--set", "sides[goblins].members[goblin].count=2"]
        assert cli.main(args) == 0
        manifest = json.loads((out / "manifest.json").read_text())
        assert manifest["overrides"] == ["sides[goblins].members[goblin].count=2"]
        summary = json.loads(capsys.readouterr().out)
        assert set(summary["combatants"]) >= {"goblin 1", "goblin 2"}
        assert "goblin 3" not in summary["combatants"]
        assert cli.main(["replay", str(out), "--battle", "0", "--log", "-"]) == 0
        head = json.loads(capsys.readouterr().out.splitlines()[0])
        names = [c["name"] for c in head["combatants"]]
        assert "goblin 2" in names and "goblin 3" not in names

    def test_run_log_verifies(self, tmp_path, capsys):
        """sim run --set --log writes the overrides in battle_started; --verify reproduces it."""
        log = tmp_path / "battle.jsonl"
        assert cli.main(["run", str(AMBUSH), "--seed", "3", "--log", str(log),
                         "--set", "sides[goblins].members[goblin].count=3"]) == 0
        head = json.loads(log.read_text().splitlines()[0])
        assert head["overrides"] == ["sides[goblins].members[goblin].count=3"]
        capsys.readouterr()
        assert cli.main(["replay", "--verify", str(log)]) == 0

    def test_resume_refuses_new_overrides(self, tmp_path, capsys):
        """--resume takes the run's own overrides; giving --set again is refused."""
        out = tmp_path / "run"
        assert cli.main(["batch", str(AMBUSH), "-n", "5", "--workers", "1", "--out", str(out),
                         "--json", "--no-progress"]) == 0
        code = cli.main(["batch", "--resume", str(out), "--set", "options.destiny_points=1"])
        assert code == 2
