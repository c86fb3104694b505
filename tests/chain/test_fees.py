"""EIP-1559 fees of the engine: the first offer, the replacement bump and the cap."""

from __future__ import annotations

from backend.chain.fees import Fees, initial_fees, replacement_fees
from backend.chain.sender import classify_broadcast_error
from backend.config import ChainSettings

GWEI = 10**9
SETTINGS = ChainSettings(
    priority_fee_wei=GWEI,
    base_fee_multiplier=2.0,
    fee_bump_percent=15,
    max_fee_cap_wei=100 * GWEI,
)


def test_first_offer_is_twice_the_base_fee_plus_the_tip_under_the_cap() -> None:
    assert initial_fees(10 * GWEI, SETTINGS) == Fees(max_fee=21 * GWEI, tip=GWEI)
    assert initial_fees(80 * GWEI, SETTINGS) == Fees(max_fee=100 * GWEI, tip=GWEI)


def test_replacement_beats_the_bump_and_the_current_market() -> None:
    current = Fees(max_fee=21 * GWEI, tip=GWEI)
    bumped = replacement_fees(current, 10 * GWEI, SETTINGS)
    assert bumped == Fees(max_fee=21 * GWEI * 115 // 100 + 1, tip=GWEI * 115 // 100 + 1)
    # The base fee rose: the replacement offers what a new transaction would.
    risen = replacement_fees(current, 30 * GWEI, SETTINGS)
    assert risen is not None and risen.max_fee == 60 * GWEI + risen.tip


def test_replacement_stops_at_the_cap() -> None:
    near = replacement_fees(Fees(max_fee=95 * GWEI, tip=GWEI), 10 * GWEI, SETTINGS)
    assert near is not None and near.max_fee == 100 * GWEI
    assert replacement_fees(Fees(max_fee=100 * GWEI, tip=GWEI), 10 * GWEI, SETTINGS) is None


def test_node_refusals_are_classified() -> None:
    assert classify_broadcast_error("already known") == "known"
    assert classify_broadcast_error("nonce too low: next nonce 5, tx nonce 4") == "nonce_too_low"
    assert classify_broadcast_error("replacement transaction underpriced") == "underpriced"
    assert classify_broadcast_error("insufficient funds for gas * price + value") == "unfunded"
    assert classify_broadcast_error("max fee per gas less than block base fee") == "fee_too_low"
    assert classify_broadcast_error("invalid sender") == "rejected"
