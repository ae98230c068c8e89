"""sim compare and sim tune read as answers: variants in words, plain metric names, one
sentence per variant, and a terminal of 80 columns that wraps names, never cuts them."""

from __future__ import annotations

import contextlib
import io
import json
import pathlib
import re

import pytest
from rich.console import Console

from sim import cli
from sim.report import decision

ROOT = pathlib.Path(__file__).parent.parent.parent
AMBUSH = ROOT / "scenarios" / "road_ambush.yaml"


@pytest.fixture(scope="module")
def compared() -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(["compare", str(AMBUSH), "--vary", "sides[goblins].members[goblin].count=4,6",
                         "-n", "120", "--workers", "1", "--no-progress", "--json"]) == 0
    return json.loads(out.getvalue())


def printed(result: dict, kind: str) -> str:
    console = Console(width=80, file=io.StringIO(), emoji=False, color_system=None)
    decision.print_result(result, kind, console)
    return console.file.getvalue()


def test_variants_in_words() -> None:
    assert decision.words("sides[goblins].members[goblin].count=4") == "goblin count 4"
    assert decision.words("sides[heroes].members[Aria].hp=20") == "Aria hp 20"
    assert decision.words("road_ambush") == "road ambush"
    assert decision.change("sides[goblins].members[goblin].count=4",
                           "sides[goblins].members[goblin].count=6") == "2 more goblins"
    assert decision.change("sides[goblins].members[goblin].count=4",
                           "sides[goblins].members[goblin].count=3") == "1 fewer goblin"
    assert decision.change("sides[heroes].members[Aria].hp=24",
                           "sides[heroes].members[Aria].hp=20") == "Aria hp 20 instead of 24"
    assert decision.change("road_ambush", "wolf_ford") == "wolf ford instead of road ambush"


def test_plain_metric_names() -> None:
    assert decision.plain("party.any_death") == "someone dies"
    assert decision.plain("members[Brother Anselm].down") == "Brother Anselm goes down"


def test_compare_answer_sentence(compared: dict) -> None:
    """'2 more goblins: someone dies A% -> B%, +D points [lo, hi]; X -> Y.' from the figures."""
    death = compared["metrics"]["party.any_death"]
    d = death["diffs"][0]
    sentence = decision.compare_answers(compared)[0]
    assert sentence.startswith(f"2 more goblins: someone dies {death['values'][0]['p'] * 100:.1f}% ->"
                               f" {death['values'][1]['p'] * 100:.1f}%, {d['d'] * 100:+.1f} points"
                               f" [{d['lo'] * 100:+.1f}, {d['hi'] * 100:+.1f}];")


def test_compare_terminal_fits_80_columns(compared: dict) -> None:
    """Every line within 80 columns, nothing cut (no ellipsis), every name there in full,
    each variant's difficulty, and no jargon column."""
    text = printed(compared, "compare")
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "\u2026" not in text and "..." not in text.replace("A, B...", "")
    flat = re.sub(r"\s+", " ", text)
    for name in ("goblin count 6", "sides[goblins].members[goblin].count=6"):
        assert name in flat
    # a table cell wraps over lines: its fragments, joined, give the whole name
    rows = [line for line in text.splitlines() if line.startswith("\u2502")]
    firsts = " ".join(line.split("\u2502")[1].strip() for line in rows)
    assert "Brother Anselm goes down" in re.sub(r"\s+", " ", firsts)
    heads = " ".join(line for line in text.splitlines() if line.startswith("\u2503"))
    assert "gain" in heads and "pairing" in heads
    assert "independent / paired" not in flat
    assert sum(flat.count(f"{v} = ") for v in "AB") == 0  # letters head their line, then the name
    assert re.search(r"\bA goblin count 4 .*: (trivial|easy|medium|hard|deadly|overwhelming)", flat)


def test_tune_terminal_answers(tmp_path: pathlib.Path) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(["tune", str(AMBUSH), "--vary", "sides[goblins].members[goblin].count=3..7",
                         "--target", "party.any_death<=0.10", "-n", "250", "--workers", "1",
                         "--no-progress", "--json"]) == 0
    result = json.loads(out.getvalue())
    assert all(set(p["headline"]) == {"party.win", "party.any_down", "party.any_death", "party.tpk",
                                      "party.left_behind"}
               for p in result["points"])
    text = printed(result, "tune")
    assert max(len(line) for line in text.splitlines()) <= 80
    flat = re.sub(r"\s+", " ", text)
    assert f"Goblin count 3 to {result['largest_ok']} meets the target (someone dies <= 10%)" in flat
    assert "\u2026" not in text


def test_a_day_counts_days() -> None:
    """Variants of an adventuring day play days, and say so."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(["compare", str(ROOT / "scenarios" / "days" / "goblin_warren.yaml"), "--vary",
                         "steps[3].rest.hours=1,8", "-n", "10", "--workers", "1", "--no-progress",
                         "--json"]) == 0
    result = json.loads(out.getvalue())
    assert result["unit"] == "days"
    text = re.sub(r"\s+", " ", printed(result, "compare"))
    assert "10 days each" in text and "battles each" not in text
    assert "Rest hours 8 instead of 1: someone dies" in text and "the day seen through" in text
