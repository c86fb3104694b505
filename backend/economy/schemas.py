"""API shapes of the economy routes. DEW amounts travel as decimal strings (wei): they
exceed what a JSON number keeps exactly in most clients."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

Address = str
Wei = str


class UnsignedTxOut(BaseModel):
    """An ``eth_sendTransaction`` request for the user's own wallet to sign and send."""

    from_: Address = Field(alias="from")
    to: Address
    data: str
    value: str
    chainId: str
    gas: str | None = None
    description: str

    model_config = {"populate_by_name": True}


class TransactionsOut(BaseModel):
    """Sign and send these in order (e.g. a DEW approval before accepting a Fixed Rent)."""

    transactions: list[UnsignedTxOut]


class ScreeningIn(BaseModel):
    screener: Address
    owner: Address
    approved: bool = True


class OfferIn(BaseModel):
    owner: Address
    avatar_id: int = Field(gt=0, le=2**63 - 1)
    scholar: Address | None = Field(
        default=None, description="the scholar of a direct offer; omit for an open listing"
    )
    terms: Literal["fixed_rent", "rewards_division"]
    duration_s: int = Field(gt=0, le=365 * 24 * 3600, description="the term, from acceptance")
    rent: Wei = Field(default="0", pattern=r"^[0-9]{1,39}$", description="Fixed Rent only")
    owner_bps: int = Field(default=0, ge=0, le=10_000)
    manager_bps: int = Field(default=0, ge=0, le=10_000)
    manager: Address | None = None
    dust_to: Literal["owner", "manager", "scholar"] = "scholar"
    valid_until: int | None = Field(
        default=None,
        gt=0,
        lt=2**64,
        description="the last second (chain time) the offer may be accepted; default: 7 days",
    )


class ScholarIn(BaseModel):
    scholar: Address


class OwnerIn(BaseModel):
    owner: Address


class SenderIn(BaseModel):
    sender: Address


class AgreementOut(BaseModel):
    id: int
    avatar_id: int
    owner: Address
    scholar: Address | None
    terms: str
    duration_s: int
    rent: Wei
    owner_bps: int
    manager_bps: int
    manager: Address | None
    dust_to: str
    status: str
    starts_at: int | None
    ends_at: int | None
    ended_at: int | None = Field(description="when it ended: terminated, reclaimed or ran out")
    valid_until: int | None = Field(description="the offer's last second of validity")
    rent_escrowed: Wei
    rent_paid: Wei
    rent_refunded: Wei


class AvatarReportOut(BaseModel):
    avatar_id: int
    matches: int
    wins: int
    gross: Wei
    owner_share: Wei
    manager_share: Wei
    scholar_share: Wei
    paid: Wei
    pending: Wei
    agreement_id: int | None
    agreement_terms: str | None
    agreement_status: str
    scholar: Address | None


class WalletMarketsTotalsOut(BaseModel):
    """DEW wei the wallet spent and received in the shop and the market (``net`` may be
    negative): purchases, sales, and the treasury's royalties, fees and shop proceeds."""

    shop_purchases: Wei
    market_purchases: Wei
    sales: Wei
    royalties: Wei
    fees: Wei
    shop_proceeds: Wei
    net: str


class WalletOut(BaseModel):
    address: Address
    earned: Wei
    pending: Wei
    paid: Wei
    failed: Wei
    by_role: dict[str, dict[str, Wei]]
    markets: WalletMarketsTotalsOut | None = None


class ScholarAvatarOut(BaseModel):
    avatar_id: int
    pending: Wei
    paid: Wei
    failed: Wei


class ScholarAgreementOut(BaseModel):
    agreement_id: int
    avatar_id: int
    owner: Address
    terms: str
    status: str
    ends_at: int | None
    rent: Wei
    rent_refunded: Wei


class ScholarEarningsOut(BaseModel):
    address: Address
    paid: Wei
    pending: Wei
    avatars: list[ScholarAvatarOut]
    agreements: list[ScholarAgreementOut]


class SeasonRewardPlaceOut(BaseModel):
    """One place of a season's reward table and, once planned, its payout from the ledger."""

    place: int
    amount: Wei  # the table's reward for the place
    status: str  # reserved | planned | paid | failed | returned (nobody reached the place)
    address: Address | None = None  # the wallet paid, for a place paid to a wallet
    avatar_id: int | None = None  # the avatar paid (split on chain by its agreement)
    paid: Wei | None = None  # DEW wei booked for the place (None before planning)
    tx_hash: str | None = None  # the season settlement's transaction once sent


class SeasonOut(BaseModel):
    id: int
    name: str
    starts_at: datetime
    ends_at: datetime
    status: str
    emission_budget: Wei
    emitted: Wei
    remaining: Wei
    rewards: list[SeasonRewardPlaceOut] = []


class LeaderboardRowOut(BaseModel):
    rank: int
    address: Address
    matches: int
    wins: int
    points: int
    earned: Wei
    reward: Wei | None = None  # the season's reward for this place, if its table has one


class SettlementOut(BaseModel):
    match_id: str
    chain_match_id: str
    economy: str
    status: str
    stake_pot: Wei
    emission: Wei
    fee: Wei
    returned: Wei
    paid: Wei
    tx_hash: str | None
    season_id: int | None


class StakeBalanceOut(BaseModel):
    address: Address
    balance: Wei


class StatementLineOut(BaseModel):
    match_id: str
    role: str
    avatar_id: int | None
    agreement_id: int | None
    amount: Wei
    status: str
    tx_hash: str | None
    finished_at: datetime


class ApplicationIn(BaseModel):
    """Why this owner should rent out avatars (the server's limit is in the settings)."""

    statement: str = Field(min_length=1, max_length=20_000)

    model_config = {"extra": "forbid"}


class RejectionIn(BaseModel):
    reason: str = Field(min_length=1, max_length=20_000)

    model_config = {"extra": "forbid"}


class ApprovalReceiptIn(BaseModel):
    tx_hash: str = Field(pattern=r"^0x[0-9a-fA-F]{64}$")

    model_config = {"extra": "forbid"}


class ApplicationOut(BaseModel):
    id: int
    applicant: Address
    statement: str
    status: Literal["pending", "approved", "rejected", "withdrawn"]
    reason: str | None
    decided_by: Address | None
    tx_hash: str | None
    block_number: int | None
    created_at: datetime
    decided_at: datetime | None
