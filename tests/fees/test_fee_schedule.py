"""The fee schedule's split: legs sum to the fee exactly, each share is what the contract
rounds to, and a missing party's share is the treasury's (property tests)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from backend.chain.deploy import DeployConfig
from backend.config import FeeSettings
from backend.economy.fees.schedule import (
    BPS,
    FeeSchedule,
    FeeScheduleError,
    creator_shares,
    split_fee,
)

fees = st.integers(0, 2**128)
shares = st.tuples(st.integers(0, BPS), st.integers(0, BPS)).filter(lambda t: sum(t) <= BPS)


def _schedule(center_bps: int, creator_bps: int) -> FeeSchedule:
    return FeeSchedule(center_bps=center_bps, creator_bps=creator_bps)


@given(fee=fees, bps=shares, has_center=st.booleans(), has_creator=st.booleans())
def test_legs_sum_to_the_fee_with_no_dust(fee, bps, has_center, has_creator):
    legs = split_fee(fee, _schedule(*bps), has_center, has_creator)
    assert legs.treasury + legs.center + legs.creator == fee
    assert min(legs.treasury, legs.center, legs.creator) >= 0
    # Each share is rounded down: the treasury's remainder is less than one unit per share.
    assert legs.center == (fee * bps[0] // BPS if has_center else 0)
    assert legs.creator == (fee * bps[1] // BPS if has_creator else 0)
    exact_treasury = fee * (BPS - bps[0] * has_center - bps[1] * has_creator)
    assert exact_treasury <= legs.treasury * BPS < exact_treasury + 2 * BPS


@given(fee=fees, bps=shares)
def test_a_missing_party_share_goes_to_the_treasury(fee, bps):
    both = split_fee(fee, _schedule(*bps), True, True)
    no_center = split_fee(fee, _schedule(*bps), False, True)
    neither = split_fee(fee, _schedule(*bps), False, False)
    assert no_center.center == 0 and no_center.treasury == both.treasury + both.center
    assert neither == type(neither)(treasury=fee, center=0, creator=0)


@given(
    fee=fees,
    bps=shares,
    paid=st.dictionaries(st.integers(0, 7), st.integers(0, 10**24), min_size=1, max_size=8),
)
def test_creator_shares_of_several_payers_never_exceed_the_whole_creator_share(fee, bps, paid):
    schedule = _schedule(*bps)
    per_payer = creator_shares(fee, paid, schedule)
    whole = split_fee(fee, schedule, False, True).creator
    assert sum(per_payer.values()) <= whole
    assert all(v >= 0 for v in per_payer.values())


@pytest.mark.parametrize(
    "bad",
    [
        {"center_bps": -1},
        {"creator_bps": BPS + 1},
        {"center_bps": 6_000, "creator_bps": 5_000},
        {"rake_bps": 10_001},
        {"creator_period_days": 0},
    ],
)
def test_a_bad_schedule_is_refused(bad):
    with pytest.raises(FeeScheduleError):
        FeeSchedule(**bad)


@pytest.mark.parametrize("fee", [-1, 1.5, "10", True])
def test_a_bad_fee_is_refused(fee):
    with pytest.raises(FeeScheduleError):
        split_fee(fee, FeeSchedule(), True, True)


def test_the_settings_are_the_schedule(monkeypatch):
    monkeypatch.setenv("DEW_FEES_RAKE_BPS", "300")
    monkeypatch.setenv("DEW_FEES_CENTER_BPS", "2500")
    monkeypatch.setenv("DEW_FEES_CREATOR_BPS", "1500")
    schedule = FeeSchedule.from_settings(FeeSettings())
    assert (schedule.rake_bps, schedule.center_bps, schedule.creator_bps) == (300, 2500, 1500)
    assert schedule.treasury_bps == 6000
    monkeypatch.setenv("DEW_FEES_CENTER_BPS", "9500")
    with pytest.raises(ValueError, match="CENTER_BPS"):
        FeeSettings()


def test_the_market_is_deployed_with_the_schedules_fee(monkeypatch) -> None:
    """One schedule: the resale market's on-chain fee is ``DEW_FEES_MARKET_BPS``
    (tests/contracts/test_markets_anvil.py reads ``Market.feeBps`` back as deployed)."""
    assert DeployConfig().market_fee_bps == FeeSettings().market_bps
    monkeypatch.setenv("DEW_FEES_MARKET_BPS", "300")
    assert DeployConfig().market_fee_bps == 300
