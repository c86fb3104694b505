"""Unsigned shop, market and accessory transactions for the player's own wallet to sign.

As the scholarship builder does (``backend.economy.scholarships.transactions``): the server holds no
user key; each builder checks what the contract will check (ownership, balance, approval,
price) and simulates the call from the user's address, so a call the chain would refuse is
refused here with the contract's own decoded error. When an approval has to come first the
call after it cannot be simulated yet: it is returned unsimulated, to sign after.
"""

from __future__ import annotations

from typing import Any

from backend.chain.unsigned import TxBuilder
from backend.chain.unsigned import UnsignedTx as UnsignedTx
from backend.markets.exceptions import MarketsValueError, NotOwner, Refused, Unavailable

MAX_UINT256 = 2**256 - 1
# The contracts' own caps (Market.MAX_PRICE, MAX_AMOUNT, MAX_DURATION; Shop.MAX_PRICE), so
# a refusal is a clear 422 here rather than a revert after the wallet signed an approval.
MAX_PRICE = 10**9 * 10**18
SHOP_MAX_PRICE = 10**6 * 10**18
MAX_AMOUNT = 10**6
MAX_LISTING_S = 180 * 24 * 3600
MAX_UINT64 = 2**64 - 1


def check_price(price: int, cap: int = MAX_PRICE) -> int:
    if isinstance(price, bool) or not isinstance(price, int) or not 0 < price <= cap:
        raise MarketsValueError(f"price must be 1..{cap} DEW wei, got {price!r}")
    return price


class MarketTxBuilder(TxBuilder):
    """Builds and pre-checks Shop, Market and Accessories calls against one deployment."""

    refused = Refused
    unavailable = Unavailable

    # --- the shop -------------------------------------------------------------------------

    def shop_buy(self, *, buyer: str, listing_id: int, price: int) -> list[UnsignedTx]:
        """Buy one item from a shop listing at ``price`` at most (``maxPrice``)."""
        check_price(price, SHOP_MAX_PRICE)
        shop = self.contracts.shop
        return self._pay_then(
            buyer, shop, price, "buy", [listing_id, price], f"buy shop listing {listing_id}"
        )

    # --- the market -----------------------------------------------------------------------

    def _item(self, token_kind: str) -> Any:
        if token_kind == "avatar":
            return self.contracts.avatar
        if token_kind == "accessory":
            return self.contracts.accessories
        raise MarketsValueError(f"token_kind must be avatar or accessory, got {token_kind!r}")

    def market_list(
        self,
        *,
        seller: str,
        token_kind: str,
        token_id: int,
        amount: int,
        price: int,
        expires_at: int,
    ) -> list[UnsignedTx]:
        """List an avatar (amount 1) or accessories for DEW: ``setApprovalForAll`` to the
        market first if it is missing (the market holds nothing: approval based)."""
        check_price(price)
        item = self._item(token_kind)
        if not 0 <= token_id <= MAX_UINT256:
            raise MarketsValueError(f"id out of range: {token_id!r}")
        if token_kind == "avatar" and amount != 1:
            raise MarketsValueError(f"an avatar is listed with amount 1, got {amount!r}")
        if not 1 <= amount <= MAX_AMOUNT:
            raise MarketsValueError(f"amount must be 1..{MAX_AMOUNT}, got {amount!r}")
        if not 0 < expires_at <= MAX_UINT64:
            raise MarketsValueError(f"expires_at must be unix seconds, got {expires_at!r}")
        if token_kind == "avatar":
            owner = self._read(item.functions.ownerOf(token_id))
            if owner.lower() != seller.lower():
                raise NotOwner(f"avatar {token_id} belongs to {owner}, not {seller}")
            until = int(self._read(item.functions.rentedUntil(token_id)))
            if until > self._block_time():
                raise Refused(f"avatar {token_id} is rented until {until}: it cannot be sold")
        else:
            held = int(self._read(item.functions.balanceOf(seller, token_id)))
            if held < amount:
                raise NotOwner(f"{seller} holds {held} of accessory {token_id}, not {amount}")
        market = self.contracts.market
        what = f"list {token_kind} {token_id} x{amount} for {price} DEW wei"
        args = [item.address, token_id, amount, price, expires_at]
        if self._read(item.functions.isApprovedForAll(seller, market.address)):
            return [self._build(seller, market, "list", args, what)]
        return [
            self._build(
                seller,
                item,
                "setApprovalForAll",
                [market.address, True],
                f"let the market move your {token_kind}s when they sell",
            ),
            self._unsigned(seller, market, "list", args, what),
        ]

    def market_cancel(self, *, seller: str, listing_id: int) -> UnsignedTx:
        return self._build(
            seller, self.contracts.market, "cancel", [listing_id], f"cancel listing {listing_id}"
        )

    def market_buy(self, *, buyer: str, listing_id: int, price: int) -> list[UnsignedTx]:
        check_price(price)
        market = self.contracts.market
        return self._pay_then(
            buyer, market, price, "buy", [listing_id, price], f"buy listing {listing_id}"
        )

    # --- accessories ----------------------------------------------------------------------

    def equip(self, *, owner: str, avatar_id: int, type_id: int, equip: bool) -> UnsignedTx:
        """Equip (or unequip) an accessory on an avatar the signer owns."""
        current = self._read(self.contracts.avatar.functions.ownerOf(avatar_id))
        if current.lower() != owner.lower():
            raise NotOwner(f"avatar {avatar_id} belongs to {current}, not {owner}")
        fn = "equip" if equip else "unequip"
        return self._build(
            owner,
            self.contracts.accessories,
            fn,
            [avatar_id, type_id],
            f"{fn} accessory {type_id} {'on' if equip else 'from'} avatar {avatar_id}",
        )
