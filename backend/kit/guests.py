"""Guests: players without a wallet, known by an address in a range no wallet is given.

A guest session (``backend.accounts.guests``) plays under an address whose first 8 bytes are
zero and whose last 12 are random. A wallet reaching that range would need a key whose
address starts with 64 zero bits, and would only lose by it: a guest reaches free play only.
Standard library only, so the one rule of what a match counts for (``economy.counts``) and
every door of earning, staked or ranked play read the same test.
"""

from __future__ import annotations

GUEST_PREFIX = "0x" + "0" * 16


def is_guest_address(address: str | None) -> bool:
    """Is ``address`` a guest's (never a wallet that can earn, stake or rank)?"""
    return bool(address) and str(address).lower().startswith(GUEST_PREFIX)
