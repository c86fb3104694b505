"""Rewards policy and scholarship split: pure, integer-exact arithmetic (standard library only).

``plan_rewards`` turns a finished match into payouts per avatar or wallet; ``split_payout``
is the Python twin of ``MatchSettlement._splitAvatarPayout``. Every DEW base unit is
accounted for: ``sum(payouts) + fee + returned == stake_pot + emission`` for any input, and
``owner + manager + scholar == amount`` for any split. docs/economy.md states the rules.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from fractions import Fraction
from typing import Any

# How a table pays, and what a finished match counts for: the one rule.
from backend.economy.counts import Count, match_counts
from backend.economy.counts import TableEconomy as TableEconomy

BPS = 10_000
DEW = 10**18
# MatchSettlement packs an amount into 88 bits of a payout word.
MAX_PAYOUT_AMOUNT = (1 << 88) - 1


class PolicyError(ValueError):
    """A match or a policy cannot be planned; the message quotes the bad value."""


# --- scholarship split (mirror of the contract) -------------------------------------------


class Terms(IntEnum):
    """``IScholarshipRegistry.Terms``."""

    FIXED_RENT = 0
    REWARDS_DIVISION = 1


class Party(IntEnum):
    """``IScholarshipRegistry.Party``: who receives rounding dust."""

    OWNER = 0
    MANAGER = 1
    SCHOLAR = 2


# How the database mirror of the registry spells the contract's enums.
TERMS_NAMES = {Terms.FIXED_RENT: "fixed_rent", Terms.REWARDS_DIVISION: "rewards_division"}
PARTY_NAMES = {Party.OWNER: "owner", Party.MANAGER: "manager", Party.SCHOLAR: "scholar"}


@dataclass(frozen=True)
class Split:
    owner: int
    manager: int
    scholar: int

    @property
    def total(self) -> int:
        return self.owner + self.manager + self.scholar


def split_payout(
    amount: int, *, owner_bps: int, manager_bps: int = 0, dust_to: Party = Party.OWNER
) -> Split:
    """How ``MatchSettlement`` divides ``amount`` paid to an avatar: each share rounds down,
    the scholar's share is computed from the remaining bps, and the dust goes to ``dust_to``."""
    if not isinstance(amount, int) or amount < 0:
        raise PolicyError(f"amount must be a non-negative integer, got {amount!r}")
    if not 0 <= owner_bps <= BPS or not 0 <= manager_bps <= BPS or owner_bps + manager_bps > BPS:
        raise PolicyError(
            f"shares out of range: owner_bps={owner_bps!r} manager_bps={manager_bps!r}"
        )
    owner = amount * owner_bps // BPS
    manager = amount * manager_bps // BPS
    scholar = amount * (BPS - owner_bps - manager_bps) // BPS
    dust = amount - owner - manager - scholar
    party = Party(dust_to)
    if party is Party.OWNER:
        owner += dust
    elif party is Party.MANAGER:
        manager += dust
    else:
        scholar += dust
    return Split(owner, manager, scholar)


@dataclass(frozen=True)
class AgreementShares:
    """The parts of an agreement that decide a split (``IScholarshipRegistry.Payees``)."""

    terms: Terms
    owner_bps: int = 0
    manager_bps: int = 0
    dust_to: Party = Party.SCHOLAR


def payee_shares(agreement: AgreementShares | None) -> tuple[int, int, Party]:
    """``(owner_bps, manager_bps, dust_to)`` as ``payeesOf`` answers: no agreement in its term
    pays the owner everything; Fixed Rent pays the scholar everything."""
    if agreement is None:
        return BPS, 0, Party.OWNER
    if agreement.terms is Terms.FIXED_RENT:
        return 0, 0, Party.SCHOLAR
    return agreement.owner_bps, agreement.manager_bps, agreement.dust_to


# --- the finished match --------------------------------------------------------------------


AVATAR_ADMISSIONS = ("avatar_user", "avatar_owner")


@dataclass(frozen=True)
class SeatResult:
    """One seat's outcome, as the server stores it in the settlement outbox."""

    seat: int
    address: str | None
    avatar_id: int | None = None
    admitted_as: str | None = None
    team: int | None = None
    placement: int = 1
    points: int = 0
    won: bool = False
    forfeited: bool = False
    # The server's gating re-check at the match end: False when the wallet no longer holds
    # what admitted it (e.g. the rental ran out mid-match). Unreadable counts as eligible.
    eligible: bool = True

    @property
    def is_bot(self) -> bool:
        return self.address is None

    @property
    def side(self) -> int:
        """Team games place teams; individual games place seats."""
        return self.team if self.team is not None else self.seat

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> SeatResult:
        try:
            avatar = data.get("avatar_id")
            return cls(
                seat=int(data["seat"]),
                address=data.get("address") or None,
                avatar_id=int(avatar) if avatar is not None else None,
                admitted_as=data.get("admitted_as"),
                team=data.get("team"),
                placement=int(data["placement"]),
                points=int(data.get("points", 0)),
                won=bool(data.get("won", False)),
                forfeited=bool(data.get("forfeited", False)),
                eligible=data.get("still_eligible") is not False,
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise PolicyError(f"malformed seat result {dict(data)!r}: {exc}") from exc


@dataclass(frozen=True)
class FinishedMatch:
    """What the economy needs from a match: its ids, how its table pays, and its seats.

    ``aborted`` marks a match that was abandoned without a result: every stake is refunded.
    """

    match_id: str
    chain_match_id: str
    result_hash: str
    earning: bool
    stake: int
    seats: tuple[SeatResult, ...]
    preset: str = ""
    aborted: bool = False
    # The table it was played at (its Game Center, if any, takes a leg of the fee).
    table_id: str = ""

    @property
    def economy(self) -> TableEconomy:
        if not self.earning:
            return TableEconomy.FREE
        return TableEconomy.STAKED if self.stake > 0 else TableEconomy.EMISSION

    @classmethod
    def from_settlement_row(cls, row: Any) -> FinishedMatch:
        """From the server's ``settlement_requests`` row (any object with its attributes)."""
        try:
            stake = int(row.stake or 0)
        except (TypeError, ValueError) as exc:
            raise PolicyError(
                f"stake of match {row.match_id!r} is not an integer: {row.stake!r}"
            ) from exc
        return cls(
            match_id=row.match_id,
            chain_match_id=row.chain_match_id,
            result_hash=row.result_hash,
            earning=bool(row.earning),
            stake=stake,
            seats=tuple(SeatResult.from_json(s) for s in row.seats),
            preset=row.preset or "",
            table_id=getattr(row, "table_id", "") or "",
        )


# --- the policy ----------------------------------------------------------------------------

# Share of the distributed pot per placement, in bps, by the number of sides (seats, or teams).
DEFAULT_PLACEMENT_BPS: Mapping[int, tuple[int, ...]] = {
    1: (BPS,),
    2: (BPS, 0),
    3: (7_000, 3_000, 0),
    4: (6_000, 3_000, 1_000, 0),
}


@dataclass(frozen=True)
class RewardPolicy:
    """How one kind of table pays (docs/economy.md)."""

    fee_bps: int = 0
    emission_per_seat: int = 0
    placement_bps: Mapping[int, tuple[int, ...]] = field(
        default_factory=lambda: dict(DEFAULT_PLACEMENT_BPS)
    )

    def __post_init__(self) -> None:
        if not 0 <= self.fee_bps <= BPS:
            raise PolicyError(f"fee_bps must be within 0..{BPS}, got {self.fee_bps!r}")
        if self.emission_per_seat < 0:
            raise PolicyError(f"emission_per_seat must be >= 0, got {self.emission_per_seat!r}")
        for sides, table in self.placement_bps.items():
            if len(table) != sides or any(b < 0 for b in table) or sum(table) != BPS:
                raise PolicyError(f"placement bps for {sides} sides must sum to {BPS}: {table!r}")

    def bps_for(self, sides: int) -> tuple[int, ...]:
        """Winner takes all when no table is configured for this many sides."""
        return tuple(self.placement_bps.get(sides, (BPS,) + (0,) * (sides - 1)))


def default_policies(
    *, fee_bps: int = 500, emission_per_seat: int = 10 * DEW
) -> dict[TableEconomy, RewardPolicy]:
    return {
        TableEconomy.FREE: RewardPolicy(),
        TableEconomy.EMISSION: RewardPolicy(emission_per_seat=emission_per_seat),
        TableEconomy.STAKED: RewardPolicy(fee_bps=fee_bps, emission_per_seat=emission_per_seat),
    }


# --- the plan ------------------------------------------------------------------------------


@dataclass(frozen=True)
class SeatPayout:
    """What one seat receives: its share of the stake pot and of the emission.

    The stake share is the player's own money (their stake back plus what they won from the
    others): it is paid to the wallet. The emission share is the match reward: it is paid to
    the avatar when the seat played one, and split on chain by the avatar's agreement.
    """

    seat: int
    address: str | None
    avatar_id: int | None
    stake_share: int
    emission_share: int

    @property
    def amount(self) -> int:
        return self.stake_share + self.emission_share

    @property
    def emission_to_avatar(self) -> bool:
        """The emission share is paid to the avatar (split on chain by its agreement)."""
        return self.avatar_id is not None and self.emission_share > 0


@dataclass(frozen=True)
class RewardPlan:
    """The whole match's money: ``sum(payouts) + fee + returned == stake_pot + emission``.

    ``returned`` is emission that nobody earned (bot seats, forfeits, dust without an
    eligible seat): it goes back to the season budget and never leaves the vault.
    """

    match_id: str
    economy: TableEconomy
    stake_pot: int
    emission: int
    fee: int
    returned: int
    payouts: tuple[SeatPayout, ...]

    @property
    def paid(self) -> int:
        return sum(p.amount for p in self.payouts)

    @property
    def pool(self) -> int:
        return self.stake_pot + self.emission


def _side_weights(seats: Sequence[SeatResult], bps: tuple[int, ...]) -> dict[int, Fraction]:
    """Each side's share of the pot; sides tied on a placement share those placements' bps."""
    placement: dict[int, int] = {}
    for s in seats:
        if placement.setdefault(s.side, s.placement) != s.placement:
            raise PolicyError(f"seats of side {s.side} have different placements")
    tied: dict[int, int] = {}
    for p in placement.values():
        tied[p] = tied.get(p, 0) + 1
    weights = {}
    for side, p in placement.items():
        if p < 1:
            raise PolicyError(f"placement must be >= 1, got {p!r}")
        k = tied[p]
        weights[side] = Fraction(sum(bps[p - 1 : p - 1 + k]), k)
    return weights


def _seat_weights(seats: Sequence[SeatResult], bps: tuple[int, ...]) -> dict[int, Fraction]:
    sides = _side_weights(seats, bps)
    size: dict[int, int] = {}
    for s in seats:
        size[s.side] = size.get(s.side, 0) + 1
    return {s.seat: sides[s.side] / size[s.side] for s in seats}


def _divide(
    pot: int, weights: Mapping[int, Fraction], order: Sequence[int]
) -> tuple[dict[int, int], int]:
    """Shares rounded down per weight; the dust is returned separately (0 if weights sum 0)."""
    total = sum(weights.values(), Fraction(0))
    if pot == 0 or total == 0:
        return {seat: 0 for seat in order}, pot
    shares = {seat: (pot * weights[seat] / total).__floor__() for seat in order}
    return shares, pot - sum(shares.values())


def _check(match: FinishedMatch) -> list[SeatResult]:
    seats = sorted(match.seats, key=lambda s: s.seat)
    if not seats:
        raise PolicyError(f"match {match.match_id!r} has no seats")
    if len({s.seat for s in seats}) != len(seats):
        raise PolicyError(f"match {match.match_id!r} lists a seat twice")
    if not isinstance(match.stake, int) or match.stake < 0:
        raise PolicyError(f"stake must be a non-negative integer, got {match.stake!r}")
    for s in seats:
        if s.avatar_id is not None and s.avatar_id <= 0:
            raise PolicyError(f"seat {s.seat} has a bad avatar id {s.avatar_id!r}")
    return seats


def plan_rewards(
    match: FinishedMatch,
    policy: RewardPolicy,
    *,
    emission_available: int | None = None,
    emission_allowance: Mapping[str, int] | None = None,
) -> RewardPlan:
    """Payouts for a finished match under ``policy``; ``emission_available`` caps emission
    at what is left of the season budget (``None``: uncapped), and ``emission_allowance``
    caps each wallet's emission share at what it may still earn today (a wallet absent from
    it: uncapped). Emission above either cap is returned to the season budget."""
    seats = _check(match)
    humans = [s for s in seats if not s.is_bot]
    economy = match.economy
    stake_pot = match.stake * len(humans) if economy is TableEconomy.STAKED else 0
    stake: dict[int, int] = {s.seat: 0 for s in seats}
    emission_share: dict[int, int] = {s.seat: 0 for s in seats}
    # Whether the season pays emission for this match is the one rule's (``counts``).
    emits = Count.EMISSION in match_counts(match)

    if match.aborted or not (stake_pot or emits):
        # Nothing was won (an abandoned match), or nothing is at play: every stake goes back
        # to whoever put it in, without a fee.
        for s in humans:
            stake[s.seat] = match.stake if stake_pot else 0
        return _plan(match, economy, seats, stake_pot, 0, 0, 0, stake, emission_share)

    # Only human seats bring emission: a bot seat adds nothing to the pot, so filling a table
    # with (easy) bots never pays a human more than a table of humans would.
    emission = policy.emission_per_seat * len(humans) if emits else 0
    if emission_available is not None:
        emission = max(0, min(emission, emission_available))
    weights = _seat_weights(seats, policy.bps_for(len({s.side for s in seats})))
    # A seat no longer eligible at the end takes no part: its stake comes back whole, fee-free,
    # and its placement share is treated as a bot's.
    players = [s for s in humans if s.eligible]
    for s in humans:
        if not s.eligible and stake_pot:
            stake[s.seat] = match.stake
    eligible = [s for s in players if not s.forfeited]
    # Best placed first: the dust goes to the first eligible seat with a share.
    ranked = sorted(eligible, key=lambda s: (s.placement, s.seat))

    in_play = match.stake * len(players) if stake_pot else 0
    fee = in_play * policy.fee_bps // BPS
    net = in_play - fee
    if net:
        if sum((weights[s.seat] for s in eligible), Fraction(0)) > 0:
            shares, dust = _divide(
                net, {s.seat: weights[s.seat] for s in eligible}, [s.seat for s in eligible]
            )
            receiver = next(s.seat for s in ranked if weights[s.seat] > 0)
        else:
            # No eligible seat placed in the money (or none is left): stakes are players'
            # money, so the net pot goes back in equal parts rather than to the house.
            back = eligible or players
            shares = {s.seat: net // len(back) for s in back}
            dust = net - sum(shares.values())
            receiver = min(back, key=lambda s: (s.placement, s.seat)).seat
        shares[receiver] += dust
        stake.update(shares)

    returned = 0
    if emission:
        all_shares, dust = _divide(emission, weights, [s.seat for s in seats])
        eligible_seats = {s.seat for s in eligible}
        for seat, amount in all_shares.items():
            if seat in eligible_seats:
                emission_share[seat] = amount
            else:
                returned += amount
        winners = [s.seat for s in ranked if weights[s.seat] > 0]
        if winners:
            emission_share[winners[0]] += dust
        else:
            returned += dust
        if emission_allowance is not None:
            for s in eligible:
                allowed = emission_allowance.get(s.address or "")
                if allowed is not None and emission_share[s.seat] > max(0, allowed):
                    returned += emission_share[s.seat] - max(0, allowed)
                    emission_share[s.seat] = max(0, allowed)
    return _plan(match, economy, seats, stake_pot, emission, fee, returned, stake, emission_share)


def _plan(
    match: FinishedMatch,
    economy: TableEconomy,
    seats: Iterable[SeatResult],
    stake_pot: int,
    emission: int,
    fee: int,
    returned: int,
    stake: Mapping[int, int],
    emission_share: Mapping[int, int],
) -> RewardPlan:
    payouts = []
    for s in seats:
        amount = stake[s.seat] + emission_share[s.seat]
        if amount == 0:
            continue
        if amount > MAX_PAYOUT_AMOUNT:
            raise PolicyError(f"payout to seat {s.seat} of {amount} exceeds the contract's 2**88-1")
        avatar = s.avatar_id if s.admitted_as in AVATAR_ADMISSIONS else None
        payouts.append(
            SeatPayout(
                seat=s.seat,
                address=s.address,
                avatar_id=avatar,
                stake_share=stake[s.seat],
                emission_share=emission_share[s.seat],
            )
        )
    plan = RewardPlan(
        match_id=match.match_id,
        economy=economy,
        stake_pot=stake_pot,
        emission=emission,
        fee=fee,
        returned=returned,
        payouts=tuple(payouts),
    )
    # The conservation law is the whole point; refuse to hand out a plan that breaks it.
    if plan.paid + plan.fee + plan.returned != plan.pool:
        raise AssertionError(f"reward plan for {match.match_id!r} does not conserve DEW: {plan}")
    return plan
