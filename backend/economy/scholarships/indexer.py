"""Follows the ``ScholarshipRegistry`` events, after confirmations, into the mirror tables.

Each run reads the blocks from the cursor up to the confirmed head and applies their events
in chain order in ONE database transaction that also advances the cursor, so an event is
applied exactly once: a crash before the commit leaves both the mirror and the cursor as
they were. Blocks short of the confirmation depth are never read, so a reorg above that
depth cannot leave a trace.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from eth_utils.address import to_checksum_address
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from backend.economy.chain_reader import ZERO_ADDRESS, ChainReader
from backend.economy.cursor import claim_block_range
from backend.economy.models import (
    AgreementMirror,
    AgreementStatus,
    ScreenedOwner,
)
from backend.economy.policy import PARTY_NAMES, TERMS_NAMES, Party, Terms
from backend.economy.scholarships import screening

logger = logging.getLogger(__name__)


@dataclass
class IndexReport:
    from_block: int
    to_block: int
    events: int


def cursor_name(reader: ChainReader) -> str:
    return f"registry:{reader.contracts.manifest.chain_id}:{reader.contracts.registry.address}"


def index_registry(
    *, session_factory: sessionmaker[Session], reader: ChainReader, max_blocks: int = 5_000
) -> IndexReport:
    """Apply the next confirmed range of registry events; returns what was read."""
    with session_factory() as session, session.begin():
        cursor, start, end = claim_block_range(
            session, name=cursor_name(reader), reader=reader, max_blocks=max_blocks
        )
        if end < start:
            return IndexReport(start, start - 1, 0)
        events = reader.registry_events(start, end)
        for event in events:
            _apply(session, event)
        cursor.next_block = end + 1
    if events:
        logger.info("registry indexer: %d events in blocks %d..%d", len(events), start, end)
    return IndexReport(start, end, len(events))


def _agreement(session: Session, agreement_id: int) -> AgreementMirror:
    row = session.get(AgreementMirror, agreement_id)
    if row is None:  # an offer before the cursor's start: the indexer started too late
        raise LookupError(f"agreement {agreement_id} has events but no AgreementOffered")
    return row


def _apply(session: Session, event: Any) -> None:
    name, args, block = event["event"], event["args"], event["blockNumber"]
    if name == "OwnerScreened":
        owner = to_checksum_address(args["owner"])
        screened = session.get(ScreenedOwner, owner)
        if screened is None:
            screened = ScreenedOwner(address=owner)
            session.add(screened)
        screened.approved = bool(args["approved"])
        screened.screener = to_checksum_address(args["screener"])
        screened.block_number = block
        screening.on_owner_screened(
            session,
            owner=owner,
            approved=screened.approved,
            screener=screened.screener,
            tx_hash="0x" + bytes(event["transactionHash"]).hex(),
            block=block,
        )
        return
    if name == "OffersCancelled":
        # Every offer this owner made for the avatar before this event had an older nonce.
        owner = to_checksum_address(args["owner"])
        for offer in session.scalars(
            select(AgreementMirror).where(
                AgreementMirror.owner == owner,
                AgreementMirror.avatar_id == int(args["avatarId"]),
                AgreementMirror.status == AgreementStatus.OFFERED,
            )
        ):
            offer.status = AgreementStatus.CANCELLED
            offer.updated_block = block
        return
    agreement_id = int(args["agreementId"])
    if name == "AgreementOffered":
        t = args["terms"]
        scholar = args["scholar"]
        manager = t["manager"]
        session.add(
            AgreementMirror(
                id=agreement_id,
                avatar_id=int(args["avatarId"]),
                owner=to_checksum_address(args["owner"]),
                scholar=to_checksum_address(scholar) if scholar != ZERO_ADDRESS else None,
                terms=TERMS_NAMES[Terms(t["terms"])],
                duration_s=int(t["duration"]),
                rent=str(int(t["rent"])),
                owner_bps=int(t["ownerBps"]),
                manager_bps=int(t["managerBps"]),
                manager=to_checksum_address(manager) if manager != ZERO_ADDRESS else None,
                dust_to=PARTY_NAMES[Party(t["dustTo"])],
                valid_until=int(t["validUntil"]),
                status=AgreementStatus.OFFERED,
                offered_block=block,
                updated_block=block,
            )
        )
        session.flush()
        return
    row = _agreement(session, agreement_id)
    row.updated_block = block
    if name == "OfferCancelled":
        row.status = AgreementStatus.CANCELLED
    elif name == "AgreementAccepted":
        ends_at = int(args["endsAt"])
        row.status = AgreementStatus.ACTIVE
        row.scholar = to_checksum_address(args["scholar"])
        row.ends_at = ends_at
        row.starts_at = ends_at - row.duration_s
        row.rent_escrowed = str(int(args["rentEscrowed"]))
    elif name == "RentPaid":
        row.rent_paid = str(int(row.rent_paid) + int(args["amount"]))
    elif name == "AgreementTerminated":
        row.status = AgreementStatus.ENDED
        row.ended_by = "terminated"
        row.ended_at = int(args["endedAt"])
        row.rent_refunded = str(int(args["refundToScholar"]))
    elif name == "AgreementExpired":
        row.status = AgreementStatus.ENDED
        row.ended_by = "expired"
        row.ended_at = row.ends_at
    elif name == "AgreementReclaimed":
        row.status = AgreementStatus.ENDED
        row.ended_by = "reclaimed"
        row.ended_at = int(args["endedAt"])
