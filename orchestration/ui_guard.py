"""The Dagster UI refuses requests a web page could forge: an ASGI middleware around dagster-webserver's app.

Dagster's web server (1.13) executes GraphQL mutations sent as a plain GET, and answers any Origin and any
Host header. While the UI runs on 127.0.0.1, that lets two kinds of web page drive it, and through it the
provider keys in its environment (launching runs, starting schedules):

* **cross-site request forgery**: any page the user visits can make the browser send
  `GET http://127.0.0.1:3000/graphql?query=mutation{...}` (an image tag is enough, and no Origin header is
  sent for it), or a form POST that needs no CORS preflight;
* **DNS rebinding**: a page on `attacker.example` whose name is made to resolve to 127.0.0.1 becomes, for
  the browser, same-origin with the UI, so it can read its answers too; only the Host header (and the
  Origin) still say `attacker.example`.

So the guard answers 400 to a request whose Host is not the loopback address and port the UI serves, 403 to
one whose Origin is another site's (browsers send Origin on every cross-origin POST and WebSocket), 403 to
a GraphQL operation in a URL that is not a query (mutations must be POSTed), and 415 to a GraphQL POST
that is not JSON or GraphQL (a form or text/plain body, which a page could send without a preflight). The
UI itself only sends same-origin JSON POSTs and GETs, so it keeps working.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any
from urllib.parse import parse_qs

from graphql import GraphQLError, OperationDefinitionNode, OperationType, parse

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")
GRAPHQL_TYPES = ("application/json", "application/graphql")


def _is_loopback_or_any(host: str) -> bool:
    if host in ("localhost", "", "0.0.0.0", "::"):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def allowed_hosts(host: str, port: int) -> frozenset[str]:
    """The Host header values a browser sends for this server: its loopback names with the port (a server
    bound to a non-loopback address also answers to that address)."""
    names = set(LOOPBACK_NAMES) if _is_loopback_or_any(host) else {f"[{host}]" if ":" in host else host}
    return frozenset(f"{name}:{port}".lower() for name in names)


def _mutation_in(query: str) -> bool:
    try:
        document = parse(query)
    except GraphQLError:
        return False  # not GraphQL at all: the server itself refuses to execute it
    return any(isinstance(d, OperationDefinitionNode) and d.operation is not OperationType.QUERY
               for d in document.definitions)


class LoopbackGuard:
    """Wraps an ASGI app; see the module's docstring for what it refuses and why."""

    def __init__(self, app: ASGIApp, host: str, port: int) -> None:
        self.app = app
        self.hosts = allowed_hosts(host, port)
        self.origins = frozenset(f"http://{h}" for h in self.hosts)

    def problem(self, scope: Scope) -> tuple[int, str] | None:
        """The status and reason to refuse this request with, or None to let it through."""
        headers: dict[str, list[str]] = {}
        for name, value in scope.get("headers", []):
            headers.setdefault(name.decode("latin-1").lower(), []).append(value.decode("latin-1"))
        host = headers.get("host", [])
        if len(host) != 1 or host[0].strip().lower() not in self.hosts:
            return 400, "refused: the Host header is not the loopback address and port this UI serves"
        origin = headers.get("origin", [])
        if origin and (len(origin) != 1 or origin[0].strip().lower() not in self.origins):
            return 403, "refused: a request from another origin (cross-site request)"
        if scope["type"] == "http" and scope.get("path", "").rstrip("/").endswith("/graphql"):
            params = parse_qs(scope.get("query_string", b"").decode("latin-1"), keep_blank_values=True)
            if any(_mutation_in(q) for q in params.get("query", [])):
                return 403, "refused: a GraphQL mutation in a URL; mutations must be POSTed as JSON"
            if scope.get("method") == "POST":
                essence = headers.get("content-type", [""])[0].split(";", 1)[0].strip().lower()
                if essence not in GRAPHQL_TYPES:
                    return 415, "refused: a GraphQL POST must be application/json or application/graphql"
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)  # lifespan
            return
        refused = self.problem(scope)
        if refused is None:
            await self.app(scope, receive, send)
        elif scope["type"] == "websocket":
            await receive()  # the connect message; closing before accepting makes the server answer 403
            await send({"type": "websocket.close", "code": 1008})
        else:
            status, reason = refused
            body = (reason + "\n").encode()
            await send({"type": "http.response.start", "status": status,
                        "headers": [(b"content-type", b"text/plain; charset=utf-8"),
                                    (b"content-length", str(len(body)).encode())]})
            await send({"type": "http.response.body", "body": body})
