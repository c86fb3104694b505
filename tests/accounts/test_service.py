"""Sign-in with real eth-account signatures: the happy path and every refusal."""

from __future__ import annotations

import secrets
import select as select_module
import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import jwt
import psycopg
import pytest
from eth_account import Account
from fastapi.testclient import TestClient
from sqlalchemy import delete, func, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session

from backend.accounts import exceptions as accounts_exc
from backend.accounts import service as accounts
from backend.accounts.models import AuthSession, RefreshToken
from backend.api.app import create_app
from backend.config import AuthSettings, ChainSettings, DatabaseSettings, ServerSettings, Settings
from backend.db import create_db_engine
from tests.accounts.signing import compose, sign, sign_in


@pytest.fixture(scope="module")
def app(db_url: str):  # type: ignore[no-untyped-def]
    settings = Settings(
        db=DatabaseSettings(url=db_url),
        auth=AuthSettings(),
        chain=ChainSettings(),
        server=ServerSettings(),
    )
    return create_app(settings)


@pytest.fixture
def client(app) -> Iterator[TestClient]:  # type: ignore[no-untyped-def]
    with TestClient(app) as test_client:
        yield test_client


def _nonce(client: TestClient) -> str:
    return client.post("/auth/nonce").json()["nonce"]


def _count(app, model) -> int:  # type: ignore[no-untyped-def]
    with app.state.session_factory() as session:
        return session.scalar(select(func.count()).select_from(model))


def _refused(response, status: int, code: str) -> None:  # type: ignore[no-untyped-def]
    assert response.status_code == status, response.text
    body = response.json()
    assert body["error"]["code"] == code
    assert body["error"]["message"]


def test_signin_returns_tokens_that_identify_the_wallet(client: TestClient) -> None:
    account = Account.create()
    tokens = sign_in(client, account)
    assert tokens["address"] == account.address
    me = client.get("/auth/me", headers={"Authorization": f"Bearer {tokens['access_token']}"})
    assert me.status_code == 200
    assert me.json()["address"] == account.address


def test_nonce_message_states_domain_uri_chain_nonce_and_times(client: TestClient) -> None:
    account = Account.create()
    grant = client.post("/auth/nonce", json={"address": account.address}).json()
    message = grant["message"]
    assert message.startswith("localhost:8000 wants you to sign in")
    for line in (
        "URI: http://localhost:8000",
        "Chain ID: 31337",
        f"Nonce: {grant['nonce']}",
        "Issued At: ",
        "Expiration Time: ",
    ):
        assert line in message


def test_replayed_signin_is_refused(client: TestClient) -> None:
    account = Account.create()
    message = compose(account.address, _nonce(client))
    body = {"message": message, "signature": sign(account, message)}
    assert client.post("/auth/signin", json=body).status_code == 200
    sessions = _count(client.app, AuthSession)
    _refused(client.post("/auth/signin", json=body), 401, "signin_nonce_replayed")
    assert _count(client.app, AuthSession) == sessions


@pytest.mark.parametrize(
    ("overrides", "code"),
    [
        ({"domain": "evil.example"}, "signin_wrong_domain"),
        ({"uri": "http://evil.example"}, "signin_wrong_uri"),
        ({"chain_id": 1}, "signin_wrong_chain"),
        (
            {
                "issued_at": datetime.now(UTC) - timedelta(hours=1),
                "expires_in": timedelta(minutes=5),
            },
            "signin_expired",
        ),
        ({"issued_at": datetime.now(UTC) + timedelta(hours=1)}, "signin_not_yet_valid"),
        ({"expires_in": None}, "signin_malformed"),
    ],
)
def test_refused_signin_changes_nothing_and_keeps_the_nonce(
    client: TestClient, overrides: dict, code: str
) -> None:
    account = Account.create()
    nonce = _nonce(client)
    message = compose(account.address, nonce, **overrides)
    sessions = _count(client.app, AuthSession)
    response = client.post(
        "/auth/signin", json={"message": message, "signature": sign(account, message)}
    )
    _refused(response, 400 if code == "signin_malformed" else 401, code)
    assert _count(client.app, AuthSession) == sessions
    # The nonce was not burned by the refused attempt: a correct message still signs in.
    good = compose(account.address, nonce)
    ok = client.post("/auth/signin", json={"message": good, "signature": sign(account, good)})
    assert ok.status_code == 200, ok.text


def test_signature_by_another_key_is_refused(client: TestClient) -> None:
    account, thief = Account.create(), Account.create()
    message = compose(account.address, _nonce(client))
    response = client.post(
        "/auth/signin", json={"message": message, "signature": sign(thief, message)}
    )
    _refused(response, 401, "signin_bad_signature")


@pytest.mark.parametrize("signature", ["0x", "0x1234", "not hex at all", "0x" + "00" * 65])
def test_garbage_signature_is_refused(client: TestClient, signature: str) -> None:
    account = Account.create()
    message = compose(account.address, _nonce(client))
    response = client.post("/auth/signin", json={"message": message, "signature": signature})
    _refused(response, 401, "signin_bad_signature")


@pytest.mark.parametrize(
    "message",
    ["", "hello", "localhost:8000 wants you to sign in with your Ethereum account:\n0xnope\n"],
)
def test_malformed_message_is_refused(client: TestClient, message: str) -> None:
    response = client.post("/auth/signin", json={"message": message, "signature": "0x00"})
    _refused(response, 400, "signin_malformed")


def test_missing_fields_get_the_same_error_shape(client: TestClient) -> None:
    _refused(client.post("/auth/signin", json={"message": "x"}), 422, "invalid_request")


@pytest.mark.parametrize("forge", ["neverissued123", "tamper-expiry"])
def test_unknown_or_forged_nonce_is_refused(client: TestClient, forge: str) -> None:
    account = Account.create()
    nonce = forge
    if forge == "tamper-expiry":
        # Push the expiry of a real nonce a day out: the MAC no longer matches.
        real = _nonce(client)
        later = int(real[16:24], 16) + 86400
        nonce = real[:16] + f"{later:08x}" + real[24:]
    message = compose(account.address, nonce)
    response = client.post(
        "/auth/signin", json={"message": message, "signature": sign(account, message)}
    )
    _refused(response, 401, "signin_unknown_nonce")


def test_expired_nonce_is_refused(client: TestClient) -> None:
    account = Account.create()
    settings = client.app.state.settings
    stale = accounts.issue_nonce(
        settings=settings,
        now=datetime.now(UTC) - timedelta(seconds=settings.auth.nonce_ttl_s + 1),
    )
    message = compose(account.address, stale.nonce)
    response = client.post(
        "/auth/signin", json={"message": message, "signature": sign(account, message)}
    )
    _refused(response, 401, "signin_nonce_expired")


def test_refresh_rotates_and_reuse_revokes_the_session(client: TestClient) -> None:
    tokens = sign_in(client)
    rotated = client.post("/auth/refresh", json={"refresh_token": tokens["refresh_token"]})
    assert rotated.status_code == 200, rotated.text
    new = rotated.json()
    assert new["refresh_token"] != tokens["refresh_token"]
    # Presenting the old token again looks like theft: the whole session ends.
    reused = client.post("/auth/refresh", json={"refresh_token": tokens["refresh_token"]})
    _refused(reused, 401, "refresh_token_reused")
    me = client.get("/auth/me", headers={"Authorization": f"Bearer {new['access_token']}"})
    _refused(me, 401, "session_revoked")
    _refused(
        client.post("/auth/refresh", json={"refresh_token": new["refresh_token"]}),
        401,
        "session_revoked",
    )


def test_logout_ends_access_and_refresh(client: TestClient) -> None:
    tokens = sign_in(client)
    headers = {"Authorization": f"Bearer {tokens['access_token']}"}
    assert client.post("/auth/logout", headers=headers).status_code == 204
    _refused(client.get("/auth/me", headers=headers), 401, "session_revoked")
    _refused(
        client.post("/auth/refresh", json={"refresh_token": tokens["refresh_token"]}),
        401,
        "session_revoked",
    )


def test_expired_and_forged_access_tokens_are_refused(client: TestClient) -> None:
    tokens = sign_in(client)
    claims = jwt.decode(tokens["access_token"], options={"verify_signature": False})
    secret = client.app.state.settings.auth.jwt_secret
    expired = jwt.encode({**claims, "exp": claims["iat"] - 1}, secret, algorithm="HS256")
    _refused(
        client.get("/auth/me", headers={"Authorization": f"Bearer {expired}"}),
        401,
        "token_expired",
    )
    forged = jwt.encode({**claims, "sub": Account.create().address}, "guess", algorithm="HS256")
    _refused(
        client.get("/auth/me", headers={"Authorization": f"Bearer {forged}"}),
        401,
        "token_invalid",
    )
    _refused(client.get("/auth/me"), 401, "not_authenticated")


def test_openapi_and_docs_are_served(client: TestClient) -> None:
    schema = client.get("/openapi.json")
    assert schema.status_code == 200
    assert "/auth/signin" in schema.json()["paths"]
    assert client.get("/docs").status_code == 200


def _signed(settings: Settings) -> tuple[str, str]:
    account = Account.create()
    message = compose(account.address, accounts.issue_nonce(settings=settings).nonce)
    return message, sign(account, message)


def test_racing_signins_with_one_nonce_open_one_session(app) -> None:  # type: ignore[no-untyped-def]
    settings, engine = app.state.settings, app.state.engine
    message, signature = _signed(settings)
    sessions = _count(app, AuthSession)
    outcomes: list[object] = []
    start = threading.Barrier(8)

    def attempt() -> None:
        start.wait()
        try:
            accounts.sign_in(engine=engine, settings=settings, message=message, signature=signature)
            outcomes.append("ok")
        except accounts_exc.NonceReplayed:
            outcomes.append("replayed")

    threads = [threading.Thread(target=attempt) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["ok"] + ["replayed"] * 7
    assert _count(app, AuthSession) == sessions + 1


def test_signin_hands_its_pooled_connection_back_transactional(db_url: str) -> None:
    """The PostgreSQL write runs in autocommit; the next user of the connection must not."""
    settings = Settings(db=DatabaseSettings(url=db_url), chain=ChainSettings())
    engine = create_db_engine(db_url, pool_size=1)
    try:
        message, signature = _signed(settings)
        pair = accounts.sign_in(
            engine=engine, settings=settings, message=message, signature=signature
        )
        with pytest.raises(accounts_exc.NonceReplayed):
            accounts.sign_in(engine=engine, settings=settings, message=message, signature=signature)
        with engine.connect() as conn:
            conn.execute(delete(RefreshToken).where(RefreshToken.session_id == pair.session_id))
            conn.rollback()
        with Session(engine) as session:
            kept = session.scalar(
                select(func.count()).where(RefreshToken.session_id == pair.session_id)
            )
        assert kept == 1
    finally:
        engine.dispose()


def test_signin_after_the_server_closed_the_pooled_connection(pg_url: str) -> None:
    settings = Settings(db=DatabaseSettings(url=pg_url), chain=ChainSettings())
    engine = create_db_engine(pg_url, pool_size=1)
    try:
        accounts.sign_in(
            engine=engine, settings=settings, message=(m := _signed(settings))[0], signature=m[1]
        )
        with engine.connect() as conn:
            pid = conn.execute(text("SELECT pg_backend_pid()")).scalar_one()
            fileno = conn.connection.dbapi_connection.fileno()  # type: ignore[union-attr]
        admin_url = make_url(pg_url).set(drivername="postgresql").render_as_string(False)
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        poller = select_module.poll()
        poller.register(fileno, select_module.POLLIN | select_module.POLLHUP)
        assert poller.poll(10_000), "the terminated backend never closed its socket"
        message, signature = _signed(settings)
        pair = accounts.sign_in(
            engine=engine, settings=settings, message=message, signature=signature
        )
        assert pair.address in message
    finally:
        engine.dispose()


def test_access_token_is_byte_for_byte_what_pyjwt_encodes() -> None:
    secret = AuthSettings().jwt_secret
    for _ in range(20):
        claims = {
            "sub": Account.create().address,
            "sid": secrets.token_hex(16),
            "typ": "access",
            "iat": secrets.randbelow(2**40),
            "exp": secrets.randbelow(2**40),
        }
        token = accounts.encode_access_token(secret, claims)
        assert token == jwt.encode(claims, secret, algorithm="HS256")
        assert jwt.decode(
            token, secret, algorithms=["HS256"], options={"verify_exp": False, "verify_iat": False}
        ) == (claims)
