"""Reads what the contracts say happened: settlements, their splits, vault transfers, and the
registry's agreement events. Only blocks at the confirmation depth are read (the follower
kit's ``EventReader`` underneath)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from eth_utils.address import to_checksum_address
from hexbytes import HexBytes
from web3.exceptions import Web3Exception

from backend.chain.contracts import Contracts
from backend.chain.follower import ZERO_ADDRESS, EventReader, EventSet

# The registry's events the scholarships follower applies.
REGISTRY_EVENTS = (
    "OwnerScreened",
    "AgreementOffered",
    "OfferCancelled",
    "OffersCancelled",
    "AgreementAccepted",
    "RentPaid",
    "AgreementTerminated",
    "AgreementExpired",
    "AgreementReclaimed",
)


@dataclass(frozen=True)
class SplitEvent:
    """``AvatarPayoutSplit`` with its parties resolved to addresses."""

    avatar_id: int
    agreement_id: int
    to_owner: int
    to_manager: int
    to_scholar: int
    owner: str
    manager: str | None
    scholar: str | None
    # The play time the contract split it for (``playedAt``), once the event carries it.
    played_at: int | None = None

    @property
    def gross(self) -> int:
        return self.to_owner + self.to_manager + self.to_scholar


@dataclass
class SettledMatch:
    """One ``MatchSettled`` event and the splits logged for that match."""

    chain_match_id: str
    result_hash: str
    paid: int
    tx_hash: str
    block_number: int
    splits: list[SplitEvent] = field(default_factory=list)
    # ``PayoutWithheld`` (recipient, amount): legs to a recipient the vault refuses (itself,
    # the registry, a token contract) stay in the vault instead of reverting the batch.
    withheld: list[tuple[str, int]] = field(default_factory=list)


def _tx(event: Any) -> str:
    return "0x" + bytes(event["transactionHash"]).hex().removeprefix("0x")


def _topic32(value: int | str) -> str:
    if isinstance(value, str):
        return "0x" + bytes.fromhex(value.removeprefix("0x")).rjust(32, b"\0").hex()
    return "0x" + value.to_bytes(32, "big").hex()


class ChainReader(EventReader):
    """Event queries over one deployment (web3 binding from ``backend.chain.contracts``)."""

    def __init__(self, contracts: Contracts, *, confirmations: int = 1) -> None:
        super().__init__(contracts, confirmations=confirmations)
        s = contracts.settlement
        self._settled = s.events.MatchSettled()
        self._split = s.events.AvatarPayoutSplit()
        self._withdrawn = s.events.VaultWithdrawn()
        self._transfer = contracts.token.events.Transfer()
        # The vault logs a withheld leg; artifacts from before it did have no such event.
        has_withheld = any(
            item.get("type") == "event" and item.get("name") == "PayoutWithheld" for item in s.abi
        )
        self._withheld_event = s.events.PayoutWithheld() if has_withheld else None
        self._registry_events = EventSet().add("registry", contracts.registry, REGISTRY_EVENTS)

    def clock_offset_s(self) -> int:
        """Chain time minus this machine's clock: the next block's timestamp against now
        (about 0 on a real network; a dev chain's ``evm_increaseTime`` shows here)."""
        try:
            block = self.w3.eth.get_block("pending")
        except (ValueError, Web3Exception):  # a node without a pending block: use the latest
            block = self.w3.eth.get_block("latest")
        return int(block["timestamp"]) - int(time.time())

    # --- settlements --------------------------------------------------------------------------

    def settled_match(
        self, chain_match_id: str, *, block_hint: int | None = None
    ) -> SettledMatch | None:
        """The confirmed ``MatchSettled`` for this id with its splits, or None.

        ``block_hint`` (the block the transaction engine saw it mined in) narrows the search
        to that block first; the whole chain since deployment is searched otherwise."""
        head = self.safe_head()
        address = self.contracts.settlement.address
        topic = [_topic32(chain_match_id)]
        events: list[Any] = []
        if block_hint is not None and self.start_block <= block_hint <= head:
            events = list(self.logs(self._settled, address, topic, block_hint, block_hint))
        if not events:
            events = list(self.logs(self._settled, address, topic, self.start_block, head))
        if not events:
            return None
        event = events[0]
        block = event["blockNumber"]
        match = SettledMatch(
            chain_match_id=_topic32(chain_match_id),
            result_hash="0x" + event["args"]["resultHash"].hex(),
            paid=int(event["args"]["paid"]),
            tx_hash="0x" + event["transactionHash"].hex().removeprefix("0x"),
            block_number=block,
        )
        for split in self.logs(self._split, address, [_topic32(chain_match_id)], block, block):
            match.splits.append(self._resolve(split))
        if self._withheld_event is not None:
            for w in self.logs(self._withheld_event, address, topic, block, block):
                match.withheld.append(
                    (to_checksum_address(w["args"]["recipient"]), int(w["args"]["amount"]))
                )
        return match

    def withheld(
        self, start: int | None = None, end: int | None = None
    ) -> list[tuple[str, str, int]]:
        """``(match id, recipient, amount)`` of every ``PayoutWithheld`` (none from contracts
        older than that event)."""
        if self._withheld_event is None:
            return []
        end = self.safe_head() if end is None else end
        start = self.start_block if start is None else start
        address = self.contracts.settlement.address
        return [
            (
                "0x" + e["args"]["matchId"].hex(),
                to_checksum_address(e["args"]["recipient"]),
                int(e["args"]["amount"]),
            )
            for e in self.logs(self._withheld_event, address, [], start, end)
        ]

    def settled_entry(self, tx_hash: str, chain_match_id: str) -> bytes | None:
        """The packed batch entry (``matchId | resultHash | count | payouts``) that transaction
        ``tx_hash`` gave ``settle`` for this id, if it called the vault directly; None when its
        input is not a direct ``settle`` call (a wrapper contract, say) or lacks the id.

        A repeat of an id in one batch is skipped by the contract, so the first entry is the
        one that was paid."""
        try:
            tx = self.w3.eth.get_transaction(HexBytes(tx_hash))
        except (ValueError, Web3Exception):
            return None
        if (tx.get("to") or "").lower() != self.contracts.settlement.address.lower():
            return None
        try:
            function, args = self.contracts.settlement.decode_function_input(tx["input"])
        except (ValueError, Web3Exception):
            return None
        if function.fn_name != "settle":
            return None
        batch, wanted = bytes(args["batch"]), bytes.fromhex(_topic32(chain_match_id)[2:])
        offset = 0
        while offset + 66 <= len(batch):
            count = int.from_bytes(batch[offset + 64 : offset + 66], "big")
            end = offset + 66 + 32 * count
            if batch[offset : offset + 32] == wanted:
                return batch[offset:end] if end <= len(batch) else None
            offset = end
        return None

    def settled_matches(self, start: int | None = None, end: int | None = None) -> list[Any]:
        end = self.safe_head() if end is None else end
        start = self.start_block if start is None else start
        address = self.contracts.settlement.address
        return list(self.logs(self._settled, address, [], start, end))

    def splits(self, start: int | None = None, end: int | None = None) -> list[tuple[str, Any]]:
        end = self.safe_head() if end is None else end
        start = self.start_block if start is None else start
        address = self.contracts.settlement.address
        return [
            ("0x" + e["args"]["matchId"].hex(), e)
            for e in self.logs(self._split, address, [], start, end)
        ]

    def _resolve(self, split: Any) -> SplitEvent:
        """The event names the parties it paid: no state read at its block is needed."""
        args = split["args"]
        manager, scholar = args["manager"], args["scholar"]
        return SplitEvent(
            avatar_id=int(args["avatarId"]),
            agreement_id=int(args["agreementId"]),
            to_owner=int(args["toOwner"]),
            to_manager=int(args["toManager"]),
            to_scholar=int(args["toScholar"]),
            owner=to_checksum_address(args["owner"]),
            manager=to_checksum_address(manager) if manager != ZERO_ADDRESS else None,
            scholar=to_checksum_address(scholar) if scholar != ZERO_ADDRESS else None,
            played_at=int(args["playedAt"]) if "playedAt" in args else None,
        )

    def vault_outflows(self, start: int | None = None, end: int | None = None) -> dict[str, int]:
        """DEW each address received from the vault by ``settle`` (withdrawals excluded)."""
        end = self.safe_head() if end is None else end
        start = self.start_block if start is None else start
        vault = self.contracts.settlement.address
        token = self.contracts.token.address
        received: dict[str, int] = {}
        for t in self.logs(self._transfer, token, [_topic32(vault)], start, end):
            to = to_checksum_address(t["args"]["to"])
            received[to] = received.get(to, 0) + int(t["args"]["value"])
        for w in self.logs(self._withdrawn, vault, [], start, end):
            to = to_checksum_address(w["args"]["to"])
            received[to] = received.get(to, 0) - int(w["args"]["amount"])
        return {a: v for a, v in received.items() if v}

    def deposits(self, start: int, end: int) -> list[Any]:
        """DEW transfers into the vault from an address (mints, from zero, excluded), except
        the transfers of DEW contributions (``Contributed`` right before them in the same
        transaction, same sender and amount): those are a tournament's prize pool, never the
        contributor's stake balance."""
        vault = self.contracts.settlement.address
        token = self.contracts.token.address
        contributed = {
            (_tx(e), int(e["logIndex"]) + 1, e["args"]["from"].lower(), int(e["args"]["amount"]))
            for e in self.contributions(start, end)
        }
        return [
            t
            for t in self.logs(self._transfer, token, [None, _topic32(vault)], start, end)
            if int(t["args"]["from"], 16) != 0
            and (_tx(t), int(t["logIndex"]), t["args"]["from"].lower(), int(t["args"]["value"]))
            not in contributed
        ]

    def contributions(self, start: int, end: int) -> list[Any]:
        """``Contributed`` events of the contributions contract in ``start..end``."""
        contract = getattr(self.contracts, "contributions", None)
        if contract is None:
            return []
        event = contract.events.Contributed()
        return list(self.logs(event, contract.address, [], start, end))

    # --- registry -----------------------------------------------------------------------------

    def registry_events(self, start: int, end: int) -> list[Any]:
        """Every registry event in ``start..end``, in chain order."""
        return self.decoded(self._registry_events, start, end)
