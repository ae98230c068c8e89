"""A served app for the tests: the real Starlette app behind the real Guard, on a workspace
of its own, talked to through Starlette's TestClient (httpx) as a browser at 127.0.0.1."""

from __future__ import annotations

import pathlib
from collections.abc import Iterator

import pytest
from starlette.testclient import TestClient

from sim.serve.app import Server, make_app
from sim.serve.guard import Guard, own_hosts
from sim.serve.plays import Execution
from sim.serve.workspace import Workspace

ROOT = pathlib.Path(__file__).parent.parent.parent
TOKEN = "test-token-0123456789"
PORT = 8765
BASE = f"http://127.0.0.1:{PORT}"
MAX_BODY = 100_000


def served(home: pathlib.Path, bestiary: tuple[pathlib.Path, ...] = (ROOT / "bestiary",)
           ) -> tuple[Server, Guard]:
    workspace = Workspace.create(home, bestiary)
    server = Server(workspace, Execution(workers=1))
    return server, Guard(make_app(server), TOKEN, own_hosts("127.0.0.1", PORT), MAX_BODY)


@pytest.fixture
def server_app(tmp_path: pathlib.Path) -> Iterator[tuple[Server, Guard]]:
    server, app = served(tmp_path)
    yield server, app
    server.jobs.cancel_all()
    server.workspace.remove()


@pytest.fixture
def client(server_app: tuple[Server, Guard]) -> Iterator[TestClient]:
    """A client that sends the token as the page's requests do (the cookie of the first visit)."""
    with TestClient(server_app[1], base_url=BASE) as test_client:
        test_client.cookies.set("sim_token", TOKEN)
        yield test_client


def scenario_text(name: str) -> str:
    return (ROOT / "scenarios" / name).read_text(encoding="utf-8")
