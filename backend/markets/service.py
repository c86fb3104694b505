"""Read-side views of the markets mirror for the API, the CLI and the demo. Nothing here
writes, and nothing here calls the chain: expiry and staleness are judged from the mirror
and a chain time the caller passes (``MarketReader.chain_time``)."""

from __future__ import annotations

from collections.abc import Iterable

from eth_utils.address import is_address, to_checksum_address
from sqlalchemy import (
    BigInteger,
    ColumnElement,
    SQLColumnExpression,
    and_,
    case,
    cast,
    exists,
    func,
    literal,
    or_,
    select,
)
from sqlalchemy.orm import Session

from backend.db.base import get_or_raise
from backend.markets.exceptions import AvatarNotFound, ListingNotFound, MarketsValueError
from backend.markets.models import (
    AccessoryBalance,
    AccessoryType,
    AvatarState,
    CatalogEntry,
    EntryKind,
    Equipment,
    ItemKind,
    ListingStatus,
    MarketApproval,
    MarketLedgerEntry,
    MarketListing,
    ShopListing,
)

# A page of listings is at most this long; an offset beyond MAX_OFFSET is refused (a deep
# page is a scan the database does for nothing).
MAX_PAGE = 100
MAX_OFFSET = 10_000


def checksum(value: str, what: str = "address") -> str:
    if not isinstance(value, str) or not is_address(value):
        raise MarketsValueError(f"{what} is not an address: {value!r}")
    return to_checksum_address(value)


def _catalog(session: Session, kind: str, item_id: str) -> CatalogEntry | None:
    return session.get(CatalogEntry, (kind, item_id))


def _accessory_out(session: Session, type_id: int) -> dict[str, object]:
    entry = _catalog(session, ItemKind.ACCESSORY, str(type_id))
    kind = session.get(AccessoryType, type_id)
    return {
        "type_id": type_id,
        "name": entry.name if entry else f"Accessory #{type_id}",
        "image": entry.image if entry and entry.image else (kind.uri if kind else ""),
        "slot": entry.slot if entry else None,
    }


def shop_listings(*, session: Session, include_closed: bool = False) -> list[dict[str, object]]:
    """The shop's listings (open ones only unless asked), oldest first."""
    query = select(ShopListing).order_by(ShopListing.listing_id).limit(MAX_PAGE * 10)
    if not include_closed:
        query = query.where(ShopListing.open.is_(True))
    out = []
    for row in session.scalars(query):
        entry = _catalog(session, row.item_kind, row.item_id)
        out.append(
            {
                "listing_id": row.listing_id,
                "item": row.item,
                "item_kind": row.item_kind,
                "item_id": row.item_id,
                "name": entry.name if entry else f"{row.item_kind} #{row.item_id}",
                "image": entry.image if entry else "",
                "price": row.price,
                "supply": row.supply,
                "sold": row.sold,
                "vip_term_s": row.vip_term_s,
                "open": row.open and row.sold < row.supply,
            }
        )
    return out


def get_shop_listing(*, session: Session, listing_id: int) -> ShopListing:
    return get_or_raise(
        session, ShopListing, listing_id, ListingNotFound(f"no shop listing {listing_id}")
    )


def get_listing(*, session: Session, listing_id: int) -> MarketListing:
    return get_or_raise(
        session, MarketListing, listing_id, ListingNotFound(f"no market listing {listing_id}")
    )


def _covers(
    balance: SQLColumnExpression[str], amount: SQLColumnExpression[str]
) -> ColumnElement[bool]:
    """``balance >= amount`` for canonical decimal strings (no leading zeros), exactly: a
    longer number is larger, and equal lengths compare digit by digit."""
    longer = func.length(balance) > func.length(amount)
    return or_(longer, and_(func.length(balance) == func.length(amount), balance >= amount))


def status_of(now_s: int) -> ColumnElement[str]:
    """A listing's status as SQL, so that a filter on it is part of the query and a page is
    full: ``sold`` and ``cancelled`` as booked; an open listing is ``expired`` past its end,
    ``stale`` when its seller no longer holds the item, withdrew the market's approval, the
    avatar is rented, or the avatar moved or changed what it wears since it was listed (the
    market pins its transfer count and equipped set), else ``open``."""
    item_id = cast(MarketListing.token_id, BigInteger)
    approved = exists().where(
        MarketApproval.token == MarketListing.token,
        MarketApproval.owner == MarketListing.seller,
        MarketApproval.approved.is_(True),
    )
    avatar_held = exists().where(
        AvatarState.avatar_id == item_id,
        AvatarState.owner == MarketListing.seller,
        AvatarState.rented_until <= now_s,
        AvatarState.changed_seq <= MarketListing.listed_seq,  # pinned at listing
    )
    accessory_held = exists().where(
        AccessoryBalance.address == MarketListing.seller,
        AccessoryBalance.type_id == item_id,
        _covers(AccessoryBalance.balance, MarketListing.amount),
    )
    avatar = MarketListing.item_kind == ItemKind.AVATAR
    return case(
        (MarketListing.status != ListingStatus.OPEN, MarketListing.status),
        (
            and_(MarketListing.expires_at != 0, MarketListing.expires_at <= now_s),
            literal(str(ListingStatus.EXPIRED)),
        ),
        (~approved, literal(str(ListingStatus.STALE))),
        (and_(avatar, ~avatar_held), literal(str(ListingStatus.STALE))),
        (and_(~avatar, ~accessory_held), literal(str(ListingStatus.STALE))),
        else_=literal(str(ListingStatus.OPEN)),
    )


def listing_status(session: Session, row: MarketListing, now_s: int) -> str:
    """The status (``status_of``) of one listing."""
    query = select(status_of(now_s)).where(MarketListing.listing_id == row.listing_id)
    return str(session.scalar(query))


def listing_out(row: MarketListing, status: str) -> dict[str, object]:
    return {
        "listing_id": row.listing_id,
        "seller": row.seller,
        "token": row.token,
        "item_kind": row.item_kind,
        "id": row.token_id,
        "amount": row.amount,
        "price": row.price,
        "expires_at": row.expires_at,
        "status": status,
        "buyer": row.buyer,
    }


def listings(
    *,
    session: Session,
    now_s: int,
    token: str | None = None,
    seller: str | None = None,
    status: str | None = None,
    limit: int = 50,
    offset: int = 0,
) -> list[dict[str, object]]:
    """Market listings, newest first, filtered by item contract (or kind), seller and status.

    ``token`` is a contract address or ``avatar``/``accessory``; ``status`` is the derived
    status (``status_of``), filtered in the query, so a page holds ``limit`` rows while
    there are more."""
    if not 1 <= limit <= MAX_PAGE or not 0 <= offset <= MAX_OFFSET:
        raise MarketsValueError(f"limit must be 1..{MAX_PAGE} and offset 0..{MAX_OFFSET}")
    derived = status_of(now_s)
    query = select(MarketListing, derived).order_by(MarketListing.listing_id.desc())
    if token in (ItemKind.AVATAR, ItemKind.ACCESSORY):
        query = query.where(MarketListing.item_kind == token)
    elif token is not None:
        query = query.where(MarketListing.token == checksum(token, "token"))
    if seller is not None:
        query = query.where(MarketListing.seller == checksum(seller, "seller"))
    if status is not None:
        # The booked status first, which its index serves: only open rows are judged further
        # (a filter the script picks must not make every listing's subqueries run).
        booked = (
            status
            if status in (ListingStatus.SOLD, ListingStatus.CANCELLED)
            else ListingStatus.OPEN
        )
        query = query.where(MarketListing.status == booked, derived == status)
    rows = session.execute(query.limit(limit).offset(offset))
    return [listing_out(row, derived_status) for row, derived_status in rows]


def _equipped(session: Session, avatar_ids: Iterable[int]) -> dict[int, list[int]]:
    ids = list(avatar_ids)
    out: dict[int, list[int]] = {a: [] for a in ids}
    if not ids:
        return out
    for row in session.scalars(
        select(Equipment).where(Equipment.avatar_id.in_(ids)).order_by(Equipment.type_id)
    ):
        out[row.avatar_id].append(row.type_id)
    return out


def avatar_view(*, session: Session, avatar_id: int, now_s: int) -> dict[str, object]:
    """An avatar's owner, its current user and rental end, and what it wears."""
    row = session.get(AvatarState, avatar_id)
    if row is None:
        raise AvatarNotFound(f"no avatar {avatar_id}")
    worn = _equipped(session, [avatar_id])[avatar_id]
    user = row.user if row.user and row.user_expires > now_s else None
    return {
        "avatar_id": avatar_id,
        "owner": row.owner,
        "user": user,
        "rented_until": row.rented_until if row.rented_until > now_s else None,
        "accessories": [_accessory_out(session, t) for t in worn],
    }


def wallet_items(*, session: Session, address: str, now_s: int) -> dict[str, object]:
    """The avatars a wallet owns or plays now (as a renter), with what each wears, and its
    loose accessories."""
    address = checksum(address)
    rows = list(
        session.scalars(
            select(AvatarState)
            .where(
                or_(
                    AvatarState.owner == address,
                    (AvatarState.user == address) & (AvatarState.user_expires > now_s),
                )
            )
            .order_by(AvatarState.avatar_id)
            .limit(1_000)
        )
    )
    worn = _equipped(session, [r.avatar_id for r in rows])
    avatars = [
        {
            "avatar_id": r.avatar_id,
            "role": "owner" if r.owner == address else "renter",
            "rented_until": r.rented_until if r.rented_until > now_s else None,
            "accessories": [_accessory_out(session, t) for t in worn[r.avatar_id]],
        }
        for r in rows
    ]
    loose = session.scalars(
        select(AccessoryBalance)
        .where(AccessoryBalance.address == address, AccessoryBalance.balance != "0")
        .order_by(AccessoryBalance.type_id)
        .limit(1_000)
    )
    accessories = [{**_accessory_out(session, b.type_id), "balance": int(b.balance)} for b in loose]
    return {"address": address, "avatars": avatars, "accessories": accessories}


def wallet_report(*, session: Session, address: str, limit: int = 200) -> dict[str, object]:
    """A wallet's markets book: what it spent in the shop and the market, what its sales
    brought in, and (for the treasury) royalties and fees received; with its latest lines."""
    address = checksum(address)
    totals = {
        "shop_purchases": 0,
        "market_purchases": 0,
        "sales": 0,
        "royalties": 0,
        "fees": 0,
        "shop_proceeds": 0,
    }
    lines: list[dict[str, object]] = []
    query = (
        select(MarketLedgerEntry)
        .where(or_(MarketLedgerEntry.payer == address, MarketLedgerEntry.payee == address))
        .order_by(MarketLedgerEntry.block_number.desc(), MarketLedgerEntry.id.desc())
    )
    for x in session.scalars(query):
        amount = int(x.amount)
        if x.payer == address:
            totals["shop_purchases" if x.source == "shop" else "market_purchases"] += amount
        if x.payee == address:
            totals[
                {
                    EntryKind.SALE: "sales",
                    EntryKind.ROYALTY: "royalties",
                    EntryKind.FEE: "fees",
                    EntryKind.SHOP_PURCHASE: "shop_proceeds",
                }[x.kind]
            ] += amount
        if len(lines) < limit:
            lines.append(
                {
                    "kind": x.kind,
                    "source": x.source,
                    "listing_id": x.listing_id,
                    "direction": "in" if x.payee == address else "out",
                    "counterparty": x.payer if x.payee == address else x.payee,
                    "amount": amount,
                    "token": x.token,
                    "item_id": x.item_id,
                    "tx_hash": x.tx_hash,
                    "block_number": x.block_number,
                }
            )
    received = totals["sales"] + totals["royalties"] + totals["fees"] + totals["shop_proceeds"]
    spent = totals["shop_purchases"] + totals["market_purchases"]
    return {"address": address, **totals, "net": received - spent, "lines": lines}
