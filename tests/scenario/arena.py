"""The scenario tests' template (BASE, its bestiary) and Arena, a scratch folder to check files in."""

from __future__ import annotations

import pathlib

import pytest

from sim.cli import main
from sim.errors import Problem, ScenarioError
from sim.scenario import load_scenario

REPO = pathlib.Path(__file__).resolve().parents[2]

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

    def warnings(self, text: str | bytes | None, name: str = "s.yaml") -> list[Problem]:
        """The warnings of a valid scenario file (valid data it leaves idle): it loads, ``sim
        validate`` exits 0 printing exactly them, and 2 with --strict."""
        if text is not None:
            self.write(text, name)
        found = list(load_scenario(pathlib.Path(name)).warnings)
        assert found, "no warning"
        code, out, err = self.cli("validate", name)
        counted = f"{len(found)} warning{'s' * (len(found) > 1)}"
        assert (code, out.splitlines()[0]) == (0, f"{name}: ok (scenario, {counted})")
        assert err.splitlines()[:-1] == [str(p) for p in found]
        assert all(p.warning and ": does nothing here: " in str(p) for p in found)
        code, out, err = self.cli("validate", "--strict", name)
        assert code == 2 and err.splitlines() == [str(p) for p in found]
        return found

    def warning(self, text: str | bytes | None, name: str = "s.yaml") -> Problem:
        """The single warning of a valid scenario file."""
        found = self.warnings(text, name)
        assert len(found) == 1, [str(p) for p in found]
        return found[0]

    def load(self, text: str, name: str = "s.yaml"):
        """A valid scenario, loaded; also checked to pass ``sim validate``."""
        self.write(text, name)
        scenario = load_scenario(pathlib.Path(name))
        code, out, err = self.cli("validate", name)
        assert (code, err) == (0, "")
        first, *notes = out.splitlines()
        assert first == f"{name}: ok (scenario)"
        assert all(note.startswith("  note: ") for note in notes)  # no party side, say
        return scenario


def where(problem: Problem) -> tuple[int, int, str]:
    """The position and path of a problem, for one-line asserts."""
    return problem.line, problem.col, problem.path
