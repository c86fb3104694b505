"""Markets routes (docs/economy.md, "Markets"): the shop, the resale market, avatars and
their accessories, and a wallet's items and markets book.

Reads are public, as the chain they mirror is. Write routes need a signed-in wallet and
return *unsigned* transactions for that wallet alone to sign (``TransactionsOut``, as
``/economy/offers`` does): the server holds no key, and the contracts check
``msg.sender``. Each write is checked against the mirror first (a missing listing is 404, a
sold, cancelled, expired or stale one 409, someone else's listing or avatar 403) and then
simulated on the chain. create_app() mounts them only with a deployment.
"""

from __future__ import annotations

import time
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Query

from backend.api.deps import CurrentPlayer, MarketDoor, MarketsDep, SessionDep, ShopDoor
from backend.api.params import AddressPath, Id63, described_errors
from backend.economy.schemas import TransactionsOut
from backend.markets import schemas, service
from backend.markets.exceptions import MarketsValueError, NotOwner, StaleListing
from backend.markets.models import ListingStatus
from backend.markets.transactions import MAX_LISTING_S

router = APIRouter(prefix="/markets", tags=["markets"])

ListingId = Id63
AvatarId = Id63
_ERRORS = described_errors(401, 403, 404, 409, 422, 503)


def _now(markets: Any) -> int:
    """Chain time for expiry and rentals; the wall clock when the node does not answer."""
    try:
        return int(markets.reader.chain_time())
    except Exception:  # a read must not fail because the node is slow: judge by our clock
        return int(time.time())


# --- the shop -----------------------------------------------------------------------------


@router.get("/shop", response_model=list[schemas.ShopListingOut])
def shop(
    session: SessionDep, include_closed: Annotated[bool, Query()] = False
) -> list[schemas.ShopListingOut]:
    """What the shop sells: open listings (price in DEW wei, supply and how many sold)."""
    rows = service.shop_listings(session=session, include_closed=include_closed)
    return [schemas.ShopListingOut.model_validate(r) for r in rows]


@router.post("/shop/{listing_id}/buy", response_model=TransactionsOut, responses=_ERRORS)
def shop_buy(
    listing_id: ListingId, player: ShopDoor, session: SessionDep, markets: MarketsDep
) -> TransactionsOut:
    """Buy one item: a DEW approval to the shop if needed, then ``Shop.buy`` at the listed
    price at most (a price raised meanwhile makes the chain refuse it)."""
    row = service.get_shop_listing(session=session, listing_id=listing_id)
    if not row.open or row.sold >= row.supply:
        raise StaleListing(f"shop listing {listing_id} is closed or sold out")
    session.close()  # nothing more to read: hold no connection across the chain calls
    return TransactionsOut.of(
        *markets.builder.shop_buy(buyer=player.address, listing_id=listing_id, price=int(row.price))
    )


# --- the market ---------------------------------------------------------------------------


@router.get("/listings", response_model=list[schemas.ListingOut], responses=_ERRORS)
def listings(
    session: SessionDep,
    markets: MarketsDep,
    token: Annotated[
        str | None, Query(max_length=42, pattern=r"^(avatar|accessory|0x[0-9a-fA-F]{40})$")
    ] = None,
    seller: Annotated[str | None, Query(pattern=r"^0x[0-9a-fA-F]{40}$")] = None,
    status: Literal["open", "sold", "cancelled", "expired", "stale"] | None = None,
    limit: Annotated[int, Query(ge=1, le=service.MAX_PAGE)] = 50,
    offset: Annotated[int, Query(ge=0, le=service.MAX_OFFSET)] = 0,
) -> list[schemas.ListingOut]:
    """Market listings, newest first; ``token`` is an item contract or ``avatar``/``accessory``."""
    rows = service.listings(
        session=session,
        now_s=_now(markets),
        token=token,
        seller=seller,
        status=status,
        limit=limit,
        offset=offset,
    )
    return [schemas.ListingOut.model_validate(r) for r in rows]


@router.post("/listings", response_model=TransactionsOut, responses=_ERRORS)
def create_listing(
    body: schemas.ListingIn, player: MarketDoor, markets: MarketsDep
) -> TransactionsOut:
    """List an avatar or accessories you hold for DEW: the market's approval first if it is
    missing, then ``Market.list``. Only the holder can list (403 otherwise)."""
    now = _now(markets)
    if not now < body.expires_at <= now + MAX_LISTING_S:
        raise MarketsValueError(
            f"expires_at {body.expires_at} must be in the next {MAX_LISTING_S} s (chain time)"
        )
    return TransactionsOut.of(
        *markets.builder.market_list(
            seller=player.address,
            token_kind=body.token_kind,
            token_id=int(body.id),
            amount=body.amount,
            price=int(body.price),
            expires_at=body.expires_at,
        )
    )


@router.post(
    "/listings/{listing_id}/cancel",
    response_model=TransactionsOut,
    responses=_ERRORS,
)
def cancel_listing(
    listing_id: ListingId, session: SessionDep, player: CurrentPlayer, markets: MarketsDep
) -> TransactionsOut:
    """The seller withdraws a listing nobody bought."""
    row = service.get_listing(session=session, listing_id=listing_id)
    if row.seller != player.address:
        raise NotOwner(f"listing {listing_id} is {row.seller}'s, not {player.address}'s")
    if row.status != ListingStatus.OPEN:
        raise StaleListing(f"listing {listing_id} is already {row.status}")
    session.close()
    return TransactionsOut.of(
        markets.builder.market_cancel(seller=player.address, listing_id=listing_id)
    )


@router.post("/listings/{listing_id}/buy", response_model=TransactionsOut, responses=_ERRORS)
def buy_listing(
    listing_id: ListingId, player: MarketDoor, session: SessionDep, markets: MarketsDep
) -> TransactionsOut:
    """Buy a listing at its price: a DEW approval to the market if needed, then
    ``Market.buy``. A sold, cancelled, expired or stale listing is refused (409)."""
    row = service.get_listing(session=session, listing_id=listing_id)
    status = service.listing_status(session, row, _now(markets))
    if status != ListingStatus.OPEN:
        raise StaleListing(f"listing {listing_id} is {status}")
    if row.seller == player.address:
        raise MarketsValueError("a seller cannot buy their own listing")
    price = int(row.price)
    session.close()
    return TransactionsOut.of(
        *markets.builder.market_buy(buyer=player.address, listing_id=listing_id, price=price)
    )


# --- avatars and accessories --------------------------------------------------------------


@router.get("/avatars/{avatar_id}", response_model=schemas.AvatarOut, responses=_ERRORS)
def avatar(avatar_id: AvatarId, session: SessionDep, markets: MarketsDep) -> schemas.AvatarOut:
    """An avatar's owner, current user (renter) and what it wears."""
    data = service.avatar_view(session=session, avatar_id=avatar_id, now_s=_now(markets))
    return schemas.AvatarOut.model_validate(data)


@router.post(
    "/avatars/{avatar_id}/equip",
    response_model=TransactionsOut,
    responses=_ERRORS,
)
def equip(
    avatar_id: AvatarId, body: schemas.EquipIn, player: CurrentPlayer, markets: MarketsDep
) -> TransactionsOut:
    """Equip (or unequip, ``equip: false``) an accessory on an avatar you own; refused
    while the avatar is rented."""
    return TransactionsOut.of(
        markets.builder.equip(
            owner=player.address, avatar_id=avatar_id, type_id=body.type_id, equip=body.equip
        )
    )


@router.get("/wallets/{address}/items", response_model=schemas.WalletItemsOut, responses=_ERRORS)
def wallet_items(
    address: AddressPath, session: SessionDep, markets: MarketsDep
) -> schemas.WalletItemsOut:
    """The avatars a wallet owns or rents now, with their accessories, and its loose ones."""
    data = service.wallet_items(session=session, address=address, now_s=_now(markets))
    return schemas.WalletItemsOut.model_validate(data)


@router.get("/wallets/{address}/report", response_model=schemas.WalletMarketsOut, responses=_ERRORS)
def wallet_report(
    address: AddressPath,
    session: SessionDep,
    limit: Annotated[int, Query(ge=0, le=1000)] = 200,
) -> schemas.WalletMarketsOut:
    """A wallet's markets book: purchases, sales, royalties and fees, with its lines."""
    data = service.wallet_report(session=session, address=address, limit=limit)
    return schemas.WalletMarketsOut.model_validate(_strings(data))


def _strings(data: dict[str, object]) -> dict[str, object]:
    """Amounts as decimal strings (JSON numbers lose digits past 2**53)."""
    keys = ("shop_purchases", "market_purchases", "sales", "royalties", "fees")
    out = {k: str(v) if k in (*keys, "shop_proceeds", "net") else v for k, v in data.items()}
    lines = data.get("lines")
    if isinstance(lines, list):
        out["lines"] = [{**x, "amount": str(x["amount"])} for x in lines]
    return out
