"""Compare what the database says was confirmed with what the contracts' events say happened.

Every confirmed settlement request must match exactly one ``MatchSettled`` event with the
same payout words, every ``MatchSettled`` must belong to a request, and every confirmed mint
request's token ids must be ``Transfer(0, recipient, id)`` events, each id exactly once.
Only blocks at the confirmation depth are read, so in-flight work is not a difference.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from eth_abi.abi import decode as abi_decode
from eth_utils.address import to_checksum_address
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from backend.chain.calls import (
    MATCH_SETTLED,
    TRANSFER,
    ZERO_TOPIC,
    event_abi,
    settlement_match,
)
from backend.chain.models import ChainRequest, ChainTx, RequestKind, RequestStatus
from backend.chain.rpc import Rpc

LOG_CHUNK = 5_000


@dataclass
class ReconcileReport:
    checked: int = 0
    settled_events: int = 0
    minted_events: int = 0
    differences: list[str] = field(default_factory=list)
    # Confirmed requests whose match id a transaction we did not sign had settled first (the
    # contract skipped ours): "burned" ids. The economy re-issues those matches under new ids
    # (``backend.economy.ledger``); here they are listed, not counted as differences.
    burned: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.differences


def _logs(rpc: Rpc, address: str, topics: list[Any], start: int, end: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for lo in range(start, end + 1, LOG_CHUNK):
        hi = min(lo + LOG_CHUNK - 1, end)
        out += rpc.call(
            "eth_getLogs",
            {"address": address, "topics": topics, "fromBlock": hex(lo), "toBlock": hex(hi)},
        )
    return out


def reconcile(
    *,
    session_factory: sessionmaker[Session],
    rpc: Rpc,
    calls: Any,
    chain_id: int,
    confirmations: int = 1,
    from_block: int | None = None,
) -> ReconcileReport:
    """Differences between confirmed requests and on-chain events (empty when the books agree)."""
    report = ReconcileReport()
    head = rpc.block_number() - max(confirmations - 1, 0)
    start = from_block if from_block is not None else calls.contracts.manifest.deployment_block
    settled = _logs(rpc, calls.settlement_address, [MATCH_SETTLED], start, head)
    minted = _logs(rpc, calls.avatar_address, [TRANSFER, ZERO_TOPIC], start, head)
    report.settled_events, report.minted_events = len(settled), len(minted)

    fields = [arg for arg in event_abi("MatchSettlement", "MatchSettled")["inputs"]]
    data_fields = [arg for arg in fields if not arg["indexed"]]
    events_by_match: dict[str, list[dict[str, Any]]] = {}
    for log in settled:
        values = abi_decode([a["type"] for a in data_fields], bytes.fromhex(log["data"][2:]))
        event = {a["name"]: v for a, v in zip(data_fields, values, strict=True)}
        event["_tx_hash"] = log["transactionHash"].lower()
        events_by_match.setdefault(log["topics"][1].lower(), []).append(event)
    mint_events = Counter(
        (to_checksum_address("0x" + log["topics"][2][-40:]), int(log["topics"][3], 16))
        for log in minted
    )
    minted_ids = Counter(token_id for _to, token_id in mint_events.elements())

    with session_factory() as session:
        requests = list(
            session.scalars(select(ChainRequest).where(ChainRequest.chain_id == chain_id))
        )
        # Which of the MatchSettled behind skipped requests came from a transaction we signed.
        skipped_by = [
            e["_tx_hash"]
            for r in requests
            if r.kind == RequestKind.SETTLE and (r.result or {}).get("outcome") == "already_settled"
            for e in events_by_match.get(r.payload["match_id"].lower(), [])
        ]
        ours = set(session.scalars(select(ChainTx.tx_hash).where(ChainTx.tx_hash.in_(skipped_by))))
    seen_ids: Counter[int] = Counter()
    for request in requests:
        if request.kind == RequestKind.SETTLE:
            match_id = request.payload["match_id"].lower()
            if (
                request.status in (RequestStatus.FAILED, RequestStatus.WAITING)
                and match_id in events_by_match
            ):
                report.differences.append(
                    f"request {request.id} (match {match_id}) is {request.status} "
                    "but was paid on chain"
                )
            if request.status != RequestStatus.CONFIRMED:
                continue
            report.checked += 1
            events = events_by_match.get(match_id, [])
            expected = settlement_match(request.payload)
            if len(events) != 1:
                report.differences.append(
                    f"request {request.id} (match {match_id}) confirmed but has "
                    f"{len(events)} MatchSettled events"
                )
                continue
            event = events[0]
            outcome = (request.result or {}).get("outcome")
            if outcome == "already_settled" and event["_tx_hash"] not in ours:
                report.burned.append(
                    {
                        "request_id": request.id,
                        "match_id": match_id,
                        "skipped_in_tx": request.tx_hash,
                        "settled_by_tx": event["_tx_hash"],
                        "paid": event.get("paid"),
                    }
                )
                continue
            if "resultHash" in event and event["resultHash"] != expected.result_hash:
                report.differences.append(
                    f"request {request.id} (match {match_id}) settled with another result hash"
                )
            paid = event.get("paid")
            if paid is not None and paid != expected.total:
                report.differences.append(
                    f"request {request.id} (match {match_id}) paid {paid} on chain, "
                    f"requested {expected.total}"
                )
            words = event.get("payouts")
            if words is not None and list(words) != [p.word for p in expected.payouts]:
                report.differences.append(
                    f"request {request.id} (match {match_id}) paid other payouts on chain"
                )
        elif request.kind == RequestKind.MINT and request.status == RequestStatus.CONFIRMED:
            report.checked += 1
            token_ids = (request.result or {}).get("token_ids", [])
            recipients = request.payload["recipients"]
            if len(token_ids) != len(recipients):
                report.differences.append(
                    f"mint request {request.id} has {len(token_ids)} ids for {len(recipients)}"
                )
            for recipient, token_id in zip(recipients, token_ids, strict=False):
                seen_ids[token_id] += 1
                if mint_events[(to_checksum_address(recipient), token_id)] != 1:
                    report.differences.append(
                        f"mint request {request.id}: no mint of avatar {token_id} to {recipient}"
                    )
    known = {r.payload["match_id"].lower() for r in requests if r.kind == RequestKind.SETTLE}
    for match_id in events_by_match:
        if match_id not in known:
            report.differences.append(f"match {match_id} settled on chain without a request")
    for token_id, count in seen_ids.items():
        if count > 1:
            report.differences.append(f"avatar {token_id} is claimed by {count} mint requests")
    for token_id, count in minted_ids.items():
        if count > 1:
            report.differences.append(f"avatar {token_id} minted {count} times")
    return report
