"""EIP-4361 (Sign-In with Ethereum) messages: a strict parser and the composer, and EIP-191
signer recovery.

The ``siwe`` package does the same through a pydantic model, which costs more than the
whole rest of a sign-in; this module follows the EIP's grammar line by line instead:

    [scheme "://"] domain " wants you to sign in with your Ethereum account:" LF
    address LF
    LF
    [statement LF]
    LF
    "URI: " uri LF
    "Version: 1" LF
    "Chain ID: " 1*DIGIT LF
    "Nonce: " 8*(ALPHA / DIGIT) LF
    "Issued At: " date-time
    [LF "Expiration Time: " date-time]
    [LF "Not Before: " date-time]
    [LF "Request ID: " *pchar]
    [LF "Resources:" *(LF "- " uri)]

Tests check it against ``siwe`` on generated messages and on malformed ones.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import coincurve
from eth_hash.auto import keccak

HEADER = " wants you to sign in with your Ethereum account:"

_SCHEME = re.compile(r"[a-zA-Z][a-zA-Z0-9+\-.]*")
_DOMAIN = re.compile(r"[^/?#\s]+")
_ADDRESS = re.compile(r"0x[0-9a-fA-F]{40}")
_URI = re.compile(r"[a-zA-Z][a-zA-Z0-9+\-.]*:[^\s]*")
_CHAIN_ID = re.compile(r"[0-9]{1,20}")
_NONCE = re.compile(r"[a-zA-Z0-9]{8,}")
_REQUEST_ID = re.compile(r"[-._~!$&'()*+,;=:@%a-zA-Z0-9]*")
_DATETIME = re.compile(
    r"([0-9]{4})-(0[1-9]|1[012])-(0[1-9]|[12][0-9]|3[01])[Tt]"
    r"([01][0-9]|2[0-3]):([0-5][0-9]):([0-5][0-9]|60)(\.[0-9]+)?"
    r"([Zz]|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])"
)
# secp256k1 group order: r and s must lie in [1, N), and s in the lower half (EIP-2): for
# every signature (r, s) there is a second one, (r, N - s) with the other v, of the same
# message by the same key; wallets only make the low-s one, so the other is refused.
_SECP256K1_N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141
_HALF_N = _SECP256K1_N // 2


class MessageError(ValueError):
    """Not an EIP-4361 message; the text says which part."""


class SignatureError(ValueError):
    """Not a valid 65-byte secp256k1 signature of the message."""


@dataclass(frozen=True)
class SiweFields:
    domain: str
    address: str
    uri: str
    version: str
    chain_id: int
    nonce: str
    issued_at: datetime
    statement: str | None = None
    scheme: str | None = None
    expiration_time: datetime | None = None
    not_before: datetime | None = None
    request_id: str | None = None
    resources: tuple[str, ...] = ()


def parse_time(text: str, what: str) -> datetime:
    """An RFC 3339 date-time, timezone-aware."""
    found = _DATETIME.fullmatch(text)
    if found is None:
        raise MessageError(f"{what} is not an RFC 3339 date-time: {text!r}")
    year, month, day, hour, minute, second, fraction, zone = found.groups()
    micros = int((fraction[1:] + "000000")[:6]) if fraction else 0
    second_n = min(int(second), 59)  # a leap second counts as the last ordinary one
    try:
        moment = datetime(
            int(year), int(month), int(day), int(hour), int(minute), second_n, micros, tzinfo=UTC
        )
    except ValueError:
        raise MessageError(f"{what} is not a calendar date: {text!r}") from None
    if zone not in ("Z", "z"):
        sign = 1 if zone[0] == "+" else -1
        offset = timedelta(minutes=sign * (int(zone[1:3]) * 60 + int(zone[4:6])))
        try:
            moment -= offset
        except OverflowError:
            raise MessageError(f"{what} is out of range: {text!r}") from None
    return moment


def format_time(moment: datetime) -> str:
    """``2026-11-21T19:51:22.842Z``: UTC, milliseconds (what wallets and ``siwe`` write)."""
    moment = moment.astimezone(UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def _field(lines: list[str], index: int, label: str) -> str:
    if index >= len(lines) or not lines[index].startswith(label):
        got = lines[index] if index < len(lines) else "the end of the message"
        raise MessageError(f"line {index + 1} must start with {label!r}, got {got!r}")
    return lines[index][len(label) :]


def parse_message(message: str) -> SiweFields:
    """Parse an EIP-4361 message exactly by its grammar; MessageError says what is wrong."""
    lines = message.split("\n")
    if len(lines) < 10:
        raise MessageError("too few lines for an EIP-4361 message")
    header = lines[0]
    if not header.endswith(HEADER):
        raise MessageError(f"the first line must end with {HEADER.strip()!r}")
    authority = header[: -len(HEADER)]
    scheme = None
    if "://" in authority:
        scheme, authority = authority.split("://", 1)
        if not _SCHEME.fullmatch(scheme):
            raise MessageError(f"bad scheme {scheme!r}")
    if not _DOMAIN.fullmatch(authority):
        raise MessageError(f"bad domain {authority!r}")
    address = lines[1]
    if not _ADDRESS.fullmatch(address):
        raise MessageError(f"the second line must be a 0x address, got {address!r}")
    if not is_checksum_address(address):
        raise MessageError(f"the address {address!r} is not EIP-55 checksummed")
    if lines[2] != "":
        raise MessageError("an empty line must follow the address")
    statement = None
    index = 3
    if lines[3] != "":
        statement = lines[3]
        if lines[4] != "":
            raise MessageError("an empty line must follow the statement")
        index = 5
    else:
        index = 4
    uri = _field(lines, index, "URI: ")
    if not _URI.fullmatch(uri):
        raise MessageError(f"bad URI {uri!r}")
    version = _field(lines, index + 1, "Version: ")
    if version != "1":
        raise MessageError(f"unsupported version {version!r}")
    chain = _field(lines, index + 2, "Chain ID: ")
    if not _CHAIN_ID.fullmatch(chain):
        raise MessageError(f"bad chain id {chain!r}")
    nonce = _field(lines, index + 3, "Nonce: ")
    if not _NONCE.fullmatch(nonce):
        raise MessageError(f"bad nonce {nonce!r}: at least 8 letters or digits")
    issued_at = parse_time(_field(lines, index + 4, "Issued At: "), "Issued At")
    index += 5
    optional: dict[str, str] = {}
    for label in ("Expiration Time: ", "Not Before: ", "Request ID: "):
        if index < len(lines) and lines[index].startswith(label):
            optional[label] = lines[index][len(label) :]
            index += 1
    resources: list[str] = []
    if index < len(lines) and lines[index] == "Resources:":
        index += 1
        while index < len(lines) and lines[index].startswith("- "):
            resource = lines[index][2:]
            if not _URI.fullmatch(resource):
                raise MessageError(f"bad resource URI {resource!r}")
            resources.append(resource)
            index += 1
    if index != len(lines):
        raise MessageError(f"unexpected line {index + 1}: {lines[index]!r}")
    request_id = optional.get("Request ID: ")
    if request_id is not None and not _REQUEST_ID.fullmatch(request_id):
        raise MessageError(f"bad request id {request_id!r}")
    expires = optional.get("Expiration Time: ")
    not_before = optional.get("Not Before: ")
    return SiweFields(
        domain=authority,
        address=address,
        uri=uri,
        version=version,
        chain_id=int(chain),
        nonce=nonce,
        issued_at=issued_at,
        statement=statement,
        scheme=scheme,
        expiration_time=parse_time(expires, "Expiration Time") if expires is not None else None,
        not_before=parse_time(not_before, "Not Before") if not_before is not None else None,
        request_id=request_id,
        resources=tuple(resources),
    )


def compose_message(
    *,
    domain: str,
    address: str,
    statement: str | None,
    uri: str,
    chain_id: int,
    nonce: str,
    issued_at: datetime,
    expiration_time: datetime | None = None,
    resources: Sequence[str] = (),
) -> str:
    """The EIP-4361 text of these fields (the same text ``siwe`` prepares); MessageError if
    a resource is not a URI (a newline in one would forge the lines after it)."""
    lines = [f"{domain}{HEADER}", address, ""]
    if statement:
        lines += [statement, ""]
    else:
        lines += [""]
    lines += [
        f"URI: {uri}",
        "Version: 1",
        f"Chain ID: {chain_id}",
        f"Nonce: {nonce}",
        f"Issued At: {format_time(issued_at)}",
    ]
    if expiration_time is not None:
        lines.append(f"Expiration Time: {format_time(expiration_time)}")
    if resources:
        for resource in resources:
            if not _URI.fullmatch(resource):
                raise MessageError(f"bad resource URI {resource!r}")
        lines += ["Resources:", *(f"- {resource}" for resource in resources)]
    return "\n".join(lines)


def checksum_address(raw: bytes) -> str:
    """EIP-55 text of a 20-byte address."""
    hexed = raw.hex()
    digest = keccak(hexed.encode()).hex()
    return "0x" + "".join(
        c.upper() if c > "9" and digest[i] > "7" else c for i, c in enumerate(hexed)
    )


@functools.lru_cache(maxsize=8192)
def is_checksum_address(text: str) -> bool:
    """True for a 0x address in its EIP-55 mixed-case form (cached: a sign-in checks its
    wallet's address at the nonce and again in the message, each a keccak)."""
    return bool(_ADDRESS.fullmatch(text)) and checksum_address(bytes.fromhex(text[2:])) == text


def recover_signer_bytes(message: str, signature: str) -> bytes:
    """The 20 raw bytes of the address whose key made this EIP-191 ``personal_sign``
    signature of ``message`` (no EIP-55 hashing: ``checksum_address`` gives its text);
    SignatureError if it is not a well-formed signature (libsecp256k1 through coincurve,
    the library eth-account itself uses)."""
    text = signature[2:] if signature[:2] in ("0x", "0X") else signature
    try:
        raw = bytes.fromhex(text)
    except ValueError:
        raise SignatureError("the signature is not hex") from None
    if len(raw) != 65:
        raise SignatureError(f"the signature has {len(raw)} bytes, not 65")
    r = int.from_bytes(raw[:32], "big")
    s = int.from_bytes(raw[32:64], "big")
    v = raw[64]
    if v in (27, 28):
        v -= 27
    if v not in (0, 1) or not 0 < r < _SECP256K1_N or not 0 < s < _SECP256K1_N:
        raise SignatureError("the signature's v, r or s is out of range")
    if s > _HALF_N:
        raise SignatureError("the signature is not canonical: its s is in the upper half (EIP-2)")
    data = message.encode()
    digest = keccak(b"\x19Ethereum Signed Message:\n" + str(len(data)).encode() + data)
    try:
        public = coincurve.PublicKey.from_signature_and_message(
            raw[:64] + bytes((v,)), digest, hasher=None
        )
    except Exception:  # no point on the curve for this r
        raise SignatureError("no public key recovers from this signature") from None
    return keccak(public.format(compressed=False)[1:])[-20:]
