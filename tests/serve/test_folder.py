"""What the server reads, and keeps: only its --dir folder and its bestiary folders, and no
folder of a request once it is answered (sim.serve.workspace, sim.scenario.reach)."""

from __future__ import annotations

import json
import os
import pathlib
import tempfile

import pytest
from starlette.testclient import TestClient

from sim.scenario.bestiary import shipped_bestiary
from sim.scenario.reach import OUTSIDE
from tests.serve.conftest import BASE, TOKEN, scenario_text, served
from tests.serve.test_app import WOLF_FORD, goblin_day

SECRET = "secret_key_LEAK"
# A scenario outside --dir, with a key that must never be quoted back.
OUTSIDE_SCENARIO = f"""name: outside
rules: d20
sides:
  - name: them
    {SECRET}: 1
    members: [{{use: wolf}}]
"""


@pytest.fixture
def outside(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    """A folder beside the served one, holding a scenario and a file that is no scenario."""
    folder = tmp_path_factory.mktemp("elsewhere")
    (folder / "bad_enc.yaml").write_text(OUTSIDE_SCENARIO, encoding="utf-8")
    (folder / "notes.txt").write_text(f"{SECRET}: 1\n", encoding="utf-8")
    return folder


def served_day(home: pathlib.Path) -> str:
    for name in ("road_ambush.yaml", "hobgoblin_warband.yaml"):
        (home / name).write_text(scenario_text(name), encoding="utf-8")
    return goblin_day()


def refusals(answer: dict) -> list[str]:
    texts = [p["text"] for p in answer.get("problems", [])]
    return texts or [answer.get("error", "")]


def assert_only_outside(answer: dict) -> None:
    """Refused, saying the file is outside, and nothing of it nor whether it exists."""
    text = json.dumps(answer)
    assert SECRET not in text and "bad_enc.yaml:" not in text
    assert any(OUTSIDE in line for line in refusals(answer)), refusals(answer)
    for word in ("no such file", "not a scenario", "not a regular file", "did you mean"):
        assert word not in text


def variants(*sets: list[str]) -> list[dict]:
    return [{"name": f"v{k}", "set": s} for k, s in enumerate(sets)]


@pytest.mark.parametrize("name", ["bad_enc.yaml", "notes.txt", "missing.yaml"])
def test_a_compare_variants_set_cannot_read_a_file_outside_dir(client, server_app, outside, name) -> None:
    home = server_app[0].workspace.home
    target = str(outside / name)
    day = served_day(home)
    for path in (target, os.path.relpath(target, home)):
        body = {"scenario": day, "n": 10, "variants": variants([f"steps[0].encounter={json.dumps(path)}"],
                                                               ["steps[0].encounter=road_ambush.yaml"])}
        answer = client.post("/api/compare", json=body)
        assert answer.status_code == 400
        assert_only_outside(answer.json())


def test_a_tune_or_a_validate_cannot_reach_outside_either(client, server_app, outside) -> None:
    home = server_app[0].workspace.home
    day = served_day(home)
    steps = f"steps=[{{encounter: {json.dumps(str(outside / 'bad_enc.yaml'))}}}]"
    tune = client.post("/api/tune", json={"scenario": day, "vary": "steps[0].encounter=1..2",
                                          "target": "party.any_death<=0.2", "n": 10})
    assert tune.status_code == 400 and SECRET not in tune.text
    compare = client.post("/api/compare", json={"scenario": day, "n": 10, "variants": variants([steps], [])})
    assert_only_outside(compare.json())
    inline = day.replace("encounter: road_ambush.yaml", f"encounter: {outside / 'bad_enc.yaml'}")
    assert_only_outside(client.post("/api/validate", json={"scenario": inline}).json())


def test_a_symlink_in_dir_to_a_file_outside_is_outside(client, server_app, outside) -> None:
    home = server_app[0].workspace.home
    day = served_day(home)
    (home / "link.yaml").symlink_to(outside / "bad_enc.yaml")
    answer = client.post("/api/validate", json={"scenario": day.replace("road_ambush.yaml", "link.yaml")})
    assert_only_outside(answer.json())


def test_the_edge_of_dir_is_its_path_not_its_name(client, server_app) -> None:
    """A sibling folder whose name begins with the served one's (HOME-x beside HOME) is outside:
    a check by string prefix would let it in. A path that steps out and back in
    (../HOME/road_ambush.yaml) is inside, and read."""
    home = server_app[0].workspace.home
    day = served_day(home)
    sibling = home.parent / f"{home.name}-x"
    sibling.mkdir()
    (sibling / "bad_enc.yaml").write_text(OUTSIDE_SCENARIO, encoding="utf-8")
    outside = day.replace("road_ambush.yaml", f"../{home.name}-x/bad_enc.yaml")
    assert_only_outside(client.post("/api/validate", json={"scenario": outside}).json())
    back_in = day.replace("road_ambush.yaml", f"../{home.name}/road_ambush.yaml")
    answer = client.post("/api/validate", json={"scenario": back_in}).json()
    assert answer.get("ok") is True and not answer.get("problems"), answer


def test_a_file_inside_dir_is_still_read_by_a_variant(client, server_app) -> None:
    home = server_app[0].workspace.home
    day = served_day(home)
    answer = client.post("/api/validate", json={"scenario": day.replace("road_ambush.yaml", "nope.yaml")})
    assert "no encounter file 'nope.yaml'" in answer.json()["problems"][0]["message"]


# -- the bestiary: --bestiary, the --dir folder's own, the shipped one; nothing above ----------------


PLANTED_WOLF = """rules: d20
creatures:
  wolf:
    description: a planted wolf
    hp: 500
    armor: 9
    weapons: [{name: jaws, damage: 10d10}]
"""


def test_a_bestiary_planted_in_the_temporary_folder_is_not_searched(tmp_path) -> None:
    """Started without --bestiary, the shipped bestiary is the last searched: a wolf planted
    in any folder searched before it would replace the shipped one."""
    server, app = served(tmp_path, ())
    workspace = server.workspace
    planted = [folder / "bestiary" / "d20" for folder in
               (pathlib.Path(tempfile.gettempdir()), workspace.root)]
    made = []
    try:
        for folder in planted:
            if not folder.exists():
                folder.mkdir(parents=True)
                made.append(folder)
            (folder / "zz_planted.yaml").write_text(PLANTED_WOLF, encoding="utf-8")
        with TestClient(app, base_url=BASE) as client:
            client.cookies.set("sim_token", TOKEN)
            searched = client.get("/api/bestiary", params={"rules": "d20", "q": "wolf"}).json()
            summary = client.post("/api/batch", json={"scenario": scenario_text(WOLF_FORD), "n": 50}).json()
        assert all("planted" not in e["description"] for e in searched["entries"])
        assert searched["searched"] == [str(shipped_bestiary())]
        assert summary["party"]["win"]["p"] > 0.5
    finally:
        for folder in planted:
            (folder / "zz_planted.yaml").unlink(missing_ok=True)
        for folder in made:
            folder.rmdir()
            folder.parent.rmdir()
        workspace.remove()


def test_the_dir_folders_own_bestiary_is_searched_and_listed(client, server_app) -> None:
    home = server_app[0].workspace.home
    (home / "bestiary" / "d20").mkdir(parents=True)
    (home / "bestiary" / "d20" / "mine.yaml").write_text(PLANTED_WOLF.replace("wolf:", "direwolf:"),
                                                          encoding="utf-8")
    answer = client.get("/api/bestiary", params={"rules": "d20", "q": "direwolf"}).json()
    assert [e["name"] for e in answer["entries"]] == ["direwolf"]
    assert str(home / "bestiary") in answer["searched"]


# -- the workspace stays bounded: a request's folder goes when it is answered ---------------------


def folders(server_app) -> list[pathlib.Path]:
    return sorted(server_app[0].workspace.root.iterdir())


def test_validates_and_answered_requests_leave_no_folder(client, server_app) -> None:
    text = scenario_text(WOLF_FORD)
    for _ in range(5):
        assert client.post("/api/validate", json={"scenario": text + "#" * 1000}).json()["ok"] is True
        assert client.post("/api/validate", json={"scenario": "name: [x"}).json()["ok"] is False
    assert client.post("/api/batch", json={"scenario": text, "n": 20}).status_code == 200
    assert client.post("/api/batch", json={"scenario": text.replace("count: 4", "count: -4")}
                       ).status_code == 400
    assert client.post("/api/compare", json={"scenario": text, "n": 20, "variants": variants([], [])}
                       ).status_code == 200
    assert client.post("/api/jobs", json={"kind": "batch", "scenario": "name: x"}).status_code == 400
    assert folders(server_app) == []


def test_a_refused_job_leaves_no_folder_and_a_kept_one_keeps_its_own(client, server_app) -> None:
    from tests.serve.test_app import finished

    started = client.post("/api/jobs", json={"kind": "batch", "scenario": scenario_text(WOLF_FORD), "n": 20})
    assert finished(client, started.json()["id"])["status"] == "done"
    kept = folders(server_app)
    assert len(kept) == 1 and (kept[0] / "run").is_dir()  # for its report
    bad = scenario_text(WOLF_FORD).replace("count: 4", "count: -4")
    assert client.post("/api/jobs", json={"kind": "batch", "scenario": bad}).status_code == 400
    assert client.post("/api/jobs", json={"kind": "compare", "scenario": bad,
                                          "variants": variants([], [])}).status_code == 400
    assert folders(server_app) == kept
