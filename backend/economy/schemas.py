"""API shapes of the economy routes. DEW amounts travel as decimal strings (wei): they
exceed what a JSON number keeps exactly in most clients."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from backend.chain.unsigned import UnsignedTx
from backend.economy import operator, season_rewards
from backend.kit.schemas import WEI_DESCRIPTION, IdempotencyKey, StrictIn, wei_pattern
from backend.kit.schemas import Address as CheckedAddress
from backend.kit.schemas import Wei as Wei31

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

    @classmethod
    def of(cls, *txs: UnsignedTx) -> TransactionsOut:
        """The unsigned transactions a builder made, in their order."""
        return cls(transactions=[UnsignedTxOut.model_validate(t.to_json()) for t in txs])


def wei_strings(row: Mapping[str, Any], *keys: str) -> dict[str, Any]:
    """``row`` with the amounts under ``keys`` as decimal strings."""
    return {k: (str(v) if k in keys else v) for k, v in row.items()}


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
    valid_for_s: int | None = Field(
        default=None,
        gt=0,
        le=365 * 24 * 3600,
        description="instead of valid_until: seconds from the latest block the offer may be "
        "accepted (the page's 'valid for', whatever the browser's clock says)",
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


# The amounts of an avatar's report (``AvatarReportOut``), wei as decimal strings.
AVATAR_REPORT_WEI = ("gross", "owner_share", "manager_share", "scholar_share", "paid", "pending")


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


class ApplicationIn(StrictIn):
    """Why this owner should rent out avatars (the server's limit is in the settings)."""

    statement: str = Field(min_length=1, max_length=20_000)


class RejectionIn(StrictIn):
    reason: str = Field(min_length=1, max_length=20_000)


class ApprovalReceiptIn(StrictIn):
    tx_hash: str = Field(pattern=r"^0x[0-9a-fA-F]{64}$")


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


# --- the signed-in player's money (/wallet) ------------------------------------------------

# A deposit or withdrawal amount: up to 40 digits here, bounded to the vault's largest payout
# by the route before anything is asked of the chain.
MoneyWei = Annotated[str, Field(pattern=wei_pattern(40), description=WEI_DESCRIPTION)]


class DepositIn(StrictIn):
    amount: MoneyWei


class WithdrawalIn(StrictIn):
    amount: MoneyWei
    idempotency_key: IdempotencyKey | None = Field(
        default=None,
        description="repeat a request safely: the same key returns the same withdrawal",
    )


class WithdrawalOut(BaseModel):
    id: str
    address: str
    amount: str
    state: str = Field(description="requested | sent | waiting | paid | failed")
    reason: str | None
    tx_hash: str | None
    chain_match_id: str = Field(description="the id its MatchSettled event carries")
    requested_at: datetime
    updated_at: datetime


class EscrowOut(BaseModel):
    key: str
    kind: str = Field(description="table (a match) or tournament (an entry fee)")
    table_id: str | None = None
    tournament_id: int | None = None
    name: str | None = None
    amount: str
    since: datetime


class HistoryLineOut(BaseModel):
    kind: str = Field(
        description="deposit | escrow | release | withdrawal | reversal | hold | unhold"
    )
    amount: str
    ref: str | None
    state: str
    tx_hash: str | None
    at: datetime


class VipPassOut(BaseModel):
    """The signed-in wallet's VIP pass, as the chain reads it now."""

    valid: bool
    expires_at: datetime | None = Field(description="when a valid pass expires; null without one")


class WalletMoneyOut(BaseModel):
    address: str
    dew_balance: str | None = Field(description="on chain (balanceOf); null if unreadable")
    chain_error: str | None = None
    stake_balance: str
    escrowed_total: str
    escrowed: list[EscrowOut]
    withdrawals: list[WithdrawalOut]
    history: list[HistoryLineOut]


# --- the operator's mints, VIP passes and seasons (/operator) -------------------------------


class MintIn(StrictIn):
    recipients: list[CheckedAddress] = Field(min_length=1, max_length=operator.MAX_MINT_RECIPIENTS)
    idempotency_key: IdempotencyKey = Field(
        description="the same key returns the same mint request"
    )


class MintOut(BaseModel):
    id: int
    idempotency_key: str
    status: str = Field(description="queued | submitted | confirmed | failed | waiting")
    recipients: list[str]
    token_ids: list[int] | None = Field(description="the minted avatars, once confirmed")
    tx_hash: str | None
    failure_reason: str | None


class SeasonIn(StrictIn):
    name: str = Field(min_length=1, max_length=64)
    starts_at: datetime
    ends_at: datetime
    emission_budget: Wei31
    rewards: list[Wei31] = Field(
        default_factory=list,
        max_length=season_rewards.MAX_PLACES,
        description="DEW wei per leaderboard place (place 1 first), paid at the season's end "
        "and reserved from its budget now",
    )


class ScheduleIn(StrictIn):
    first_starts_at: datetime
    count: int = Field(ge=1, le=100)
    length_s: int = Field(ge=60, le=366 * 86400, description="each season's length")
    emission_budget: Wei31 = Field(description="each season's budget")
    name_prefix: str = Field(default="Season", min_length=1, max_length=48)


# A season as the operator created, scheduled or ended it (``SeasonOut`` is the schedule's).
class OperatorSeasonOut(BaseModel):
    id: int
    name: str
    starts_at: datetime
    ends_at: datetime
    emission_budget: str
    emitted: str
    rewards: list[str] = Field(description="DEW wei per leaderboard place, place 1 first")


class VipIn(StrictIn):
    action: Literal["issue", "revoke"]
    address: CheckedAddress = Field(description="the pass holder")
    expires_at: int | None = Field(
        default=None,
        ge=1,
        le=2**64 - 1,
        description="issue only: the pass's expiry, unix seconds, as VIPPass.issue takes it",
    )
    idempotency_key: IdempotencyKey = Field(description="the same key returns the same VIP request")


class VipOut(BaseModel):
    id: int
    idempotency_key: str
    action: str
    address: str
    expires_at: int | None
    status: str = Field(description="queued | submitted | confirmed | failed")
    tx_hash: str | None
    failure_reason: str | None
