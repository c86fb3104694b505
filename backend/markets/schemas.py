"""Request and response bodies of the markets routes (SPEC B1). Every input is bounded:
ids fit a uint256 (avatar and listing ids a 63-bit integer), prices are DEW wei strings of at
most 31 digits, and unknown fields are refused."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, Field, field_validator

from backend.kit.schemas import Address, IdempotencyKey, StrictIn, Wei

# ``Wei``: up to 10**31 - 1 DEW wei; the builders refuse more than the contracts' caps (a
# billion DEW on the market, a million in the shop).
TokenId = Annotated[str, Field(pattern=r"^[0-9]{1,78}$", description="uint256, decimal")]
ItemKindName = Literal["avatar", "accessory", "vip", "center"]


class ShopListingOut(BaseModel):
    listing_id: int
    item: Address
    item_kind: ItemKindName
    item_id: str
    name: str
    image: str
    price: Wei
    supply: int
    sold: int
    vip_term_s: int
    open: bool


class ListingIn(StrictIn):
    """``id`` and ``price`` may come as JSON numbers or decimal strings (prices past 2**53
    only as strings: a JSON number loses their digits)."""

    token_kind: Literal["avatar", "accessory"]
    id: TokenId
    amount: int = Field(default=1, ge=1, le=1_000_000)
    price: Wei
    expires_at: int = Field(ge=1, le=2**64 - 1, description="unix seconds (chain time)")

    @field_validator("id", "price", mode="before")
    @classmethod
    def _integer_as_text(cls, value: object) -> object:
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        return value


class ListingOut(BaseModel):
    listing_id: int
    seller: Address
    token: Address
    item_kind: ItemKindName
    id: str
    amount: str
    price: Wei
    expires_at: int
    status: Literal["open", "sold", "cancelled", "expired", "stale"]
    buyer: Address | None = None


class AccessoryOut(BaseModel):
    type_id: int
    name: str
    image: str
    slot: str | None = None


class AvatarOut(BaseModel):
    avatar_id: int
    owner: Address
    user: Address | None
    rented_until: int | None
    accessories: list[AccessoryOut]


class EquipIn(StrictIn):
    type_id: int = Field(ge=0, le=2**63 - 1)
    equip: bool = True


class WalletAvatarOut(BaseModel):
    avatar_id: int
    role: Literal["owner", "renter"]
    rented_until: int | None
    accessories: list[AccessoryOut]


class WalletAccessoryOut(BaseModel):
    type_id: int
    name: str
    image: str
    slot: str | None = None
    balance: int


class WalletItemsOut(BaseModel):
    address: Address
    avatars: list[WalletAvatarOut]
    accessories: list[WalletAccessoryOut]


class MarketLineOut(BaseModel):
    kind: Literal["shop_purchase", "sale", "royalty", "fee"]
    source: Literal["shop", "market"]
    listing_id: int
    direction: Literal["in", "out"]
    counterparty: Address
    amount: Wei
    token: Address
    item_id: str
    tx_hash: str
    block_number: int


class WalletMarketsOut(BaseModel):
    """A wallet's markets book, in DEW wei: spent in the shop and the market, received from
    its sales, and (the treasury) royalties, fees and shop proceeds; ``net`` may be negative."""

    address: Address
    shop_purchases: Wei
    market_purchases: Wei
    sales: Wei
    royalties: Wei
    fees: Wei
    shop_proceeds: Wei
    net: str
    lines: list[MarketLineOut] = Field(default_factory=list)


class ShopListIn(StrictIn):
    """The operator lists an item type in the shop (through the chain outbox)."""

    item_kind: Literal["avatar", "accessory", "vip"]
    item_id: int = Field(default=0, ge=0, le=2**63 - 1, description="accessory type id")
    price: Wei
    supply: int = Field(ge=1, le=2**32 - 1)
    vip_term_s: int = Field(default=0, ge=0, le=366 * 86400)
    # An accessory type not defined yet is defined first with this supply cap.
    max_supply: int | None = Field(default=None, ge=1, le=10**9)
    uri: str = Field(default="", max_length=256)
    name: str = Field(min_length=1, max_length=64)
    image: str = Field(default="", max_length=512, pattern=r"^(|/[^\s]*|https://[^\s]*)$")
    slot: str | None = Field(default=None, max_length=32, pattern=r"^[a-z_]{1,32}$")
    idempotency_key: IdempotencyKey


class ShopCloseIn(StrictIn):
    price: Wei | None = Field(default=None, description="the new price; default: unchanged")
    open: bool = False
    idempotency_key: IdempotencyKey


class ShopRequestOut(BaseModel):
    id: int
    idempotency_key: str
    action: str
    status: str = Field(description="queued | submitted | confirmed | failed")
    listing_id: int | None = Field(description="the shop listing, once confirmed")
    tx_hash: str | None
    failure_reason: str | None
