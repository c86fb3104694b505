"""The outbox: ask the chain for a match settlement or an avatar mint, inside your own transaction.

Call these with the session that records the business event (a finished match,
a purchase) and commit as usual: the request becomes visible to the workers
only when that transaction commits, and it is dropped with it on rollback.
Asking twice with the same idempotency key returns the first request, also
when two transactions race (``INSERT .. ON CONFLICT DO NOTHING`` then read).
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from eth_utils import is_address, to_checksum_address
from sqlalchemy import select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from backend.chain.exceptions import ChainValueError, IdempotencyConflict, RequestNotFound
from backend.chain.models import ChainRequest, RequestKind, RequestStatus
from backend.config import get_settings
from backend.db.base import utcnow

logger = logging.getLogger(__name__)

MAX_PAYOUTS_PER_MATCH = 64
MAX_MINTS_PER_REQUEST = 500


@dataclass(frozen=True)
class Payout:
    """``amount`` DEW base units to an avatar (split on chain by its agreement) or an account."""

    amount: int
    avatar_id: int | None = None
    account: str | None = None


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


def _payout_json(payout: Payout) -> dict[str, Any]:
    if not isinstance(payout.amount, int) or isinstance(payout.amount, bool) or payout.amount <= 0:
        raise ChainValueError(f"payout amount must be a positive integer, got {payout.amount!r}")
    if (payout.avatar_id is None) == (payout.account is None):
        raise ChainValueError(f"a payout goes to exactly one avatar or account: {payout!r}")
    if payout.avatar_id is not None:
        if not isinstance(payout.avatar_id, int) or payout.avatar_id <= 0:
            raise ChainValueError(f"avatar id must be a positive integer: {payout.avatar_id!r}")
        return {"avatar_id": payout.avatar_id, "amount": str(payout.amount)}
    return {"account": _address(payout.account, "payout account"), "amount": str(payout.amount)}


def _digest(kind: str, payload: dict[str, Any]) -> str:
    canonical = json.dumps({"kind": kind, **payload}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


# Called after a commit that wrote requests, e.g. to wake a worker (worker.tasks installs one).
_after_commit_listeners: list[Callable[[], None]] = []


def add_after_commit_listener(listener: Callable[[], None]) -> None:
    if listener not in _after_commit_listeners:
        _after_commit_listeners.append(listener)


def _notify_after_commit(session: Session) -> None:
    if not _after_commit_listeners or session.info.get("dew_chain_notify"):
        return
    session.info["dew_chain_notify"] = True
    from sqlalchemy import event

    def _after_commit(_session: Session) -> None:
        _session.info.pop("dew_chain_notify", None)
        for listener in list(_after_commit_listeners):
            try:
                listener()
            except Exception:  # the periodic pump picks the request up anyway
                logger.exception("outbox listener failed; beat will pick the request up")

    def _after_rollback(_session: Session) -> None:
        _session.info.pop("dew_chain_notify", None)

    event.listen(session, "after_commit", _after_commit, once=True)
    event.listen(session, "after_soft_rollback", _after_rollback, once=True)


def _put(
    session: Session, *, kind: RequestKind, key: str, payload: dict[str, Any], chain_id: int
) -> ChainRequest:
    if not key or len(key) > 200:
        raise ChainValueError(f"idempotency key must be 1..200 characters, got {key!r}")
    digest = _digest(kind, payload)
    values = {
        "idempotency_key": key,
        "kind": str(kind),
        "chain_id": chain_id,
        "payload": payload,
        "payload_digest": digest,
        "status": str(RequestStatus.QUEUED),
        "attempts": 0,
        "alone": False,
        "created_at": utcnow(),
        "updated_at": utcnow(),
    }
    dialect = session.get_bind().dialect.name
    insert = pg_insert if dialect == "postgresql" else sqlite_insert
    # Make pending ORM changes visible first; then the insert races only other transactions.
    session.flush()
    stmt = (
        insert(ChainRequest)
        .values(**values)
        .on_conflict_do_nothing(index_elements=["idempotency_key"])
    )
    session.execute(stmt)
    request = session.scalars(
        select(ChainRequest)
        .where(ChainRequest.idempotency_key == key)
        .execution_options(populate_existing=True)
    ).one()
    if request.payload_digest != digest or request.kind != kind or request.chain_id != chain_id:
        raise IdempotencyConflict(
            f"idempotency key {key!r} was already used for a different {request.kind} request "
            f"(id {request.id})"
        )
    _notify_after_commit(session)
    return request


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
    match_hex = _bytes32_hex(match_id, "match id")
    result_hex = _bytes32_hex(result_hash, "result hash")
    if not payouts:
        raise ChainValueError(f"match {match_hex} has no payouts")
    if len(payouts) > MAX_PAYOUTS_PER_MATCH:
        raise ChainValueError(
            f"match {match_hex} has {len(payouts)} payouts; at most {MAX_PAYOUTS_PER_MATCH}"
        )
    payload = {
        "match_id": match_hex,
        "result_hash": result_hex,
        "payouts": [_payout_json(p) for p in payouts],
    }
    chain = chain_id if chain_id is not None else get_settings().chain.chain_id
    key = idempotency_key or f"settle:{chain}:{match_hex}"
    return _put(session, kind=RequestKind.SETTLE, key=key, payload=payload, chain_id=chain)


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
    chain = chain_id if chain_id is not None else get_settings().chain.chain_id
    return _put(
        session, kind=RequestKind.MINT, key=idempotency_key, payload=payload, chain_id=chain
    )


def get_request(*, session: Session, request_id: int) -> ChainRequest:
    request = session.get(ChainRequest, request_id)
    if request is None:
        raise RequestNotFound(f"no chain request with id {request_id!r}")
    return request


def get_request_by_key(*, session: Session, idempotency_key: str) -> ChainRequest:
    request = session.scalars(
        select(ChainRequest).where(ChainRequest.idempotency_key == idempotency_key)
    ).one_or_none()
    if request is None:
        raise RequestNotFound(f"no chain request with idempotency key {idempotency_key!r}")
    return request
