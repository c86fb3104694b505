"""Follows the Shop, Market, Accessories and AvatarNFT events, after confirmations, into the
markets mirror and ledger.

A follower of the chain kit (``backend.chain.follower``): each run applies the next
confirmed range's events in chain order in ONE transaction that also advances the cursor, so
a crash before the commit leaves mirror, ledger and cursor as they were, and a reorg above
the confirmation depth leaves no trace. Ledger entries are also unique on (tx hash, log
index, leg): a replayed range books nothing twice.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from eth_utils.address import to_checksum_address
from sqlalchemy.orm import Session, sessionmaker

from backend.chain.follower import ZERO_ADDRESS, FollowReport, claimed_range
from backend.markets import ledger
from backend.markets.chain_reader import MarketEvent, MarketReader
from backend.markets.models import (
    AccessoryBalance,
    AccessoryType,
    AvatarState,
    Equipment,
    ListingStatus,
    MarketApproval,
    MarketListing,
    ShopListing,
    event_seq,
)

logger = logging.getLogger(__name__)


@dataclass
class IndexReport(FollowReport):
    booked: int = 0


def cursor_name(reader: MarketReader) -> str:
    return f"markets:{reader.contracts.manifest.chain_id}:{reader.contracts.market.address}"


def index_markets(
    *,
    session_factory: sessionmaker[Session],
    reader: MarketReader,
    max_blocks: int = 5_000,
    treasury: str | None = None,
) -> IndexReport:
    """Apply the next confirmed range of markets events; returns what was read.

    ``treasury`` names the proceeds' payee when the contracts do not say (settings)."""
    name = cursor_name(reader)
    with claimed_range(session_factory, name=name, reader=reader, max_blocks=max_blocks) as (
        session,
        blocks,
    ):
        if blocks.empty:
            return IndexReport(blocks.start, blocks.start - 1, 0)
        events = reader.events(blocks.start, blocks.end)
        booked = sum(_apply(session, reader, event, treasury) for event in events)
    if events:
        logger.info("%s: %d events in blocks %d..%d", name, len(events), blocks.start, blocks.end)
    return IndexReport(blocks.start, blocks.end, len(events), booked)


def _apply(session: Session, reader: MarketReader, event: MarketEvent, treasury: str | None) -> int:
    """Mirror one event; returns the number of ledger entries it booked."""
    key = (event.source, event.name)
    if key in _BOOKED:  # a purchase or a sale: its ledger legs and its listing
        return ledger.book(session, reader, event, treasury)
    handler = _HANDLERS.get(key)
    if handler is not None:
        handler(session, reader, event)
        session.flush()
    return 0


# --- avatars ------------------------------------------------------------------------------


def _avatar_transfer(session: Session, reader: MarketReader, event: MarketEvent) -> None:
    a = event.args
    avatar_id, to = int(a["tokenId"]), to_checksum_address(a["to"])
    row = session.get(AvatarState, avatar_id)
    if row is None:
        row = AvatarState(avatar_id=avatar_id, owner=to, user_expires=0, rented_until=0)
        session.add(row)
    elif row.owner != to:
        # ERC-4907: a new owner does not inherit the old owner's user.
        row.user, row.user_expires = None, 0
    row.owner = to
    row.changed_seq = event_seq(event.block_number, event.log_index)
    row.updated_block = event.block_number


def _avatar_row(session: Session, avatar_id: int, block: int) -> AvatarState:
    row = session.get(AvatarState, avatar_id)
    if row is None:  # an event before the cursor's start: the indexer started too late
        raise LookupError(f"avatar {avatar_id} has events but no mint")
    row.updated_block = block
    return row


def _update_user(session: Session, reader: MarketReader, event: MarketEvent) -> None:
    a = event.args
    row = _avatar_row(session, int(a["tokenId"]), event.block_number)
    user = to_checksum_address(a["user"])
    row.user = None if user == to_checksum_address(ZERO_ADDRESS) else user
    row.user_expires = int(a["expires"])


def _rental_started(session: Session, reader: MarketReader, event: MarketEvent) -> None:
    row = _avatar_row(session, int(event.args["tokenId"]), event.block_number)
    row.rented_until = int(event.args["expires"])


def _rental_ended(session: Session, reader: MarketReader, event: MarketEvent) -> None:
    row = _avatar_row(session, int(event.args["tokenId"]), event.block_number)
    row.rented_until = 0


def _approval(session: Session, reader: MarketReader, event: MarketEvent) -> None:
    a = event.args
    if to_checksum_address(a["operator"]) != to_checksum_address(reader.contracts.market.address):
        return
    token = to_checksum_address(reader.bound[event.source].address)
    owner = to_checksum_address(a["owner"] if "owner" in a else a["account"])
    row = session.get(MarketApproval, (token, owner))
    if row is None:
        session.add(MarketApproval(token=token, owner=owner, approved=bool(a["approved"])))
    else:
        row.approved = bool(a["approved"])


# --- accessories --------------------------------------------------------------------------


def _type_defined(session: Session, reader: MarketReader, event: MarketEvent) -> None:
    a = event.args
    type_id = int(a["typeId"])
    row = session.get(AccessoryType, type_id) or AccessoryType(type_id=type_id, total_supply="0")
    row.max_supply = str(int(a.get("maxSupply", 0)))
    row.uri = str(a.get("uri", ""))
    row.defined_block = event.block_number
    session.add(row)


def _move_accessory(
    session: Session, reader: MarketReader, sender: str, to: str, type_id: int, amount: int
) -> None:
    zero = to_checksum_address(ZERO_ADDRESS)
    kind = session.get(AccessoryType, type_id)
    if sender == zero and kind is not None:
        kind.total_supply = str(int(kind.total_supply) + amount)
    if to == zero and kind is not None:
        kind.total_supply = str(int(kind.total_supply) - amount)
    for address, delta in ((sender, -amount), (to, amount)):
        if address == zero:
            continue
        row = session.get(AccessoryBalance, (address, type_id))
        if row is None:
            row = AccessoryBalance(address=address, type_id=type_id, balance="0")
            session.add(row)
        row.balance = str(int(row.balance) + delta)


def _transfer_single(session: Session, reader: MarketReader, event: MarketEvent) -> None:
    a = event.args
    _move_accessory(
        session,
        reader,
        to_checksum_address(a["from"]),
        to_checksum_address(a["to"]),
        int(a["id"]),
        int(a["value"]),
    )
    session.flush()


def _transfer_batch(session: Session, reader: MarketReader, event: MarketEvent) -> None:
    a = event.args
    sender, to = to_checksum_address(a["from"]), to_checksum_address(a["to"])
    for type_id, amount in zip(a["ids"], a["values"], strict=True):
        _move_accessory(session, reader, sender, to, int(type_id), int(amount))
        session.flush()


def _equipment_changed(session: Session, event: MarketEvent) -> None:
    row = _avatar_row(session, int(event.args["avatarId"]), event.block_number)
    row.changed_seq = event_seq(event.block_number, event.log_index)


def _equipped(session: Session, reader: MarketReader, event: MarketEvent) -> None:
    _equipment_changed(session, event)
    key = (int(event.args["avatarId"]), int(event.args["typeId"]))
    if session.get(Equipment, key) is None:
        session.add(Equipment(avatar_id=key[0], type_id=key[1], equipped_block=event.block_number))


def _unequipped(session: Session, reader: MarketReader, event: MarketEvent) -> None:
    _equipment_changed(session, event)
    row = session.get(Equipment, (int(event.args["avatarId"]), int(event.args["typeId"])))
    if row is not None:
        session.delete(row)


# --- the shop and the market --------------------------------------------------------------


def _shop_listed(session: Session, reader: MarketReader, event: MarketEvent) -> None:
    a = event.args
    item = to_checksum_address(a["item"])
    session.add(
        ShopListing(
            listing_id=int(a["listingId"]),
            item=item,
            item_kind=reader.item_kind(item),
            item_id=str(int(a["itemId"])),
            price=str(int(a["price"])),
            supply=int(a["supply"]),
            sold=0,
            vip_term_s=int(a.get("vipTerm", 0)),
            open=True,
            listed_block=event.block_number,
            updated_block=event.block_number,
        )
    )


def _shop_updated(session: Session, reader: MarketReader, event: MarketEvent) -> None:
    row = session.get(ShopListing, int(event.args["listingId"]))
    if row is None:
        raise LookupError(f"shop listing {event.args['listingId']} updated but never listed")
    row.price = str(int(event.args["price"]))
    row.open = bool(event.args["open"])
    row.updated_block = event.block_number


def _listed(session: Session, reader: MarketReader, event: MarketEvent) -> None:
    a = event.args
    token = to_checksum_address(a["token"])
    session.add(
        MarketListing(
            listing_id=int(a["listingId"]),
            seller=to_checksum_address(a["seller"]),
            token=token,
            item_kind=reader.item_kind(token),
            token_id=str(int(a["id"])),
            amount=str(int(a["amount"])),
            price=str(int(a["price"])),
            expires_at=int(a["expiresAt"]),
            status=ListingStatus.OPEN,
            listed_block=event.block_number,
            listed_seq=event_seq(event.block_number, event.log_index),
            updated_block=event.block_number,
        )
    )


def _cancelled(session: Session, reader: MarketReader, event: MarketEvent) -> None:
    row = session.get(MarketListing, int(event.args["listingId"]))
    if row is None:
        raise LookupError(f"market listing {event.args['listingId']} cancelled but never listed")
    row.status = ListingStatus.CANCELLED
    row.updated_block = event.block_number


_HANDLERS = {
    ("avatar", "Transfer"): _avatar_transfer,
    ("avatar", "UpdateUser"): _update_user,
    ("avatar", "AvatarRentalStarted"): _rental_started,
    ("avatar", "AvatarRentalEnded"): _rental_ended,
    ("avatar", "ApprovalForAll"): _approval,
    ("accessories", "ApprovalForAll"): _approval,
    ("accessories", "TypeDefined"): _type_defined,
    ("accessories", "AccessoryTypeDefined"): _type_defined,
    ("accessories", "TransferSingle"): _transfer_single,
    ("accessories", "TransferBatch"): _transfer_batch,
    ("accessories", "Equipped"): _equipped,
    ("accessories", "Unequipped"): _unequipped,
    ("shop", "ShopListed"): _shop_listed,
    ("shop", "ShopListingUpdated"): _shop_updated,
    ("shop", "ShopListingSet"): _shop_updated,
    ("market", "Listed"): _listed,
    ("market", "Cancelled"): _cancelled,
}
_BOOKED = frozenset({("shop", "ShopPurchase"), ("market", "Sold")})
