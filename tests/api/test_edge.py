"""The HTTP edge's pieces on their own: route classes, address keys, settings."""

from __future__ import annotations

import asyncio
import time

import pytest
from limits import parse_many
from limits.aio.strategies import SlidingWindowCounterRateLimiter
from pydantic import ValidationError

from backend.api.edge import content_security_policy
from backend.api.ratelimit import SweptMemoryStorage, classify, client_key
from backend.config import HttpSettings


def _scope(method: str, path: str, kind: str = "http") -> dict[str, object]:
    return {"type": kind, "method": method, "path": path}


@pytest.mark.parametrize(
    ("method", "path", "kind", "expected"),
    [
        ("POST", "/auth/nonce", "http", "signin"),
        ("POST", "/auth/signin", "http", "signin"),
        ("POST", "/auth/refresh", "http", "signin"),
        ("POST", "/auth/logout", "http", "general"),
        ("GET", "/auth/me", "http", "general"),
        ("POST", "/economy/offers", "http", "transactions"),
        ("POST", "/economy/agreements/7/accept", "http", "transactions"),
        ("GET", "/economy/agreements", "http", "general"),
        ("POST", "/tables", "http", "create"),
        ("POST", "/matchmaking", "http", "create"),
        ("POST", "/competitions/12/register", "http", "create"),
        ("POST", "/tables/abc/join", "http", "general"),
        ("GET", "/tables", "http", "general"),
        ("GET", "/web/app.js", "http", "general"),
        ("GET", "/ws/tables/abc", "websocket", "general"),
        ("GET", "/health", "http", None),
    ],
)
def test_every_route_falls_in_one_class(
    method: str, path: str, kind: str, expected: str | None
) -> None:
    assert classify(_scope(method, path, kind)) == expected


def test_an_ipv6_caller_draws_on_its_networks_budget() -> None:
    assert client_key("203.0.113.9") == "203.0.113.9"
    assert client_key("2001:db8::1") == client_key("2001:db8::ffff:1:2") == "2001:db8::/64"
    assert client_key("2001:db8:0:1::1") != client_key("2001:db8::1")


def test_the_policy_names_the_hosts_sockets_and_ignores_a_strange_host() -> None:
    policy = content_security_policy(b"dew.example:8443").decode()
    assert "connect-src 'self' ws://dew.example:8443 wss://dew.example:8443;" in policy
    strange = content_security_policy(b"evil; script-src *").decode()
    assert "connect-src 'self';" in strange and "evil" not in strange
    assert content_security_policy(None).decode() == strange


def test_a_malformed_limit_is_refused_at_startup() -> None:
    with pytest.raises(ValidationError, match="DEW_HTTP_SIGNIN_PER_IP"):
        HttpSettings(signin_per_ip="lots")
    assert HttpSettings(signin_per_ip="5/second;100/hour").signin_per_ip == "5/second;100/hour"


def test_memory_counters_are_swept_once_a_second_not_after_every_hit() -> None:
    async def run() -> None:
        storage = SweptMemoryStorage()
        limiter = SlidingWindowCounterRateLimiter(storage)
        item = parse_many("5/second")[0]
        await limiter.hit(item, "first")
        sweep = storage.timer
        assert sweep is not None
        for n in range(2000):  # a burst from 2,000 wallets: no sweep over them per hit
            await limiter.hit(item, f"wallet-{n}")
            await asyncio.sleep(0)  # each request is its own task: a sweep could run here
        assert storage.timer is sweep
        counters = len(storage.storage)
        assert counters >= 2000
        # Once their windows are over, the sweeps free them (on a busy machine the burst may
        # span several seconds, so a first sweep may free only its early part).
        deadline = time.monotonic() + 10
        while len(storage.storage) >= 10 and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
            await limiter.hit(item, "later")
        assert len(storage.storage) < 10

    asyncio.run(run())
