"""Rate limits at the HTTP edge, per client address and per signed-in wallet.

Every request (WebSocket handshakes included) belongs to one class of route, each with its
own budget (``HttpSettings``): sign-in, the transaction builders, creation, and the rest.
Counters live in Redis when several server processes share ``DEW_SERVER_REDIS_URL`` (one
budget for all of them), else in this process's memory. A refused request gets a 429 in the
house error shape with ``Retry-After``; nothing behind the middleware runs for it.
"""

from __future__ import annotations

import ipaddress
import logging
import math
import time
from dataclasses import dataclass
from urllib.parse import parse_qs

from limits import RateLimitItem, parse_many
from limits.aio.storage import MemoryStorage, RedisStorage, Storage
from limits.aio.strategies import SlidingWindowCounterRateLimiter
from limits.storage import storage_from_string
from starlette.types import ASGIApp, Receive, Scope, Send

from backend.accounts import exceptions as accounts_exc
from backend.accounts import service as accounts
from backend.api.errors import send_error
from backend.config import Settings

log = logging.getLogger(__name__)

SIGNIN_PATHS = frozenset({"/auth/nonce", "/auth/signin", "/auth/refresh", "/auth/guest"})
CREATE_PATHS = frozenset({"/tables", "/matchmaking"})
BUILDER_PATHS = frozenset({"/wallet/deposit"})
# Probes (load balancers, orchestrators) ask often and cost nothing.
EXEMPT_PATHS = frozenset({"/health", "/ready"})


@dataclass(frozen=True)
class RouteClass:
    name: str
    per_ip: tuple[RateLimitItem, ...]
    per_wallet: tuple[RateLimitItem, ...]


def route_classes(settings: Settings) -> dict[str, RouteClass]:
    http = settings.http
    return {
        "signin": RouteClass("signin", tuple(parse_many(http.signin_per_ip)), ()),
        "transactions": RouteClass("transactions", tuple(parse_many(http.transactions_per_ip)), ()),
        "create": RouteClass(
            "create",
            tuple(parse_many(http.create_per_ip)),
            tuple(parse_many(http.create_per_wallet)),
        ),
        "general": RouteClass(
            "general",
            tuple(parse_many(http.general_per_ip)),
            tuple(parse_many(http.general_per_wallet)),
        ),
    }


def classify(scope: Scope) -> str | None:
    """The route class of a request, or None for a path that is never limited."""
    path: str = scope["path"]
    if path in EXEMPT_PATHS:
        return None
    if scope["type"] == "http" and scope["method"] == "POST":
        if path in SIGNIN_PATHS:
            return "signin"
        # The transaction builders ask the node for a gas estimate each (the deposit too).
        if path.startswith("/economy/") or path in BUILDER_PATHS:
            return "transactions"
        if path in CREATE_PATHS or (
            path.startswith("/competitions/") and path.endswith("/register")
        ):
            return "create"
    return "general"


def client_key(host: str) -> str:
    """The budget an address draws on: IPv4 alone, IPv6 by its /64 (one subscriber's
    network hands out as many addresses as a script wants)."""
    if ":" not in host:
        return host
    try:
        return str(ipaddress.IPv6Network(f"{host}/64", strict=False))
    except ValueError:
        return host


class SweptMemoryStorage(MemoryStorage):
    """``limits``' memory storage, sweeping expired counters at most once a second.

    The library starts a sweep over every counter after each hit once the previous sweep
    is done: O(counters) of event-loop work per request, which made 4,000 WebSocket
    handshakes from 4,000 wallets take four times as long. Expired counters are also
    dropped when read, so a slower sweep only frees their memory a little later.
    """

    SWEEP_EVERY_S = 1.0
    _next_sweep = 0.0

    async def _MemoryStorage__schedule_expiry(self) -> None:  # the library's private hook
        now = time.monotonic()
        if now >= self._next_sweep:
            self._next_sweep = now + self.SWEEP_EVERY_S
            await super()._MemoryStorage__schedule_expiry()  # type: ignore[misc]


def make_storage(settings: Settings) -> Storage:
    url = settings.http.rate_limit_storage_url
    if url is None and settings.server.redis_url:
        url = "async+" + settings.server.redis_url
    if url is None:
        return SweptMemoryStorage()
    if url.startswith(("async+redis://", "async+rediss://")):
        # redis-py (already a dependency), not the default coredis.
        return RedisStorage(
            url, implementation="redispy", key_prefix=settings.http.rate_limit_key_prefix
        )
    return storage_from_string(url)  # type: ignore[return-value]  # an async+ scheme


class RateLimitMiddleware:
    """Pure ASGI: checks the budgets before the app sees the request."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.settings = settings
        self.classes = route_classes(settings)
        self.limiter = SlidingWindowCounterRateLimiter(make_storage(settings))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        name = classify(scope)
        if name is not None:
            refusal = await self._check(scope, self.classes[name])
            if refusal is not None:
                await self._refuse(scope, send, *refusal)
                return
        await self.app(scope, receive, send)

    async def _check(
        self, scope: Scope, route: RouteClass
    ) -> tuple[RouteClass, str, RateLimitItem, str] | None:
        client = scope.get("client")
        keys = [("ip", client_key(client[0]) if client else "unknown", route.per_ip)]
        if route.per_wallet:
            wallet = self._wallet(scope)
            if wallet is not None:
                keys.append(("wallet", wallet, route.per_wallet))
        try:
            for kind, key, items in keys:
                for item in items:
                    if not await self.limiter.hit(item, route.name, kind, key):
                        return route, kind, item, key
        except Exception:  # the counters' store is down: serve rather than refuse everyone
            log.warning("rate_limit_storage_unavailable", exc_info=True)
        return None

    def _wallet(self, scope: Scope) -> str | None:
        """The wallet of a valid access token (header, or ``token`` of a WebSocket URL)."""
        token = None
        for name, value in scope["headers"]:
            if name == b"authorization":
                scheme, _, credentials = value.decode("latin-1").partition(" ")
                if scheme.lower() == "bearer":
                    token = credentials.strip()
                break
        if token is None and scope["type"] == "websocket":
            query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
            token = (query.get("token") or [None])[0]
        if not token:
            return None
        try:
            return accounts.decode_access_token(self.settings, token).address
        except accounts_exc.AccountsError:
            return None  # the route refuses it; the address budget still counted it

    async def _refuse(
        self, scope: Scope, send: Send, route: RouteClass, kind: str, item: RateLimitItem, key: str
    ) -> None:
        try:
            stats = await self.limiter.get_window_stats(item, route.name, kind, key)
            retry_after = max(1, math.ceil(stats.reset_time - time.time()))
        except Exception:
            retry_after = item.get_expiry()
        per = "address" if kind == "ip" else "wallet"
        limit = f"{item.amount} per {item.multiples} {item.GRANULARITY.name}".replace(" 1 ", " ")
        message = f"too many requests: at most {limit} per {per} here; retry in {retry_after} s"
        detail = {"class": route.name, "per": per, "limit": limit, "retry_after_s": retry_after}
        headers = [(b"retry-after", str(retry_after).encode())]
        if scope["type"] == "websocket":
            if "websocket.http.response" in scope.get("extensions", {}):
                # Refused before the handshake: an HTTP 429 answers the upgrade request.
                await send_error(
                    send, 429, "rate_limited", message, detail, headers, websocket=True
                )
            else:
                await send({"type": "websocket.close", "code": 1008, "reason": "rate limited"})
        else:
            await send_error(send, 429, "rate_limited", message, detail, headers)
