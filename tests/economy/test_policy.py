"""Rewards policy and split arithmetic: worked examples, then conservation for any input."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backend.economy.policy import (
    BPS,
    DEW,
    AgreementShares,
    FinishedMatch,
    Party,
    PolicyError,
    RewardPolicy,
    SeatResult,
    Split,
    TableEconomy,
    Terms,
    default_policies,
    payee_shares,
    plan_rewards,
    split_payout,
)

ALICE, BOB, CAROL, DAVE = (f"0x{'a' * 39}{i}" for i in range(1, 5))
POLICY = RewardPolicy(fee_bps=500, emission_per_seat=10)


def seat(n, address, placement, **kw) -> SeatResult:
    return SeatResult(seat=n, address=address, placement=placement, **kw)


def match(*seats, stake=0, earning=True, aborted=False) -> FinishedMatch:
    return FinishedMatch(
        match_id="m1",
        chain_match_id="0x" + "00" * 31 + "01",
        result_hash="0x" + "11" * 32,
        earning=earning,
        stake=stake,
        seats=tuple(seats),
        aborted=aborted,
    )


def by_seat(plan):
    return {p.seat: (p.stake_share, p.emission_share) for p in plan.payouts}


# --- worked examples ----------------------------------------------------------------------


def test_free_table_pays_nothing():
    plan = plan_rewards(match(seat(0, ALICE, 1), seat(1, BOB, 2), earning=False), POLICY)
    assert plan.economy is TableEconomy.FREE
    assert (plan.payouts, plan.fee, plan.emission, plan.returned) == ((), 0, 0, 0)


def test_staked_four_player_game_pays_by_placement_after_the_fee():
    plan = plan_rewards(
        match(
            seat(0, ALICE, 1, won=True),
            seat(1, BOB, 2),
            seat(2, CAROL, 3),
            seat(3, DAVE, 4),
            stake=1000,
        ),
        RewardPolicy(fee_bps=500),
    )
    # pot 4000, fee 200, net 3800 split 60/30/10/0.
    assert plan.fee == 200
    assert by_seat(plan) == {0: (2280, 0), 1: (1140, 0), 2: (380, 0)}
    assert plan.returned == 0


def test_bot_seats_earn_nothing_and_their_emission_returns_to_the_budget():
    plan = plan_rewards(
        match(seat(0, None, 1, won=True), seat(1, ALICE, 2), seat(2, None, 3), seat(3, BOB, 4)),
        RewardPolicy(emission_per_seat=100),
    )
    # Only the two human seats bring emission (200): bot shares 120 and 20 go back; Alice
    # (2nd) earns 60, Bob (4th) nothing.
    assert plan.emission == 200
    assert by_seat(plan) == {1: (0, 60)}
    assert plan.returned == 140


def test_bot_seats_bring_no_emission_a_human_could_collect():
    """Beating three easy bots pays a human less than the per-seat emission: the bots' seats
    add nothing to the pot, so bot tables cannot be farmed for more than a table of humans."""
    plan = plan_rewards(
        match(seat(0, ALICE, 1, won=True), seat(1, None, 2), seat(2, None, 3), seat(3, None, 4)),
        RewardPolicy(emission_per_seat=100),
    )
    assert plan.emission == 100
    assert by_seat(plan) == {0: (0, 60)}
    assert plan.returned == 40


def test_emission_allowance_caps_a_wallets_share_and_returns_the_rest():
    plan = plan_rewards(
        match(seat(0, ALICE, 1, won=True), seat(1, BOB, 2)),
        RewardPolicy(emission_per_seat=100),
        emission_allowance={ALICE: 30},
    )
    # 200 emitted, Alice would take it all (2 sides: 100/0) but may earn only 30 more today.
    assert by_seat(plan) == {0: (0, 30)}
    assert plan.returned == 170
    assert plan.paid + plan.fee + plan.returned == plan.pool


def test_bot_share_of_the_stake_pot_stays_with_the_players():
    plan = plan_rewards(
        match(seat(0, None, 1, won=True), seat(1, ALICE, 2), seat(2, BOB, 3), stake=100),
        RewardPolicy(fee_bps=0),
    )
    # Only humans stake (200). The bot's 70% is not paid out: humans share 30:0 of the rest.
    assert by_seat(plan) == {1: (200, 0)}


def test_team_game_splits_the_winning_side_between_its_seats():
    plan = plan_rewards(
        match(
            seat(0, ALICE, 1, team=0, won=True, avatar_id=7, admitted_as="avatar_user"),
            seat(1, BOB, 2, team=1),
            seat(2, CAROL, 1, team=0, won=True, admitted_as="vip"),
            seat(3, DAVE, 2, team=1),
            stake=10,
        ),
        RewardPolicy(fee_bps=1000),
    )
    # pot 40, fee 4, the winning team splits 36.
    assert by_seat(plan) == {0: (18, 0), 2: (18, 0)}
    paid = {p.seat: (p.avatar_id, p.address) for p in plan.payouts}
    assert paid == {0: (7, ALICE), 2: (None, CAROL)}


def test_tied_placements_share_their_bps_and_dust_goes_to_the_best_seat():
    plan = plan_rewards(
        match(seat(0, ALICE, 1), seat(1, BOB, 2), seat(2, CAROL, 2), stake=0),
        RewardPolicy(emission_per_seat=1),
    )
    # 3 emitted; 70% / 15% / 15%: floors 2, 0, 0 and the dust unit to seat 0.
    assert by_seat(plan) == {0: (0, 3)}


def test_forfeit_loses_the_stake_to_the_others():
    plan = plan_rewards(
        match(seat(0, ALICE, 1, won=True), seat(1, BOB, 2, forfeited=True), stake=50),
        RewardPolicy(fee_bps=0, emission_per_seat=5),
    )
    assert by_seat(plan) == {0: (100, 10)}


def test_forfeit_against_bots_only_refunds_the_stake_net_of_fee():
    plan = plan_rewards(
        match(seat(0, ALICE, 2, forfeited=True), seat(1, None, 1, won=True), stake=50),
        RewardPolicy(fee_bps=1000, emission_per_seat=5),
    )
    assert by_seat(plan) == {0: (45, 0)}
    # The one human seat brings 5 of emission; nobody earns it.
    assert (plan.fee, plan.returned) == (5, 5)


def test_seat_no_longer_eligible_at_the_end_gets_its_stake_back_and_no_reward():
    plan = plan_rewards(
        match(
            seat(0, ALICE, 1, won=True, eligible=False, avatar_id=4, admitted_as="avatar_user"),
            seat(1, BOB, 2),
            seat(2, CAROL, 3),
            stake=100,
        ),
        RewardPolicy(fee_bps=1000, emission_per_seat=10),
    )
    # Alice's 100 comes back fee-free; Bob and Carol play for 200 - 20 fee = 180 at 30:0,
    # and Bob's emission is his 30% of 30; Alice's 70% (21) returns to the budget.
    assert by_seat(plan) == {0: (100, 0), 1: (180, 9)}
    assert (plan.fee, plan.returned) == (20, 21)
    assert not plan.payouts[0].emission_to_avatar, "a refund never goes through the avatar"


def test_stake_winnings_go_to_the_wallet_and_the_reward_to_the_avatar():
    plan = plan_rewards(
        match(
            seat(0, ALICE, 1, won=True, avatar_id=4, admitted_as="avatar_user"),
            seat(1, BOB, 2, avatar_id=5, admitted_as="avatar_user"),
            stake=100,
        ),
        RewardPolicy(fee_bps=0, emission_per_seat=10),
    )
    [winner] = plan.payouts
    assert (winner.stake_share, winner.emission_share, winner.emission_to_avatar) == (200, 20, True)


def test_aborted_match_refunds_every_stake_without_fee_or_emission():
    plan = plan_rewards(
        match(seat(0, ALICE, 1), seat(1, BOB, 1), seat(2, None, 1), stake=30, aborted=True),
        POLICY,
    )
    assert by_seat(plan) == {0: (30, 0), 1: (30, 0)}
    assert (plan.fee, plan.emission, plan.returned) == (0, 0, 0)


def test_emission_is_capped_by_the_season_budget():
    plan = plan_rewards(
        match(seat(0, ALICE, 1), seat(1, BOB, 2)),
        RewardPolicy(emission_per_seat=100),
        emission_available=7,
    )
    assert plan.emission == 7 and by_seat(plan) == {0: (0, 7)}


def test_owner_admission_pays_the_avatar_and_vip_pays_the_wallet():
    plan = plan_rewards(
        match(
            seat(0, ALICE, 1, avatar_id=3, admitted_as="avatar_owner"),
            seat(1, BOB, 2, avatar_id=4, admitted_as="vip"),
        ),
        RewardPolicy(emission_per_seat=10, placement_bps={2: (7000, 3000)}),
    )
    assert [(p.avatar_id, p.amount) for p in plan.payouts] == [(3, 14), (None, 6)]


def test_default_policies_cover_every_table_economy():
    policies = default_policies(fee_bps=250, emission_per_seat=DEW)
    assert set(policies) == set(TableEconomy)
    assert policies[TableEconomy.STAKED].fee_bps == 250


def test_from_settlement_row_reads_the_server_outbox_shape():
    row = SimpleNamespace(
        match_id="abc",
        chain_match_id="0x" + "00" * 31 + "02",
        result_hash="0x" + "22" * 32,
        earning=True,
        stake="1000000000000000000000",
        preset="dew",
        seats=[
            {
                "seat": 0,
                "address": ALICE,
                "avatar_id": 5,
                "is_bot": False,
                "team": None,
                "placement": 1,
                "points": 200,
                "won": True,
                "forfeited": False,
                "admitted_as": "avatar_user",
            },
            {
                "seat": 1,
                "address": None,
                "avatar_id": None,
                "is_bot": True,
                "team": None,
                "placement": 2,
                "points": 80,
                "won": False,
                "forfeited": False,
                "admitted_as": None,
            },
        ],
    )
    finished = FinishedMatch.from_settlement_row(row)
    assert finished.stake == 1000 * DEW and finished.economy is TableEconomy.STAKED
    assert finished.seats[0].avatar_id == 5 and finished.seats[1].is_bot


@pytest.mark.parametrize(
    "bad",
    [
        match(),
        match(seat(0, ALICE, 1), seat(0, BOB, 2)),
        match(seat(0, ALICE, 1), stake=-1),
        match(seat(0, ALICE, 0)),
        match(seat(0, ALICE, 1, team=0), seat(1, BOB, 2, team=0)),
        match(seat(0, ALICE, 1, avatar_id=0, admitted_as="avatar_user")),
    ],
)
def test_malformed_matches_are_refused(bad):
    with pytest.raises(PolicyError):
        plan_rewards(bad, POLICY)


@pytest.mark.parametrize(
    "kwargs",
    [{"fee_bps": 10_001}, {"emission_per_seat": -1}, {"placement_bps": {2: (6000, 3000)}}],
)
def test_malformed_policies_are_refused(kwargs):
    with pytest.raises(PolicyError):
        RewardPolicy(**kwargs)


# --- conservation for any input -----------------------------------------------------------

# Large enough to overflow 64 bits, small enough that six seats stay below 2**88.
amounts = st.integers(min_value=0, max_value=10**25)


@st.composite
def finished_matches(draw):
    n = draw(st.integers(min_value=1, max_value=6))
    team_game = n == 4 and draw(st.booleans())
    sides = [i % 2 for i in range(n)] if team_game else list(range(n))
    side_count = len(set(sides))
    placement = {side: draw(st.integers(min_value=1, max_value=side_count)) for side in set(sides)}
    forfeit_side = draw(st.one_of(st.none(), st.sampled_from(sorted(set(sides)))))
    seats = []
    for i in range(n):
        human = draw(st.booleans())
        seats.append(
            SeatResult(
                seat=i,
                address=f"0x{i:040x}" if human else None,
                avatar_id=draw(st.one_of(st.none(), st.integers(1, 1000))),
                admitted_as=draw(st.sampled_from(["avatar_user", "avatar_owner", "vip", None])),
                team=sides[i] if team_game else None,
                placement=placement[sides[i]],
                forfeited=sides[i] == forfeit_side,
                eligible=draw(st.booleans()) or not human,
            )
        )
    return FinishedMatch(
        match_id="m",
        chain_match_id="0x01",
        result_hash="0x02",
        earning=draw(st.booleans()),
        stake=draw(amounts),
        seats=tuple(seats),
        aborted=draw(st.booleans()),
    )


policies = st.builds(
    RewardPolicy,
    fee_bps=st.integers(0, BPS),
    emission_per_seat=amounts,
)


@settings(max_examples=400, deadline=None)
@given(finished_matches(), policies, st.one_of(st.none(), amounts))
def test_every_unit_of_the_pool_is_paid_charged_or_returned(finished, policy, budget):
    plan = plan_rewards(finished, policy, emission_available=budget)
    assert plan.paid + plan.fee + plan.returned == plan.stake_pot + plan.emission
    assert all(p.amount > 0 for p in plan.payouts)
    assert all(p.address is not None for p in plan.payouts), "a bot seat was paid"
    if budget is not None:
        assert plan.emission <= budget
    humans = [s for s in finished.seats if not s.is_bot]
    # Stakes are never kept by the house beyond the fee.
    assert sum(p.stake_share for p in plan.payouts) + plan.fee == plan.stake_pot
    if plan.stake_pot:
        assert plan.stake_pot == finished.stake * len(humans)
    forfeited = {s.seat for s in finished.seats if s.forfeited}
    assert all(p.emission_share == 0 for p in plan.payouts if p.seat in forfeited)
    # A seat no longer eligible gets exactly its own stake back (if staked) and no reward.
    refunded = {s.seat for s in humans if not s.eligible}
    for p in plan.payouts:
        if p.seat in refunded:
            assert (p.stake_share, p.emission_share) == (finished.stake, 0)
    assert all(p.emission_share == 0 or p.seat not in refunded for p in plan.payouts)


# --- the split ----------------------------------------------------------------------------


def test_split_examples_match_the_contract_rule():
    assert split_payout(10_001, owner_bps=3000, manager_bps=1000, dust_to=Party.SCHOLAR) == Split(
        3000, 1000, 6001
    )
    assert split_payout(7, owner_bps=3333, manager_bps=3333, dust_to=Party.MANAGER) == Split(
        2, 3, 2
    )
    assert split_payout(
        99, **dict(zip(("owner_bps", "manager_bps", "dust_to"), payee_shares(None), strict=True))
    ) == Split(99, 0, 0)
    fixed = payee_shares(AgreementShares(Terms.FIXED_RENT))
    assert split_payout(99, owner_bps=fixed[0], manager_bps=fixed[1], dust_to=fixed[2]) == Split(
        0, 0, 99
    )


@pytest.mark.parametrize(
    "kwargs", [{"owner_bps": 10_001}, {"owner_bps": 6000, "manager_bps": 5000}, {"owner_bps": -1}]
)
def test_split_refuses_bad_shares(kwargs):
    with pytest.raises(PolicyError):
        split_payout(100, **kwargs)


@settings(max_examples=1000, deadline=None)
@given(
    st.integers(0, (1 << 88) - 1),
    st.integers(0, BPS),
    st.integers(0, BPS),
    st.sampled_from(list(Party)),
)
def test_split_conserves_the_payout(amount, owner_bps, manager_bps, dust_to):
    manager_bps = min(manager_bps, BPS - owner_bps)
    split = split_payout(amount, owner_bps=owner_bps, manager_bps=manager_bps, dust_to=dust_to)
    assert split.total == amount
    # Only the named party gets more than its rounded-down share, and by less than 3 units.
    floors = {
        Party.OWNER: amount * owner_bps // BPS,
        Party.MANAGER: amount * manager_bps // BPS,
        Party.SCHOLAR: amount * (BPS - owner_bps - manager_bps) // BPS,
    }
    got = {Party.OWNER: split.owner, Party.MANAGER: split.manager, Party.SCHOLAR: split.scholar}
    for party in Party:
        extra = got[party] - floors[party]
        assert extra == 0 if party is not dust_to else 0 <= extra < 3
