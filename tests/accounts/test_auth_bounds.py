"""The secret an embedded run makes for itself, production's refusal of weak secrets and of
running without terms, the low-s rule for signatures, and what the log filter removes."""

from __future__ import annotations

import logging
import os
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from eth_account import Account
from eth_account.messages import encode_defunct

from backend.accounts import siwe_message
from backend.config import AuthSettings, ChainSettings, Settings, TablesSettings, TermsSettings
from backend.ops.redaction import RedactTokens, redact

N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
OPERATOR_KEY = "0x" + "11" * 32
TERMS = TermsSettings(version="2026-11", uri="https://dew.example/terms")
DEW = str(Path(sys.executable).parent / "dew")


def test_an_unset_secret_is_made_once_private_and_shared(tmp_path: Path) -> None:
    path = tmp_path / "var" / "jwt-secret"
    made: list[str] = []

    def build() -> None:
        made.append(AuthSettings(jwt_secret_file=path).jwt_secret)

    threads = [threading.Thread(target=build) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(set(made)) == 1 and len(made[0]) >= 32
    assert path.read_text().strip() == made[0]
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert AuthSettings(jwt_secret_file=path).secret_generated
    assert not AuthSettings(jwt_secret="x" * 40, jwt_secret_file=path).secret_generated
    assert list(path.parent.iterdir()) == [path]  # no candidate files left behind


@pytest.mark.parametrize(
    "secret",
    ["", "short-secret", "dev-only-secret-change-me-outside-development"],
)
def test_production_refuses_a_missing_short_or_published_secret(
    tmp_path: Path, secret: str
) -> None:
    auth = AuthSettings(jwt_secret=secret, jwt_secret_file=tmp_path / "jwt-secret")
    with pytest.raises(ValueError, match="DEW_AUTH_JWT_SECRET must be set"):
        Settings(
            environment="production", auth=auth, chain=ChainSettings(operator_key=OPERATOR_KEY)
        )


def test_production_takes_a_long_configured_secret(tmp_path: Path) -> None:
    auth = AuthSettings(jwt_secret="a" * 64, jwt_secret_file=tmp_path / "jwt-secret")
    settings = Settings(
        environment="production",
        auth=auth,
        chain=ChainSettings(operator_key=OPERATOR_KEY),
        terms=TERMS,
    )
    assert settings.auth.jwt_secret == "a" * 64
    assert not (tmp_path / "jwt-secret").exists()


@pytest.mark.parametrize("staked_play", [True, False])
def test_production_refuses_to_run_without_terms(tmp_path: Path, staked_play: bool) -> None:
    """Outside development, stakes and entry fees would be taken from wallets that never
    accepted terms or confirmed their age: no terms configured is refused at start-up, even
    with staked tables off (a center's host may still charge tournament entry fees)."""
    auth = AuthSettings(jwt_secret="a" * 64, jwt_secret_file=tmp_path / "jwt-secret")
    common: dict[str, object] = {
        "auth": auth,
        "chain": ChainSettings(operator_key=OPERATOR_KEY),
        "tables": TablesSettings(staked_play=staked_play),
    }
    with pytest.raises(ValueError, match="DEW_TERMS_VERSION and DEW_TERMS_URI must be set"):
        Settings(environment="production", terms=TermsSettings(), **common)  # type: ignore[arg-type]
    assert Settings(environment="production", terms=TERMS, **common).terms.version == "2026-11"  # type: ignore[arg-type]
    # Development (``make demo``) runs without terms, as before.
    assert Settings(environment="development", **common).terms.version is None  # type: ignore[arg-type]


@pytest.mark.parametrize("command", [["serve", "--no-migrate"], ["worker"]])
def test_the_server_and_the_worker_refuse_to_start_without_terms(
    tmp_path: Path, command: list[str]
) -> None:
    """The real processes, configured as production is but for the terms: each exits at once
    with the reason, before serving a request or taking a task."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DEW_")}
    env |= {
        "DEW_ENVIRONMENT": "production",
        "DEW_AUTH_JWT_SECRET": "a" * 64,
        "DEW_CHAIN_OPERATOR_KEY": OPERATOR_KEY,
        "DEW_DB_URL": f"sqlite:///{tmp_path / 'dew.sqlite3'}",
        "DEW_BROKER_URL": f"sqla+sqlite:///{tmp_path / 'broker.sqlite3'}",
        "DEW_METRICS_MULTIPROC_DIR": str(tmp_path / "metrics"),
    }
    done = subprocess.run(
        [DEW, *command], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode != 0, done.stdout + done.stderr
    assert "DEW_TERMS_VERSION and DEW_TERMS_URI must be set" in done.stderr


def test_a_high_s_signature_is_refused_and_its_low_s_twin_accepted() -> None:
    account = Account.create()
    message = "hello"
    raw = bytes(account.sign_message(encode_defunct(text=message)).signature)
    r, s, v = raw[:32], int.from_bytes(raw[32:64], "big"), raw[64]
    assert s <= N // 2  # eth-account signs low-s (EIP-2)
    assert siwe_message.recover_signer_bytes(message, raw.hex()) == bytes.fromhex(
        account.address[2:]
    )
    twin = r + (N - s).to_bytes(32, "big") + bytes((55 - v,))
    with pytest.raises(siwe_message.SignatureError, match="upper half"):
        siwe_message.recover_signer_bytes(message, twin.hex())


def test_redact_removes_query_tokens_bearer_values_and_jwts() -> None:
    jwt_text = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIweDEifQ.c2lnbmF0dXJl"
    assert redact(f"GET /ws/tables/abc?token={jwt_text} HTTP/1.1") == (
        "GET /ws/tables/abc?token=[redacted] HTTP/1.1"
    )
    assert redact("/x?a=1&refresh_token=opaque123&b=2") == "/x?a=1&refresh_token=[redacted]&b=2"
    assert redact("Authorization: Bearer abc.def.ghi") == "Authorization: Bearer [redacted]"
    assert redact(f"detail {jwt_text} end") == "detail [redacted] end"
    assert redact("GET /tables?status=open HTTP/1.1") == "GET /tables?status=open HTTP/1.1"


def test_the_filter_keeps_uvicorns_access_arguments_in_shape() -> None:
    record = logging.LogRecord(
        "uvicorn.access",
        logging.INFO,
        __file__,
        1,
        '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:5000", "GET", "/ws/tables/t?token=eyJa.eyJb.sig", "1.1", 101),
        None,
    )
    assert RedactTokens().filter(record)
    assert record.args == ("127.0.0.1:5000", "GET", "/ws/tables/t?token=[redacted]", "1.1", 101)
    assert "sig" not in record.getMessage()
