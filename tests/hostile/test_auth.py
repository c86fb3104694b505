"""Hostile callers of authentication: forged and overlong tokens, tokens in the logs, sign-in
messages outside the bounds, and the SQLite write lock held across chain reads.

Issue 17, findings 2, 6, 7 and 17; each test runs against a real server process.
"""

from __future__ import annotations

import json
import os
import stat
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import jwt
import pytest
from eth_account import Account
from websockets.sync.client import connect

from backend.accounts import siwe_message
from backend.protocol.client import DewClient
from tests.accounts.signing import sign, wallet_of
from tests.fixtures.harness import ServerProcess, api, free_port, sign_in, wait_for
from tests.hostile.conftest import StartServer

pytestmark = pytest.mark.timeout(300)

# The development secret that backend/config.py published as its default until issue 17.
PUBLISHED_SECRET = "dev-only-secret-change-me-outside-development"
SECP256K1_N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141


def _claims(token: str) -> dict[str, Any]:
    return jwt.decode(token, options={"verify_signature": False})


def _forge(secret: str, **claims: Any) -> str:
    return jwt.encode(claims, secret, algorithm="HS256")


def _me(base_url: str, token: str) -> httpx.Response:
    with api(base_url, token) as client:
        return client.get("/auth/me")


def _refused(response: httpx.Response, status: int, *codes: str) -> None:
    assert response.status_code == status, response.text
    assert response.json()["error"]["code"] in codes, response.text


# -- finding 6: the secret, sessions, subjects and lifetimes -----------------------------------


def test_a_token_forged_with_the_published_secret_is_refused(start_server: StartServer) -> None:
    """The embedded stack on defaults (no secret configured): a token signed with the old
    published development secret, naming a real session, cannot act as another wallet."""
    server = start_server()
    _, token = sign_in(server.url)
    assert _me(server.url, token).status_code == 200
    victim = Account.create().address
    now = int(time.time())
    forged = _forge(
        PUBLISHED_SECRET,
        sub=victim,
        sid=_claims(token)["sid"],
        typ="access",
        iat=now,
        exp=now + 600,
    )
    _refused(_me(server.url, forged), 401, "token_invalid")
    with api(server.url, forged) as client:
        _refused(client.post("/tables", json={"preset": "dew200"}), 401, "token_invalid")
        lobby = client.get("/tables").json()
    assert all(t["creator"] != victim for t in lobby)


def test_tokens_need_a_live_session_a_wallet_subject_and_a_bounded_life(
    start_server: StartServer,
) -> None:
    """Even with the server's own secret, a token is refused unless its session exists and
    is its subject's, its subject is an EIP-55 address, it is not issued in the future, and
    it claims no longer life than access_token_ttl_s (900 s)."""
    secret = os.urandom(32).hex()
    server = start_server(extra_env={"DEW_AUTH_JWT_SECRET": secret})
    _, token = sign_in(server.url)
    _, other_token = sign_in(server.url)
    genuine = _claims(token)
    now = int(time.time())
    base = {"typ": "access", "iat": now, "exp": now + 600}
    assert _me(server.url, _forge(secret, **{**genuine, **base})).status_code == 200

    script = "<script>alert(1)</script>"
    forged = {
        "session never opened": {**genuine, **base, "sid": os.urandom(16).hex()},
        # Another wallet's real session, with this wallet as subject.
        "borrowed session": {**genuine, **base, "sid": _claims(other_token)["sid"]},
        "script as subject": {**genuine, **base, "sub": script},
        "lowercase subject": {**genuine, **base, "sub": genuine["sub"].lower()},
        "ten-year life": {**genuine, **base, "exp": now + 10 * 365 * 86400},
        "issued in an hour": {**genuine, **base, "iat": now + 3600, "exp": now + 4200},
        "no iat": {k: v for k, v in {**genuine, **base}.items() if k != "iat"},
    }
    answers = {}
    for name, claims in forged.items():
        response = _me(server.url, _forge(secret, **claims))
        answers[name] = (response.status_code, response.json().get("error", {}).get("code"))
    assert answers == {
        "session never opened": (401, "session_unknown"),
        "borrowed session": (401, "session_unknown"),
        "script as subject": (401, "token_invalid"),
        "lowercase subject": (401, "token_invalid"),
        "ten-year life": (401, "token_invalid"),
        "issued in an hour": (401, "token_invalid"),
        "no iat": (401, "token_invalid"),
    }
    not_a_wallet = _forge(secret, **forged["script as subject"])
    with api(server.url, not_a_wallet) as client:
        _refused(client.post("/tables", json={"preset": "dew200"}), 401, "token_invalid")
        lobby = client.get("/tables").json()
    assert all(script not in json.dumps(t) for t in lobby)
    # Logged out: the same genuine token stops working.
    with api(server.url, token) as client:
        assert client.post("/auth/logout").status_code == 204
    _refused(_me(server.url, token), 401, "session_revoked")


def test_an_embedded_run_makes_its_own_secret_and_its_processes_share_it(
    start_server: StartServer, tmp_path: Path
) -> None:
    """No secret configured: the first process makes a random one (mode 0600) at
    DEW_AUTH_JWT_SECRET_FILE, and a second server process on the same run accepts the
    first one's tokens."""
    secret_file = tmp_path / "run" / "jwt-secret"
    env = {"DEW_AUTH_JWT_SECRET_FILE": str(secret_file)}
    first = start_server(extra_env=env)
    second = start_server(extra_env=env)
    assert secret_file.exists(), "no secret was generated for this run"
    assert stat.S_IMODE(secret_file.stat().st_mode) == 0o600
    secret = secret_file.read_text().strip()
    assert len(secret) >= 32 and secret != PUBLISHED_SECRET
    _, token = sign_in(first.url)
    assert jwt.decode(token, secret, algorithms=["HS256"])["typ"] == "access"
    assert _me(second.url, token).status_code == 200
    now = int(time.time())
    forged = _forge(PUBLISHED_SECRET, **{**_claims(token), "iat": now, "exp": now + 600})
    _refused(_me(second.url, forged), 401, "token_invalid")


# -- finding 7: tokens in the logs -------------------------------------------------------------


class InfoLogServer(ServerProcess):
    """A server at the default (info) log level, started as ``dew serve`` or as uvicorn's
    factory, with everything it logs in ``log_path``."""

    def __init__(self, db_url: str, launcher: str) -> None:
        super().__init__(db_url)
        self.launcher = launcher

    def command(self) -> list[str]:
        if self.launcher == "dew serve":
            dew = str(Path(sys.executable).parent / "dew")
            command = [dew, "serve", "--no-migrate", "--port", str(self.port)]
            return [*command, "--host", "127.0.0.1", "--log-level", "info"]
        return [*super().command()[:-1], "info"]


@pytest.mark.parametrize("launcher", ["dew serve", "uvicorn factory"])
def test_tokens_stay_out_of_the_server_log(db_url: str, launcher: str) -> None:
    server = InfoLogServer(db_url, launcher).start()
    try:
        account = Account.create()
        with DewClient(server.url, timeout_s=10) as client:
            signed = client.sign_in_tokens(wallet_of(account))
        token, refresh = signed["access_token"], signed["refresh_token"]
        with api(server.url, token) as client:
            assert client.get("/auth/me").status_code == 200
            table = client.post("/tables", json={"preset": "dew200"}).json()
            # Clients that put the token in a query string (HTTP) are logged too.
            assert client.get(f"/tables/{table['id']}", params={"token": token}).status_code == 200
        with connect(f"{server.ws_url}/ws/tables/{table['id']}?token={token}") as ws:
            assert json.loads(ws.recv(timeout=10))["type"] == "snapshot"
        with connect(f"{server.ws_url}/ws/tables/no-such-table?token={token}") as ws:
            assert json.loads(ws.recv(timeout=10))["type"] == "error"
        tampered = token[:-4] + ("AAAA" if not token.endswith("AAAA") else "BBBB")
        with connect(f"{server.ws_url}/ws/tables/{table['id']}?token={tampered}") as ws:
            assert json.loads(ws.recv(timeout=10))["error"]["code"] == "token_invalid"
        with api(server.url, tampered) as client:
            assert client.get("/auth/me").status_code == 401
    finally:
        server.stop()
    log = server.log_path.read_text()
    # The access log is on and saw the socket's path: the test reads the right file.
    assert f"/ws/tables/{table['id']}" in log, log[-2000:]
    signature = token.rsplit(".", 1)[1]
    for secret in (token, signature, tampered, tampered.rsplit(".", 1)[1], refresh):
        assert secret not in log, f"a credential is in the server log:\n{log[-3000:]}"
    assert "token=[redacted]" in log


# -- finding 17: sign-in messages --------------------------------------------------------------


def _nonce(client: httpx.Client, address: str) -> dict[str, Any]:
    grant = client.post("/auth/nonce", json={"address": address})
    assert grant.status_code == 200, grant.text
    return grant.json()


def _message(grant: dict[str, Any], address: str, **fields: Any) -> str:
    now = datetime.now(UTC)
    values: dict[str, Any] = {
        "domain": grant["domain"],
        "address": address,
        "statement": grant["statement"],
        "uri": grant["uri"],
        "chain_id": grant["chain_id"],
        "nonce": grant["nonce"],
        "issued_at": now,
        "expiration_time": now + timedelta(seconds=300),
    }
    values.update(fields)
    return siwe_message.compose_message(**values)


def _high_s(signature: str) -> str:
    raw = bytes.fromhex(signature.removeprefix("0x"))
    r, s, v = raw[:32], int.from_bytes(raw[32:64], "big"), raw[64]
    flipped = bytes((55 - v,)) if v in (27, 28) else bytes((1 - v,))
    return "0x" + (r + (SECP256K1_N - s).to_bytes(32, "big") + flipped).hex()


def test_sign_in_messages_outside_the_bounds_are_refused(start_server: StartServer) -> None:
    server = start_server()
    account = Account.create()
    address = account.address
    with httpx.Client(base_url=server.url, timeout=10) as client:

        def attempt(build: Any, signature: Any = None) -> tuple[int, str | None]:
            """One sign-in with a fresh nonce: the message ``build(grant)`` makes."""
            message = build(_nonce(client, address))
            signed = sign(account, message)
            body = {"message": message, "signature": signature(signed) if signature else signed}
            response = client.post("/auth/signin", json=body)
            return response.status_code, response.json().get("error", {}).get("code")

        other_scheme = "http" if server.url.startswith("https") else "https"
        answers = {
            "scheme of another origin": attempt(
                lambda g: _message(g, address, domain=f"{other_scheme}://{g['domain']}")
            ),
            "issued in 1970": attempt(
                lambda g: _message(g, address, issued_at=datetime(1970, 1, 1, tzinfo=UTC))
            ),
            "expiring in 9999": attempt(
                lambda g: _message(g, address, expiration_time=datetime(9999, 12, 31, tzinfo=UTC))
            ),
            # The high-s twin of the wallet's own signature: same key, same message.
            "high-s signature": attempt(lambda g: _message(g, address), _high_s),
        }
        assert answers == {
            "scheme of another origin": (401, "signin_wrong_scheme"),
            "issued in 1970": (401, "signin_expired"),
            "expiring in 9999": (401, "signin_validity_too_long"),
            "high-s signature": (401, "signin_bad_signature"),
        }
        # A refusal leaves the nonce unused: the canonical signature then signs in with it.
        grant = _nonce(client, address)
        good = _message(grant, address)
        signature = sign(account, good)
        refused = client.post(
            "/auth/signin", json={"message": good, "signature": _high_s(signature)}
        )
        assert refused.status_code == 401, refused.text
        accepted = client.post("/auth/signin", json={"message": good, "signature": signature})
        assert accepted.status_code == 200, accepted.text
        assert accepted.json()["address"] == address


# -- finding 2: the SQLite write lock and slow chain reads -------------------------------------


class SlowChain:
    """A JSON-RPC proxy in front of anvil that can hold the gate's reads (eth_call and
    block reads) until released: a node that is slow to answer."""

    HELD = ("eth_call", "eth_getBlockByNumber")

    def __init__(self, upstream: str) -> None:
        self.upstream = upstream
        self.released = threading.Event()
        self.released.set()
        self.held = 0
        self._count = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                method = json.loads(body).get("method")
                if method in proxy.HELD and not proxy.released.is_set():
                    with proxy._count:
                        proxy.held += 1
                    proxy.released.wait(120)
                request = urllib.request.Request(
                    proxy.upstream, body, {"Content-Type": "application/json"}
                )
                with urllib.request.urlopen(request, timeout=30) as answer:
                    payload = answer.read()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *_args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> SlowChain:
        self.thread.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self.released.set()
        self.server.shutdown()
        self.server.server_close()


def _issue_vip(deployment: Any, holder: str) -> None:
    w3 = deployment.w3
    operator = Account.from_key(deployment.operator_key)
    until = int(w3.eth.get_block("latest")["timestamp"]) + 10**6
    tx = deployment.contracts.vip.functions.issue(holder, until).build_transaction(
        {
            "from": operator.address,
            "nonce": w3.eth.get_transaction_count(operator.address, "pending"),
            "chainId": w3.eth.chain_id,
        }
    )
    tx_hash = w3.eth.send_raw_transaction(operator.sign_transaction(tx).raw_transaction)
    assert w3.eth.wait_for_transaction_receipt(tx_hash, timeout=30)["status"] == 1


@pytest.fixture
def slow_chain(deployment: Any) -> Iterator[SlowChain]:
    with SlowChain(deployment.anvil.rpc_url) as proxy:
        yield proxy


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_requests_go_on_while_the_chain_gate_is_slow_on_sqlite(
    start_server: StartServer, deployment: Any, slow_chain: SlowChain
) -> None:
    """Five earning-table creations wait on a slow node (held for up to 40 s, longer than
    SQLite's 30 s busy timeout). Meanwhile other wallets' authenticated reads and a free
    table's creation are answered at once, and when the node answers all five tables are
    made: no request waits for the write lock behind a chain read, none fails with 500."""
    server = start_server(
        gate_poll_s=60,
        extra_env={
            "DEW_CHAIN_RPC_URL": slow_chain.url,
            "DEW_CHAIN_MANIFEST_PATH": str(deployment.manifest_path),
        },
    )
    creators = [Account.create() for _ in range(5)]
    for creator in creators:
        _issue_vip(deployment, creator.address)
    creator_tokens = [sign_in(server.url, creator)[1] for creator in creators]
    reader_tokens = [sign_in(server.url)[1] for _ in range(3)]

    def create_earning(token: str) -> int:
        with httpx.Client(base_url=server.url, timeout=60) as client:
            return client.post(
                "/tables",
                json={"preset": "dew200", "earning": True},
                headers={"Authorization": f"Bearer {token}"},
            ).status_code

    def read(kind: str, token: str) -> tuple[str, int, bool]:
        with httpx.Client(base_url=server.url, timeout=60) as client:
            headers = {"Authorization": f"Bearer {token}"}
            if kind == "me":
                status = client.get("/auth/me", headers=headers).status_code
            elif kind == "lobby":
                status = client.get("/tables", headers=headers).status_code
            else:
                status = client.post(
                    "/tables", json={"preset": "dew200"}, headers=headers
                ).status_code
        return kind, status, not slow_chain.released.is_set()

    slow_chain.released.clear()
    with ThreadPoolExecutor(max_workers=10) as pool:
        creations = [pool.submit(create_earning, token) for token in creator_tokens]
        wait_for(lambda: slow_chain.held >= 1, timeout=30, what="a gate read held by the node")
        reads = [pool.submit(read, "me", token) for token in reader_tokens]
        reads.append(pool.submit(read, "lobby", reader_tokens[0]))
        reads.append(pool.submit(read, "free table", reader_tokens[1]))
        deadline = time.monotonic() + 40
        while time.monotonic() < deadline and not all(r.done() for r in reads):
            time.sleep(0.05)
        slow_chain.released.set()
        answered = [r.result() for r in reads]
        created = [c.result() for c in creations]
    assert all(status < 500 for _, status, _ in answered), answered
    assert all(status in (200, 201) for _, status, _ in answered), answered
    # Answered while the node still held the gate's reads: nobody waited behind them.
    assert all(during for _, _, during in answered), answered
    assert created == [201] * 5, created
    with api(server.url, reader_tokens[0]) as client:
        lobby = client.get("/tables").json()
    made = {t["creator"] for t in lobby if t["earning"]}
    assert made == {creator.address for creator in creators}
