"""Sign-In with Ethereum for the protocol's clients: the server grants an EIP-4361 message, the
wallet signs it (EIP-191). ``backend.protocol.client`` drives it over HTTP (``DewClient``) or
over any ``send(route, body)``; the load generators sign thousands of messages with it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Generator
from typing import Any

import coincurve
from eth_account import Account
from eth_hash.auto import keccak

SignInStep = tuple[str, dict[str, Any]]
"""One request of the sign-in: the route's name in ``protocol.ROUTES`` and its JSON body."""


class Wallet:
    """A private key that signs as a wallet's ``personal_sign`` does.

    The signature is libsecp256k1's (``coincurve``, which eth-account uses as well), built
    without eth-account's per-call overhead: load generators sign thousands of messages on the
    machine the server shares. It equals eth-account's ``sign_message`` (RFC 6979, low s)."""

    __slots__ = ("accept_terms", "address", "key", "private_key")

    def __init__(
        self, private_key: bytes | str, address: str | None = None, *, accept_terms: bool = False
    ) -> None:
        """``accept_terms``: its sign-ins ask the server for a message that also accepts the
        current terms and confirms legal age (docs/protocol.md, "Sign-in")."""
        self.accept_terms = accept_terms
        if isinstance(private_key, str):
            private_key = bytes.fromhex(private_key.removeprefix("0x"))
        self.private_key = bytes(private_key)
        self.key = coincurve.PrivateKey(self.private_key)
        self.address = address or str(Account.from_key(self.private_key).address)

    @classmethod
    def create(cls) -> Wallet:
        account = Account.create()
        return cls(bytes(account.key), account.address)

    def sign(self, message: str) -> str:
        """EIP-191 ``personal_sign``: ``0x`` + r, s and v (27 or 28) in hex."""
        data = message.encode()
        digest = keccak(b"\x19Ethereum Signed Message:\n" + str(len(data)).encode() + data)
        signature = self.key.sign_recoverable(digest, hasher=None)
        return "0x" + (signature[:64] + bytes((signature[64] + 27,))).hex()

    def sign_in_steps(self) -> Generator[SignInStep, dict[str, Any], dict[str, Any]]:
        """The sign-in as requests, whatever carries them: send each step, and send the
        generator the decoded answer; it returns the token response.

            steps = wallet.sign_in_steps()
            route, body = next(steps)              # ("nonce", {"address": ...})
            route, body = steps.send(grant)        # ("signin", {"message": ..., "signature": ...})
            steps.send(tokens)                     # StopIteration(value=tokens)
        """
        nonce: dict[str, Any] = {"address": self.address}
        if self.accept_terms:
            nonce["accept_terms"] = True
        grant = yield "nonce", nonce
        message = str(grant["message"])
        tokens = yield "signin", {"message": message, "signature": self.sign(message)}
        return tokens


def sign_in_with(
    wallet: Wallet, send: Callable[[str, dict[str, Any]], dict[str, Any]]
) -> dict[str, Any]:
    """Drive ``wallet``'s sign-in over a blocking ``send(route, body) -> answer``."""
    steps = wallet.sign_in_steps()
    step = next(steps)
    while True:
        try:
            step = steps.send(send(*step))
        except StopIteration as done:
            return dict(done.value)


async def sign_in_with_async(
    wallet: Wallet, send: Callable[[str, dict[str, Any]], Awaitable[dict[str, Any]]]
) -> dict[str, Any]:
    """Drive ``wallet``'s sign-in over an asyncio ``send(route, body) -> answer``."""
    steps = wallet.sign_in_steps()
    step = next(steps)
    while True:
        answer = await send(*step)
        try:
            step = steps.send(answer)
        except StopIteration as done:
            return dict(done.value)
