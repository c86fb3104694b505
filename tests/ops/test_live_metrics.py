"""A real ``dew serve`` (two worker processes, multiprocess metrics, JSON logs) during a real
match over WebSockets: the counters move, label values stay bounded, the request id is
echoed and carried into the log, and no secret reaches any log line."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import Iterator

import httpx
import pytest
from eth_account import Account

from backend.protocol.client import DewClient
from tests.accounts.signing import sign, wallet_of
from tests.fixtures.harness import Player, api
from tests.fixtures.redis import REDIS_URL
from tests.ops.serve import DewServe, scrape

pytestmark = pytest.mark.timeout(300)

JWT_SECRET = "jwt-" + uuid.uuid4().hex + uuid.uuid4().hex
OPERATOR_KEY = "0x" + "7e" * 32


@pytest.fixture(scope="module")
def server(db_url: str) -> Iterator[DewServe]:
    env = {
        "DEW_SERVER_REDIS_URL": REDIS_URL,
        "DEW_SERVER_REDIS_CHANNEL_PREFIX": f"dewops{uuid.uuid4().hex[:8]}",
        "DEW_SERVER_BOT_MOVE_DELAY_S": "0",
        "DEW_SERVER_TURN_TIMEOUT_S": "60",
        "DEW_SERVER_WS_RATE_PER_S": "1000",
        "DEW_SERVER_WS_RATE_BURST": "1000",
        "DEW_AUTH_JWT_SECRET": JWT_SECRET,
        "DEW_CHAIN_OPERATOR_KEY": OPERATOR_KEY,
        "DEW_LOG_FORMAT": "json",
        "DEW_READY_REQUIRE_WORKER": "false",
    }
    proc = DewServe(db_url, workers=2, env=env).start(log_level="debug")
    try:
        yield proc
    finally:
        proc.stop()


def _value(samples: dict[str, float], key: str) -> float:
    return samples.get(key, 0.0)


def _play_one_match(server: DewServe) -> tuple[list[str], list[str]]:
    """Two signed-in wallets play a whole match against each other; returns their access
    and refresh tokens (to look for in the log)."""
    accounts = [Account.create() for _ in range(2)]
    access, refresh = [], []
    for account in accounts:
        with DewClient(server.url, timeout_s=10) as client:
            tokens = client.sign_in_tokens(wallet_of(account))
            access.append(tokens["access_token"])
            refresh.append(tokens["refresh_token"])
    with api(server.url, access[0]) as host:
        created = host.post("/tables", json={"preset": "dew200", "seats": 2})
        assert created.status_code == 201, created.text
        table_id = created.json()["id"]
    with api(server.url, access[1]) as guest:
        assert guest.post(f"/tables/{table_id}/join").status_code == 200

    async def play() -> None:
        players = [await Player(server.ws_url, table_id, t).connect() for t in access]
        await asyncio.gather(*(p.play_until_over() for p in players))
        for p in players:
            await p.close()

    asyncio.run(play())
    return access, refresh


def test_counters_move_during_a_real_match_and_no_secret_is_logged(server: DewServe) -> None:
    before = scrape(server.url)
    # A refused sign-in (a signature by another wallet), counted by its error code.
    with httpx.Client(base_url=server.url, timeout=10) as client:
        grant = client.post("/auth/nonce", json={"address": Account.create().address}).json()
        refused = client.post(
            "/auth/signin",
            json={
                "message": grant["message"],
                "signature": sign(Account.create(), grant["message"]),
            },
        )
        assert refused.status_code == 401
        reason = refused.json()["error"]["code"]
        # A hostile caller's paths and request ids never become label values or log keys.
        probe = "zz" + uuid.uuid4().hex
        assert (
            client.get(f"/{probe}", headers={"X-Request-ID": "bad id {" + probe + "}"}).status_code
            == 404
        )
        echoed = client.get("/health", headers={"X-Request-ID": "ops-test-42"})
        assert echoed.headers["x-request-id"] == "ops-test-42"
        generated = client.get("/health", headers={"X-Request-ID": "x" * 300})
        assert generated.headers["x-request-id"] != "x" * 300
    access, refresh = _play_one_match(server)

    after = scrape(server.url)
    signin = (
        'dew_http_request_duration_seconds_count{method="POST",route="/auth/signin",status="200"}'
    )
    assert _value(after, signin) - _value(before, signin) == 2
    assert _value(after, "dew_signins_total") - _value(before, "dew_signins_total") == 2
    refusal = f'dew_signin_refusals_total{{reason="{reason}"}}'
    assert _value(after, refusal) - _value(before, refusal) == 1
    moves = 'dew_moves_total{actor="player"}'
    assert _value(after, moves) - _value(before, moves) >= 8  # a whole two-seat match
    assert _value(after, "dew_move_latency_seconds_count") > _value(
        before, "dew_move_latency_seconds_count"
    )
    accepted = "dew_ws_accepted_total"
    assert _value(after, accepted) - _value(before, accepted) == 2
    table_route = (
        "dew_http_request_duration_seconds_count"
        '{method="POST",route="/tables/{table_id}/join",status="200"}'
    )
    assert _value(after, table_route) >= 1
    assert (
        'dew_http_request_duration_seconds_count{method="GET",route="unmatched",status="404"}'
        in after
    )
    assert not [k for k in after if probe in k], "a caller's path became a label value"
    # Scrape-time state gauges (read from the database).
    assert after["dew_state_scrape_ok"] == 1
    assert 'dew_chain_requests{state="queued"}' in after and "dew_live_matches" in after

    def logged() -> list[dict]:
        lines = server.log_path.read_text().splitlines()
        return [json.loads(line) for line in lines if line.startswith("{")]

    # Every line of the server is one JSON object (the banner before logging starts aside).
    raw = server.log_path.read_text()
    records = logged()
    assert len(records) >= 20
    assert any(r.get("request_id") == "ops-test-42" for r in records)
    assert not any(probe in str(r.get("request_id")) for r in records)
    websocket_lines = [r for r in records if "/ws/tables/" in str(r.get("event"))]
    assert websocket_lines, "the sockets' lines (with ?token=) are in the log, redacted"
    for secret in [JWT_SECRET, OPERATOR_KEY, OPERATOR_KEY[2:], *access, *refresh]:
        assert secret not in raw, f"a secret ({secret[:12]}...) is in the log"


def test_metrics_are_refused_to_other_callers(db_url: str) -> None:
    # Loopback is not allowed here: only the bearer token opens /metrics.
    token = uuid.uuid4().hex
    env = {
        "DEW_METRICS_ALLOW_FROM": '["10.255.255.0/24"]',
        "DEW_METRICS_TOKEN": token,
        "DEW_READY_REQUIRE_WORKER": "false",
    }
    with DewServe(db_url, env=env) as server:
        assert httpx.get(server.url + "/metrics").status_code == 404
        # The last character changed (never to itself: a uuid's hex may end in "0").
        wrong = {"Authorization": "Bearer " + token[:-1] + ("1" if token.endswith("0") else "0")}
        assert httpx.get(server.url + "/metrics", headers=wrong).status_code == 404
        # A caller behind a proxy forges an allowed address: the proxy appends the real one
        # and the server believes only the address its trusted proxy (loopback) added.
        forged = {"X-Forwarded-For": "10.255.255.7, 203.0.113.9", "X-Real-IP": "10.255.255.7"}
        assert httpx.get(server.url + "/metrics", headers=forged).status_code == 404
        samples = scrape(server.url, {"Authorization": f"Bearer {token}"})
        assert "dew_state_scrape_ok" in samples
        # /ready answers everyone, but only operators see the checks' details.
        anonymous = httpx.get(server.url + "/ready").json()
        assert anonymous == {"status": "ready", "failed": []}
        detailed = httpx.get(server.url + "/ready", headers={"Authorization": f"Bearer {token}"})
        assert detailed.json()["checks"]["database"]["ok"] is True
