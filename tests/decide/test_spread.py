"""sim spread: as written equals sim batch, paired presets, corners, --side, --precision, --json."""

from __future__ import annotations

import json
import pathlib

import pytest

from sim.batch import run_serial
from sim.day.file import load_input
from sim.decide.paired import HEADLINE
from sim.decide.presets import PRESETS, groups
from sim.decide.spread import risk, sentence, spread
from tests.cli.helpers import PROBLEM_LINE, answer, run

ROOT = pathlib.Path(__file__).parent.parent.parent
AMBUSH = ROOT / "scenarios" / "road_ambush.yaml"
WARREN = ROOT / "scenarios" / "days" / "goblin_warren.yaml"
WOLF_FORD = ROOT / "scenarios" / "wolf_ford.yaml"
# One encounter per rule system beside road_ambush (d20).
SYSTEMS = {"d100": ROOT / "scenarios" / "sheepfold_wolves.yaml",
           "2d10": ROOT / "scenarios" / "graveyard_ghouls.yaml",
           "d10": ROOT / "scenarios" / "bear_den.yaml"}


def _spread(capsys, path: pathlib.Path, *args: str) -> dict:
    return answer(capsys, "spread", str(path), "--workers", "1", *args)


def _timeless(summary: dict) -> dict:
    return {k: v for k, v in summary.items() if k != "elapsed_s"}


@pytest.mark.parametrize("path", [AMBUSH, WARREN], ids=["encounter", "day"])
def test_as_written_equals_sim_batch(capsys, tmp_path, path):
    """"As written" is sim batch's summary of the same file, -n and --seed, exactly (only the
    time taken differs)."""
    batch = answer(capsys, "batch", str(path), "-n", "300", "--seed", "11", "--workers", "1",
                   "--out", str(tmp_path / "run"), "--no-progress")
    result = _spread(capsys, path, "-n", "300", "--seed", "11", "--no-progress")
    assert _timeless(result["as_written"]) == _timeless(batch)


def test_json_has_the_issues_shape(capsys):
    result = _spread(capsys, AMBUSH, "-n", "200", "--no-progress")
    assert set(result) == {"as_written", "presets", "corners", "range"}
    assert [(p["side"], p["preset"]) for p in result["presets"]] == [
        (side, preset.name) for side in ("party", "opposition") for preset in PRESETS]
    for entry in result["presets"]:
        assert set(entry) == {"side", "preset", "tactics", "summary"}
        assert set(entry["summary"]) == set(result["as_written"])
        assert entry["summary"]["battles"] == 200
    assert set(result["corners"]) == {"best", "worst"}
    for corner in result["corners"].values():
        assert set(corner["presets"]) == {"party", "opposition"}
        assert set(corner["summary"]) == set(result["as_written"])
    assert set(result["range"]) == set(HEADLINE)
    for metric, span in result["range"].items():
        assert set(span) == {"lo", "hi", "lo_preset", "hi_preset"}
        assert span["lo"] <= result["as_written"]["party"][metric.removeprefix("party.")]["p"] <= span["hi"]


def test_presets_tactics_and_summaries_are_what_they_play(capsys):
    """Each preset entry gives the keys it set; a preset equal to what the file plays (wolf_ford's
    heroes focus) has as written's figures."""
    result = _spread(capsys, WOLF_FORD, "-n", "200", "--no-progress")
    by = {(p["side"], p["preset"]): p for p in result["presets"]}
    assert by[("party", "focus")]["tactics"] == {"target": "focus"}
    assert by[("party", "drink-early")]["tactics"] == {"potion_at": 0.5}
    assert _timeless(by[("party", "focus")]["summary"]) == _timeless(result["as_written"])
    assert _timeless(by[("party", "strongest")]["summary"]) != _timeless(result["as_written"])


def test_corners_are_each_sides_kindest_and_cruellest():
    """Best: the party's lowest-risk preset against the opposition's lowest-risk one; worst: the
    reverse; the range runs over every play, corners included."""
    subject = load_input(AMBUSH, ())
    result = spread(subject, groups(subject, None), 3, 300, run_serial, 2, 100)
    for corner, pick in zip(result.corners, (min, max), strict=True):
        chosen = result.rows[corner].play.chosen
        for group, preset in chosen:
            mine = [r for r in result.presets if r.play.chosen[0][0] == group]
            assert preset == pick(mine, key=risk).play.chosen[0][1]
    best, worst = (result.rows[k] for k in result.corners)
    assert best.p("party.any_death") < result.rows[0].p("party.any_death") < worst.p("party.any_death")
    span = result.range()["party.any_death"]
    assert (span["lo_preset"], span["hi_preset"]) == ("best corner", "worst corner")
    assert sentence(result).startswith("From ")
    assert f"as written {result.rows[0].p('party.any_death') * 100:.1f}%" in sentence(result)


def test_corners_are_paired_with_as_written():
    """The corners play the presets' battles: a corner's difference from as written is the
    difference of the two figures, and its paired interval is narrower than two separate runs'."""
    subject = load_input(AMBUSH, ())
    result = spread(subject, groups(subject, None), 3, 400, run_serial, 2, 100)
    for k in result.corners:
        row = result.rows[k]
        d = row.diffs["party.any_death"]
        written = result.rows[0].p("party.any_death")
        assert d["d"] == pytest.approx(row.p("party.any_death") - written, abs=1e-5)
        assert (d["hi"] - d["lo"]) / 2 < d["independent_halfwidth"]


@pytest.mark.parametrize("rules", sorted(SYSTEMS))
def test_every_system(capsys, rules):
    """An encounter of each system (d20: the tests above) plays every preset and the corners."""
    result = _spread(capsys, SYSTEMS[rules], "-n", "150", "--no-progress")
    assert result["as_written"]["rules"] == rules
    assert len(result["presets"]) == 2 * len(PRESETS)
    assert result["corners"]["best"]["summary"]["battles"] == 150


def test_side_plays_one_sides_presets(capsys):
    result = _spread(capsys, AMBUSH, "-n", "100", "--side", "goblins", "--no-progress")
    assert {p["side"] for p in result["presets"]} == {"goblins"}
    assert set(result["corners"]["best"]["presets"]) == {"goblins"}
    party = _spread(capsys, AMBUSH, "-n", "100", "--side", "party", "--no-progress")
    assert {p["side"] for p in party["presets"]} == {"party"}


def test_unknown_side_is_one_problem_line(capsys):
    code, out, err = run(capsys, "spread", str(AMBUSH), "--side", "orcs", "-n", "10")
    assert code == 2 and out == ""
    (line,) = err.strip().splitlines()
    assert PROBLEM_LINE.match(line)
    assert "one of party, opposition, heroes, goblins" in line


def test_precision_stops_at_a_step(capsys):
    """--precision stops once every preset's headline differences are within +-P (checked every
    1,000 battles a play); the corners then play as many."""
    result = _spread(capsys, AMBUSH, "--precision", "0.2", "-n", "5000", "--no-progress")
    assert result["as_written"]["battles"] == 1000
    assert result["as_written"]["stopped_by"] == "precision"
    assert result["corners"]["worst"]["summary"]["battles"] == 1000


def test_partial_results_refine_step_by_step():
    """``partial`` sees the rows so far after each step but the last (sim serve's box)."""
    subject = load_input(AMBUSH, ())
    seen = []
    spread(subject, groups(subject, "party"), 1, 300, run_serial, 2, 50, step=100,
           partial=lambda s: seen.append((s.battles, sentence(s))))
    assert [battles for battles, _ in seen] == [100, 200]
    assert all("someone dies" in text for _, text in seen)


def test_presets_list(capsys):
    code, out, _ = run(capsys, "spread", "--presets")
    assert code == 0
    for preset in PRESETS:
        (line,) = [line for line in out.splitlines() if line.split()[:1] == [preset.name]]
        for key, value in preset.keys:
            assert f"{key}: {value:g}" in line if isinstance(value, float) else f"{key}: {value}" in line


def test_presets_list_as_json(capsys):
    listed = answer(capsys, "spread", "--presets")
    assert [(p["preset"], p["tactics"]) for p in listed] == [(p.name, p.tactics) for p in PRESETS]


def test_no_scenario_is_refused(capsys):
    code, _, err = run(capsys, "spread")
    assert code == 2 and "give a SCENARIO (or --presets" in err


def test_json_is_one_line_of_json(capsys):
    code, out, _ = run(capsys, "spread", str(AMBUSH), "-n", "50", "--workers", "1", "--json")
    assert code == 0 and len(out.strip().splitlines()) == 1
    json.loads(out)


def test_no_party_side_is_refused_before_any_battle(capsys, tmp_path):
    brawl = tmp_path / "brawl.yaml"
    brawl.write_text("name: Brawl\nrules: d20\nsides:\n"
                     "  - {name: a, members: [{name: A, hp: 9, weapons: [{name: fist, damage: 1d4}]}]}\n"
                     "  - {name: b, members: [{name: B, hp: 9, weapons: [{name: fist, damage: 1d4}]}]}\n")
    code, out, err = run(capsys, "spread", str(brawl), "-n", "10", "--report", str(tmp_path / "page"))
    assert code == 2 and out == ""
    (line,) = err.strip().splitlines()
    assert PROBLEM_LINE.match(line) and "needs a side with 'party: true'" in line
    assert not (tmp_path / "page").exists()  # refused before the page's folder is made


def test_workers_do_not_change_the_figures(capsys):
    """Chunks are counted in battle order whoever plays them: two workers, one worker, the same."""
    def timeless(result: dict) -> dict:
        return {"range": result["range"], "as_written": _timeless(result["as_written"]),
                "presets": [_timeless(p["summary"]) for p in result["presets"]],
                "corners": {k: _timeless(c["summary"]) for k, c in result["corners"].items()}}
    one = answer(capsys, "spread", str(AMBUSH), "-n", "300", "--workers", "1", "--chunk", "70")
    two = answer(capsys, "spread", str(AMBUSH), "-n", "300", "--workers", "2", "--chunk", "70")
    assert timeless(one) == timeless(two)
