"""The operator's shop: list an item type for sale, change or close a listing, define an
accessory type, all through the chain outbox (the worker sends them with the operator's
key). Shared by ``POST /operator/shop`` and ``dew shop list|close``.

Who is an operator is decided at the edge, as for the other operator actions. Every request
carries the caller's idempotency key (namespaced below): the same key and body returns the
first request, another body under it is a :class:`~backend.markets.exceptions.Conflict`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from eth_utils.address import to_checksum_address
from sqlalchemy.orm import Session

from backend.chain import outbox
from backend.chain.models import SHOP_KINDS, ChainRequest, RequestKind
from backend.chain.operator_requests import RequestFamily, RequestState
from backend.kit import errors as kind
from backend.kit.text import clean_text
from backend.markets.exceptions import Conflict, MarketsError, MarketsValueError
from backend.markets.models import AccessoryType, CatalogEntry, ItemKind
from backend.markets.transactions import SHOP_MAX_PRICE

MAX_SUPPLY = 2**32 - 1
# The Shop's and Accessories' caps (MAX_VIP_TERM, MAX_TYPE_SUPPLY).
MAX_VIP_TERM_S = 366 * 24 * 3600
MAX_TYPE_SUPPLY = 10**9
MAX_URI = 256


class ShopRequestNotFound(MarketsError, kind.NotFound):
    """No shop request has the id asked for."""


# An accessory type defined on the way to its first listing goes under the listing's key
# with this prefix; the shop's status serves both.
TYPE_PREFIX = "operator-shop-type:"
SHOP = RequestFamily(
    "operator-shop:",
    SHOP_KINDS,
    "shop request",
    invalid=MarketsValueError,
    conflict=Conflict,
    not_found=ShopRequestNotFound,
    found_under=(TYPE_PREFIX,),
)


@dataclass(frozen=True)
class ShopRequest(RequestState):
    """Where an operator's shop request stands; ``listing_id`` once a listing is confirmed."""

    action: str
    listing_id: int | None

    @classmethod
    def of(cls, request: ChainRequest) -> ShopRequest:
        payload = request.payload
        listing = (request.result or {}).get("listing_id", payload.get("listing_id"))
        return cls(
            **SHOP.state(request),
            action={
                RequestKind.SHOP_LIST: "list",
                RequestKind.SHOP_SET: "update" if payload.get("open") else "close",
                RequestKind.ACCESSORY_TYPE: "define_type",
            }[RequestKind(request.kind)],
            listing_id=int(listing) if listing is not None else None,
        )


def _queue(
    session: Session, kind: RequestKind, payload: dict[str, Any], key: str, chain_id: int | None
) -> ChainRequest:
    with SHOP.queueing(key):
        return outbox.request_shop_call(
            session=session, kind=kind, payload=payload, idempotency_key=key, chain_id=chain_id
        )


def _check_price(price: int) -> None:
    if isinstance(price, bool) or not isinstance(price, int) or not 0 < price <= SHOP_MAX_PRICE:
        raise MarketsValueError(f"price must be 1..{SHOP_MAX_PRICE} DEW wei, got {price!r}")


def queue_listing(
    *,
    session: Session,
    item_kind: str,
    item: str,
    item_id: int,
    price: int,
    supply: int,
    vip_term_s: int,
    name: str,
    image: str = "",
    slot: str | None = None,
    max_supply: int | None = None,
    uri: str = "",
    idempotency_key: str,
    chain_id: int | None = None,
) -> ShopRequest:
    """Queue ``Shop.list`` for an item type (an accessory type not defined yet is defined
    first, with ``max_supply``), and record its name, image and slot for the pages."""
    key = SHOP.key(idempotency_key)
    if item_kind not in (ItemKind.AVATAR, ItemKind.ACCESSORY, ItemKind.VIP):
        raise MarketsValueError(f"item_kind must be avatar, accessory or vip, got {item_kind!r}")
    _check_price(price)
    if not 1 <= supply <= MAX_SUPPLY:
        raise MarketsValueError(f"supply must be 1..{MAX_SUPPLY}, got {supply!r}")
    if item_kind == ItemKind.VIP and not 0 < vip_term_s <= MAX_VIP_TERM_S:
        raise MarketsValueError(f"a VIP pass needs a term of 1..{MAX_VIP_TERM_S} s")
    if item_kind != ItemKind.VIP and vip_term_s:
        raise MarketsValueError("only a VIP pass has a term")
    if item_kind != ItemKind.ACCESSORY and item_id:
        raise MarketsValueError("only an accessory listing names an item id (its type)")
    name = clean_text(name) if isinstance(name, str) else name
    if not 1 <= len(name) <= 64 or len(uri) > MAX_URI:
        raise MarketsValueError("name must be 1..64 characters and uri at most 256")
    payload = {
        "item": to_checksum_address(item),
        "item_kind": item_kind,
        "item_id": item_id,
        "price": str(price),
        "supply": supply,
        "vip_term_s": vip_term_s,
    }
    if item_kind == ItemKind.ACCESSORY and session.get(AccessoryType, item_id) is None:
        if max_supply is None or not 1 <= max_supply <= MAX_TYPE_SUPPLY:
            raise MarketsValueError(f"accessory type {item_id} is not defined: give max_supply")
        definition = {"type_id": item_id, "max_supply": str(max_supply), "uri": uri}
        _queue(
            session,
            RequestKind.ACCESSORY_TYPE,
            definition,
            TYPE_PREFIX + idempotency_key,  # checked by SHOP.key above
            chain_id,
        )
    request = _queue(session, RequestKind.SHOP_LIST, payload, key, chain_id)
    entry = session.get(CatalogEntry, (item_kind, str(item_id)))
    if entry is None:
        entry = CatalogEntry(item_kind=item_kind, item_id=str(item_id))
        session.add(entry)
    entry.name, entry.image, entry.slot = name, image, slot
    session.flush()
    return ShopRequest.of(request)


def queue_update(
    *,
    session: Session,
    listing_id: int,
    price: int,
    open_: bool,
    idempotency_key: str,
    chain_id: int | None = None,
) -> ShopRequest:
    """Queue ``Shop.setListing``: a new price, or close (``open_`` False) a listing."""
    key = SHOP.key(idempotency_key)
    _check_price(price)
    if not 1 <= listing_id <= 2**63 - 1:
        raise MarketsValueError(f"listing id out of range: {listing_id!r}")
    payload = {"listing_id": listing_id, "price": str(price), "open": open_}
    return ShopRequest.of(_queue(session, RequestKind.SHOP_SET, payload, key, chain_id))


def request_status(*, session: Session, request_id: int) -> ShopRequest:
    return ShopRequest.of(SHOP.find(session, request_id))
