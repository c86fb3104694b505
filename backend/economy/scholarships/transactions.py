"""Unsigned scholarship transactions for the user's own wallet to sign.

The server never holds users' keys: each builder checks the call the way the contract will
(screening, ownership, terms, status) and simulates it with ``eth_call`` from the user's
address, so a call the chain would refuse is refused here with the contract's own decoded
error instead of costing the user gas. The result is what ``eth_sendTransaction`` takes.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from eth_utils.address import is_address, to_checksum_address

from backend.chain.contracts import SCREENER_ROLE
from backend.chain.unsigned import TxBuilder
from backend.chain.unsigned import UnsignedTx as UnsignedTx
from backend.economy.exceptions import EconomyValueError, Refused, Unavailable
from backend.economy.policy import BPS, Party, Terms

ZERO_ADDRESS = "0x" + "00" * 20
MAX_DURATION_S = 365 * 24 * 3600
# An offer made without an explicit validUntil may be accepted for this long (chain time).
DEFAULT_OFFER_VALIDITY_S = 7 * 24 * 3600


@dataclass(frozen=True)
class OfferTerms:
    """``IScholarshipRegistry.OfferTerms``, checked as ``_checkTerms`` checks it."""

    terms: Terms
    duration_s: int
    rent: int = 0
    owner_bps: int = 0
    manager_bps: int = 0
    manager: str | None = None
    dust_to: Party = Party.SCHOLAR
    # Unix seconds (chain time); None: ``DEFAULT_OFFER_VALIDITY_S`` after the latest block.
    valid_until: int | None = None

    def __post_init__(self) -> None:
        if not 0 < self.duration_s <= MAX_DURATION_S:
            raise EconomyValueError(
                f"duration must be 1..{MAX_DURATION_S} seconds, got {self.duration_s!r}"
            )
        if self.rent < 0 or self.rent >= 1 << 128:
            raise EconomyValueError(f"rent out of range: {self.rent!r}")
        if self.valid_until is not None and not 0 < self.valid_until < 1 << 64:
            raise EconomyValueError(f"valid_until out of range: {self.valid_until!r}")
        if self.manager is not None and not is_address(self.manager):
            raise EconomyValueError(f"manager is not an address: {self.manager!r}")
        if self.terms is Terms.FIXED_RENT:
            if self.owner_bps or self.manager_bps or self.manager:
                raise EconomyValueError("Fixed Rent has no shares and no manager")
            if self.dust_to is not Party.SCHOLAR:
                raise EconomyValueError("under Fixed Rent the scholar keeps every unit")
        else:
            if self.rent:
                raise EconomyValueError("rent is only for Fixed Rent offers")
            if not 0 <= self.owner_bps <= BPS or not 0 <= self.manager_bps <= BPS:
                raise EconomyValueError(f"shares out of range: {self.owner_bps}/{self.manager_bps}")
            if self.owner_bps + self.manager_bps > BPS:
                raise EconomyValueError(
                    f"owner {self.owner_bps} + manager {self.manager_bps} bps exceed {BPS}"
                )
            if (self.manager is None) != (self.manager_bps == 0):
                raise EconomyValueError("a manager share needs a manager, and vice versa")
            if self.dust_to is Party.MANAGER and self.manager is None:
                raise EconomyValueError("dust cannot go to a manager that does not exist")

    def as_tuple(self) -> tuple[Any, ...]:
        if self.valid_until is None:
            raise EconomyValueError("an offer needs valid_until to be encoded")
        return (
            int(self.terms),
            self.duration_s,
            self.rent,
            self.owner_bps,
            self.manager_bps,
            to_checksum_address(self.manager) if self.manager else ZERO_ADDRESS,
            int(self.dust_to),
            self.valid_until,
        )


def _address(value: str | None, what: str) -> str:
    if not isinstance(value, str) or not is_address(value):
        raise EconomyValueError(f"{what} is not an address: {value!r}")
    return to_checksum_address(value)


class ScholarshipTxBuilder(TxBuilder):
    """Builds and pre-checks registry calls against one deployment."""

    refused = Refused
    unavailable = Unavailable

    def has_screener_role(self, address: str) -> bool:
        """Does ``address`` hold the registry's SCREENER_ROLE (a live read)?"""
        address = _address(address, "screener")
        return bool(self._read(self.contracts.registry.functions.hasRole(SCREENER_ROLE, address)))

    def screen_owner(self, *, screener: str, owner: str, approved: bool = True) -> UnsignedTx:
        screener, owner = _address(screener, "screener"), _address(owner, "owner")
        registry = self.contracts.registry
        if not self._read(registry.functions.hasRole(SCREENER_ROLE, screener)):
            raise Refused(f"{screener} does not hold the screener role")
        verb = "approve" if approved else "withdraw"
        return self._build(
            screener, registry, "setScreened", [owner, approved], f"{verb} owner {owner}"
        )

    def offer(
        self,
        *,
        owner: str,
        avatar_id: int,
        terms: OfferTerms,
        scholar: str | None = None,
        valid_for_s: int | None = None,
    ) -> UnsignedTx:
        """A direct offer to ``scholar``, or an open listing when ``scholar`` is None. Without
        ``terms.valid_until`` it may be accepted for ``valid_for_s`` seconds of chain time
        (default ``DEFAULT_OFFER_VALIDITY_S``) from the latest block."""
        owner = _address(owner, "owner")
        target = _address(scholar, "scholar") if scholar else ZERO_ADDRESS
        registry = self.contracts.registry
        if not self._read(registry.functions.isScreened(owner)):
            raise Refused(f"owner {owner} has not been approved by a screener")
        if target == owner:
            raise EconomyValueError("an owner cannot offer an avatar to themselves")
        who = f"scholar {target}" if scholar else "any scholar (open listing)"
        if valid_for_s is not None and not 0 < valid_for_s <= MAX_DURATION_S:
            raise EconomyValueError(f"valid_for_s must be 1..{MAX_DURATION_S}, got {valid_for_s!r}")
        if terms.valid_until is None:
            latest = self._block_time()
            validity = DEFAULT_OFFER_VALIDITY_S if valid_for_s is None else valid_for_s
            terms = replace(terms, valid_until=latest + validity)
        elif valid_for_s is not None:
            raise EconomyValueError("give valid_until or valid_for_s, not both")
        return self._build(
            owner,
            registry,
            "offer",
            [avatar_id, target, terms.as_tuple()],
            f"offer avatar {avatar_id} to {who}",
        )

    def _registry_call(
        self, sender: str, role: str, fn: str, args: list[Any], description: str
    ) -> UnsignedTx:
        """A registry call from ``sender`` (named ``role`` if it is not an address), simulated."""
        sender = _address(sender, role)
        return self._build(sender, self.contracts.registry, fn, args, description)

    def cancel_offers(self, *, owner: str, avatar_id: int) -> UnsignedTx:
        """Withdraws every offer ``owner`` has open for the avatar (one nonce bump)."""
        what = f"cancel every open offer for avatar {avatar_id}"
        return self._registry_call(owner, "owner", "cancelOffers", [avatar_id], what)

    def reclaim_idle(self, *, owner: str, agreement_id: int) -> UnsignedTx:
        """The owner ends a Rewards Division agreement with no settled match for 7 days."""
        return self._registry_call(
            owner, "owner", "reclaimIdle", [agreement_id], f"reclaim idle agreement {agreement_id}"
        )

    def cancel_offer(self, *, owner: str, agreement_id: int) -> UnsignedTx:
        return self._registry_call(
            owner, "owner", "cancelOffer", [agreement_id], f"cancel offer {agreement_id}"
        )

    def accept(self, *, scholar: str, agreement_id: int) -> list[UnsignedTx]:
        """The scholar's transactions: a DEW ``approve`` of a Fixed Rent first if the allowance is
        short, then ``accept``; a scholar holding less than the rent is refused."""
        scholar = _address(scholar, "scholar")
        registry = self.contracts.registry
        try:
            rent = int(self._read(registry.functions.agreementOf(agreement_id))[13])
        except Refused as exc:
            refused = Refused(f"accept {agreement_id}: {exc}")
            refused.detail = exc.detail
            raise refused from exc
        what = f"accept agreement {agreement_id}"
        return self._pay_then(scholar, registry, rent, "accept", [agreement_id], what)

    def terminate(self, *, scholar: str, agreement_id: int) -> UnsignedTx:
        return self._registry_call(
            scholar, "scholar", "terminate", [agreement_id], f"terminate agreement {agreement_id}"
        )

    def close(self, *, sender: str, agreement_id: int) -> UnsignedTx:
        return self._registry_call(
            sender, "sender", "close", [agreement_id], f"close expired agreement {agreement_id}"
        )

    # --- the player's own money -----------------------------------------------------------

    def token_balance(self, address: str) -> int:
        """The wallet's DEW balance on chain (``balanceOf`` at the latest block)."""
        return int(
            self._read(self.contracts.token.functions.balanceOf(_address(address, "wallet")))
        )

    def deposit(self, *, sender: str, amount: int) -> UnsignedTx:
        """A DEW ``transfer`` into the vault: the stake balance is credited when the indexer
        sees it at the confirmation depth (``stakes.index_deposits``)."""
        sender = _address(sender, "sender")
        if not isinstance(amount, int) or isinstance(amount, bool) or amount <= 0:
            raise EconomyValueError(f"deposit must be a positive integer, got {amount!r}")
        if amount >= 1 << 256:
            raise EconomyValueError(f"deposit out of range: {amount!r}")
        have = self.token_balance(sender)
        if have < amount:
            raise Refused(f"{sender} holds {have} DEW wei, less than the deposit of {amount}")
        vault = self.contracts.settlement.address
        return self._build(
            sender, self.contracts.token, "transfer", [vault, amount], f"deposit {amount} DEW wei"
        )
