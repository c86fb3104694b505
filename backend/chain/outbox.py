"""The outbox: ask the chain for a settlement, an avatar mint or a VIP pass, in your transaction.

Call these with the session that records the business event (a finished match,
a purchase) and commit as usual: the request becomes visible to the workers
only when that transaction commits, and it is dropped with it on rollback.
Asking twice with the same idempotency key returns the first request, also
when two transactions race (``INSERT .. ON CONFLICT DO NOTHING`` then read).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from eth_utils.address import is_address, to_checksum_address
from sqlalchemy import select
from sqlalchemy.orm import Session

from backend.chain.contracts import (
    SettlementEncodingError,
    SettlementMatch,
    SettlementPayout,
    pack_settle_batch,
)
from backend.chain.exceptions import ChainValueError, IdempotencyConflict
from backend.chain.models import SHOP_KINDS, ChainRequest, RequestKind, RequestStatus
from backend.config import get_settings
from backend.db import dialect
from backend.db.base import get_or_raise, utcnow

# The server's cap on one match's payouts, checked when a settlement is queued: 64 avatar
# payouts (the dearest kind, contracts.SETTLE_GAS_PER_AVATAR_PAYOUT) stay near half of a
# transaction's default gas budget (ChainSettings.max_gas_per_tx), so every queued match
# fits in a transaction. The contract's own bound is contracts.MAX_ENCODABLE_PAYOUTS.
MAX_PAYOUTS_PER_MATCH = 64
MAX_MINTS_PER_REQUEST = 500


@dataclass(frozen=True)
class Payout:
    """``amount`` DEW base units to an avatar (split on chain by the agreement in force at
    ``played_at``, unix seconds) or an account."""

    amount: int
    avatar_id: int | None = None
    account: str | None = None
    played_at: int | None = None


def _bytes32_hex(value: bytes | str, what: str) -> str:
    if isinstance(value, str):
        try:
            raw = bytes.fromhex(value.removeprefix("0x"))
        except ValueError:
            raise ChainValueError(f"{what} must be 32 bytes of hex, got {value!r}") from None
    else:
        raw = bytes(value)
    if len(raw) != 32:
        raise ChainValueError(f"{what} must be 32 bytes, got {len(raw)}: {value!r}")
    return "0x" + raw.hex()


def _address(value: str, what: str) -> str:
    if not isinstance(value, str) or not is_address(value):
        raise ChainValueError(f"{what} is not an address: {value!r}")
    return to_checksum_address(value)


def _settlement_payout(payout: Payout) -> SettlementPayout:
    if not isinstance(payout.amount, int) or isinstance(payout.amount, bool) or payout.amount <= 0:
        raise ChainValueError(f"payout amount must be a positive integer, got {payout.amount!r}")
    if (payout.avatar_id is None) == (payout.account is None):
        raise ChainValueError(f"a payout goes to exactly one avatar or account: {payout!r}")
    if payout.avatar_id is not None and (
        not isinstance(payout.avatar_id, int) or payout.avatar_id <= 0
    ):
        raise ChainValueError(f"avatar id must be a positive integer: {payout.avatar_id!r}")
    if payout.account is not None and (
        not isinstance(payout.account, str) or not is_address(payout.account)
    ):
        raise ChainValueError(f"payout account is not an address: {payout.account!r}")
    try:
        # The contracts' own dataclass: the same limits as the encoder (88-bit amounts ...).
        return SettlementPayout(
            amount=payout.amount,
            account=payout.account,
            avatar_id=payout.avatar_id,
            played_at=payout.played_at,
        )
    except SettlementEncodingError as exc:
        raise ChainValueError(str(exc)) from exc


def _payout_json(payout: SettlementPayout) -> dict[str, Any]:
    if payout.avatar_id is not None:
        out: dict[str, Any] = {"avatar_id": payout.avatar_id, "amount": str(payout.amount)}
        if payout.played_at is not None:
            out["played_at"] = payout.played_at
        return out
    return {"account": payout.account, "amount": str(payout.amount)}


def _digest(kind: str, payload: dict[str, Any]) -> str:
    canonical = json.dumps({"kind": kind, **payload}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


_INSERTED = "dew.chain.inserted_keys"


def inserted_here(session: Session, idempotency_key: str) -> bool:
    """Whether this session's own insert created the request under ``idempotency_key`` (and
    not an earlier or a concurrent transaction, whose row it read back): a repeat, however it
    raced, is told apart from the first."""
    return idempotency_key in session.info.get(_INSERTED, ())


def _put_many(
    session: Session, items: Sequence[tuple[RequestKind, str, dict[str, Any], int]]
) -> list[ChainRequest]:
    """Insert-if-absent by idempotency key, then read every row back: atomic per key."""
    now = utcnow()
    rows: list[dict[str, Any]] = []
    for kind, key, payload, chain_id in items:
        if not key or len(key) > 200:
            raise ChainValueError(f"idempotency key must be 1..200 characters, got {key!r}")
        rows.append(
            {
                "idempotency_key": key,
                "kind": str(kind),
                "chain_id": chain_id,
                "payload": payload,
                "payload_digest": _digest(kind, payload),
                "status": str(RequestStatus.QUEUED),
                "attempts": 0,
                "alone": False,
                "created_at": now,
                "updated_at": now,
            }
        )
    if not rows:
        return []
    # Make pending ORM changes visible first; then the insert races only other transactions.
    session.flush()
    # A concurrent transaction inserting the same key makes this wait for its outcome, then
    # either skip (it committed: we read its row below) or insert (it rolled back).
    inserted = session.scalars(
        dialect.insert(session, ChainRequest)
        .values(rows)
        .on_conflict_do_nothing(index_elements=["idempotency_key"])
        .returning(ChainRequest.idempotency_key)
    )
    session.info.setdefault(_INSERTED, set()).update(inserted)
    keys = [row["idempotency_key"] for row in rows]
    found = {
        r.idempotency_key: r
        for r in session.scalars(
            select(ChainRequest)
            .where(ChainRequest.idempotency_key.in_(set(keys)))
            .execution_options(populate_existing=True)
        )
    }
    requests = []
    for row in rows:
        request = found[row["idempotency_key"]]
        if (
            request.payload_digest != row["payload_digest"]
            or request.kind != row["kind"]
            or request.chain_id != row["chain_id"]
        ):
            raise IdempotencyConflict(
                f"idempotency key {row['idempotency_key']!r} was already used for a different "
                f"{request.kind} request (id {request.id})"
            )
        requests.append(request)
    return requests


@dataclass(frozen=True)
class Settlement:
    """One match to settle; ``idempotency_key`` defaults to ``settle:<chain>:<match_id>``."""

    match_id: bytes | str
    result_hash: bytes | str
    payouts: Sequence[Payout]
    idempotency_key: str | None = None


def _settlement_payload(settlement: Settlement) -> dict[str, Any]:
    match_hex = _bytes32_hex(settlement.match_id, "match id")
    result_hex = _bytes32_hex(settlement.result_hash, "result hash")
    payouts = settlement.payouts
    if not payouts:
        raise ChainValueError(f"match {match_hex} has no payouts")
    if len(payouts) > MAX_PAYOUTS_PER_MATCH:
        raise ChainValueError(
            f"match {match_hex} has {len(payouts)} payouts; at most {MAX_PAYOUTS_PER_MATCH}"
        )
    checked = [_settlement_payout(p) for p in payouts]
    try:
        match = SettlementMatch(match_hex, result_hex, checked)
    except SettlementEncodingError as exc:
        raise ChainValueError(f"match {match_hex} cannot be settled: {exc}") from exc
    return {
        "match_id": match_hex,
        "result_hash": result_hex,
        "payouts": [_payout_json(p) for p in checked],
        # Packed now, once, by the contracts' own encoder: the sender only concatenates packed
        # matches (the batch layout is ``match+``), which keeps sending fast.
        "packed": "0x" + pack_settle_batch([match]).hex(),
    }


def _put_one(
    session: Session,
    kind: RequestKind,
    idempotency_key: str,
    payload: dict[str, Any],
    chain_id: int | None,
) -> ChainRequest:
    """One request of ``kind`` (as ``_put_many``), for ``chain_id`` or the configured chain."""
    chain = chain_id if chain_id is not None else get_settings().chain.chain_id
    return _put_many(session, [(kind, idempotency_key, payload, chain)])[0]


def request_settlements(
    *, session: Session, settlements: Sequence[Settlement], chain_id: int | None = None
) -> list[ChainRequest]:
    """Queue several match settlements in one statement (same guarantees as one by one)."""
    chain = chain_id if chain_id is not None else get_settings().chain.chain_id
    items = []
    for settlement in settlements:
        payload = _settlement_payload(settlement)
        key = settlement.idempotency_key or f"settle:{chain}:{payload['match_id']}"
        items.append((RequestKind.SETTLE, key, payload, chain))
    return _put_many(session, items)


def request_settlement(
    *,
    session: Session,
    match_id: bytes | str,
    result_hash: bytes | str,
    payouts: Sequence[Payout],
    idempotency_key: str | None = None,
    chain_id: int | None = None,
) -> ChainRequest:
    """Queue the on-chain settlement of one match; the key defaults to ``settle:<match_id>``."""
    settlement = Settlement(match_id, result_hash, payouts, idempotency_key)
    return request_settlements(session=session, settlements=[settlement], chain_id=chain_id)[0]


def request_mint(
    *,
    session: Session,
    recipients: Sequence[str],
    idempotency_key: str,
    chain_id: int | None = None,
) -> ChainRequest:
    """Queue one avatar mint per recipient; minted ids land in ``result["token_ids"]``."""
    if not recipients:
        raise ChainValueError("a mint request needs at least one recipient")
    if len(recipients) > MAX_MINTS_PER_REQUEST:
        raise ChainValueError(
            f"{len(recipients)} recipients in one mint request; at most {MAX_MINTS_PER_REQUEST}"
        )
    payload = {"recipients": [_address(r, "mint recipient") for r in recipients]}
    return _put_one(session, RequestKind.MINT, idempotency_key, payload, chain_id)


# VIPPass.issue takes the expiry as a uint64 of unix seconds.
MAX_UINT64 = 2**64 - 1


def request_vip_issue(
    *,
    session: Session,
    holder: str,
    expires_at: int,
    idempotency_key: str,
    chain_id: int | None = None,
) -> ChainRequest:
    """Queue ``VIPPass.issue(holder, expires_at)`` (unix seconds; the contract refuses an
    expiry not in the future when it is sent); ``result`` is ``{"expires_at": ...}``, the
    pass's expiry after it (later than asked when the pass already ran longer: a grant never
    shortens a pass)."""
    if isinstance(expires_at, bool) or not isinstance(expires_at, int):
        raise ChainValueError(f"a VIP pass expiry must be unix seconds, got {expires_at!r}")
    if not 0 < expires_at <= MAX_UINT64:
        raise ChainValueError(f"a VIP pass expiry must be 1..2**64-1, got {expires_at}")
    payload = {"holder": _address(holder, "VIP pass holder"), "expires_at": expires_at}
    return _put_one(session, RequestKind.VIP_ISSUE, idempotency_key, payload, chain_id)


def request_vip_revoke(
    *,
    session: Session,
    holder: str,
    idempotency_key: str,
    chain_id: int | None = None,
) -> ChainRequest:
    """Queue ``VIPPass.revoke(holder)`` (fails if the holder has no pass when it is sent);
    ``result`` is ``{"revoked": true}``, or ``{"revoked": false, "expires_at": ...}`` when
    only the operator's grant ended and the part bought in the shop still runs (only the
    admin ends that)."""
    payload = {"holder": _address(holder, "VIP pass holder")}
    return _put_one(session, RequestKind.VIP_REVOKE, idempotency_key, payload, chain_id)


def request_center_mint(
    *,
    session: Session,
    center: dict[str, Any],
    idempotency_key: str,
    chain_id: int | None = None,
) -> ChainRequest:
    """Queue ``GameCenter.mintCenter`` with a description the caller validated
    (``backend.centers.operator``): ``to``, ``name``, ``country``, ``city``, ``lat_e2``,
    ``lon_e2``, ``capacity``; ``result`` is ``{"center_id": ...}``."""
    payload = {**center, "to": _address(center["to"], "center owner")}
    return _put_one(session, RequestKind.CENTER_MINT, idempotency_key, payload, chain_id)


def get_request(*, session: Session, request_id: int) -> ChainRequest:
    """One request by id, for callers that wait on its outcome (``dew demo``'s mint)."""
    missing = LookupError(f"no chain request with id {request_id!r}")
    return get_or_raise(session, ChainRequest, request_id, missing)


def request_shop_call(
    *,
    session: Session,
    kind: RequestKind,
    payload: dict[str, Any],
    idempotency_key: str,
    chain_id: int | None = None,
) -> ChainRequest:
    """Queue one of the shop's operator calls (``Shop.list``, ``Shop.setListing``,
    ``Accessories.defineType``; see ``backend.chain.shop_calls``). The payload is checked
    by ``backend.markets.operator`` before it gets here; ``result`` is
    ``{"listing_id": ...}`` for a listing."""
    if kind not in SHOP_KINDS:
        raise ChainValueError(f"not a shop call: {kind!r}")
    return _put_one(session, kind, idempotency_key, payload, chain_id)
