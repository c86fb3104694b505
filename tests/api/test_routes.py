"""The HTTP surface, pinned: every (method, path) the app serves is in ``routes.txt``, so a
router moved or renamed cannot drop or add a route unnoticed; and each router module serves
the one URL prefix it is named after (``routers/wallet.py`` serves ``/wallet``)."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import APIRouter, FastAPI
from starlette.routing import Mount

import backend.api.routers as routers_package
from backend.api.app import create_app
from backend.config import ChainSettings, DatabaseSettings, Settings
from backend.tables.gating import ClosedGate

PINNED = Path(__file__).with_name("routes.txt")
# Served by FastAPI itself or by the web client's mount, not by our routers.
FRAMEWORK = {"/openapi.json", "/docs", "/docs/oauth2-redirect", "/redoc"}


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> FastAPI:
    # A manifest that exists: create_app() mounts the economy and markets routers only with a
    # deployment. Nothing here connects to the database or the chain.
    tmp = tmp_path_factory.mktemp("routes")
    manifest = tmp / "deployment.json"
    manifest.write_text("{}")
    settings = Settings(
        db=DatabaseSettings(url=f"sqlite:///{tmp / 'routes.db'}"),
        chain=ChainSettings(manifest_path=manifest),
    )
    return create_app(settings, gate=ClosedGate())


def _served(routes: Iterable[Any], prefix: str = "") -> Iterator[tuple[str, str]]:
    for route in routes:
        included = getattr(route, "original_router", None)
        if included is not None:  # a router included as a whole (newer FastAPI)
            yield from _served(included.routes, prefix + route.include_context.prefix)
        elif isinstance(route, Mount):
            yield "MOUNT", prefix + route.path
        elif hasattr(route, "path"):
            for method in sorted(getattr(route, "methods", None) or {"WEBSOCKET"}):
                yield method, prefix + route.path


def _pinned() -> set[tuple[str, str]]:
    lines = PINNED.read_text().splitlines()
    pairs = [tuple(line.split()) for line in lines if line and not line.startswith("#")]
    return {(m, p) for m, p in pairs}


def test_the_app_serves_exactly_the_pinned_routes(app: FastAPI) -> None:
    served = {(m, p) for m, p in _served(app.routes) if m != "HEAD" and p not in FRAMEWORK}
    pinned = _pinned()
    assert served - pinned == set(), "routes served but not pinned in routes.txt"
    assert pinned - served == set(), "routes pinned in routes.txt but no longer served"


def test_the_openapi_document_lists_every_pinned_http_route(app: FastAPI) -> None:
    documented = {
        (method.upper(), path)
        for path, operations in app.openapi()["paths"].items()
        for method in operations
    }
    # The sockets, the web client (and its icon) and the operations endpoints are outside the
    # document.
    outside = {"/", "/favicon.ico", "/web", "/metrics", "/ready"}
    http = {(m, p) for m, p in _pinned() if m not in {"WEBSOCKET", "MOUNT"} and p not in outside}
    assert len(http) >= 80
    assert http - documented == set()


def _router_modules() -> Iterator[tuple[str, Any]]:
    for info in pkgutil.walk_packages(routers_package.__path__, routers_package.__name__ + "."):
        yield info.name, importlib.import_module(info.name)


def test_each_router_module_serves_the_prefix_it_is_named_after() -> None:
    checked = 0
    for name, module in _router_modules():
        router = getattr(module, "router", None)
        assert isinstance(router, APIRouter), f"{name} has no APIRouter named router"
        assert router.prefix == "/" + name.rsplit(".", 1)[-1], (name, router.prefix)
        for route in router.routes:
            path = getattr(route, "path", None)
            if path is not None:
                assert path == router.prefix or path.startswith(router.prefix + "/"), (name, path)
        checked += 1
    assert checked >= 20
