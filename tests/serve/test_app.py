"""The JSON API (sim.serve.app): every endpoint, its bounds, and figures equal to the CLI's."""

from __future__ import annotations

import io
import json
import time
from contextlib import redirect_stdout

import pytest

from sim.cli import main
from sim.serve.jobs import MAX_RUNNING
from tests.serve.conftest import ROOT, scenario_text

WOLF_FORD = "wolf_ford.yaml"


def cli_json(*argv: str) -> dict:
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(list(argv)) == 0
    return json.loads(out.getvalue())


def without(data: dict, *keys: str) -> dict:
    return {k: v for k, v in data.items() if k not in keys}


def finished(client, job_id: str, timeout: float = 120.0) -> dict:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        view = client.get(f"/api/jobs/{job_id}").json()
        if view["status"] != "running":
            return view
        time.sleep(0.05)
    raise AssertionError(f"job {job_id} still running")


def test_the_page_is_served_with_its_script_and_a_strict_policy(client) -> None:
    page = client.get("/")
    assert page.status_code == 200
    assert '<script src="/static/serve.js"' in page.text
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert page.headers["referrer-policy"] == "no-referrer"
    assert client.get("/static/serve.js").status_code == 200


def test_bestiary_lists_a_rule_systems_entries_with_their_descriptions(client) -> None:
    answer = client.get("/api/bestiary", params={"rules": "d20"}).json()
    names = {e["name"]: e for e in answer["entries"]}
    assert "wolf" in names and "goblin" in names
    assert names["goblin"]["description"]
    assert names["goblin"]["fields"]["level"] == 1
    assert any(str(ROOT / "bestiary") in folder for folder in answer["searched"])


def test_bestiary_search_and_a_bad_rules_name(client) -> None:
    found = client.get("/api/bestiary", params={"rules": "d20", "q": "gob"}).json()["entries"]
    assert found and all("gob" in (e["name"] + e["description"]).lower() for e in found)
    bad = client.get("/api/bestiary", params={"rules": "d6"})
    assert bad.status_code == 400
    assert "d20" in bad.json()["error"]


def test_validate_names_the_line_of_each_problem(client) -> None:
    good = client.post("/api/validate", json={"scenario": scenario_text(WOLF_FORD)}).json()
    assert good == {"ok": True, "kind": "scenario", "problems": [], "warnings": []}
    text = scenario_text(WOLF_FORD).replace("distance: 30", "distanse: 30")
    bad = client.post("/api/validate", json={"scenario": text}).json()
    assert bad["ok"] is False
    line = text.splitlines().index("distanse: 30") + 1
    assert [(p["file"], p["line"]) for p in bad["problems"]] == [("encounter.yaml", line)]
    assert "distance" in bad["problems"][0]["message"]  # did you mean


def goblin_day() -> str:
    """The shipped goblin_warren day, its encounter files in the folder the server reads."""
    day = (ROOT / "scenarios" / "days" / "goblin_warren.yaml").read_text(encoding="utf-8")
    return day.replace("../", "")


def test_a_day_plays_with_its_encounter_files_read_from_the_home_folder(client, server_app) -> None:
    home = server_app[0].workspace.home
    for name in ("road_ambush.yaml", "hobgoblin_warband.yaml"):
        (home / name).write_text(scenario_text(name), encoding="utf-8")
    assert client.post("/api/validate", json={"scenario": goblin_day()}).json()["kind"] == "day"
    summary = client.post("/api/batch", json={"scenario": goblin_day(), "n": 50}).json()
    assert [step["name"] for step in summary["steps"]][:2] == ["Road ambush", "quick rest, 1 h"]


def test_a_day_encounter_outside_the_home_folder_is_refused(client) -> None:
    day = goblin_day().replace("encounter: road_ambush.yaml", "encounter: ../../etc/passwd")
    answer = client.post("/api/validate", json={"scenario": day}).json()
    assert answer["ok"] is False
    assert "is outside the folder sim serve reads" in answer["problems"][0]["message"]


def test_batch_answers_what_sim_batch_json_prints(client, tmp_path) -> None:
    served = client.post("/api/batch", json={"scenario": scenario_text(WOLF_FORD), "n": 300, "seed": 7})
    assert served.status_code == 200
    cli = cli_json("batch", str(ROOT / "scenarios" / WOLF_FORD), "-n", "300", "--seed", "7", "--json",
                   "--no-progress", "--workers", "1", "--out", str(tmp_path / "run"))
    assert without(served.json(), "elapsed_s") == without(cli, "elapsed_s")


def test_compare_answers_what_sim_compare_json_prints(client) -> None:
    count = "sides[1].members[1].count"
    body = {"scenario": scenario_text(WOLF_FORD), "n": 300, "seed": 3,
            "variants": [{"name": f"{count}=3", "set": [f"{count}=3"]},
                         {"name": f"{count}=4", "set": [f"{count}=4"]}]}
    served = client.post("/api/compare", json=body).json()
    cli = cli_json("compare", str(ROOT / "scenarios" / WOLF_FORD), "--vary", f"{count}=3,4", "-n", "300",
                   "--seed", "3", "--json", "--no-progress", "--workers", "1")
    assert served["metrics"] == cli["metrics"]
    assert served["variants"] == cli["variants"]


def test_tune_answers_what_sim_tune_json_prints(client) -> None:
    vary, target = "sides[1].members[1].count=1..4", "party.any_death<=0.2"
    body = {"scenario": scenario_text(WOLF_FORD), "vary": vary, "target": target, "n": 1000, "seed": 1}
    served = client.post("/api/tune", json=body).json()
    cli = cli_json("tune", str(ROOT / "scenarios" / WOLF_FORD), "--vary", vary, "--target", target,
                   "-n", "1000", "--json", "--no-progress", "--workers", "1")
    assert served["points"] == cli["points"]
    assert served["largest_ok"] == cli["largest_ok"] == 3


@pytest.mark.parametrize(("body", "word"), [
    ({"n": 0}, "n:"), ({"n": 100_001}, "n:"), ({"n": "5"}, "n:"), ({"seed": -1}, "seed:"),
    ({"precision": 2}, "precision:"), ({"scenario": ""}, "scenario:"),
])
def test_batch_bounds(client, body: dict, word: str) -> None:
    answer = client.post("/api/batch", json={"scenario": scenario_text(WOLF_FORD), **body})
    assert answer.status_code == 400
    assert answer.json()["error"].startswith(word)


def test_a_body_that_is_not_a_json_object_is_refused(client) -> None:
    assert client.post("/api/batch", content=b"[1]", headers={"content-type": "application/json"}
                       ).status_code == 400
    assert client.post("/api/batch", content=b"{", headers={"content-type": "application/json"}
                       ).status_code == 400


def test_a_scenario_with_problems_is_refused_with_them(client) -> None:
    text = scenario_text(WOLF_FORD).replace("count: 4", "count: -4")
    answer = client.post("/api/batch", json={"scenario": text, "n": 10})
    assert answer.status_code == 400
    assert answer.json()["problems"][0]["file"] == "encounter.yaml"


def test_a_job_reports_figures_as_it_goes_and_its_report(client) -> None:
    started = client.post("/api/jobs", json={"kind": "batch", "scenario": scenario_text(WOLF_FORD),
                                             "n": 400, "seed": 1})
    assert started.status_code == 202
    view = finished(client, started.json()["id"])
    assert view["status"] == "done" and view["done"] == 400
    assert view["partial"]["party"]["win"]["p"] == view["result"]["party"]["win"]["p"]
    assert view["report"] is True
    report = client.get(f"/jobs/{view['id']}/report")
    assert report.status_code == 200
    assert "worst" in report.text
    again = client.get(f"/jobs/{view['id']}/report")  # the page written once, served again
    assert again.status_code == 200 and again.text == report.text


def test_cancelling_a_job_stops_it(client) -> None:
    started = client.post("/api/jobs", json={"kind": "batch", "scenario": scenario_text(WOLF_FORD),
                                             "n": 100_000, "seed": 1}).json()
    client.delete(f"/api/jobs/{started['id']}")
    view = finished(client, started["id"])
    assert view["status"] == "cancelled"
    assert view["done"] < 100_000


def test_too_many_jobs_at_once_are_refused(client) -> None:
    body = {"kind": "batch", "scenario": scenario_text(WOLF_FORD), "n": 100_000}
    ids = [client.post("/api/jobs", json=body).json()["id"] for _ in range(MAX_RUNNING)]
    one_more = client.post("/api/jobs", json=body)
    assert one_more.status_code == 429
    assert "cancel one" in one_more.json()["error"]
    for job_id in ids:
        client.delete(f"/api/jobs/{job_id}")


def test_an_unknown_job_is_404(client) -> None:
    assert client.get("/api/jobs/nope").status_code == 404
    assert client.get("/jobs/nope/report").status_code == 404


def test_compose_and_parse_round_trip_a_form(client) -> None:
    form = {"rules": "d20", "name": "Ogre <b>", "distance": 10, "surprise": "foes",
            "options": {"morale": False, "destiny_points": 1, "spirit": False},
            "party_name": "party", "foes_name": "opposition",
            "party": [{"use": "knight", "name": "Sir \"B\"", "count": 1}],
            "foes": [{"use": "wolf", "name": "", "count": 4}]}
    text = client.post("/api/compose", json={"form": form}).json()["yaml"]
    assert client.post("/api/validate", json={"scenario": text}).json()["ok"] is True
    back = client.post("/api/parse", json={"scenario": text}).json()["form"]
    assert back == {**form, "foes_index": 1}
    bad = client.post("/api/compose", json={"form": {**form, "rules": "d6"}})
    assert bad.status_code == 400


def test_a_rout_chosen_in_the_form_is_flee_at_in_the_yaml(client) -> None:
    """The form's "sides flee when half are down" is `options: {flee_at: 0.5}`, read back as
    it was; a flee_at the form does not offer leaves the YAML editor in charge."""
    form = {"rules": "2d10", "name": "Rout", "distance": 0, "surprise": "",
            "options": {"morale": True, "destiny_points": 0, "flee_at": 0.5},
            "party_name": "party", "foes_name": "opposition",
            "party": [{"use": "captain", "name": "Hild", "count": 1}],
            "foes": [{"use": "raider", "name": "", "count": 4}]}
    text = client.post("/api/compose", json={"form": form}).json()["yaml"]
    assert "\n  flee_at: 0.5  # rout:" in text
    answer = client.post("/api/validate", json={"scenario": text}).json()
    assert answer["ok"] is True and answer["warnings"] == []
    assert client.post("/api/parse", json={"scenario": text}).json()["form"] == {**form, "foes_index": 1}
    other = client.post("/api/parse", json={"scenario": text.replace("flee_at: 0.5", "flee_at: 0.4")}).json()
    assert other["form"] is None and "flee_at 0.4" in other["why"]
    bad = client.post("/api/compose", json={"form": {**form, "options": {"flee_at": 0.4}}})
    assert bad.status_code == 400


def test_parse_says_why_the_form_cannot_show_a_scenario(client) -> None:
    answer = client.post("/api/parse", json={"scenario": scenario_text("burning_barn.yaml")}).json()
    assert answer["form"] is None
    assert answer["why"]


def test_valid_data_a_fight_leaves_idle_is_a_warning_beside_its_line(client) -> None:
    """Another system's option: the scenario is ok, with a warning that names its line, and
    the batch's summary keeps it (as sim batch's does)."""
    idle = "options: {tie_succeeds: true}"
    text = scenario_text(WOLF_FORD).replace("\ndistance: 30\n", f"\ndistance: 30\n{idle}\n")
    answer = client.post("/api/validate", json={"scenario": text}).json()
    assert answer["ok"] is True and answer["warnings"]
    assert all(w["file"] == "encounter.yaml" and w["line"] > 0 for w in answer["warnings"])
    assert [w["path"] for w in answer["warnings"]] == ["options.tie_succeeds"]
    assert answer["warnings"][0]["line"] == text.splitlines().index(idle) + 1
    summary = client.post("/api/batch", json={"scenario": text, "n": 20}).json()
    assert summary["warnings"] == [w["text"] for w in answer["warnings"]]


def test_compare_and_tune_give_warnings_as_the_cli_does_and_no_server_path(client, server_app) -> None:
    count = "sides[1].members[1].count"
    body = {"scenario": scenario_text(WOLF_FORD), "n": 50, "seed": 3,
            "variants": [{"name": "3", "set": [f"{count}=3"]}, {"name": "4", "set": [f"{count}=4"]}]}
    served = client.post("/api/compare", json=body).json()
    assert served["warnings"] == []
    assert served["scenarios"] == ["encounter.yaml", "encounter.yaml"]
    idle = scenario_text(WOLF_FORD).replace("\ndistance: 30\n",
                                            "\ndistance: 30\noptions: {tie_succeeds: true}\n")
    warned = client.post("/api/compare", json={**body, "scenario": idle}).json()
    assert [w.split(": ", 1)[0].rsplit(":", 2)[0] for w in warned["warnings"]] == ["encounter.yaml"]
    tuned = client.post("/api/tune", json={"scenario": idle, "vary": f"{count}=1..2", "n": 50,
                                           "target": "party.any_death<=0.2"}).json()
    assert tuned["warnings"] == warned["warnings"] and tuned["scenario"] == "encounter.yaml"
    assert str(server_app[0].workspace.root) not in json.dumps([served, warned, tuned])
