"""Reads the markets' events (Shop, Market, Accessories, AvatarNFT) and the DEW transfers of
their transactions. Only blocks at the confirmation depth are read (the follower kit's
``EventReader`` underneath)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from eth_utils.address import to_checksum_address
from web3.contract import Contract

from backend.chain.contracts import Contracts
from backend.chain.follower import ZERO_ADDRESS, EventReader, EventSet
from backend.chain.follower import topic_hex as _hex

# The events each contract's mirror follows (a name missing from an ABI is skipped).
FOLLOWED: dict[str, tuple[str, ...]] = {
    "avatar": (
        "Transfer",
        "UpdateUser",
        "AvatarRentalStarted",
        "AvatarRentalEnded",
        "ApprovalForAll",
    ),
    "accessories": (
        "TypeDefined",
        "AccessoryTypeDefined",
        "TransferSingle",
        "TransferBatch",
        "ApprovalForAll",
        "Equipped",
        "Unequipped",
    ),
    "shop": ("ShopListed", "ShopListingUpdated", "ShopListingSet", "ShopPurchase"),
    "market": ("Listed", "Cancelled", "Sold"),
}


@dataclass(frozen=True)
class MarketEvent:
    """One decoded event and where it came from."""

    source: str  # avatar|accessories|shop|market
    name: str
    args: dict[str, Any]
    block_number: int
    log_index: int
    tx_hash: str


@dataclass(frozen=True)
class DewTransfer:
    sender: str
    recipient: str
    amount: int
    log_index: int


def tx_hex(value: Any) -> str:
    """A transaction hash as ``0x`` + 64 lowercase hex digits."""
    raw = value if isinstance(value, bytes | bytearray) else bytes.fromhex(str(value)[2:])
    return "0x" + bytes(raw).hex()


class MarketReader(EventReader):
    """Event queries over one deployment's markets contracts."""

    def __init__(self, contracts: Contracts, *, confirmations: int = 1) -> None:
        super().__init__(contracts, confirmations=confirmations)
        self.bound: dict[str, Contract] = {
            "avatar": contracts.avatar,
            "accessories": contracts.accessories,
            "shop": contracts.shop,
            "market": contracts.market,
        }
        self._followed = EventSet()
        for source, names in FOLLOWED.items():
            self._followed.add(source, self.bound[source], names)
        self._transfer = contracts.token.events.Transfer()
        self._transfer_topic = _hex(self._transfer.topic)

    def chain_time(self) -> int:
        """The latest block's timestamp: what expiry and rental ends are judged by."""
        return int(self.w3.eth.get_block("latest")["timestamp"])

    def events(self, start: int, end: int) -> list[MarketEvent]:
        """Every followed event in ``start..end``, in chain order."""
        return [
            MarketEvent(
                source=source,
                name=str(decoded["event"]),
                args=dict(decoded["args"]),
                block_number=int(decoded["blockNumber"]),
                log_index=int(decoded["logIndex"]),
                tx_hash=tx_hex(decoded["transactionHash"]),
            )
            for source, decoded in self.tagged_events(self._followed, start, end)
        ]

    def dew_transfers(self, tx_hash: str) -> list[DewTransfer]:
        """The DEW ``Transfer`` events of one transaction, from its receipt."""
        receipt = self.w3.eth.get_transaction_receipt(tx_hash)  # type: ignore[arg-type]
        token = self.contracts.token.address.lower()
        out = []
        for log in receipt["logs"]:
            if (
                str(log["address"]).lower() != token
                or _hex(log["topics"][0]) != self._transfer_topic
            ):
                continue
            args = self._transfer.process_log(log)["args"]
            out.append(
                DewTransfer(
                    sender=to_checksum_address(args["from"]),
                    recipient=to_checksum_address(args["to"]),
                    amount=int(args["value"]),
                    log_index=int(log["logIndex"]),
                )
            )
        return out

    def royalty_receiver(self, token: str, token_id: int, price: int, block: int) -> str | None:
        """The ERC-2981 receiver of ``token`` at ``block`` (None when it has none)."""
        contract = self._item_contract(token)
        if contract is None or not any(i.get("name") == "royaltyInfo" for i in contract.abi):
            return None
        receiver, _ = contract.functions.royaltyInfo(token_id, price).call(block_identifier=block)
        return None if receiver == ZERO_ADDRESS else to_checksum_address(receiver)

    def treasury_of(self, source: str, block: int) -> str | None:
        """Where the shop or the market sends its proceeds and fees, as the contract says."""
        contract = self.bound[source]
        for name in ("treasury", "feeRecipient"):
            if any(i.get("name") == name and i.get("type") == "function" for i in contract.abi):
                value = getattr(contract.functions, name)().call(block_identifier=block)
                return to_checksum_address(value)
        return None

    def _item_contract(self, token: str) -> Contract | None:
        for source in ("avatar", "accessories"):
            if self.bound[source].address.lower() == token.lower():
                return self.bound[source]
        return None

    def item_kind(self, token: str) -> str:
        """``avatar``, ``accessory``, ``vip`` or ``center`` for an item contract's address."""
        token = token.lower()
        if token == self.contracts.avatar.address.lower():
            return "avatar"
        if token == self.contracts.accessories.address.lower():
            return "accessory"
        if token == self.contracts.vip.address.lower():
            return "vip"
        return "center"
