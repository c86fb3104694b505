"""The markets ledger: every DEW leg of a shop purchase or a market sale, and its proof.

``book`` turns a confirmed ``ShopPurchase`` or ``Sold`` event into legs, from the event's
own numbers and the contracts' declared payees (the shop's treasury, the item's ERC-2981
receiver, the market's fee recipient), never from the DEW transfers themselves: so that
``reconcile_markets`` can prove, independently, that the legs equal the DEW ``Transfer``
events of each transaction, to the unit, and that every sale has its legs and every leg
its sale.

    shop purchase:  buyer -> treasury            price
    market sale:    buyer -> royalty receiver    royalty   (ERC-2981, the treasury)
                    buyer -> fee recipient       fee       (the market's feeBps)
                    buyer -> seller              price - royalty - fee
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass, field

from eth_utils.address import to_checksum_address
from sqlalchemy import select
from sqlalchemy.orm import Session

from backend.markets.chain_reader import MarketEvent, MarketReader
from backend.markets.models import (
    EntryKind,
    ListingStatus,
    MarketLedgerEntry,
    MarketListing,
    ShopListing,
)

logger = logging.getLogger(__name__)


class UnknownPayee(LookupError):
    """Neither the contract nor the settings name who a purchase's proceeds go to."""


def _legs(
    reader: MarketReader, event: MarketEvent, treasury: str | None
) -> list[tuple[str, str, int]]:
    """(kind, payee, amount) of one purchase or sale; zero legs are left out."""
    a = event.args
    if event.name == "ShopPurchase":
        payee = reader.treasury_of("shop", event.block_number) or treasury
        if payee is None:
            raise UnknownPayee(f"shop purchase in {event.tx_hash}: no treasury")
        return [(EntryKind.SHOP_PURCHASE, payee, int(a["price"]))]
    price, royalty, fee = int(a["price"]), int(a["royalty"]), int(a["fee"])
    legs: list[tuple[str, str, int]] = []
    if royalty:
        receiver = reader.royalty_receiver(a["token"], int(a["id"]), price, event.block_number)
        payee = receiver or treasury
        if payee is None:
            raise UnknownPayee(f"royalty in {event.tx_hash}: no receiver")
        legs.append((EntryKind.ROYALTY, payee, royalty))
    if fee:
        payee = reader.treasury_of("market", event.block_number) or treasury
        if payee is None:
            raise UnknownPayee(f"market fee in {event.tx_hash}: no recipient")
        legs.append((EntryKind.FEE, payee, fee))
    legs.append((EntryKind.SALE, to_checksum_address(a["seller"]), price - royalty - fee))
    return [leg for leg in legs if leg[2]]


def book(session: Session, reader: MarketReader, event: MarketEvent, treasury: str | None) -> int:
    """Book a confirmed purchase or sale once, and mark its listing; returns legs added."""
    a = event.args
    listing_id = int(a["listingId"])
    buyer = to_checksum_address(a["buyer"])
    source = "shop" if event.name == "ShopPurchase" else "market"
    shop, listing = None, None
    if source == "shop":
        shop = session.get(ShopListing, listing_id)
        if shop is None:
            raise LookupError(f"shop listing {listing_id} sold but never listed")
        token, item_id = to_checksum_address(a["item"]), str(int(a["tokenId"]))
    else:
        listing = session.get(MarketListing, listing_id)
        if listing is None:
            raise LookupError(f"market listing {listing_id} sold but never listed")
        token, item_id = to_checksum_address(a["token"]), str(int(a["id"]))
    exists = session.scalar(
        select(MarketLedgerEntry.id).where(
            MarketLedgerEntry.tx_hash == event.tx_hash,
            MarketLedgerEntry.log_index == event.log_index,
        )
    )
    if exists is not None:  # booked by an earlier pass: nothing twice
        return 0
    if event.name == "ShopPurchase":
        assert shop is not None
        shop.sold += 1
        shop.updated_block = event.block_number
    else:
        assert listing is not None
        listing.status = ListingStatus.SOLD
        listing.buyer = buyer
        listing.updated_block = event.block_number
    added = 0
    for leg, (kind, payee, amount) in enumerate(_legs(reader, event, treasury)):
        session.add(
            MarketLedgerEntry(
                kind=kind,
                source=source,
                listing_id=listing_id,
                payer=buyer,
                payee=payee,
                amount=str(amount),
                token=token,
                item_id=item_id,
                tx_hash=event.tx_hash,
                log_index=event.log_index,
                leg=leg,
                block_number=event.block_number,
            )
        )
        added += 1
    session.flush()
    return added


# --- reconciliation -----------------------------------------------------------------------


@dataclass
class MarketsReconciliation:
    purchases_checked: int = 0
    sales_checked: int = 0
    legs_checked: int = 0
    volume: int = 0  # DEW wei moved by every checked purchase and sale
    differences: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.differences


def reconcile_markets(
    *, session: Session, reader: MarketReader, end_block: int | None = None
) -> MarketsReconciliation:
    """Prove the markets ledger equals the chain: every confirmed ``ShopPurchase`` and
    ``Sold`` has its legs, every leg its event, and in each of their transactions the legs,
    as (payer, payee) sums, equal the DEW ``Transfer`` events, to the unit."""
    report = MarketsReconciliation()
    end = reader.safe_head() if end_block is None else end_block
    sales = [
        e
        for e in reader.events(reader.start_block, end)
        if (e.source, e.name) in (("shop", "ShopPurchase"), ("market", "Sold"))
    ]
    entries = list(
        session.scalars(
            select(MarketLedgerEntry)
            .where(MarketLedgerEntry.block_number <= end)
            .order_by(MarketLedgerEntry.id)
        )
    )
    by_event: dict[tuple[str, int], list[MarketLedgerEntry]] = {}
    for entry in entries:
        by_event.setdefault((entry.tx_hash, entry.log_index), []).append(entry)
    seen: set[tuple[str, int]] = set()
    for event in sales:
        key = (event.tx_hash, event.log_index)
        seen.add(key)
        legs = by_event.get(key, [])
        if event.name == "ShopPurchase":
            report.purchases_checked += 1
        else:
            report.sales_checked += 1
        if not legs:
            report.differences.append(f"{event.name} {key}: no ledger entry")
            continue
        price = int(event.args["price"])
        if sum(int(x.amount) for x in legs) != price:
            report.differences.append(
                f"{event.name} {key}: ledger {sum(int(x.amount) for x in legs)}, price {price}"
            )
    for key in by_event:
        if key not in seen:
            report.differences.append(f"ledger entry {key} has no ShopPurchase or Sold event")
    for tx_hash in sorted({key[0] for key in seen}):
        ledger_moves: Counter[tuple[str, str]] = Counter()
        for (tx, _), legs in by_event.items():
            if tx == tx_hash:
                for x in legs:
                    ledger_moves[(x.payer, x.payee)] += int(x.amount)
                    report.legs_checked += 1
        chain_moves: Counter[tuple[str, str]] = Counter()
        for transfer in reader.dew_transfers(tx_hash):
            chain_moves[(transfer.sender, transfer.recipient)] += transfer.amount
        report.volume += sum(chain_moves.values())
        if +ledger_moves != +chain_moves:
            report.differences.append(
                f"tx {tx_hash}: ledger moved {dict(ledger_moves)}, DEW Transfer events "
                f"{dict(chain_moves)}"
            )
    for difference in report.differences:
        logger.error("markets reconciliation: %s", difference)
    return report
