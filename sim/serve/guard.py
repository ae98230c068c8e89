"""Who may talk to the server: the session token, its own Host and Origin, bounded bodies.

As notebook servers do: the address printed at start carries a random token;
the first visit with it sets a cookie (HttpOnly, SameSite=Strict), and every
request needs the token (cookie, ``X-Sim-Token`` header, ``Authorization:
Bearer`` or ``?token=``). A request whose Host is not the server's own is
refused, which defeats DNS rebinding (a hostile page whose name resolves to
127.0.0.1 sends its own name as Host); one whose Origin is another site's is
refused, which defeats cross-site requests. Bodies over ``max_body`` bytes are
refused: by their Content-Length before
any is read, or as a chunked one arrives.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any
from urllib.parse import parse_qs

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

COOKIE = "sim_token"
HEADER = "x-sim-token"


def own_hosts(host: str, port: int) -> frozenset[str]:
    """The Host headers that name this server: the address it listens on, and the loopback
    names when it listens on loopback."""
    names = {host}
    if host in ("127.0.0.1", "localhost", "::1"):
        names |= {"127.0.0.1", "localhost", "[::1]"}
    if ":" in host and not host.startswith("["):
        names.add(f"[{host}]")
    return frozenset(f"{name}:{port}" for name in names)


class Guard:
    """ASGI middleware: refuses (403, 413) before the application sees the request."""

    def __init__(self, app: App, token: str, hosts: Iterable[str], max_body: int) -> None:
        self.app = app
        self.token = token
        self.hosts = frozenset(hosts)
        self.origins = frozenset(f"http://{h}" for h in self.hosts)
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
        if origin is not None and origin not in self.origins:
            return 403, "requests from another site are refused (Origin refused)"
        if not any(self._is_token(t) for t in _tokens(scope, headers)):
            return 403, "needs the session token: open the address sim serve printed"
        length = headers.get("content-length", "0")
        if not length.isdigit() or int(length) > self.max_body:
            return 413, f"request body over {self.max_body} bytes"
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
