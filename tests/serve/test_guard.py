"""The token, the Host and Origin checks and the body bound (sim.serve.guard)."""

from __future__ import annotations

from starlette.testclient import TestClient

from sim.serve.guard import own_hosts
from tests.serve.conftest import BASE, MAX_BODY, PORT, TOKEN


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
    assert own_hosts("127.0.0.1", 9) == {"127.0.0.1:9", "localhost:9", "[::1]:9"}
    assert own_hosts("192.168.1.5", 9) == {"192.168.1.5:9"}
