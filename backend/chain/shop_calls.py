"""The shop's operator calls as outbox requests: ``Shop.list``, ``Shop.setListing`` and
``Accessories.defineType`` (one request per transaction), and what their receipts say.

Queued by ``backend.markets.operator`` (the ``POST /operator/shop`` route and ``dew shop``)
and sent by the worker with the operator's key, like avatar mints and VIP passes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from eth_utils.address import to_checksum_address

from backend.chain.contracts import Contracts
from backend.chain.exceptions import ChainError
from backend.chain.models import RequestKind


def encode_shop_call(contracts: Contracts, kind: RequestKind, payload: dict[str, Any]) -> bytes:
    if kind == RequestKind.SHOP_LIST:
        data = contracts.shop.encode_abi(
            "list",
            args=[
                to_checksum_address(payload["item"]),
                int(payload["item_id"]),
                int(payload["price"]),
                int(payload["supply"]),
                int(payload["vip_term_s"]),
            ],
        )
    elif kind == RequestKind.SHOP_SET:
        data = contracts.shop.encode_abi(
            "setListing",
            args=[int(payload["listing_id"]), int(payload["price"]), bool(payload["open"])],
        )
    elif kind == RequestKind.ACCESSORY_TYPE:
        data = contracts.accessories.encode_abi(
            "defineType",
            args=[int(payload["type_id"]), int(payload["max_supply"]), str(payload["uri"])],
        )
    else:
        raise ChainError(f"not a shop call: {kind}")
    return bytes.fromhex(data.removeprefix("0x"))


def shop_effect(
    contracts: Contracts,
    kind: RequestKind,
    receipt: dict[str, Any],
    payloads: Sequence[dict[str, Any]],
) -> dict[str, Any]:
    """``{"listing_id": n}`` for a listing (from its ``ShopListed``); the payload echoed
    for a listing update or a type definition (a reverted call never gets here)."""
    if len(payloads) != 1:
        raise ChainError(f"a {kind} call carries one request, got {len(payloads)}")
    if kind != RequestKind.SHOP_LIST:
        return {"done": True}
    shop = contracts.shop
    topic = "0x" + str(shop.events.ShopListed().topic).removeprefix("0x").lower()
    for log in receipt.get("logs") or []:
        topics = [t.lower() if isinstance(t, str) else "0x" + bytes(t).hex() for t in log["topics"]]
        if str(log["address"]).lower() == shop.address.lower() and topics[0] == topic:
            # ShopListed(uint256 indexed listingId, address indexed item, ...)
            return {"listing_id": int(topics[1], 16)}
    raise ChainError(f"receipt {receipt.get('transactionHash')} lacks ShopListed")
