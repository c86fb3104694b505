"""Real EIP-4361 sign-ins from eth-account keys, shared by the server's tests."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from eth_account import Account
from eth_account.messages import encode_defunct
from siwe import SiweMessage
from siwe.siwe import ISO8601Datetime


def sign(account: Any, message: str) -> str:
    return "0x" + account.sign_message(encode_defunct(text=message)).signature.hex().removeprefix(
        "0x"
    )


def compose(
    address: str,
    nonce: str,
    *,
    domain: str = "localhost:8000",
    uri: str = "http://localhost:8000",
    chain_id: int = 31337,
    issued_at: datetime | None = None,
    expires_in: timedelta | None = timedelta(minutes=5),
) -> str:
    issued = issued_at or datetime.now(UTC)
    return SiweMessage(
        domain=domain,
        address=address,
        statement="Sign in to Domino Earning World.",
        uri=uri,
        version="1",
        chain_id=chain_id,
        nonce=nonce,
        issued_at=ISO8601Datetime.from_datetime(issued),
        expiration_time=(
            ISO8601Datetime.from_datetime(issued + expires_in) if expires_in is not None else None
        ),
    ).prepare_message()


def sign_in(client: Any, account: Any | None = None) -> dict[str, Any]:
    """Sign in over HTTP (TestClient or httpx.Client) and return the token response."""
    account = account or Account.create()
    grant = client.post("/auth/nonce", json={"address": account.address})
    assert grant.status_code == 200, grant.text
    message = grant.json()["message"]
    response = client.post(
        "/auth/signin", json={"message": message, "signature": sign(account, message)}
    )
    assert response.status_code == 200, response.text
    return response.json()
