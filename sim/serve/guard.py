"""Who may talk to the server: the session token, its own Host and Origin, bounded bodies.

As notebook servers do: the address printed at start carries a random token;
the first visit with it sets a cookie (HttpOnly, SameSite=Strict), and every
request needs the token (cookie, ``X-Sim-Token`` header, ``Authorization:
Bearer`` or ``?token=``). A request whose Host is not the server's own is
refused, which defeats DNS rebinding (a hostile page whose name resolves to
127.0.0.1 sends its own name as Host); one whose Origin is another site's is
refused, which defeats cross-site requests, and so is one a browser marks
``Sec-Fetch-Site: cross-site`` (or ``same-site``, another port of this machine,
for anything but a GET). A POST to the API must say ``Content-Type:
application/json``: a form or ``text/plain`` body, which a page of another site
may send without asking, is refused. Bodies over ``max_body`` bytes are
refused: by their Content-Length before any is read, or as a chunked one
arrives.

Listening on all interfaces (``--host 0.0.0.0`` or ``::``), the server's own
names are every address of this machine (an address is this machine's when a
socket can be bound to it), ``localhost``, the machine's name, and the names
given with ``--allow-host``: a name a hostile page chose is still refused.
"""

from __future__ import annotations

import functools
import hmac
import ipaddress
import json
import socket
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any
from urllib.parse import parse_qs

import attrs

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

COOKIE = "sim_token"
HEADER = "x-sim-token"
WILDCARDS = ("0.0.0.0", "::")  # listening on every interface
JSON_TYPE = "application/json"


def own_hosts(host: str, port: int, allowed: Iterable[str] = ()) -> Hosts:
    """The Host headers that name this server: the address it listens on, the loopback
    names when it listens on loopback, and on every interface each address of this machine
    and the names ``allowed`` (``--allow-host``)."""
    names = {host, *allowed}
    if host in ("127.0.0.1", "localhost", "::1", *WILDCARDS):
        names |= {"127.0.0.1", "localhost", "[::1]"}
    if host in WILDCARDS:
        names.add(socket.gethostname().lower())
    if ":" in host and not host.startswith("["):
        names.add(f"[{host}]")
    return Hosts(frozenset(f"{name}:{port}".lower() for name in names), port, host in WILDCARDS)


@attrs.frozen
class Hosts:
    """The Host headers this server answers to (``in``)."""

    names: frozenset[str]  # written out, with the port
    port: int
    any_local: bool = False  # on every interface: any address of this machine too

    def __contains__(self, host: object) -> bool:
        if not isinstance(host, str):
            return False
        if host.lower() in self.names:
            return True
        name, _, port = host.rpartition(":")
        return self.any_local and port == str(self.port) and is_local_address(name)


@functools.lru_cache(maxsize=256)
def is_local_address(name: str) -> bool:
    """Whether ``name`` is an IP address written plainly (no IPv4-mapped form) that a socket
    of this machine can be bound to: one of its own."""
    text = name[1:-1] if name.startswith("[") and name.endswith("]") else name
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return False
    if (name.startswith("[") != (address.version == 6)
            or (address.version == 6 and (address.ipv4_mapped is not None or address.scope_id))):
        return False
    family = socket.AF_INET6 if address.version == 6 else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_DGRAM) as probe:
            probe.bind((str(address), 0))
    except OSError:
        return False
    return True


class Guard:
    """ASGI middleware: refuses (403, 413, 415) before the application sees the request."""

    def __init__(self, app: App, token: str, hosts: Hosts, max_body: int) -> None:
        self.app = app
        self.token = token
        self.hosts = hosts
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        refused = self._refusal(scope, headers)
        if refused is not None:
            await _answer(send, *refused)
            return
        bounded = await self._read_bounded(receive)
        if bounded is None:
            await _answer(send, 413, f"request body over {self.max_body} bytes")
            return
        await self.app(scope, bounded, self._with_cookie(send, _query_token(scope)))

    def _refusal(self, scope: Scope, headers: dict[str, str]) -> tuple[int, str] | None:
        if headers.get("host", "") not in self.hosts:
            return 403, "this server answers only to its own address (Host refused)"
        origin = headers.get("origin")
        if origin is not None and not (origin.startswith("http://") and origin[7:] in self.hosts):
            return 403, "requests from another site are refused (Origin refused)"
        fetched_from = headers.get("sec-fetch-site", "")
        if fetched_from == "cross-site" or (fetched_from == "same-site" and scope["method"] != "GET"):
            return 403, "requests from another site are refused (Sec-Fetch-Site refused)"
        if not any(self._is_token(t) for t in _tokens(scope, headers)):
            return 403, "needs the session token: open the address sim serve printed"
        length = headers.get("content-length", "0")
        if not length.isdigit() or int(length) > self.max_body:
            return 413, f"request body over {self.max_body} bytes"
        kind = headers.get("content-type", "").partition(";")[0].strip().lower()
        if scope["method"] == "POST" and kind != JSON_TYPE:
            return 415, f"the API takes a JSON body: send Content-Type: {JSON_TYPE}"
        return None

    def _is_token(self, candidate: str) -> bool:
        return hmac.compare_digest(candidate.encode(), self.token.encode())

    async def _read_bounded(self, receive: Receive) -> Receive | None:
        """The whole body read here (a chunked one has no Content-Length to check first), then
        given to the application as one message; None when it goes over the bound."""
        chunks, seen = [], 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return None  # the client left
            chunks.append(message.get("body", b""))
            seen += len(chunks[-1])
            if seen > self.max_body:
                return None
            if not message.get("more_body", False):
                break
        body: Message = {"type": "http.request", "body": b"".join(chunks), "more_body": False}
        given = False

        async def replay() -> Message:
            nonlocal given
            if not given:
                given = True
                return body
            return await receive()

        return replay

    def _with_cookie(self, send: Send, token: str | None) -> Send:
        """The first visit with ``?token=`` sets the cookie the page's requests then carry."""
        if token is None or not self._is_token(token):
            return send

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                cookie = f"{COOKIE}={token}; HttpOnly; SameSite=Strict; Path=/"
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], (b"set-cookie", cookie.encode())]
            await send(message)

        return sending


def _query_token(scope: Scope) -> str | None:
    values = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("token")
    return values[0] if values else None


def _tokens(scope: Scope, headers: dict[str, str]) -> list[str]:
    found = [headers.get(HEADER, "")]
    auth = headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        found.append(auth[7:].strip())
    for part in headers.get("cookie", "").split(";"):
        name, _, value = part.strip().partition("=")
        if name == COOKIE:
            found.append(value)
    query = _query_token(scope)
    if query is not None:
        found.append(query)
    return [t for t in found if t]


async def _answer(send: Send, status: int, message: str) -> None:
    body = json.dumps({"error": message}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})
