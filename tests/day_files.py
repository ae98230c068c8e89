"""Day files for the day tests: the example days, and a party block to write new ones."""

from __future__ import annotations

import pathlib

ROOT = pathlib.Path(__file__).parent.parent
WARREN = ROOT / "scenarios" / "days" / "goblin_warren.yaml"
MARSH = ROOT / "scenarios" / "days" / "marsh_road.yaml"
AMBUSH = ROOT / "scenarios" / "road_ambush.yaml"

PARTY = """\
party:
  name: heroes
  members:
    - {use: knight, name: Sir Bors}
    - {use: ranger, name: Aria}
    - {use: rogue, name: Wren}
    - {use: priest, name: Brother Anselm}
"""

# A d20 day of one plain member, its steps to follow.
SMALL_DAY = """\
name: d
rules: d20
party:
  name: heroes
  members:
    - {name: A, hp: 10, weapons: [{name: s, damage: 1d6}]}
steps:
"""


def write_day(tmp_path: pathlib.Path, body: str, name: str = "day.yaml") -> pathlib.Path:
    path = tmp_path / name
    path.write_text(body)
    (tmp_path / "bestiary").symlink_to(ROOT / "bestiary")
    return path
