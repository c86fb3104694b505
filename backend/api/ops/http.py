"""The API's side of operations: request ids, latency histograms, ``/metrics``, ``/ready``.

``install(app)`` is the one call ``create_app`` makes. The middleware is a plain ASGI one
(no per-request objects beyond a timer): it binds the request id for every log line of the
request, echoes it in ``X-Request-ID``, and observes one histogram sample labelled with the
matched route's template (``/tables/{table_id}``), never the raw path, so a caller cannot
make new label values: unmatched paths all count as ``unmatched``.

``/metrics`` answers only peers in ``DEW_METRICS_ALLOW_FROM`` (loopback by default) or
callers with ``DEW_METRICS_TOKEN`` as a bearer token; anyone else gets 404, as if it did
not exist. The peer is the client address uvicorn reports: the socket's, or the one a
trusted proxy (uvicorn's ``--forwarded-allow-ips``, loopback by default) appended to
X-Forwarded-For, never an address the caller wrote there itself. ``/ready`` answers everyone with
200/503 and the names of the failed checks; only those same operators see the details.
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import time
from collections.abc import Callable
from typing import Any, cast

import orjson
from fastapi import FastAPI, Request, Response
from fastapi.concurrency import run_in_threadpool
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from starlette.routing import Mount
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from structlog.contextvars import bind_contextvars, reset_contextvars

from backend.config import Settings
from backend.ops import logs, multiproc
from backend.ops.metrics import HTTP_REQUEST_SECONDS, WS_CONNECTIONS, WS_OPEN

log = logging.getLogger(__name__)

_METHODS = frozenset({"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"})


class Observe:
    """Request id + route-templated latency for HTTP; request id + open-socket gauge for WS."""

    def __init__(self, app: ASGIApp, metrics: bool = True) -> None:
        self.app = app
        self.metrics = metrics

    @staticmethod
    def _template(scope: Scope) -> str:
        # The router records the route it matched; its path is a template from our code.
        route = scope.get("route")
        path = getattr(route, "path", None)
        if not isinstance(path, str):
            return "unmatched"
        return path + "/{path}" if isinstance(route, Mount) else path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        kind = scope["type"]
        if kind not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        header = None
        for name, value in scope.get("headers") or ():
            if name == b"x-request-id":
                header = value.decode("latin-1")
                break
        request_id = logs.request_id_from(header)
        tokens = bind_contextvars(request_id=request_id)
        try:
            if kind == "http":
                await self._http(scope, receive, send, request_id)
            elif not self.metrics:
                await self.app(scope, receive, send)
            else:
                await self._websocket(scope, receive, send)
        finally:
            reset_contextvars(**tokens)

    async def _http(self, scope: Scope, receive: Receive, send: Send, request_id: str) -> None:
        started = time.perf_counter()
        status = 500
        echoed = request_id.encode()

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [*message.get("headers", ()), (b"x-request-id", echoed)]
            await send(message)

        if not self.metrics:
            await self.app(scope, receive, send_with_id)
            return
        try:
            await self.app(scope, receive, send_with_id)
        finally:
            method = scope["method"] if scope["method"] in _METHODS else "other"
            HTTP_REQUEST_SECONDS.labels(self._template(scope), method, str(status)).observe(
                time.perf_counter() - started
            )

    async def _websocket(self, scope: Scope, receive: Receive, send: Send) -> None:
        opened = False

        async def send_counting(message: Message) -> None:
            nonlocal opened
            if message["type"] == "websocket.accept" and not opened:
                opened = True
                WS_CONNECTIONS.inc()
                WS_OPEN.inc()
            await send(message)

        try:
            await self.app(scope, receive, send_counting)
        finally:
            if opened:
                WS_OPEN.dec()


def _networks(settings: Settings) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    return [ipaddress.ip_network(n, strict=False) for n in settings.metrics.allow_from]


def operator(request: Request, settings: Settings, networks: list[Any]) -> bool:
    """Whether the caller may read /metrics (and /ready's details)."""
    token = settings.metrics.token
    if token:
        given = request.headers.get("authorization", "")
        if given.lower().startswith("bearer ") and hmac.compare_digest(
            given[7:].strip().encode(), token.encode()
        ):
            return True
    peer = request.client.host if request.client else None
    if not peer:
        return False
    try:
        address = ipaddress.ip_address(peer)
    except ValueError:
        return False
    return any(address in network for network in networks)


def registry_for_scrape(state: Any | None) -> CollectorRegistry:
    """This process's metrics, or every process's in multiprocess mode, plus the state."""
    if multiproc.directory():
        from prometheus_client import multiprocess

        registry = CollectorRegistry()
        # Unannotated in prometheus-client: it registers itself on the registry it is given.
        collect_all = cast(
            "Callable[[CollectorRegistry], None]", multiprocess.MultiProcessCollector
        )
        collect_all(registry)
    else:
        from prometheus_client import REGISTRY

        registry = CollectorRegistry()
        for collector in list(REGISTRY._collector_to_names):
            registry.register(collector)
    if state is not None:
        registry.register(state)
    return registry


def install(app: FastAPI, settings: Settings) -> None:
    """Middleware, ``/metrics`` and ``/ready`` (call from ``create_app``)."""
    from backend.api.ops.readiness import Readiness, as_json
    from backend.api.ops.state import StateCollector

    logs.configure(settings.log.format, settings.log.level)
    app.add_middleware(Observe, metrics=settings.metrics.enabled)
    networks = _networks(settings)
    app.state.readiness = None
    app.state.metrics_state = (
        StateCollector(app.state.engine, settings.metrics.state_cache_s)
        if settings.metrics.enabled
        else None
    )

    def readiness() -> Readiness:
        if app.state.readiness is None:
            app.state.readiness = Readiness(settings)
        ready: Readiness = app.state.readiness
        return ready

    @app.get("/metrics", include_in_schema=False)
    async def metrics(request: Request) -> Response:
        if not settings.metrics.enabled or not operator(request, settings, networks):
            return Response(status_code=404)
        registry = registry_for_scrape(app.state.metrics_state)
        body = await run_in_threadpool(generate_latest, registry)
        return Response(body, media_type=CONTENT_TYPE_LATEST)

    # Not in the OpenAPI schema: for probes and operators (its 503 is its answer, not a fault).
    @app.get("/ready", include_in_schema=False)
    async def ready(request: Request) -> Response:
        """Whether this server can serve: database, Redis, node, contracts, worker."""
        checks = await run_in_threadpool(readiness().run)
        body = as_json(checks)
        if not operator(request, settings, networks):
            body = {"status": body["status"], "failed": body["failed"]}
        return Response(
            orjson.dumps(body),
            status_code=200 if body["status"] == "ready" else 503,
            media_type="application/json",
        )
