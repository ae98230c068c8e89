"""A malformed body is a 400 with one line, never a 500; a YAML bomb freezes nothing; a
request whose client hung up gives its slot back (sim.serve.app, sim.serve.compose)."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator

import pytest
import uvicorn
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sim.serve.app import make_app
from sim.serve.guard import Guard, own_hosts
from sim.serve.jobs import MAX_RUNNING
from tests.processes import wait_until
from tests.serve.conftest import PORT, TOKEN, scenario_text, served
from tests.serve.test_app import WOLF_FORD, goblin_day

FORM = {"rules": "d20", "name": "x", "distance": 0, "surprise": "", "options": {},
        "party": [{"use": "knight"}], "foes": [{"use": "wolf", "count": 2}]}


def bomb(levels: int, inside: str) -> str:
    """A YAML alias bomb: each anchor a list of nine of the one before, ``inside`` the last."""
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for k in range(1, levels + 1):
        lines.append(f"a{k}: &a{k} [" + ", ".join([f"*a{k - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n" + inside.replace("BOMB", f"*a{levels}") + "\n"


def one_line_400(answer) -> None:
    assert answer.status_code == 400, answer.text
    error = answer.json()["error"]
    assert error and "\n" not in error and "Traceback" not in answer.text


def test_an_alias_bomb_in_parse_is_refused_by_the_loader(client) -> None:
    shaped = bomb(6, "name: BOMB\nrules: d20\nsides:\n  - {name: p, party: true, members: [{use: knight}]}"
                     "\n  - {name: f, members: [{use: wolf}]}")
    answer = client.post("/api/parse", json={"scenario": shaped})
    assert answer.status_code == 200
    assert answer.json()["form"] is None
    assert "does not read" in answer.json()["why"]
    assert client.post("/api/validate", json={"scenario": shaped}).json()["ok"] is False


@pytest.mark.parametrize(("path", "raw"), [
    ("/api/validate", "[" * 1000 + "]" * 1000),
    ("/api/validate", "{\"scenario\": " + "[" * 40_000 + "]" * 40_000 + "}"),
    ("/api/batch", '{"n": ' + "9" * 5000 + "}"),
    ("/api/batch", '{"n": Infinity, "scenario": "x"}'),
    ("/api/batch", '{"n": NaN, "scenario": "x"}'),
    ("/api/jobs", '{"kind": ["batch"]}'),
    ("/api/jobs", '{"kind": {"a": 1}}'),
    ("/api/validate", '{"scenario": "\\ud800"}'),
    ("/api/validate", b'{"scenario": "\xff"}'),
    ("/api/compose", '{"form": {"rules": "d20", "options": []}}'),
])
def test_a_malformed_body_is_a_400_with_one_line(client, path: str, raw: str | bytes) -> None:
    body = raw.encode() if isinstance(raw, str) else raw
    answer = client.post(path, content=body, headers={"content-type": "application/json"})
    if path == "/api/validate" and answer.status_code == 200:  # a scenario's problems, told
        assert answer.json()["ok"] is False
        return
    one_line_400(answer)


@pytest.mark.parametrize("change", [
    {"options": []}, {"options": {"destiny_points": "abc"}}, {"options": {"morale": "yes"}},
    {"distance": float("inf")}, {"distance": 1e308 * 10}, {"name": ["x"]}, {"party_name": {"a": 1}},
    {"surprise": ["party"]}, {"foes": [{"use": "wolf", "name": 5}]}, {"name": "\ud800"},
    {"rules": ["d20"]}, {"options": {"flee_at": True}},
])
def test_compose_refuses_a_form_it_cannot_write(client, change: dict) -> None:
    text = json.dumps({"form": {**FORM, **change}})  # Infinity as Python writes it
    one_line_400(client.post("/api/compose", content=text.encode(),
                             headers={"content-type": "application/json"}))


@pytest.mark.parametrize("yaml_text", [
    "name: 2001-12-14\nrules: d20\nsides:\n  - {name: p, party: true, members: [{use: knight}]}\n"
    "  - {name: f, members: [{use: wolf}]}",
    "name: x\nrules: d20\nsurprise: [p]\nsides:\n  - {name: [p], party: true, members: [{use: knight}]}\n"
    "  - {name: f, members: [{use: wolf}]}",
    "name: x\nrules: d20\ndistance: .inf\nsides:\n  - {name: p, party: true, members: [{use: knight}]}\n"
    "  - {name: f, members: [{use: wolf}]}",
    "x: " + "[" * 2000 + "]" * 2000,
    "1: a\nb: c\n",
])
def test_parse_answers_any_yaml_without_an_error(client, yaml_text: str) -> None:
    answer = client.post("/api/parse", json={"scenario": yaml_text})
    assert answer.status_code == 200
    form = answer.json()["form"]
    assert form is None or isinstance(form["name"], str)


@pytest.mark.parametrize("name", ["a\0b", "loop.yaml"])
def test_a_nul_or_a_symlink_loop_in_a_days_encounter_is_a_problem(client, server_app, name: str) -> None:
    home = server_app[0].workspace.home
    (home / "loop.yaml").symlink_to(home / "loop.yaml")
    day = goblin_day().replace("encounter: road_ambush.yaml", f"encounter: {json.dumps(name)}")
    answer = client.post("/api/validate", json={"scenario": day})
    assert answer.status_code == 200 and answer.json()["ok"] is False


# -- no body makes a 500 (the test client raises any exception the app lets out) ----------------


JSONS = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12)
KEYS = {"/api/validate": ["scenario"], "/api/parse": ["scenario"], "/api/compose": ["form"],
        "/api/batch": ["scenario", "n", "seed", "precision"],
        "/api/compare": ["scenario", "variants", "n", "seed", "precision"],
        "/api/tune": ["scenario", "vary", "target", "n", "seed", "precision"],
        "/api/jobs": ["kind", "scenario", "n", "seed", "variants"]}
FORM_VALUES = st.fixed_dictionaries({}, optional={key: JSONS for key in [*FORM, "party_name", "foes_name"]})


@st.composite
def bodies(draw: st.DrawFn) -> tuple[str, object]:
    path = draw(st.sampled_from(sorted(KEYS)))
    values = {key: JSONS for key in KEYS[path]}
    if path == "/api/compose":
        values["form"] = FORM_VALUES | JSONS
    body = draw(st.fixed_dictionaries({}, optional=values) | JSONS)
    return path, body


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                    HealthCheck.too_slow])
@given(bodies())
def test_no_json_body_makes_a_500(client, case: tuple[str, object]) -> None:
    path, body = case
    if isinstance(body, dict) and isinstance(body.get("n"), int) and not isinstance(body["n"], bool):
        body["n"] = min(body["n"], 20)  # bounds are tested elsewhere; a valid job stays short
    answer = client.post(path, content=json.dumps(body).encode(),
                         headers={"content-type": "application/json"})
    assert answer.status_code in (200, 202, 400, 429), answer.text
    if answer.status_code == 400:
        assert "\n" not in answer.json()["error"]
    if answer.status_code == 202:
        client.delete(f"/api/jobs/{answer.json()['id']}")


def test_a_form_scenario_round_trips_a_line_break_character_in_a_name(client) -> None:
    form = {**FORM, "name": "A\u0085B\u2028C", "party": [{"use": "knight", "name": "Sir\u0085X\u009b"}],
            "party_name": "party", "foes_name": "opposition", "options": {}}
    text = client.post("/api/compose", json={"form": form}).json()["yaml"]
    back = client.post("/api/parse", json={"scenario": text}).json()["form"]
    assert back["name"] == "A\u0085B\u2028C"
    assert back["party"][0]["name"] == "Sir\u0085X\u009b"


# -- a client that hangs up: its job is cancelled -----------------------------------------------


@pytest.fixture
def live(tmp_path) -> Iterator[tuple[object, int]]:
    """The app behind uvicorn on a free port of 127.0.0.1, in a thread: (server, port)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server, _ = served(tmp_path)
    app = Guard(make_app(server), TOKEN, own_hosts("127.0.0.1", port), 1_000_000)
    runner = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=runner.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    wait_until(lambda: runner.started, "uvicorn to start")
    yield server, port
    server.jobs.cancel_all()
    runner.should_exit = True
    thread.join(30)
    server.workspace.remove()
    sock.close()


def post(port: int, path: str, body: dict) -> socket.socket:
    """A POST sent, its answer not read: the caller hangs up or reads."""
    data = json.dumps(body).encode()
    conn = socket.create_connection(("127.0.0.1", port))
    conn.sendall(f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nX-Sim-Token: {TOKEN}\r\n"
                 f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n".encode() + data)
    return conn


@pytest.mark.parametrize("path", ["/api/batch", "/api/compare"])
def test_a_request_whose_client_hung_up_is_cancelled_and_frees_its_slot(live, path: str) -> None:
    server, port = live
    body = {"scenario": scenario_text(WOLF_FORD), "n": 100_000 if path == "/api/batch" else 20_000,
            "variants": [{"name": "a", "set": []}, {"name": "b", "set": []}]}
    conns = [post(port, path, body) for _ in range(MAX_RUNNING)]
    wait_until(lambda: len(server.jobs.by_id) == MAX_RUNNING, "the jobs to start")
    jobs = list(server.jobs.by_id.values())
    for conn in conns:
        conn.close()
    wait_until(lambda: all(job.cancel.is_set() for job in jobs), "the jobs to be cancelled", 30)
    wait_until(lambda: all(job.status != "running" for job in jobs), "the jobs to stop", 60)
    assert all(job.status == "cancelled" and job.done < job.total for job in jobs)
    assert server.jobs.by_id == {}  # gone, with their folders
    assert list(server.workspace.root.iterdir()) == []
    answer = post(port, "/api/batch", {"scenario": scenario_text(WOLF_FORD), "n": 10})
    answer.settimeout(60)
    assert answer.recv(100).startswith(b"HTTP/1.1 200")
    answer.close()


assert PORT  # the fixed port of the test client is not the live server's
