"""Mirror tables of the shop, the market, accessories and avatars, and the markets ledger.

Every row here is written by the indexer from confirmed events (``backend.markets.indexer``)
except ``CatalogEntry``, the operator's names and images for what the shop sells. Amounts
and token ids are decimal strings: they are uint256 on chain (SQLite would turn a NUMERIC
into a float).
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, Boolean, DateTime, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from backend.db.base import Base, utcnow


def event_seq(block_number: int, log_index: int) -> int:
    """An event's place in chain order as one integer (a block holds far fewer than 2**20
    logs)."""
    return block_number * 2**20 + log_index


class ItemKind:
    AVATAR = "avatar"
    ACCESSORY = "accessory"
    VIP = "vip"
    CENTER = "center"


class ListingStatus:
    """A market listing's state. ``open`` rows can still be shown ``expired`` or ``stale``
    by the reads: those depend on the clock and on the seller's holdings, not on an event."""

    OPEN = "open"
    SOLD = "sold"
    CANCELLED = "cancelled"
    EXPIRED = "expired"
    STALE = "stale"


class EntryKind:
    """A ledger entry: who paid whom for what. ``shop_purchase``: buyer -> treasury (the
    shop's price); ``sale``: buyer -> seller (price less royalty and fee); ``royalty``:
    buyer -> the ERC-2981 receiver; ``fee``: buyer -> a market fee leg's payee."""

    SHOP_PURCHASE = "shop_purchase"
    SALE = "sale"
    ROYALTY = "royalty"
    FEE = "fee"


class ShopListing(Base):
    """Mirror of one ``Shop`` listing (``ShopListed``, ``ShopListingUpdated``, purchases)."""

    __tablename__ = "markets_shop_listings"

    listing_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    item: Mapped[str] = mapped_column(String(42), index=True)  # the item contract
    item_kind: Mapped[str] = mapped_column(String(16))
    item_id: Mapped[str] = mapped_column(String(80))
    price: Mapped[str] = mapped_column(String(80))
    supply: Mapped[int] = mapped_column(BigInteger)
    sold: Mapped[int] = mapped_column(BigInteger, default=0)
    vip_term_s: Mapped[int] = mapped_column(BigInteger, default=0)
    open: Mapped[bool] = mapped_column(Boolean, default=True)
    listed_block: Mapped[int] = mapped_column(BigInteger)
    updated_block: Mapped[int] = mapped_column(BigInteger)


class MarketListing(Base):
    """Mirror of one ``Market`` listing; ``status`` is open, sold or cancelled here."""

    __tablename__ = "markets_listings"

    listing_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    seller: Mapped[str] = mapped_column(String(42), index=True)
    token: Mapped[str] = mapped_column(String(42), index=True)
    item_kind: Mapped[str] = mapped_column(String(16))
    token_id: Mapped[str] = mapped_column(String(80))
    amount: Mapped[str] = mapped_column(String(80))
    price: Mapped[str] = mapped_column(String(80))
    expires_at: Mapped[int] = mapped_column(BigInteger)
    status: Mapped[str] = mapped_column(String(16), index=True)
    buyer: Mapped[str | None] = mapped_column(String(42))
    listed_block: Mapped[int] = mapped_column(BigInteger)
    listed_seq: Mapped[int] = mapped_column(BigInteger, default=0)  # its Listed's event_seq
    updated_block: Mapped[int] = mapped_column(BigInteger)


class AvatarState(Base):
    """Who owns each avatar and who may play it now (``Transfer``, ``UpdateUser`` and the
    registry's rental lock)."""

    __tablename__ = "markets_avatars"

    avatar_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    owner: Mapped[str] = mapped_column(String(42), index=True)
    user: Mapped[str | None] = mapped_column(String(42), index=True)
    user_expires: Mapped[int] = mapped_column(BigInteger, default=0)
    # The end of a scholarship's rental lock (0: none): no transfer, no unequip before it.
    rented_until: Mapped[int] = mapped_column(BigInteger, default=0)
    # Where (``event_seq``) its owner or equipped set last changed: the market pins both
    # when the avatar is listed, so a listing older than this is stale.
    changed_seq: Mapped[int] = mapped_column(BigInteger, default=0)
    updated_block: Mapped[int] = mapped_column(BigInteger)


class AccessoryType(Base):
    """One accessory type as the chain defined it."""

    __tablename__ = "markets_accessory_types"

    type_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    max_supply: Mapped[str] = mapped_column(String(80))
    total_supply: Mapped[str] = mapped_column(String(80), default="0")
    uri: Mapped[str] = mapped_column(Text, default="")
    defined_block: Mapped[int] = mapped_column(BigInteger)


class AccessoryBalance(Base):
    """A wallet's loose (unequipped) accessories of one type."""

    __tablename__ = "markets_accessory_balances"

    address: Mapped[str] = mapped_column(String(42), primary_key=True)
    type_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    balance: Mapped[str] = mapped_column(String(80), default="0")


class Equipment(Base):
    """What an avatar wears: held by the Accessories contract for the avatar, so it goes
    with the avatar to whoever owns it."""

    __tablename__ = "markets_equipment"

    avatar_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    type_id: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    equipped_block: Mapped[int] = mapped_column(BigInteger)


class MarketApproval(Base):
    """``ApprovalForAll(owner, market, approved)`` of the avatar and accessory contracts: a
    listing whose seller withdrew it is stale."""

    __tablename__ = "markets_approvals"

    token: Mapped[str] = mapped_column(String(42), primary_key=True)
    owner: Mapped[str] = mapped_column(String(42), primary_key=True)
    approved: Mapped[bool] = mapped_column(Boolean)


class CatalogEntry(Base):
    """The operator's name, image and slot for an item type the shop sells (off chain)."""

    __tablename__ = "markets_catalog"

    item_kind: Mapped[str] = mapped_column(String(16), primary_key=True)
    item_id: Mapped[str] = mapped_column(String(80), primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    image: Mapped[str] = mapped_column(String(512), default="")
    slot: Mapped[str | None] = mapped_column(String(32))


class MarketLedgerEntry(Base):
    """One DEW leg of a shop purchase or a market sale, booked from its confirmed event.

    ``(tx_hash, log_index, leg)`` is unique: an event is booked once however often the
    indexer reads it. ``reconcile_markets`` proves these legs equal the DEW ``Transfer``
    events of their transactions, to the unit."""

    __tablename__ = "markets_ledger_entries"
    __table_args__ = (UniqueConstraint("tx_hash", "log_index", "leg"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(16), index=True)
    source: Mapped[str] = mapped_column(String(8))  # shop|market
    listing_id: Mapped[int] = mapped_column(BigInteger)
    payer: Mapped[str] = mapped_column(String(42), index=True)
    payee: Mapped[str] = mapped_column(String(42), index=True)
    amount: Mapped[str] = mapped_column(String(80))
    token: Mapped[str] = mapped_column(String(42))
    item_id: Mapped[str] = mapped_column(String(80))
    tx_hash: Mapped[str] = mapped_column(String(66), index=True)
    log_index: Mapped[int] = mapped_column(Integer)
    leg: Mapped[int] = mapped_column(Integer)
    block_number: Mapped[int] = mapped_column(BigInteger, index=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
