"""The bytes32 match ids that ``MatchSettlement.settle`` records as settled.

The contract keeps one bit per id: bit ``id & 0xff`` of storage word ``id >> 8``. Ids
that differ only in their low byte share a word, so a settlement of sequential ids writes
a fresh (zero to non-zero, about 20,000 gas) word once per 256 matches, while random ids
write one per match. Earning matches therefore get sequential ids:

    byte 0        tag: 0x00 free match, 0x01 earning match, 0x02 stake withdrawal,
                  0x03 competition prize, 0x04 a re-issued settlement
    bytes 1-8     earning: the deployment prefix (first 8 bytes of a sha256 of the
                  deployment name and chain id); 0x00 ids are the 16-byte match id
                  left-padded, 0x02 and 0x03 ids 31 bytes of the payment's own digest,
                  0x04 ids 31 random bytes
    bytes 9-31    earning: the sequence number, from ``backend.tables.live.store``'s
                  ``chain_match_sequences`` row for the prefix (1, 2, 3, ...)

The prefix keeps two deployments (or databases) that settle through one contract from
issuing the same id: a database that restarts from an empty sequence table must run under
a new deployment name, or its first ids would be skipped by the contract as settled.
A settlement whose id was found already settled by a transaction we did not sign (a
"burned" id, see ``backend.economy.ledger``) is re-issued under a ``0x04`` id of 31
random bytes: a stolen settler key can burn the next sequential ids in advance, but not an
id nobody has seen yet. Pure functions, no I/O (the caller supplies the random bytes).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

TAG_FREE = 0x00
TAG_EARNING = 0x01
TAG_WITHDRAWAL = 0x02
TAG_PRIZE = 0x03
TAG_REISSUED = 0x04

PREFIX_BYTES = 8
SEQUENCE_BYTES = 32 - 1 - PREFIX_BYTES
MAX_SEQUENCE = (1 << (8 * SEQUENCE_BYTES)) - 1


class MatchIdError(ValueError):
    """A chain match id, prefix or sequence number that is out of range or malformed."""


@dataclass(frozen=True)
class ChainMatchId:
    tag: int
    prefix: int
    sequence: int


def deployment_prefix(deployment_name: str, chain_id: int) -> int:
    """The 8-byte prefix of one deployment's sequential ids."""
    if not deployment_name or deployment_name != deployment_name.strip():
        raise MatchIdError(f"deployment name must be non-empty and trimmed: {deployment_name!r}")
    if not isinstance(chain_id, int) or chain_id <= 0:
        raise MatchIdError(f"chain id must be a positive integer: {chain_id!r}")
    digest = hashlib.sha256(f"dew-match-ids:{chain_id}:{deployment_name}".encode()).digest()
    return int.from_bytes(digest[:PREFIX_BYTES])


def _hex(value: int) -> str:
    return "0x" + value.to_bytes(32).hex()


def earning_match_id(prefix: int, sequence: int) -> str:
    """0x-hex bytes32 of the ``sequence``-th earning match of the deployment ``prefix``."""
    if not 0 <= prefix < 1 << (8 * PREFIX_BYTES):
        raise MatchIdError(f"prefix must fit {PREFIX_BYTES} bytes: {prefix!r}")
    if not 1 <= sequence <= MAX_SEQUENCE:
        raise MatchIdError(f"sequence must be in 1..{MAX_SEQUENCE}: {sequence!r}")
    return _hex((TAG_EARNING << 248) | (prefix << (8 * SEQUENCE_BYTES)) | sequence)


def free_match_id(match_id: str) -> str:
    """0x-hex bytes32 of a free match: its 16-byte (32 hex digit) id, left-padded."""
    try:
        value = int(match_id, 16)
    except ValueError:
        raise MatchIdError(f"match id must be hex: {match_id!r}") from None
    if len(match_id) != 32 or value == 0:
        raise MatchIdError(f"match id must be 32 hex digits, not zero: {match_id!r}")
    return _hex((TAG_FREE << 248) | value)


def withdrawal_id(digest: bytes) -> str:
    """0x-hex bytes32 of a stake withdrawal: tag 0x02 and 31 bytes of its own digest."""
    return _digest_id(TAG_WITHDRAWAL, digest)


def prize_id(digest: bytes) -> str:
    """0x-hex bytes32 of a competition's prize payment: tag 0x03 and 31 bytes of its digest."""
    return _digest_id(TAG_PRIZE, digest)


def reissued_id(entropy: bytes) -> str:
    """0x-hex bytes32 of a re-issued settlement: tag 0x04 and 31 bytes of ``entropy``
    (random: ``secrets.token_bytes(31)``), so that nobody can settle it in advance."""
    return _digest_id(TAG_REISSUED, entropy)


def _digest_id(tag: int, digest: bytes) -> str:
    if len(digest) < 31:
        raise MatchIdError(f"digest must have at least 31 bytes, got {len(digest)}")
    return "0x" + bytes([tag]).hex() + digest[:31].hex()


def parse(chain_match_id: str) -> ChainMatchId:
    """Tag, prefix and sequence of an id (prefix and sequence are 0 unless it is earning):
    the inverse of the builders above, through which the tests check the layout."""
    text = chain_match_id.lower()
    if len(text) != 66 or not text.startswith("0x"):
        raise MatchIdError(f"chain match id must be 0x and 64 hex digits: {chain_match_id!r}")
    try:
        value = int(text, 16)
    except ValueError:
        raise MatchIdError(f"chain match id must be hex: {chain_match_id!r}") from None
    tag = value >> 248
    if tag != TAG_EARNING:
        return ChainMatchId(tag=tag, prefix=0, sequence=0)
    sequence = value & MAX_SEQUENCE
    prefix = (value >> (8 * SEQUENCE_BYTES)) & ((1 << (8 * PREFIX_BYTES)) - 1)
    return ChainMatchId(tag=tag, prefix=prefix, sequence=sequence)
