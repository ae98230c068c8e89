"""What the CLI tests share: example inputs and `sim ARGV` run in process."""

from __future__ import annotations

import json
import pathlib
import re
from typing import Any

import pytest

from sim.cli import main

REPO = pathlib.Path(__file__).resolve().parent.parent.parent
AMBUSH = REPO / "scenarios" / "road_ambush.yaml"
PROBLEM_LINE = re.compile(r"^.+:\d+:\d+: \S.*: .+$")

GOOD = """\
name: Duel
rules: d20
sides:
  - name: heroes
    party: true
    members:
      - {name: Aria, level: 3, hp: 24, armor: 4, weapons: [{name: sword, damage: 1d8}]}
  - name: goblins
    members:
      - {name: Gob, hp: 2d6, weapons: [{name: blade, damage: 1d6}]}
"""


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``sim ARGV`` in process: (exit code, stdout, stderr)."""
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def answer(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    """``sim ARGV --json`` in process, which must exit 0: its JSON answer."""
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, out + err
    return json.loads(out)


def usage_error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """``sim ARGV`` must be refused by the argument parser with exit 2; returns stderr."""
    capsys.readouterr()
    with pytest.raises(SystemExit) as info:
        main(list(argv))
    _, err = capsys.readouterr()
    assert info.value.code == 2
    assert "Traceback" not in err
    return err
