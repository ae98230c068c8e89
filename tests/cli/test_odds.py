"""``sim odds``: the exact summary, its refusals and its bound, --vs-batch."""

from __future__ import annotations

import json

import pytest

from tests.cli.helpers import REPO, answer, run

DUEL = REPO / "tests" / "data" / "odds" / "d20_heroism_duel.yaml"


class TestExactSummary:
    """The summary is shaped like sim batch --json's, every interval closed on its estimate."""

    def test_json_keys_of_a_batch_with_lo_equal_hi(self, capsys):
        out = answer(capsys, "odds", str(DUEL))
        assert out["exact"] is True
        for key in ("win", "any_down", "any_death", "tpk"):
            figure = out["party"][key]
            assert figure["lo"] == figure["p"] == figure["hi"]
        assert out["party"]["win"]["p"] + out["sides"]["foes"]["win_rate"]["p"] + out["draw_rate"]["p"] \
            == pytest.approx(1.0, abs=1e-9)
        assert out["party"]["difficulty"] in ("trivial", "easy", "medium", "hard", "deadly", "overwhelming")
        assert out["rounds"]["mean"] > 1

    def test_headline_worded_as_batch(self, capsys):
        code, out, _ = run(capsys, "odds", str(DUEL))
        assert code == 0
        first = out.splitlines()[0]
        assert first.startswith("Exact, difficulty ")
        assert "heroes win 66.2%; someone goes down in 33.8%, someone dies in 33.8%" in first

    def test_vs_batch_prints_each_figure_with_its_z(self, capsys):
        code, out, _ = run(capsys, "odds", str(DUEL), "--vs-batch", "-n", "300", "--seed", "2")
        assert code == 0
        assert "Against sim batch (300 battles, seed 2):" in out
        rows = [line.split() for line in out.splitlines() if line.startswith("  party.")]
        assert [r[0] for r in rows] == ["party.win", "party.any_down", "party.any_death", "party.tpk"]
        assert all(abs(float(r[-1])) < 4 for r in rows)


class TestRefusals:
    """What the solver cannot represent is refused by name (exit 2), after the per-attack table."""

    def test_hazards_and_timeline_by_name(self, capsys):
        code, out, err = run(capsys, "odds", str(REPO / "scenarios" / "river_ford.yaml"))
        assert code == 2
        assert "Per attack" in out
        lines = err.splitlines()
        assert any(": hazards: " in line and "use sim batch" in line for line in lines)
        assert any(": timeline: " in line for line in lines)

    def test_too_big_is_one_line_with_the_bound(self, capsys):
        code, _, err = run(capsys, "odds", str(REPO / "scenarios" / "road_ambush.yaml"))
        assert code == 2
        [line] = err.splitlines()
        assert "too big to solve exactly (10 combatants)" in line
        assert "the bound is 6 combatants" in line and line.endswith("use sim batch")

    def test_a_day_is_refused(self, capsys):
        code, _, err = run(capsys, "odds", str(REPO / "scenarios" / "days" / "goblin_warren.yaml"))
        assert code == 2
        assert "not a day" in err

    def test_json_of_a_refused_fight_still_gives_the_attacks(self, capsys):
        code, out, _ = run(capsys, "odds", str(REPO / "scenarios" / "road_ambush.yaml"), "--json")
        assert code == 2
        body = json.loads(out)
        assert body["exact"] is False and body["attacks"]
