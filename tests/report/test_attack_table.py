"""The batch report (report.html) ends with one attack's exact odds (sim.odds.attacks)."""

from __future__ import annotations

from tests.cli.helpers import REPO, run

DUEL = REPO / "tests" / "data" / "odds" / "d20_heroism_duel.yaml"


def test_the_page_shows_the_per_attack_table(tmp_path, capsys):
    out_dir = tmp_path / "run"
    code, _, err = run(capsys, "batch", str(DUEL), "-n", "50", "--no-progress", "--out", str(out_dir),
                         "--report")
    assert code == 0, err
    page = (out_dir / "report.html").read_text(encoding="utf-8")
    assert "One attack, exactly" in page
    assert "Aria (sword)" in page and "Aria rolls d20+1 &gt; 12 [attack roll 45.0%]" in page
    assert "62.5%" in page  # Aria hits the orc: 45% on the roll, heroism makes it 62.5%


def test_a_day_has_no_per_attack_table(tmp_path, capsys):
    code, _, err = run(capsys, "batch", str(REPO / "scenarios" / "days" / "goblin_warren.yaml"), "-n", "5",
                       "--no-progress", "--out", str(tmp_path / "day"), "--report")
    assert code == 0, err
    assert "One attack, exactly" not in (tmp_path / "day" / "report.html").read_text(encoding="utf-8")
