"""Our EIP-4361 parser, composer and EIP-191 recovery, checked against the ``siwe`` package
and eth-account on the same inputs."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

import pytest
from eth_account import Account
from eth_account.messages import encode_defunct
from siwe import SiweMessage
from siwe.siwe import ISO8601Datetime

from backend.accounts import siwe_message
from backend.accounts.siwe_message import MessageError, SignatureError

ISSUED = datetime(2026, 11, 21, 19, 51, 22, 842000, tzinfo=UTC)


def _siwe(**fields) -> SiweMessage:  # type: ignore[no-untyped-def]
    base = {
        "domain": "localhost:8000",
        "address": Account.create().address,
        "statement": "Sign in to Domino Earning World.",
        "uri": "http://localhost:8000",
        "version": "1",
        "chain_id": 31337,
        "nonce": "f1e2b78f488035526b01f7669c77059012dbab4f449d",
        "issued_at": ISO8601Datetime.from_datetime(ISSUED),
    }
    base.update(fields)
    return SiweMessage(**base)


@pytest.mark.parametrize("statement", ["Sign in to Domino Earning World.", None])
@pytest.mark.parametrize("expires", [timedelta(minutes=5), None])
def test_composed_text_is_what_siwe_prepares(statement: str | None, expires: timedelta) -> None:
    rng = random.Random(7)
    for _ in range(20):
        address = Account.create().address
        nonce = "".join(rng.choice("abcdef0123456789") for _ in range(44))
        issued = ISSUED + timedelta(milliseconds=rng.randrange(10**9))
        ours = siwe_message.compose_message(
            domain="play.dew.example",
            address=address,
            statement=statement,
            uri="https://play.dew.example/login",
            chain_id=rng.randrange(1, 10**6),
            nonce=nonce,
            issued_at=issued,
            expiration_time=issued + expires if expires else None,
        )
        theirs = SiweMessage.from_message(ours, abnf=True)
        assert theirs.address == address and theirs.nonce == nonce
        assert theirs.statement == statement
        assert ours == theirs.prepare_message()


def test_every_field_parses_as_siwe_parses_it() -> None:
    message = _siwe(
        scheme="https",
        expiration_time=ISO8601Datetime.from_datetime(ISSUED + timedelta(hours=1)),
        not_before=ISO8601Datetime.from_datetime(ISSUED - timedelta(hours=1)),
        request_id="req-42",
        resources=[
            "ipfs://bafybeiemxf5abjwjbikoz4mc3a3dla6ual3jsgpdr4cjr3oz3evfyavhwq/",
            "https://dew.example/terms",
        ],
    )
    text = message.prepare_message()
    ours = siwe_message.parse_message(text)
    theirs = SiweMessage.from_message(text, abnf=True)
    assert ours.scheme == theirs.scheme == "https"
    assert ours.domain == theirs.domain
    assert ours.address == theirs.address
    assert ours.statement == theirs.statement
    assert ours.uri == theirs.uri
    assert ours.chain_id == theirs.chain_id
    assert ours.nonce == theirs.nonce
    assert ours.issued_at == theirs.issued_at._datetime
    assert ours.expiration_time == theirs.expiration_time._datetime  # type: ignore[union-attr]
    assert ours.not_before == theirs.not_before._datetime  # type: ignore[union-attr]
    assert ours.request_id == theirs.request_id
    assert list(ours.resources) == list(theirs.resources)  # type: ignore[arg-type]


def test_times_with_offsets_and_long_fractions_mean_the_same_instant() -> None:
    assert siwe_message.parse_time("2026-11-21T21:51:22.842123999+02:00", "t") == datetime(
        2026, 11, 21, 19, 51, 22, 842123, tzinfo=UTC
    )
    assert siwe_message.parse_time("2026-11-21T19:51:22z", "t") == ISSUED.replace(microsecond=0)
    for bad in ("2026-02-30T00:00:00Z", "2026-11-21 19:51:22Z", "2026-11-21T19:51:22", "yesterday"):
        with pytest.raises(MessageError):
            siwe_message.parse_time(bad, "t")


def _malformed(valid: str) -> list[str]:
    lines = valid.split("\n")
    lowered = lines[1].lower()
    return [
        "",
        "hello",
        valid.replace(" wants you to sign in", " wants you to log in"),
        valid.replace(lines[1], lowered if lowered != lines[1] else lines[1].upper()),
        valid.replace(lines[1], lines[1][:-1]),
        valid.replace("Version: 1", "Version: 2"),
        valid.replace("Chain ID: 31337", "Chain ID: x1"),
        valid.replace("Nonce: f1e2b78f", "Nonce: f1-2b78f"),
        valid.replace("Nonce: f1e2b78f488035526b01f7669c77059012dbab4f449d", "Nonce: abc"),
        valid.replace("Issued At: 2026-11-21T19:51:22.842Z", "Issued At: 2026-13-21T19:51:22Z"),
        valid.replace("URI: http://localhost:8000", "URI: not a uri"),
        valid.replace("URI: ", "URL: "),
        valid + "\nP.S. trailing text",
        valid.replace("\n\nURI:", "\n\n\nURI:"),
        "\n".join(lines[:4] + lines[5:]),  # the statement's blank line is missing
        valid.replace("\n", "\r\n"),
        valid + "\nResources:\n-",
    ]


def test_malformed_messages_are_refused_by_both_parsers() -> None:
    valid = _siwe().prepare_message()
    siwe_message.parse_message(valid)
    for text in _malformed(valid):
        with pytest.raises(MessageError):
            siwe_message.parse_message(text)
        with pytest.raises(Exception):  # noqa: B017 - siwe raises several kinds
            SiweMessage.from_message(text, abnf=True)


TERMS_RESOURCES = ("https://dew.example/terms#version=2026-11", "urn:dew:legal-age:confirmed")


@pytest.mark.parametrize(
    "resources", [TERMS_RESOURCES, TERMS_RESOURCES[:1], ("ipfs://bafy/x", "https://a.example/?q=1")]
)
def test_composed_resources_are_what_siwe_prepares_and_parses(resources: tuple[str, ...]) -> None:
    address = Account.create().address
    ours = siwe_message.compose_message(
        domain="localhost:8000",
        address=address,
        statement="Sign in to Domino Earning World. I accept the terms of service version "
        "2026-11 and confirm that I am of legal age.",
        uri="http://localhost:8000",
        chain_id=31337,
        nonce="f1e2b78f488035526b01f7669c77059012dbab4f449d",
        issued_at=ISSUED,
        expiration_time=ISSUED + timedelta(minutes=5),
        resources=resources,
    )
    theirs = SiweMessage.from_message(ours, abnf=True)
    assert ours == theirs.prepare_message()
    assert list(theirs.resources or []) == list(resources)
    assert siwe_message.parse_message(ours).resources == resources


def test_composing_refuses_a_resource_that_is_not_a_uri() -> None:
    # A newline in a resource would forge the lines after it; a space is no URI.
    for bad in ("https://dew.example/terms\nNonce: 00000000", "not a uri", "", "- x"):
        with pytest.raises(MessageError):
            siwe_message.compose_message(
                domain="localhost:8000",
                address=Account.create().address,
                statement=None,
                uri="http://localhost:8000",
                chain_id=1,
                nonce="f1e2b78f488035526b01f7669c77059012dbab4f449d",
                issued_at=ISSUED,
                resources=[bad],
            )


def test_malformed_resources_are_refused_by_both_parsers() -> None:
    valid = _siwe(resources=list(TERMS_RESOURCES)).prepare_message()
    assert siwe_message.parse_message(valid).resources == TERMS_RESOURCES
    for text in (
        valid.replace("- urn:dew", "-urn:dew"),
        valid.replace("- urn:dew:legal-age:confirmed", "- urn dew"),
        valid.replace("Resources:", "Resources: "),
        valid + "\n- ",
    ):
        with pytest.raises(MessageError):
            siwe_message.parse_message(text)
        with pytest.raises(Exception):  # noqa: B017 - siwe raises several kinds
            SiweMessage.from_message(text, abnf=True)


def _recover_signer(message: str, signature: str) -> str:
    """The EIP-55 signer, as eth-account's ``recover_message`` gives it."""
    return siwe_message.checksum_address(siwe_message.recover_signer_bytes(message, signature))


def test_recovered_signer_is_eth_accounts() -> None:
    rng = random.Random(11)
    for n in range(40):
        account = Account.create()
        text = _siwe(address=account.address, nonce=f"{rng.getrandbits(64):016x}").prepare_message()
        signed = account.sign_message(encode_defunct(text=text)).signature
        signature = ("0x" if n % 2 else "") + signed.hex().removeprefix("0x")
        expected = Account.recover_message(encode_defunct(text=text), signature=signature)
        assert _recover_signer(text, signature) == expected == account.address
        # v as 0/1 (some hardware wallets) recovers the same key.
        low_v = signed[:64] + bytes((signed[64] - 27,))
        assert _recover_signer(text, low_v.hex()) == account.address
        # Another text: another (or no) signer, never this one.
        try:
            other = _recover_signer(text + " ", signature)
        except SignatureError:
            other = None
        assert other != account.address


def test_malformed_signatures_are_refused_like_eth_account_refuses_them() -> None:
    account = Account.create()
    text = _siwe(address=account.address).prepare_message()
    good = account.sign_message(encode_defunct(text=text)).signature
    n = siwe_message._SECP256K1_N
    bad = [
        "",
        "0x",
        "0xzz" + good.hex()[2:],
        good[:64].hex(),  # 64 bytes
        (good + b"\x00").hex(),  # 66 bytes
        (good[:64] + bytes((29,))).hex(),  # v out of range
        (bytes(32) + good[32:]).hex(),  # r = 0
        (good[:32] + n.to_bytes(32, "big") + good[64:]).hex(),  # s = n
    ]
    for signature in bad:
        with pytest.raises(SignatureError):
            _recover_signer(text, signature)
        with pytest.raises(Exception):  # noqa: B017 - eth-account raises several kinds
            Account.recover_message(encode_defunct(text=text), signature=signature)


def test_checksum_addresses() -> None:
    for _ in range(20):
        address = Account.create().address
        assert siwe_message.is_checksum_address(address)
        assert siwe_message.checksum_address(bytes.fromhex(address[2:])) == address
        if address.lower() != address:
            assert not siwe_message.is_checksum_address(address.lower())
    assert not siwe_message.is_checksum_address("0x1234")
