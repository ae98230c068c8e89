"""The token, the Host and Origin checks and the body bound (sim.serve.guard)."""

from __future__ import annotations

import json
import socket

import pytest
from starlette.testclient import TestClient

from sim.serve.app import make_app
from sim.serve.guard import Guard, own_hosts
from tests.cli.helpers import run
from tests.serve.conftest import BASE, MAX_BODY, PORT, TOKEN, scenario_text, served


def test_a_request_without_the_token_is_refused(server_app) -> None:
    with TestClient(server_app[1], base_url=BASE) as client:
        answer = client.get("/api/bestiary?rules=d20")
        assert answer.status_code == 403
        assert "token" in answer.json()["error"]
        assert client.get("/", params={"token": "wrong"}).status_code == 403
        assert client.get("/static/serve.js").status_code == 403


def test_the_token_is_taken_from_a_header_a_bearer_or_the_first_visit_cookie(server_app) -> None:
    with TestClient(server_app[1], base_url=BASE) as client:
        assert client.get("/api/bestiary", headers={"x-sim-token": TOKEN}).status_code == 200
        assert client.get("/api/bestiary", headers={"authorization": f"Bearer {TOKEN}"}).status_code == 200
        first = client.get("/", params={"token": TOKEN})
        assert first.status_code == 200
        assert "HttpOnly" in first.headers["set-cookie"] and "SameSite=Strict" in first.headers["set-cookie"]
        assert client.get("/api/bestiary").status_code == 200  # the cookie, now


def test_another_host_is_refused_even_with_the_token(server_app) -> None:
    """DNS rebinding: a hostile name resolving to 127.0.0.1 sends its own Host."""
    with TestClient(server_app[1], base_url=f"http://evil.example:{PORT}") as client:
        answer = client.get("/api/bestiary", headers={"x-sim-token": TOKEN})
        assert answer.status_code == 403
        assert "Host" in answer.json()["error"]


def test_another_origin_is_refused_and_our_own_is_taken(client) -> None:
    body = {"scenario": "name: x"}
    refused = client.post("/api/validate", json=body, headers={"origin": "http://evil.example"})
    assert refused.status_code == 403
    assert "Origin" in refused.json()["error"]
    assert client.post("/api/validate", json=body, headers={"origin": BASE}).status_code == 200


def test_a_body_over_the_bound_is_refused_unread(client) -> None:
    answer = client.post("/api/validate", content=b"x" * (MAX_BODY + 1),
                         headers={"content-type": "application/json"})
    assert answer.status_code == 413


def test_a_chunked_body_over_the_bound_is_refused_as_it_arrives(client) -> None:
    def chunks():
        for _ in range(MAX_BODY // 1000 + 2):
            yield b" " * 1000

    answer = client.post("/api/validate", content=chunks(), headers={"content-type": "application/json"})
    assert answer.status_code == 413


def test_own_hosts_are_the_loopback_names_only_on_loopback() -> None:
    assert own_hosts("127.0.0.1", 9).names == {"127.0.0.1:9", "localhost:9", "[::1]:9"}
    assert own_hosts("192.168.1.5", 9).names == {"192.168.1.5:9"}
    assert "mybox:9" in own_hosts("MyBox", 9) and "MYBOX:9" in own_hosts("mybox", 9)  # names: any case


# -- the edges a planted one-line bug would move (the mutation audit's three) ----------------


@pytest.mark.parametrize("near", [TOKEN[:-1], TOKEN[:4], TOKEN + "x", TOKEN.upper(), TOKEN[1:], ""])
def test_a_token_but_one_character_off_is_refused_on_every_way_in(server_app, near: str) -> None:
    with TestClient(server_app[1], base_url=BASE) as client:
        for headers in ({"x-sim-token": near}, {"authorization": f"Bearer {near}"},
                        {"cookie": f"sim_token={near}"}):
            assert client.get("/api/bestiary", headers=headers).status_code == 403, headers
        assert client.get("/", params={"token": near}).status_code == 403
        assert client.get("/api/bestiary", headers={"x-sim-token": TOKEN}).status_code == 200


@pytest.mark.parametrize("host", ["127.0.0.1:1", f"127.0.0.1:{PORT}0", f"127.0.0.1:{PORT - 1}", "127.0.0.1",
                                  f"localhost:{PORT + 1}", f"127.0.0.2:{PORT}", f"127.0.0.1.:{PORT}",
                                  f"[::ffff:127.0.0.1]:{PORT}"])
def test_the_right_name_on_another_port_or_a_near_name_is_refused(server_app, host: str) -> None:
    with TestClient(server_app[1], base_url=BASE) as client:
        answer = client.get("/api/bestiary", headers={"x-sim-token": TOKEN, "host": host})
        assert answer.status_code == 403
        assert "Host" in answer.json()["error"]
        origin = client.get("/api/bestiary", headers={"x-sim-token": TOKEN, "origin": f"http://{host}"})
        assert origin.status_code == 403


def exactly(size: int) -> bytes:
    """A JSON object of exactly ``size`` bytes."""
    head = b'{"scenario": "'
    return head + b"x" * (size - len(head) - 2) + b'"}'


def test_a_body_of_exactly_the_bound_is_read_on_both_paths(client) -> None:
    body = exactly(MAX_BODY)
    assert len(body) == MAX_BODY
    sized = client.post("/api/validate", content=body, headers={"content-type": "application/json"})
    assert sized.status_code == 200 and sized.json()["ok"] is False  # read, and answered

    def chunks():
        for at in range(0, len(body), 997):
            yield body[at:at + 997]

    chunked = client.post("/api/validate", content=chunks(), headers={"content-type": "application/json"})
    assert chunked.status_code == 200 and chunked.json()["ok"] is False
    one_more = client.post("/api/validate", content=exactly(MAX_BODY + 1),
                           headers={"content-type": "application/json"})
    assert one_more.status_code == 413

    def one_more_chunked():
        yield exactly(MAX_BODY + 1)

    assert client.post("/api/validate", content=one_more_chunked(),
                       headers={"content-type": "application/json"}).status_code == 413


# -- what a browser may be made to send by another site ---------------------------------------


@pytest.mark.parametrize("kind", ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data",
                                  "", "application/jsonx", "text/json"])
def test_a_post_that_is_not_json_is_refused_before_any_job_starts(client, server_app, kind: str) -> None:
    headers = {"content-type": kind} if kind else {}
    body = json.dumps({"kind": "batch", "scenario": scenario_text("wolf_ford.yaml"), "n": 10})
    answer = client.post("/api/jobs", content=body.encode(), headers=headers)
    assert answer.status_code == 415
    assert "application/json" in answer.json()["error"]
    assert server_app[0].jobs.by_id == {}
    taken = client.post("/api/validate", content=b'{"scenario": "name: x"}',
                        headers={"content-type": "application/json; charset=utf-8"})
    assert taken.status_code == 200


@pytest.mark.parametrize(("site", "method", "status"), [
    ("cross-site", "GET", 403), ("cross-site", "POST", 403), ("same-site", "POST", 403),
    ("same-site", "GET", 200), ("same-origin", "POST", 200), ("none", "GET", 200)])
def test_a_request_a_browser_marks_from_another_site_is_refused(client, site: str, method: str,
                                                                 status: int) -> None:
    headers = {"sec-fetch-site": site}
    if method == "GET":
        answer = client.get("/api/bestiary", headers=headers)
    else:
        answer = client.post("/api/validate", json={"scenario": "name: x"}, headers=headers)
    assert answer.status_code == status
    if status == 403:
        assert "Sec-Fetch-Site" in answer.json()["error"]


# -- listening on every interface ------------------------------------------------------------


def own_address() -> str | None:
    """An address of this machine other than loopback (the one a route out leaves from)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("192.0.2.1", 9))  # TEST-NET: nothing is sent by a UDP connect
        except OSError:
            return None
        address = probe.getsockname()[0]
    return None if address.startswith("127.") or address == "0.0.0.0" else address


def test_all_interfaces_answer_to_this_machines_addresses_and_allowed_names_only() -> None:
    hosts = own_hosts("0.0.0.0", PORT, ["sim.lan"])
    for ours in ("127.0.0.1", "localhost", "LOCALHOST", "[::1]", "0.0.0.0", "sim.lan",
                 socket.gethostname()):
        assert f"{ours}:{PORT}" in hosts, ours
    mine = own_address()
    if mine is not None:
        assert f"{mine}:{PORT}" in hosts
        assert f"{mine}:1" not in hosts
    for theirs in ("127.0.0.1:1", f"8.8.8.8:{PORT}", f"evil.example:{PORT}", f"[::ffff:127.0.0.1]:{PORT}",
                   f"127.0.0.1.:{PORT}", f"2130706433:{PORT}", f"0x7f.1:{PORT}", f"sim.lan:{PORT + 1}",
                   f"{PORT}", ""):
        assert theirs not in hosts, theirs
    assert f"sim.lan:{PORT}" not in own_hosts("0.0.0.0", PORT)


def test_all_interfaces_serve_the_page_at_this_machines_address_behind_the_token(tmp_path) -> None:
    server, _ = served(tmp_path)
    app = Guard(make_app(server), TOKEN, own_hosts("0.0.0.0", PORT), MAX_BODY)
    try:
        for name in ["127.0.0.1", "localhost", *filter(None, [own_address()])]:
            with TestClient(app, base_url=f"http://{name}:{PORT}") as client:
                assert client.get("/api/bestiary").status_code == 403  # still the token
                assert client.get("/api/bestiary", headers={"x-sim-token": TOKEN}).status_code == 200
                assert client.post("/api/validate", json={"scenario": "name: x"}, headers={
                    "x-sim-token": TOKEN, "origin": f"http://{name}:{PORT}"}).status_code == 200
    finally:
        server.workspace.remove()


@pytest.mark.parametrize("name", ["evil.example:80", "a b", "-x", "x/y"])
def test_allow_host_takes_a_host_name_only(capsys, name: str) -> None:
    code, _, err = run(capsys, "serve", "--no-browser", "--port", "0", f"--allow-host={name}")
    assert code == 2
    assert "--allow-host: a host name" in err and len(err.strip().splitlines()) == 1
