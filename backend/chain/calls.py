"""Requests as calls to the real contracts: ``MatchSettlement.settle``, ``AvatarNFT.mintBatch``
and ``VIPPass.issue``/``revoke``.

Encoding goes through ``backend.chain.contracts`` (never by hand); results are
read back from receipt logs: ``MatchSettled``/``MatchSkipped`` per match, the
ERC-721 ``Transfer(0, to, id)`` per minted avatar, ``PassIssued``/``PassRevoked``
for a VIP pass.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from eth_abi.abi import decode as abi_decode
from eth_utils.address import to_checksum_address
from eth_utils.crypto import keccak
from web3 import Web3

from backend.chain.contracts import (
    CONTRACT_NAMES,
    SETTLE_GAS_BASE,
    SETTLE_GAS_PER_ACCOUNT_PAYOUT,
    SETTLE_GAS_PER_AVATAR_PAYOUT,
    SETTLE_GAS_PER_MATCH,
    Contracts,
    SettlementMatch,
    SettlementPayout,
    artifact_name,
    encode_settle,
    load_artifact,
    load_manifest,
)
from backend.chain.exceptions import ChainError
from backend.chain.models import SHOP_KINDS, SINGLE_KINDS, RequestKind
from backend.chain.shop_calls import encode_shop_call, shop_effect

# mintBatch: a new run costs a storage push and a balance write; each id one event.
MINT_GAS_BASE = 60_000
MINT_GAS_PER_AVATAR = 60_000
# VIPPass.issue: the expiry write, an ERC-1155 mint (balance write + event) and PassIssued;
# revoke clears and burns. One request per transaction; generous upper estimates.
VIP_GAS_BASE = 30_000
VIP_GAS = 90_000
# Shop.list / setListing and Accessories.defineType: a few storage writes and an event (a
# type's URI string is bounded by the operator route); generous upper estimates.
SHOP_GAS_BASE = 30_000
SHOP_GAS = 250_000


def event_abi(contract: str, name: str) -> dict[str, Any]:
    for item in load_artifact(contract).abi:
        if item.get("type") == "event" and item["name"] == name:
            return item
    raise ChainError(f"{contract} has no event {name!r} in its artifact")


def event_topic(contract: str, name: str) -> str:
    """topic0 of an event, from the committed ABI (so a changed event cannot go unnoticed)."""
    item = event_abi(contract, name)
    types = ",".join(arg["type"] for arg in item["inputs"])
    return "0x" + keccak(text=f"{name}({types})").hex()


MATCH_SETTLED = event_topic("MatchSettlement", "MatchSettled")
MATCH_SKIPPED = event_topic("MatchSettlement", "MatchSkipped")
TRANSFER = event_topic("AvatarNFT", "Transfer")
PASS_ISSUED = event_topic("VIPPass", "PassIssued")
PASS_REVOKED = event_topic("VIPPass", "PassRevoked")
CENTER_MINTED = event_topic("GameCenter", "CenterMinted")
# GameCenter.mintCenter: an ERC-721 mint plus the description's strings (name and city up to
# 64 bytes each: a few storage slots) and CenterMinted; a generous upper estimate.
CENTER_MINT_GAS = 350_000
ZERO_TOPIC = "0x" + "00" * 32

PANIC_SELECTOR = keccak(text="Panic(uint256)")[:4]
ERROR_SELECTOR = keccak(text="Error(string)")[:4]


def settlement_match(payload: dict[str, Any]) -> SettlementMatch:
    return SettlementMatch(
        payload["match_id"],
        payload["result_hash"],
        [
            SettlementPayout(
                amount=int(p["amount"]), avatar_id=p["avatar_id"], played_at=p.get("played_at")
            )
            if "avatar_id" in p
            else SettlementPayout(amount=int(p["amount"]), account=p["account"])
            for p in payload["payouts"]
        ],
    )


def _error_table() -> dict[bytes, tuple[str, list[str], list[str]]]:
    """Custom error selectors of every contract we call: name, argument types and names."""
    table: dict[bytes, tuple[str, list[str], list[str]]] = {}
    for name in dict.fromkeys(artifact_name(key) for key in CONTRACT_NAMES):
        for item in load_artifact(name).abi:
            if item.get("type") != "error":
                continue
            types = [arg["type"] for arg in item["inputs"]]
            selector = keccak(text=f"{item['name']}({','.join(types)})")[:4]
            table[selector] = (item["name"], types, [arg["name"] for arg in item["inputs"]])
    return table


def decode_revert(data: Any, table: dict[bytes, tuple[str, list[str], list[str]]]) -> str:
    """``ErrorName(arg=value, ...)`` for a custom error, else Error(string)/Panic, else hex."""
    if isinstance(data, dict):  # some nodes nest it: {"data": "0x..."}
        data = data.get("data")
    if not isinstance(data, str) or not data.startswith("0x"):
        return f"revert with unreadable data {data!r}"
    raw = bytes.fromhex(data[2:])
    selector, body = raw[:4], raw[4:]
    try:
        if selector == ERROR_SELECTOR:
            return f"Error({abi_decode(['string'], body)[0]!r})"
        if selector == PANIC_SELECTOR:
            return f"Panic({abi_decode(['uint256'], body)[0]:#x})"
        if selector in table:
            name, types, names = table[selector]
            values = abi_decode(types, body)
            shown = ", ".join(
                f"{n}={'0x' + v.hex() if isinstance(v, bytes) else v}"
                for n, v in zip(names, values, strict=True)
            )
            return f"{name}({shown})"
    except Exception:  # malformed revert data: fall back to hex rather than hide it
        pass
    return f"revert data {data}" if raw else "reverted without data"


class ContractCalls:
    """The engine's ``CallBuilder`` for the deployed DEW contracts."""

    def __init__(self, contracts: Contracts):
        self.contracts = contracts
        self.settlement_address = contracts.settlement.address
        self.avatar_address = contracts.avatar.address
        self.vip_address = contracts.vip.address
        self.center_address = contracts.game_center.address
        self._errors = _error_table()

    @classmethod
    def from_manifest(cls, rpc_url: str, manifest_path: Path | str) -> ContractCalls:
        w3 = Web3(Web3.HTTPProvider(rpc_url))
        return cls(Contracts(w3, load_manifest(manifest_path)))

    def to_address(self, kind: RequestKind) -> str:
        if kind in SHOP_KINDS:
            if kind == RequestKind.ACCESSORY_TYPE:
                return str(self.contracts.accessories.address)
            return str(self.contracts.shop.address)
        if kind == RequestKind.CENTER_MINT:
            return self.center_address
        if kind in SINGLE_KINDS:
            return self.vip_address
        return self.settlement_address if kind == RequestKind.SETTLE else self.avatar_address

    def base_gas(self, kind: RequestKind) -> int:
        if kind in SHOP_KINDS:
            return SHOP_GAS_BASE
        if kind in SINGLE_KINDS:
            return VIP_GAS_BASE
        return SETTLE_GAS_BASE if kind == RequestKind.SETTLE else MINT_GAS_BASE

    def gas_for(self, kind: RequestKind, payload: dict[str, Any]) -> int:
        if kind in SHOP_KINDS:
            return SHOP_GAS
        if kind == RequestKind.CENTER_MINT:
            return CENTER_MINT_GAS
        if kind in SINGLE_KINDS:
            return VIP_GAS
        if kind == RequestKind.MINT:
            return MINT_GAS_PER_AVATAR * len(payload["recipients"])
        return SETTLE_GAS_PER_MATCH + sum(
            SETTLE_GAS_PER_AVATAR_PAYOUT if "avatar_id" in p else SETTLE_GAS_PER_ACCOUNT_PAYOUT
            for p in payload["payouts"]
        )

    def encode(self, kind: RequestKind, payloads: Sequence[dict[str, Any]]) -> bytes:
        if kind in SHOP_KINDS:
            if len(payloads) != 1:
                raise ChainError(f"a {kind} call carries one request, got {len(payloads)}")
            return encode_shop_call(self.contracts, kind, payloads[0])
        if kind == RequestKind.CENTER_MINT:
            return self._encode_center_mint(payloads)
        if kind in SINGLE_KINDS:
            if len(payloads) != 1:
                raise ChainError(f"a {kind} call carries one request, got {len(payloads)}")
            holder = to_checksum_address(payloads[0]["holder"])
            if kind == RequestKind.VIP_ISSUE:
                args: list[Any] = [holder, int(payloads[0]["expires_at"])]
                data = self.contracts.vip.encode_abi("issue", args=args)
            else:
                data = self.contracts.vip.encode_abi("revoke", args=[holder])
            return bytes.fromhex(data.removeprefix("0x"))
        if kind == RequestKind.SETTLE:
            if all("packed" in p for p in payloads):
                # Each match was packed by pack_settle_batch when it was queued (outbox.py);
                # a batch is their concatenation.
                batch = b"".join(bytes.fromhex(p["packed"][2:]) for p in payloads)
                data = self.contracts.settlement.encode_abi("settle", args=[batch])
                return bytes.fromhex(data.removeprefix("0x"))
            return encode_settle(self.contracts, [settlement_match(p) for p in payloads])
        recipients = [to_checksum_address(r) for p in payloads for r in p["recipients"]]
        data = self.contracts.avatar.encode_abi("mintBatch", args=[recipients])
        return bytes.fromhex(data.removeprefix("0x"))

    def effects(
        self, kind: RequestKind, receipt: dict[str, Any], payloads: Sequence[dict[str, Any]]
    ) -> list[dict[str, Any]]:
        logs = receipt.get("logs") or []
        if kind in SHOP_KINDS:
            return [shop_effect(self.contracts, kind, receipt, payloads)]
        if kind == RequestKind.CENTER_MINT:
            return [self._center_effect(receipt, logs, payloads)]
        if kind in SINGLE_KINDS:
            return [self._vip_effect(kind, receipt, logs, payloads)]
        if kind == RequestKind.SETTLE:
            # The contract handles matches in batch order and logs one outcome per match, so a
            # match listed twice (two requests for it) reads "settled" then "already_settled".
            outcomes: dict[str, list[str]] = {}
            for log in logs:
                if log["address"].lower() != self.settlement_address.lower():
                    continue
                topic = log["topics"][0]
                if topic in (MATCH_SETTLED, MATCH_SKIPPED):
                    outcome = "settled" if topic == MATCH_SETTLED else "already_settled"
                    outcomes.setdefault(log["topics"][1].lower(), []).append(outcome)
            results: list[dict[str, Any]] = []
            for payload in payloads:
                queue = outcomes.get(payload["match_id"].lower())
                if not queue:
                    raise ChainError(
                        f"receipt {receipt['transactionHash']} lacks {payload['match_id']}"
                    )
                # "already_settled": paid by an earlier transaction; isSettled is true either way.
                results.append({"outcome": queue.pop(0)})
            return results
        minted: list[tuple[str, int]] = []
        for log in logs:
            if (
                log["address"].lower() == self.avatar_address.lower()
                and log["topics"][0] == TRANSFER
                and log["topics"][1] == ZERO_TOPIC
            ):
                to = to_checksum_address("0x" + log["topics"][2][-40:])
                minted.append((to, int(log["topics"][3], 16)))
        results = []
        cursor = 0
        for payload in payloads:
            recipients = payload["recipients"]
            mine = minted[cursor : cursor + len(recipients)]
            cursor += len(recipients)
            if [to for to, _ in mine] != [to_checksum_address(r) for r in recipients]:
                raise ChainError(f"receipt {receipt['transactionHash']} mints differ from request")
            results.append({"token_ids": [token_id for _, token_id in mine]})
        return results

    def _encode_center_mint(self, payloads: Sequence[dict[str, Any]]) -> bytes:
        if len(payloads) != 1:
            raise ChainError(f"a center mint carries one request, got {len(payloads)}")
        p = payloads[0]
        args = [
            to_checksum_address(p["to"]),
            p["name"],
            p["country"].encode("ascii"),
            p["city"],
            int(p["lat_e2"]),
            int(p["lon_e2"]),
            int(p["capacity"]),
        ]
        data = self.contracts.game_center.encode_abi("mintCenter", args=args)
        return bytes.fromhex(data.removeprefix("0x"))

    def _center_effect(
        self,
        receipt: dict[str, Any],
        logs: Sequence[dict[str, Any]],
        payloads: Sequence[dict[str, Any]],
    ) -> dict[str, Any]:
        """The new center's id, from its ``CenterMinted(centerId, to, ...)`` log."""
        to = to_checksum_address(payloads[0]["to"])
        for log in logs:
            if (
                log["address"].lower() == self.center_address.lower()
                and log["topics"][0] == CENTER_MINTED
                and to_checksum_address("0x" + log["topics"][2][-40:]) == to
            ):
                return {"center_id": int(log["topics"][1], 16)}
        raise ChainError(f"receipt {receipt['transactionHash']} lacks the CenterMinted to {to}")

    def _vip_effect(
        self,
        kind: RequestKind,
        receipt: dict[str, Any],
        logs: Sequence[dict[str, Any]],
        payloads: Sequence[dict[str, Any]],
    ) -> dict[str, Any]:
        """The pass's ``PassIssued(holder, expiresAt)`` or ``PassRevoked(holder)`` for the
        one request of a VIP transaction. A grant never shortens a pass, so an issue reports
        an expiry at or after the one asked; a revoke leaves a pass the holder paid for in the
        shop, reported by ``PassIssued`` with the paid part's end."""
        if len(payloads) != 1:
            raise ChainError(f"a {kind} call carries one request, got {len(payloads)}")
        holder = to_checksum_address(payloads[0]["holder"])
        topics = (PASS_ISSUED,) if kind == RequestKind.VIP_ISSUE else (PASS_REVOKED, PASS_ISSUED)
        for log in logs:
            if (
                log["address"].lower() != self.vip_address.lower()
                or log["topics"][0] not in topics
                or to_checksum_address("0x" + log["topics"][1][-40:]) != holder
            ):
                continue
            if log["topics"][0] == PASS_REVOKED:
                return {"revoked": True}
            (expires_at,) = abi_decode(["uint64"], bytes.fromhex(log["data"].removeprefix("0x")))
            if kind == RequestKind.VIP_REVOKE:
                return {"revoked": False, "expires_at": int(expires_at)}
            if expires_at < int(payloads[0]["expires_at"]):
                raise ChainError(f"receipt {receipt['transactionHash']} issued a shorter expiry")
            return {"expires_at": int(expires_at)}
        raise ChainError(f"receipt {receipt['transactionHash']} lacks the {kind} of {holder}")

    def decode_error(self, data: Any) -> str:
        return decode_revert(data, self._errors)
