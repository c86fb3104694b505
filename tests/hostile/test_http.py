"""The HTTP edge against floods, huge bodies and framing (issue 17, findings 8-10).

Every server here runs the production settings of ``HttpSettings`` (rate limits on, 64 KiB
bodies, security headers): what a ``dew serve`` reached directly by a script would answer.
Callers come from distinct loopback addresses (127.0.0.x), as distinct clients do.
"""

from __future__ import annotations

import re
import select
import socket
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
from eth_account import Account

from backend.config import HttpSettings
from backend.protocol.client import DewClient
from tests.accounts.signing import sign, wallet_of
from tests.fixtures.harness import ServerProcess, sign_in, wait_for
from tests.fixtures.redis import REDIS_URL
from tests.hostile.conftest import StartServer

WEB_DIR = Path(__file__).resolve().parents[2] / "backend" / "web"
SIGNIN_PER_MINUTE = 60  # HttpSettings.signin_per_ip: "60/minute;600/hour"
CREATE_PER_MINUTE = 12  # HttpSettings.create_per_wallet: "12/minute;120/hour"


def client_from(server: ServerProcess, address: str, token: str | None = None) -> httpx.Client:
    """An HTTP client whose connections leave from ``address`` (a distinct caller)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.Client(
        base_url=server.url,
        headers=headers,
        timeout=20,
        transport=httpx.HTTPTransport(local_address=address),
    )


def flood_within_one_minute(margin_s: float = 20.0) -> None:
    """Start a flood with at least ``margin_s`` of the wall-clock minute left. The limits are
    sliding-window counters: a minute's hits carry over into the next at a weight that falls
    as the new minute goes on, so a flood that straddles two minutes may be served a request
    or two more than the budget. Each flood here takes a few seconds."""
    wait_for(
        lambda: 60 - time.time() % 60 > margin_s,
        timeout=margin_s + 5,
        what="enough of the minute left for a flood",
    )


def assert_rate_limited(response: httpx.Response) -> None:
    assert response.status_code == 429, response.text
    retry_after = int(response.headers["retry-after"])
    assert 1 <= retry_after <= 3600
    error = response.json()["error"]
    assert error["code"] == "rate_limited"
    assert "retry in" in error["message"]
    assert error["detail"]["retry_after_s"] == retry_after


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def test_the_production_defaults_are_the_ones_tested() -> None:
    http = HttpSettings()
    assert http.rate_limits and http.security_headers
    assert http.signin_per_ip.startswith(f"{SIGNIN_PER_MINUTE}/minute")
    assert http.create_per_wallet.startswith(f"{CREATE_PER_MINUTE}/minute")
    assert http.max_body_bytes == 64 * 1024


def test_a_nonce_burst_is_cut_at_the_limit_and_the_nonces_given_still_sign_in(
    start_server: StartServer,
) -> None:
    server = start_server()
    account = Account.create()
    flood_within_one_minute()
    with client_from(server, "127.0.0.2") as flooder:
        answers = [
            flooder.post("/auth/nonce", json={"address": account.address}) for _ in range(300)
        ]
    statuses = [a.status_code for a in answers]
    # The budget is served in full, then every further nonce is refused.
    assert statuses[:SIGNIN_PER_MINUTE] == [200] * SIGNIN_PER_MINUTE
    assert statuses[SIGNIN_PER_MINUTE:] == [429] * (300 - SIGNIN_PER_MINUTE)
    assert_rate_limited(answers[-1])
    # A nonce handed out before the limit still signs in (from another address: this one's
    # sign-in budget is spent too), and another caller was never affected.
    message = answers[0].json()["message"]
    with client_from(server, "127.0.0.3") as other:
        signed = other.post(
            "/auth/signin", json={"message": message, "signature": sign(account, message)}
        )
        assert signed.status_code == 200, signed.text
        assert signed.json()["address"] == account.address
    with client_from(server, "127.0.0.2") as flooder:
        assert_rate_limited(
            flooder.post("/auth/signin", json={"message": message, "signature": "0x00"})
        )


def test_a_flood_of_bad_sign_ins_is_refused_with_429(start_server: StartServer) -> None:
    server = start_server()
    account = Account.create()
    flood_within_one_minute()
    with client_from(server, "127.0.0.4") as client:
        grant = client.post("/auth/nonce", json={"address": account.address}).json()
        wrong = sign(Account.create(), grant["message"])  # signed by someone else
        answers = [
            client.post("/auth/signin", json={"message": grant["message"], "signature": wrong})
            for _ in range(200)
        ]
    statuses = [a.status_code for a in answers]
    refused_by_check = SIGNIN_PER_MINUTE - 1  # the nonce took one of the budget
    assert statuses[:refused_by_check] == [401] * refused_by_check
    assert statuses[refused_by_check:] == [429] * (200 - refused_by_check)
    assert_rate_limited(answers[-1])
    # Nobody was signed in by the flood; an honest caller elsewhere signs in as usual.
    with DewClient(server.url, http=client_from(server, "127.0.0.5")) as honest:
        signed = honest.sign_in_tokens(wallet_of(account))
        assert signed["address"] == account.address and signed["access_token"]


def test_table_creation_is_limited_per_wallet_whatever_its_address(
    start_server: StartServer,
) -> None:
    server = start_server()
    _, token = sign_in(server.url)
    _, other_token = sign_in(server.url)
    bad_table = {"preset": "no-such-preset"}  # refused by the service: creates nothing
    flood_within_one_minute()
    with client_from(server, "127.0.0.6", token) as wallet:
        answers = [wallet.post("/tables", json=bad_table) for _ in range(CREATE_PER_MINUTE + 3)]
    statuses = [a.status_code for a in answers]
    assert 429 not in statuses[:CREATE_PER_MINUTE], statuses
    assert statuses[CREATE_PER_MINUTE:] == [429] * 3
    assert_rate_limited(answers[-1])
    assert answers[-1].json()["error"]["detail"]["per"] == "wallet"
    # The same wallet from a new address is still refused; another wallet from the first
    # address is not.
    with client_from(server, "127.0.0.7", token) as moved:
        assert_rate_limited(moved.post("/tables", json=bad_table))
    with client_from(server, "127.0.0.6", other_token) as neighbour:
        assert neighbour.post("/tables", json=bad_table).status_code != 429


def test_processes_sharing_redis_share_one_budget(start_server: StartServer) -> None:
    prefix = f"dewtest-limits-{uuid.uuid4().hex[:10]}"
    shared = {"DEW_HTTP_RATE_LIMIT_KEY_PREFIX": prefix}
    first = start_server(redis_url=REDIS_URL, channel_prefix=prefix, extra_env=shared)
    second = start_server(redis_url=REDIS_URL, channel_prefix=prefix, extra_env=shared)
    half = SIGNIN_PER_MINUTE // 2 + 10
    flood_within_one_minute()
    with client_from(first, "127.0.0.8") as a, client_from(second, "127.0.0.8") as b:
        on_first = [a.post("/auth/nonce").status_code for _ in range(half)]
        on_second = [b.post("/auth/nonce").status_code for _ in range(half)]
    assert on_first == [200] * half
    # The second process had served no one from this address, yet only the rest is left.
    left = SIGNIN_PER_MINUTE - half
    assert on_second == [200] * left + [429] * (half - left)


def _http_head(sock: socket.socket, deadline: float) -> bytes:
    """An answer's head, and its body when it has a Content-Length (read until EOF at most)."""
    data = b""

    def complete() -> bool:
        head, sep, body = data.partition(b"\r\n\r\n")
        if not sep:
            return False
        length = re.search(rb"(?im)^content-length:\s*(\d+)", head)
        return length is None or len(body) >= int(length.group(1))

    while not complete():
        if time.monotonic() > deadline:
            raise TimeoutError(f"no answer from the server: {data!r}")
        readable, _, _ = select.select([sock], [], [], 0.5)
        if readable:
            chunk = sock.recv(65536)
            if not chunk:
                break
            data += chunk
    return data


def test_a_200_mb_body_is_refused_by_its_length_before_it_is_read(
    start_server: StartServer,
) -> None:
    server = start_server()
    assert server.proc is not None
    before = rss_mb(server.proc.pid)
    size = 200 * 1024 * 1024
    with socket.create_connection(("127.0.0.1", server.port), timeout=20) as sock:
        sock.sendall(
            b"POST /auth/nonce HTTP/1.1\r\nHost: dew\r\nContent-Type: application/json\r\n"
            + b"Content-Length: %d\r\n\r\n" % size
            + b"{" * 65536
        )
        head = _http_head(sock, time.monotonic() + 20)
    assert head.startswith(b"HTTP/1.1 413"), head[:300]
    assert b"connection: close" in head.lower()
    assert b'"code":"too_large"' in head.split(b"\r\n\r\n", 1)[1], head
    assert rss_mb(server.proc.pid) - before < 32


def test_a_streamed_chunked_body_is_cut_off_past_the_limit(start_server: StartServer) -> None:
    server = start_server()
    assert server.proc is not None
    before = rss_mb(server.proc.pid)
    chunk = b"%x\r\n" % (1024 * 1024) + b" " * (1024 * 1024) + b"\r\n"
    sent = 0
    head = b""
    with socket.create_connection(("127.0.0.1", server.port), timeout=20) as sock:
        sock.sendall(
            b"POST /auth/nonce HTTP/1.1\r\nHost: dew\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n"
        )
        deadline = time.monotonic() + 60
        # Up to 200 MB, until the server answers (a server without a limit reads it all).
        while sent < 200 * 1024 * 1024 and time.monotonic() < deadline:
            readable, writable, _ = select.select([sock], [sock], [], 1.0)
            if readable:
                break
            if writable:
                try:
                    sock.sendall(chunk)
                except (BrokenPipeError, ConnectionResetError):
                    break
                sent += 1024 * 1024
        else:
            sock.sendall(b"0\r\n\r\n")
        try:
            head = _http_head(sock, time.monotonic() + 20)
        except ConnectionResetError:
            head = b"(reset)"
    assert head.startswith(b"HTTP/1.1 413"), (sent, head[:300])
    # Refused after the first few chunks, not after reading the stream.
    assert sent <= 16 * 1024 * 1024, sent
    assert rss_mb(server.proc.pid) - before < 32


def test_the_web_client_is_served_with_a_strict_policy_and_no_framing(
    start_server: StartServer,
) -> None:
    server = start_server()
    scripts = sorted(p.name for p in WEB_DIR.glob("*.js"))
    assert "app.js" in scripts and "wallet.js" in scripts
    with client_from(server, "127.0.0.9") as client:
        pages: dict[str, Any] = {"/": client.get("/")}
        for name in scripts:
            pages[f"/web/{name}"] = client.get(f"/web/{name}")
        pages["/web/style.css"] = client.get("/web/style.css")
        pages["/tables"] = client.get("/tables")
    for path, response in pages.items():
        assert response.status_code == 200, path
        headers = response.headers
        assert headers["x-content-type-options"] == "nosniff", path
        assert headers["x-frame-options"] == "DENY", path
        assert headers["referrer-policy"] == "no-referrer", path
        directives = (
            p.strip().partition(" ") for p in headers["content-security-policy"].split(";")
        )
        policy = {name: value for name, _, value in directives}
        assert policy["default-src"] == "'none'", path
        assert policy["script-src"] == "'self'", path
        assert policy["style-src"] == "'self'", path
        assert policy["frame-ancestors"] == "'none'", path
        assert policy["base-uri"] == "'none'", path
        host = f"127.0.0.1:{server.port}"
        assert policy["connect-src"] == f"'self' ws://{host} wss://{host}", path
        assert "unsafe" not in headers["content-security-policy"], path
    # The policy fits the page: no inline script or style, every resource same-origin.
    html = pages["/"].text
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html)
    assert "<style" not in html and " style=" not in html
    assert not re.search(r"""(?:src|href)=["'](?:https?:)?//""", html)


def test_websocket_handshakes_draw_on_the_address_budget(start_server: StartServer) -> None:
    # A small budget by setting, so that a handful of sockets is a flood.
    server = start_server(extra_env={"DEW_HTTP_GENERAL_PER_IP": "5/minute"})
    statuses = []
    flood_within_one_minute()
    for _ in range(8):
        with socket.create_connection(("127.0.0.1", server.port), timeout=20) as sock:
            sock.sendall(
                b"GET /ws/tables/no-such-table HTTP/1.1\r\nHost: dew\r\nUpgrade: websocket\r\n"
                b"Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                b"Sec-WebSocket-Version: 13\r\n\r\n"
            )
            head = _http_head(sock, time.monotonic() + 20)
            statuses.append(int(head[9:12]))
    # Five upgrades (to an unknown table: the socket then closes with 4404), then 429s.
    assert statuses == [101] * 5 + [429] * 3, statuses
    with client_from(server, "127.0.0.10") as other:
        assert other.get("/tables").status_code == 200
