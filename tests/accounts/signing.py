"""Real EIP-4361 sign-ins from eth-account keys, shared by the server's tests.

Signing and the sign-in's requests are the shared client's (``backend.protocol.client``):
``sign`` is its wallet's ``personal_sign``, ``sign_in`` drives its sign-in steps over any
HTTP client (FastAPI's TestClient or httpx). ``compose`` builds EIP-4361 messages of the
test's own choosing (the server grants the real ones), to forge and to bend them.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from eth_account import Account
from siwe import SiweMessage
from siwe.siwe import ISO8601Datetime

from backend.protocol import messages as protocol
from backend.protocol.client import Wallet, sign_in_with


def wallet_of(account: Any) -> Wallet:
    """The client's wallet for an eth-account account."""
    return Wallet(bytes(account.key), account.address)


def sign(account: Any, message: str) -> str:
    return wallet_of(account).sign(message)


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

    def send(route: str, body: dict[str, Any]) -> dict[str, Any]:
        method, path = protocol.ROUTES[route]
        response = client.request(method, path, json=body)
        assert response.status_code == 200, response.text
        return dict(response.json())

    return sign_in_with(wallet_of(account), send)
