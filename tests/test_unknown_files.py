"""A file another file names (a day's encounter, a file of a bestiary folder) may be anything:
until it is known to be one of sim's files, none of it is echoed (issue 30)."""

from __future__ import annotations

import pathlib

import pytest

from sim import cli
from tests.day_files import SMALL_DAY

SECRET = "bank_pin: 0427\nowner: {name: Ann, pin: 0427}\nnote: [unclosed\n"
DAY = SMALL_DAY + "  - encounter: ENCOUNTER\n"


def validate(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = cli.main(["validate", *argv])
    out, err = capsys.readouterr()
    return code, out + err


@pytest.mark.parametrize("secret", [SECRET, "bank_pin: 0427\n", "bank_pin: 1\nbank_pin: 2\n",
                                    "- 0427\n- secret\n", "pin: '0427'\n"])
def test_an_encounter_file_that_is_no_scenario_is_not_quoted(tmp_path: pathlib.Path, secret: str,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    app = tmp_path / "app.yaml"
    app.write_text(secret)
    day = tmp_path / "day.yaml"
    day.write_text(DAY.replace("ENCOUNTER", app.name))
    code, told = validate(capsys, str(day))
    assert code == 2
    assert "0427" not in told and "bank_pin" not in told and "pin" not in told.replace(str(tmp_path), "")
    assert told == (f"{day}:8:16: steps[0].encounter: 'app.yaml' is not a scenario (it has no sides: at"
                    " its top level, or is no YAML this program reads); nothing of it is shown\n")


def test_an_encounter_set_to_a_system_file(tmp_path: pathlib.Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    status = pathlib.Path("/proc/self/status")
    if not status.is_file():
        pytest.skip("no /proc")
    day = tmp_path / "day.yaml"
    day.write_text(DAY.replace("ENCOUNTER", "elsewhere.yaml"))
    code, told = validate(capsys, str(day), "--set", f"steps[0].encounter={status}")
    assert code == 2 and "Umask" not in told and "Sig" not in told and "nothing of it is shown" in told


def test_a_scenario_encounter_s_problems_are_still_told(tmp_path: pathlib.Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """A file with sides: is an encounter: its own problems are told, where they are."""
    app = tmp_path / "fight.yaml"
    app.write_text("name: f\nsides:\n  - name: wolves\n    members:\n      - {name: W, hp: 010}\n")
    day = tmp_path / "day.yaml"
    day.write_text(DAY.replace("ENCOUNTER", str(app)))
    code, told = validate(capsys, str(day))
    assert code == 2 and f"{app}:5:23: sides[0].members[0].hp: '010' is an old YAML spelling" in told


def test_a_stray_file_of_a_bestiary_folder_is_not_quoted(tmp_path: pathlib.Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "bestiary" / "d20"
    folder.mkdir(parents=True)
    (folder / "notes.yaml").write_text(SECRET)
    scenario = tmp_path / "s.yaml"
    scenario.write_text("name: s\nrules: d20\nsides:\n  - {name: a, members: [{name: A, hp: 5, weapons:"
                        " [{name: s, damage: 1d4}]}]}\n  - {name: b, members: [{name: B, hp: 5, weapons:"
                        " [{name: s, damage: 1d4}]}]}\n")
    code, told = validate(capsys, str(scenario), "--bestiary", str(tmp_path / "bestiary"))
    assert code == 2 and "0427" not in told and "bank_pin" not in told
    assert "notes.yaml:0:0: (document): not a bestiary file (it has no rules: or creatures:" in told
