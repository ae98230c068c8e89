"""Messages that point a GM to the fix (issue 40, section 3): each of them as a GM meets it,
through the CLI in process."""

from __future__ import annotations

import pathlib
import re

import pytest

from tests.cli.helpers import AMBUSH, run

NO_PARTY = """\
name: No party
rules: d20
sides:
  - name: heroes
    members:
      - {use: knight}
  - name: raiders
    members:
      - {use: wolf, count: 3}
"""

D10_DODGE = """\
name: Dodge
rules: d10
sides:
  - name: heroes
    party: true
    members:
      - name: Ada
        hp: 18
        attributes: {agility: 5}
        skills: {melee: 4, dodge: 3}
        weapons: [{name: sword, damage: 1d8}]
  - name: wolves
    members:
      - {use: wolf, count: 2}
"""

D100 = """\
name: Porters
rules: d100
sides:
  - name: heroes
    party: true
    members:
      - {use: knight, level: 3}
      - name: porter
        hp: 12
        level: 2
        load: 18
        weapons: [{name: staff, damage: 1d6}]
  - name: outlaws
    members:
      - {use: brigand, count: 2}
"""

# Lines 12 (an error), 9 (a warning) and 17 (an error), in that order in the file's sides.
MIXED = """\
name: Mixed
rules: d100
sides:
  - name: heroes
    party: true
    members:
      - name: porter
        hp: 12
        load: 18
        weapons: [{name: staff, damage: 1d6}]
      - name: guard
        hp: 0
        weapons: [{name: staff, damage: 1d6}]
  - name: outlaws
    members:
      - {use: brigand, count: 3, hpp: 3}
"""

LINE = re.compile(r":(\d+):(\d+): ")


def written(tmp_path: pathlib.Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_no_party_side_is_told_by_validate_with_how_to_mark_one(capsys, tmp_path) -> None:
    """A file with no ``party: true`` validated, even with --strict, silently."""
    path = written(tmp_path, "noparty.yaml", NO_PARTY)
    for strict in ((), ("--strict",)):
        code, out, _ = run(capsys, "validate", *strict, path)
        assert code == 0  # a fight of two monster sides is valid: told, not refused
        assert out.splitlines()[0] == f"{path}: ok (scenario)"
        assert "note: no side has `party: true`" in out
        assert "mark the players' side with `party: true`" in out
    assert "note:" not in run(capsys, "validate", str(AMBUSH))[1]


def test_no_party_side_is_told_in_the_headline(capsys, tmp_path) -> None:
    path = written(tmp_path, "noparty.yaml", NO_PARTY)
    code, out, _ = run(capsys, "batch", path, "-n", "50", "--workers", "1", "--no-progress",
                       "--out", str(tmp_path / "run"))
    assert code == 0
    first = " ".join(out.split("\n\n")[0].split())
    assert first.startswith("No party, so no difficulty: heroes win")
    assert "Mark the players' side with `party: true`" in first


def test_a_d10_dodge_skill_points_to_defense(capsys, tmp_path) -> None:
    """``skills: {dodge: 3}`` was told "give a weapon skill: dodge"; d10 defends with ``defense:``."""
    _, _, err = run(capsys, "validate", written(tmp_path, "d10.yaml", D10_DODGE))
    (line,) = [x for x in err.splitlines() if "skills.dodge" in x]
    assert "write defense: N on the stat block" in line
    assert "weapon skill" not in line


def test_a_d100_dodge_skill_points_to_the_defense_skill(capsys, tmp_path) -> None:
    text = D100.replace("        load: 18\n", "        skills: {melee: 40, dodge: 30}\n")
    _, _, err = run(capsys, "validate", written(tmp_path, "d100.yaml", text))
    (line,) = [x for x in err.splitlines() if "skills.dodge" in x]
    assert "with the skill 'defense': write skills: {defense: N}" in line


def test_a_light_d100_load_is_not_told_to_be_raised(capsys, tmp_path) -> None:
    """18 kg is what the porter carries: "raise it" pointed the wrong way."""
    _, _, err = run(capsys, "validate", written(tmp_path, "d100.yaml", D100))
    (line,) = [x for x in err.splitlines() if ".load:" in x]
    assert "raise" not in line
    assert "this load costs it nothing, and the fight is the same without it" in line


def test_a_d100_party_level_is_not_warned_as_docs_and_bestiary_give_it(capsys, tmp_path) -> None:
    """docs/guide/stat-blocks.md says to give player characters their level and the shipped
    d100 heroes carry one: a party member's level is not told; a foe's still is."""
    path = written(tmp_path, "d100.yaml", D100)
    _, _, err = run(capsys, "validate", path)
    assert ".level:" not in err
    foe = D100.replace("{use: brigand, count: 2}", "{use: brigand, count: 2, level: 2}")
    _, _, err = run(capsys, "validate", written(tmp_path, "foe.yaml", foe))
    (line,) = [x for x in err.splitlines() if ".level:" in x]
    assert "sides[1].members[0].level" in line and "no party member" in line
    assert "level: 3" in (pathlib.Path(__file__).parents[2] / "bestiary/d100/heroes.yaml").read_text()


def test_a_tune_member_typo_is_told_once_with_the_names_there(capsys) -> None:
    code, _, err = run(capsys, "tune", str(AMBUSH), "--vary", "sides[goblins].members[gobln].count=1..10",
                       "--target", "party.any_death<=0.2", "-n", "100", "--no-progress")
    assert code == 2
    (line,) = err.splitlines()
    assert "--vary sides[goblins].members[gobln].count=1..10: no entry named 'gobln'" in line
    assert "did you mean 'goblin'?" in line and "the names there: goblin" in line


def test_a_value_only_some_counts_refuse_keeps_its_value(capsys) -> None:
    code, _, err = run(capsys, "compare", str(AMBUSH), "--vary", "sides[goblins].members[goblin].count=0,1,2",
                       "-n", "100", "--no-progress")
    assert code == 2
    (line,) = err.splitlines()
    assert "(from --vary sides[goblins].members[goblin].count=0)" in line


def test_a_misspelt_file_name_gets_a_did_you_mean(capsys, tmp_path) -> None:
    written(tmp_path, "first.yaml", NO_PARTY)
    code, _, err = run(capsys, "batch", str(tmp_path / "frist.yaml"))
    assert code == 2
    assert f"did you mean '{tmp_path / 'first.yaml'}'?" in err


def test_problems_and_warnings_are_sorted_by_line_and_say_nothing_ran(capsys, tmp_path) -> None:
    code, _, err = run(capsys, "validate", written(tmp_path, "mixed.yaml", MIXED))
    assert code == 2
    lines = err.splitlines()
    places = [tuple(map(int, LINE.search(x).groups())) for x in lines[:-1]]
    assert [line for line, _ in places] == [9, 12, 16]
    assert lines[-1] == "2 problems and 1 warning: nothing was run (fix the problems first)"
    assert "run anyway" not in err


def test_batch_problems_come_sorted_by_line(capsys, tmp_path) -> None:
    text = MIXED.replace("        hp: 0\n", "        hp: 0\n        armour: 2\n")
    code, _, err = run(capsys, "batch", written(tmp_path, "mixed.yaml", text), "-n", "10")
    assert code == 2
    lines = [int(LINE.search(x)[1]) for x in err.splitlines() if LINE.search(x)]
    assert lines == sorted(lines) and len(lines) == 3


@pytest.mark.parametrize("scenario", ["raiders_rout.yaml", "mounted_charge.yaml", "road_ambush.yaml"])
def test_replay_lines_fit_80_columns(capsys, tmp_path, scenario: str) -> None:
    """A roster of eleven reached 220 columns; a damage line 85."""
    root = pathlib.Path(__file__).parents[2] / "scenarios"
    code, out, _ = run(capsys, "run", str(root / scenario), "--seed", "1")
    assert code == 0
    assert max(len(line) for line in out.splitlines()) <= 80
    assert "(14 HP)" in out or "(22 HP)" in out or "HP)" in out  # a bracket is never split
    assert not re.search(r"\(\d+\n", out)


def test_a_days_headline_names_the_party_side_as_a_gm_says_it(capsys, tmp_path) -> None:
    """"someone of heroes goes down" read as no GM says it: "someone of the heroes"."""
    from sim.report.terminal import the_side

    day = pathlib.Path(__file__).parents[2] / "scenarios" / "days" / "goblin_warren.yaml"
    code, out, _ = run(capsys, "batch", str(day), "-n", "20", "--workers", "1", "--no-progress",
                       "--out", str(tmp_path / "run"))
    assert code == 0
    first = " ".join(out.split("\n\n")[0].split())
    assert re.search(r"; someone of the \w+ goes down in", first), first
    assert [the_side(n) for n in ("heroes", "The Watch", "Sir Bors's men", "the company")] == [
        "the heroes", "The Watch", "Sir Bors's men", "the company"]


def test_sim_replay_lines_fit_80_columns(capsys, tmp_path) -> None:
    """`sim replay` reached 97 columns: it narrates as `sim run` does, within 80."""
    scenario = pathlib.Path(__file__).parents[2] / "scenarios" / "raiders_rout.yaml"
    log = tmp_path / "battle.jsonl"
    assert run(capsys, "run", str(scenario), "--seed", "1", "--log", str(log))[0] == 0
    code, out, _ = run(capsys, "replay", str(log), "--no-interactive")
    assert code == 0 and "raiders" in out
    assert max(len(line) for line in out.splitlines()) <= 80
