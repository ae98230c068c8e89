"""Binding, the address with its token, and uvicorn: what ``sim serve`` starts.

The socket is bound here, before uvicorn starts, so the printed address names
the port really listened on (``--port 0`` picks a free one) and the Guard
knows its own Host before the first request.
"""

from __future__ import annotations

import pathlib
import secrets
import socket
import webbrowser
from collections.abc import Callable

import attrs
import uvicorn

from sim.serve.app import Server, make_app
from sim.serve.guard import Guard, own_hosts
from sim.serve.plays import Execution
from sim.serve.workspace import Workspace

MAX_BODY = 1_000_000  # bytes of a request body: a scenario is a few kilobytes
LOOPBACK = ("127.0.0.1", "localhost", "::1")


@attrs.frozen
class Settings:
    host: str = "127.0.0.1"
    port: int = 8765
    home: pathlib.Path = attrs.field(factory=pathlib.Path.cwd)
    bestiary: tuple[pathlib.Path, ...] = ()
    execution: Execution = attrs.field(factory=Execution)
    open_browser: bool = True
    allow_hosts: tuple[str, ...] = ()  # names besides this machine's addresses (--allow-host)


def bind(host: str, port: int) -> socket.socket:
    """A listening socket (an OSError names why not: the port is taken, the address is not ours)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(128)
    except OSError:
        sock.close()
        raise
    return sock


def address(host: str, port: int, token: str) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/?token={token}"


def serve(settings: Settings, say: Callable[[str], None]) -> None:
    """Serve until interrupted; the workspace goes when the server stops."""
    sock = bind(settings.host, settings.port)
    port = sock.getsockname()[1]
    token = secrets.token_urlsafe(24)
    workspace = Workspace.create(settings.home, settings.bestiary)
    server = Server(workspace, settings.execution)
    app = Guard(make_app(server), token, own_hosts(settings.host, port, settings.allow_hosts), MAX_BODY)
    url = address(settings.host, port, token)
    say(f"sim serve: {url}  (Ctrl-C stops it)")
    if settings.open_browser:
        webbrowser.open(url)
    config = uvicorn.Config(app, log_level="warning", lifespan="off", access_log=False)
    try:
        uvicorn.Server(config).run(sockets=[sock])
    finally:
        server.jobs.cancel_all()
        workspace.remove()
        sock.close()


def hosts_warning(host: str) -> str | None:
    if host in LOOPBACK:
        return None
    return (f"sim serve: listening on {host}: other machines that reach it may use the page with"
            " the token; the default, 127.0.0.1, is this machine only")
