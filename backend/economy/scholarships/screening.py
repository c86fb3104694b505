"""Screening of owners (seed 000): an owner applies with a statement, a screener decides.

Who is a screener is the chain's answer: the wallet must hold the registry's
``SCREENER_ROLE`` (:class:`ScreenerRoles` reads it and keeps the answer a short while). A
rejection is decided here, off chain, with its reason. An approval is the screener's own
``setScreened(owner, true)``, signed by their wallet: the application turns ``approved``
only when the chain shows it, either from the transaction's receipt
(:func:`confirm_approval`, at the confirmation depth) or from the registry indexer
(:func:`on_owner_screened`), whichever comes first. A later ``setScreened(owner, false)``
marks it ``withdrawn``, and the owner may apply again.

Every change is a compare-and-set on ``status = 'pending'``, so two screeners deciding at
once, or a decision racing the indexer, change an application once.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from eth_utils.address import is_address, to_checksum_address
from hexbytes import HexBytes
from sqlalchemy import ColumnElement, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session
from web3.exceptions import TransactionNotFound, Web3Exception

from backend.chain.contracts import Contracts
from backend.db.base import aware, get_or_raise, utcnow
from backend.economy import exceptions as exc
from backend.economy.models import ScreenedOwner, ScreeningApplication, ScreeningStatus
from backend.kit.rows import columns
from backend.kit.text import clean_text

_TX_HASH = re.compile(r"^0x[0-9a-fA-F]{64}$")
MAX_QUEUE = 200


@dataclass(frozen=True)
class Limits:
    statement_max_chars: int = 2_000
    reason_max_chars: int = 500
    per_wallet_per_day: int = 3


def _address(value: str, what: str) -> str:
    if not isinstance(value, str) or not is_address(value):
        raise exc.EconomyValueError(f"{what} is not an address: {value!r}")
    return to_checksum_address(value)


def _text(value: str, what: str, max_chars: int) -> str:
    if not isinstance(value, str):
        raise exc.EconomyValueError(f"{what} must be text")
    value = value.replace("\r\n", "\n").strip()
    if not value:
        raise exc.EconomyValueError(f"{what} is empty")
    if len(value) > max_chars:
        raise exc.EconomyValueError(f"{what} is {len(value)} characters; at most {max_chars}")
    # Printable text, newlines and tabs: what the shared cleaner keeps (it would drop control,
    # direction and invisible characters, which hide text on a page); anything else is refused.
    if clean_text(value, lines=True) != value:
        raise exc.EconomyValueError(f"{what} holds control or invisible characters")
    return value


def view(app: ScreeningApplication) -> dict[str, Any]:
    return columns(
        app,
        "id applicant statement status reason decided_by tx_hash block_number",
        created_at=aware(app.created_at),
        decided_at=aware(app.decided_at),
    )


# --- the owner ----------------------------------------------------------------------------


def apply(
    *, session: Session, applicant: str, statement: str, limits: Limits = Limits()
) -> dict[str, Any]:
    """Open an application for ``applicant``; one open at a time, a few a day."""
    applicant = _address(applicant, "applicant")
    statement = _text(statement, "statement", limits.statement_max_chars)
    screened = session.get(ScreenedOwner, applicant)
    if screened is not None and screened.approved:
        raise exc.AlreadyScreened(f"{applicant} is already screened on chain")
    since = utcnow() - timedelta(days=1)
    recent = session.scalar(
        select(func.count())
        .select_from(ScreeningApplication)
        .where(
            ScreeningApplication.applicant == applicant,
            ScreeningApplication.created_at >= since,
        )
    )
    if (recent or 0) >= limits.per_wallet_per_day:
        raise exc.TooManyApplications(
            f"{applicant} applied {recent} times in the last day; at most "
            f"{limits.per_wallet_per_day}"
        )
    app = ScreeningApplication(
        applicant=applicant, statement=statement, status=ScreeningStatus.PENDING
    )
    session.add(app)
    try:
        session.commit()
    except IntegrityError as error:  # the partial unique index: one open application
        session.rollback()
        raise exc.ApplicationOpen(f"{applicant} already has an open application") from error
    return view(app)


def mine(*, session: Session, applicant: str) -> dict[str, Any]:
    """The wallet's latest application."""
    applicant = _address(applicant, "applicant")
    app = session.scalar(
        select(ScreeningApplication)
        .where(ScreeningApplication.applicant == applicant)
        .order_by(ScreeningApplication.id.desc())
        .limit(1)
    )
    if app is None:
        raise exc.ApplicationNotFound(f"{applicant} has not applied")
    return view(app)


# --- the screener -------------------------------------------------------------------------


class ScreenerRoles:
    """Who holds ``SCREENER_ROLE``, read from the chain and believed for ``ttl_s``.

    Both answers are kept (a non-screener's flood costs the node one read per ``ttl_s``);
    the cache is bounded and emptied when full. A role revoked on chain still passes for at
    most ``ttl_s`` here, for the off-chain queue and rejections: an approval is the
    contract's own check, never this one."""

    MAX_ENTRIES = 10_000

    def __init__(
        self,
        has_role: Callable[[str], bool],
        *,
        ttl_s: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._has_role = has_role
        self._ttl_s = ttl_s
        self._clock = clock
        self._seen: dict[str, tuple[bool, float]] = {}
        self._lock = threading.Lock()

    def is_screener(self, address: str) -> bool:
        address = _address(address, "screener")
        now = self._clock()
        with self._lock:
            hit = self._seen.get(address)
        if hit is not None and hit[1] > now:
            return hit[0]
        answer = bool(self._has_role(address))  # Unavailable propagates: nothing cached
        with self._lock:
            if len(self._seen) >= self.MAX_ENTRIES:
                self._seen.clear()
            self._seen[address] = (answer, now + self._ttl_s)
        return answer

    def require(self, address: str) -> str:
        address = _address(address, "screener")
        if not self.is_screener(address):
            raise exc.NotScreener(f"{address} does not hold the screener role")
        return address


def queue(*, session: Session, limit: int = 100) -> list[dict[str, Any]]:
    """Open applications, oldest first (the caller has checked the screener)."""
    if not 1 <= limit <= MAX_QUEUE:
        raise exc.EconomyValueError(f"limit must be 1..{MAX_QUEUE}, got {limit!r}")
    rows = session.scalars(
        select(ScreeningApplication)
        .where(ScreeningApplication.status == ScreeningStatus.PENDING)
        .order_by(ScreeningApplication.id)
        .limit(limit)
    )
    return [view(a) for a in rows]


def _pending(session: Session, application_id: int) -> ScreeningApplication:
    missing = exc.ApplicationNotFound(f"no application {application_id!r}")
    app = get_or_raise(session, ScreeningApplication, application_id, missing)
    if app.status != ScreeningStatus.PENDING:
        raise exc.ApplicationClosed(f"application {application_id} is already {app.status}")
    return app


def _decide(
    session: Session,
    which: ColumnElement[bool],
    status: str,
    *,
    was: str = ScreeningStatus.PENDING,
    **values: Any,
) -> int:
    """Move the applications that meet ``which`` and are still ``was`` to ``status`` (with
    ``values``), decided now: a guarded update, so one decided meanwhile is left alone. How
    many rows changed."""
    done = session.execute(
        update(ScreeningApplication)
        .where(which, ScreeningApplication.status == was)
        .values(status=status, **values, decided_at=utcnow())
    )
    return int(getattr(done, "rowcount", 0))


def reject(
    *,
    session: Session,
    application_id: int,
    screener: str,
    reason: str,
    limits: Limits = Limits(),
) -> dict[str, Any]:
    """A screener refuses an open application, off chain, with the reason the owner sees."""
    screener = _address(screener, "screener")
    reason = _text(reason, "reason", limits.reason_max_chars)
    _pending(session, application_id)
    which = ScreeningApplication.id == application_id
    done = _decide(session, which, ScreeningStatus.REJECTED, decided_by=screener, reason=reason)
    if done != 1:  # decided meanwhile by someone else
        session.rollback()
        raise exc.ApplicationClosed(f"application {application_id} was decided meanwhile")
    session.commit()
    return get(session=session, application_id=application_id)


def get(*, session: Session, application_id: int) -> dict[str, Any]:
    app = session.get(ScreeningApplication, application_id, populate_existing=True)
    if app is None:
        raise exc.ApplicationNotFound(f"no application {application_id!r}")
    return view(app)


def pending_applicant(*, session: Session, application_id: int) -> str:
    """The owner of an open application (to build the screener's approval for)."""
    return _pending(session, application_id).applicant


# --- the chain's word -----------------------------------------------------------------------


def _approve(session: Session, *, applicant: str, screener: str, tx_hash: str, block: int) -> int:
    """Mark the applicant's open application approved; how many rows changed (0 or 1)."""
    which = ScreeningApplication.applicant == applicant
    return _decide(
        session,
        which,
        ScreeningStatus.APPROVED,
        decided_by=screener,
        tx_hash=tx_hash,
        block_number=block,
    )


def on_owner_screened(
    session: Session, *, owner: str, approved: bool, screener: str, tx_hash: str, block: int
) -> None:
    """The registry indexer saw ``OwnerScreened`` (in its own transaction, not committed here)."""
    owner, screener = to_checksum_address(owner), to_checksum_address(screener)
    if approved:
        _approve(session, applicant=owner, screener=screener, tx_hash=tx_hash, block=block)
        return
    which = ScreeningApplication.applicant == owner
    _decide(
        session, which, ScreeningStatus.WITHDRAWN, was=ScreeningStatus.APPROVED, decided_by=screener
    )


def confirm_approval(
    *,
    session: Session,
    contracts: Contracts,
    application_id: int,
    tx_hash: str,
    confirmations: int = 1,
    reporter: str | None = None,
    may_screen: Callable[[], bool] = lambda: False,
) -> dict[str, Any]:
    """Approve an open application from the receipt of the screener's ``setScreened``.

    ``reporter`` (a route's caller) must be the applicant or a screener (``may_screen``);
    None is the server itself.

    The transaction must be mined ``confirmations`` deep, have succeeded, and log the
    registry's ``OwnerScreened(applicant, true)``; and the registry must say the applicant is
    screened now (an old approval, since withdrawn, proves nothing). A transaction already
    used for this applicant's earlier application is refused: a replay."""
    if not isinstance(tx_hash, str) or not _TX_HASH.match(tx_hash):
        raise exc.EconomyValueError(f"not a transaction hash: {tx_hash!r}")
    tx_hash = tx_hash.lower()
    app = session.get(ScreeningApplication, application_id)
    # Only the applicant and screeners may report (others learn nothing, not even that the
    # application exists, and cost the node nothing).
    if app is None or not (
        reporter is None or _address(reporter, "reporter") == app.applicant or may_screen()
    ):
        raise exc.ApplicationNotFound(f"no application {application_id!r}")
    if app.status == ScreeningStatus.APPROVED and app.tx_hash == tx_hash:
        return view(app)  # the same report twice: nothing more to do
    app = _pending(session, application_id)
    applicant = app.applicant
    used = session.scalar(
        select(ScreeningApplication.id).where(
            ScreeningApplication.applicant == applicant, ScreeningApplication.tx_hash == tx_hash
        )
    )
    if used is not None:
        raise exc.NotOnChain(f"{tx_hash} already approved application {used}")
    registry = contracts.registry
    w3 = contracts.w3
    try:
        receipt = w3.eth.get_transaction_receipt(HexBytes(tx_hash))
        head = int(w3.eth.block_number)
    except TransactionNotFound as error:
        raise exc.NotOnChain(f"{tx_hash} is not mined (yet)") from error
    except (Web3Exception, OSError) as error:
        raise exc.Unavailable(f"the chain node did not answer: {error}") from error
    block = int(receipt["blockNumber"])
    if int(receipt["status"]) != 1:
        raise exc.NotOnChain(f"{tx_hash} reverted")
    if head - block + 1 < max(1, confirmations):
        raise exc.NotOnChain(f"{tx_hash} is {head - block + 1} blocks deep; needs {confirmations}")
    event = registry.events.OwnerScreened()
    screener = None
    for log in receipt["logs"]:
        if to_checksum_address(log["address"]) != to_checksum_address(registry.address):
            continue
        if HexBytes(log["topics"][0]) != HexBytes(event.topic):
            continue
        args = event.process_log(log)["args"]
        if to_checksum_address(args["owner"]) == applicant and bool(args["approved"]):
            screener = to_checksum_address(args["screener"])
    if screener is None:
        raise exc.NotOnChain(f"{tx_hash} does not approve {applicant}")
    try:
        screened_now = bool(registry.functions.isScreened(applicant).call())
    except (Web3Exception, OSError) as error:
        raise exc.Unavailable(f"the chain node did not answer: {error}") from error
    if not screened_now:
        raise exc.NotOnChain(f"{applicant} is not screened on chain now")
    if _approve(session, applicant=applicant, screener=screener, tx_hash=tx_hash, block=block) != 1:
        session.rollback()
        raise exc.ApplicationClosed(f"application {application_id} was decided meanwhile")
    session.commit()
    return get(session=session, application_id=application_id)
