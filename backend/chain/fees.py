"""EIP-1559 fees for the operator's transactions: the first offer and the replacement bump.

Every figure comes from ``ChainSettings``: the tip (``priority_fee_wei``), how far above
the latest base fee the cap goes (``base_fee_multiplier``), the bump a replacement at the
same nonce must beat (``fee_bump_percent``: nodes refuse less than +10 %), and the hard
cap no transaction of ours ever exceeds (``max_fee_cap_wei``).
"""

from __future__ import annotations

from dataclasses import dataclass

from backend.config import ChainSettings


@dataclass(frozen=True)
class Fees:
    max_fee: int  # maxFeePerGas, wei
    tip: int  # maxPriorityFeePerGas, wei


def initial_fees(base_fee: int, settings: ChainSettings) -> Fees:
    """The fees a new transaction is signed with, given the latest block's base fee."""
    priority = settings.priority_fee_wei
    max_fee = int(base_fee * settings.base_fee_multiplier) + priority
    cap = settings.max_fee_cap_wei
    return Fees(max_fee=min(max_fee, cap), tip=min(priority, cap))


def replacement_fees(current: Fees, base_fee: int, settings: ChainSettings) -> Fees | None:
    """Fees for a replacement at the same nonce: both raised by at least the bump, and at
    least what a new transaction would offer now. ``None`` when ``current`` is already at
    the cap: no replacement can beat it, an operator must act."""
    bump = 100 + settings.fee_bump_percent
    tip = max(current.tip * bump // 100 + 1, settings.priority_fee_wei)
    max_fee = max(
        current.max_fee * bump // 100 + 1,
        int(base_fee * settings.base_fee_multiplier) + tip,
    )
    cap = settings.max_fee_cap_wei
    if max_fee > cap:
        if current.max_fee >= cap:
            return None
        max_fee = cap
        tip = min(tip, cap)
    return Fees(max_fee=max_fee, tip=tip)
