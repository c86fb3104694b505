"""Contract artifacts, the deployment manifest, bindings, and the `settle` batch encoder.

The ABI and bytecode come from ``contracts/artifacts/<Name>.json``, committed and checked
against a fresh ``forge build``, so nothing here guesses an ABI. The manifest is the JSON file
``scripts/deploy.py`` writes: chain id, addresses, deployment block and artifact paths.

`MatchSettlement.settle(bytes)` takes tightly packed matches (see ``IMatchSettlement.sol``);
build its calldata with :func:`encode_settle` and never by hand.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from eth_utils.address import to_checksum_address
from eth_utils.crypto import keccak
from web3 import Web3
from web3.contract import Contract

from backend.chain.exceptions import ChainError, ChainValueError

REPO_ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS_DIR = REPO_ROOT / "contracts" / "artifacts"

# Deployment order; names are the manifest's keys, and the Solidity contract names except
# where ARTIFACT_OF says otherwise.
CONTRACT_NAMES = (
    "DEWToken",
    "AvatarNFT",
    "VIPPass",
    "ScholarshipRegistry",
    "MatchSettlement",
    "Accessories",
    "Shop",
    "Market",
    # Game centers, the registry that rents them out, contributions
    "GameCenter",
    "CenterRegistry",
    "Contributions",
)

# Manifest keys whose contract is another key's artifact: the centers' rental registry is a
# second ScholarshipRegistry, deployed over the GameCenter (docs/contracts.md, "Game Centers").
ARTIFACT_OF: dict[str, str] = {"CenterRegistry": "ScholarshipRegistry"}

# snake_case names that Manifest.address also accepts (the SPEC's manifest keys):
# ``manifest.address("shop")`` is ``manifest.address("Shop")``.
MANIFEST_KEYS: dict[str, str] = {
    "accessories": "Accessories",
    "shop": "Shop",
    "market": "Market",
    "game_center": "GameCenter",
    "center_registry": "CenterRegistry",
    "contributions": "Contributions",
}


def artifact_name(key: str) -> str:
    """The artifact (Solidity contract name) of the manifest key ``key``."""
    return ARTIFACT_OF.get(key, key)


DEFAULT_ADMIN_ROLE = b"\x00" * 32
MINTER_ROLE = keccak(text="MINTER_ROLE")
RENTAL_ROLE = keccak(text="RENTAL_ROLE")
ISSUER_ROLE = keccak(text="ISSUER_ROLE")
SCREENER_ROLE = keccak(text="SCREENER_ROLE")
SETTLER_ROLE = keccak(text="SETTLER_ROLE")
GUARDIAN_ROLE = keccak(text="GUARDIAN_ROLE")
SETTLEMENT_ROLE = keccak(text="SETTLEMENT_ROLE")
SHOP_ROLE = keccak(text="SHOP_ROLE")
CATALOG_ROLE = keccak(text="CATALOG_ROLE")
LISTER_ROLE = keccak(text="LISTER_ROLE")

# Every role of every contract, by name: what the manifest records and deploy checks.
ROLES: dict[str, dict[str, bytes]] = {
    "DEWToken": {"DEFAULT_ADMIN_ROLE": DEFAULT_ADMIN_ROLE, "MINTER_ROLE": MINTER_ROLE},
    "AvatarNFT": {
        "DEFAULT_ADMIN_ROLE": DEFAULT_ADMIN_ROLE,
        "MINTER_ROLE": MINTER_ROLE,
        "RENTAL_ROLE": RENTAL_ROLE,
        "SHOP_ROLE": SHOP_ROLE,
    },
    "VIPPass": {
        "DEFAULT_ADMIN_ROLE": DEFAULT_ADMIN_ROLE,
        "ISSUER_ROLE": ISSUER_ROLE,
        "SHOP_ROLE": SHOP_ROLE,
    },
    "ScholarshipRegistry": {
        "DEFAULT_ADMIN_ROLE": DEFAULT_ADMIN_ROLE,
        "SCREENER_ROLE": SCREENER_ROLE,
        "SETTLEMENT_ROLE": SETTLEMENT_ROLE,
    },
    "MatchSettlement": {
        "DEFAULT_ADMIN_ROLE": DEFAULT_ADMIN_ROLE,
        "SETTLER_ROLE": SETTLER_ROLE,
        "GUARDIAN_ROLE": GUARDIAN_ROLE,
    },
    "Accessories": {
        "DEFAULT_ADMIN_ROLE": DEFAULT_ADMIN_ROLE,
        "CATALOG_ROLE": CATALOG_ROLE,
        "SHOP_ROLE": SHOP_ROLE,
    },
    "Shop": {
        "DEFAULT_ADMIN_ROLE": DEFAULT_ADMIN_ROLE,
        "LISTER_ROLE": LISTER_ROLE,
        "GUARDIAN_ROLE": GUARDIAN_ROLE,
    },
    "Market": {"DEFAULT_ADMIN_ROLE": DEFAULT_ADMIN_ROLE, "GUARDIAN_ROLE": GUARDIAN_ROLE},
    "GameCenter": {
        "DEFAULT_ADMIN_ROLE": DEFAULT_ADMIN_ROLE,
        "MINTER_ROLE": MINTER_ROLE,
        "SHOP_ROLE": SHOP_ROLE,
        "RENTAL_ROLE": RENTAL_ROLE,
    },
    "CenterRegistry": {
        "DEFAULT_ADMIN_ROLE": DEFAULT_ADMIN_ROLE,
        "SCREENER_ROLE": SCREENER_ROLE,
        "SETTLEMENT_ROLE": SETTLEMENT_ROLE,
    },
    # No roles and no admin: it only moves the caller's own DEW to the vault.
    "Contributions": {},
}

MANIFEST_VERSION = 1


class ArtifactError(ChainError):
    """A contract artifact is missing or unreadable."""


class ManifestError(ChainError, ValueError):
    """The deployment manifest is missing, malformed, or for another chain."""


class SettlementEncodingError(ChainValueError):
    """A match or payout cannot be encoded for `settle`."""


# --- artifacts ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Artifact:
    """ABI and bytecode of one compiled contract."""

    name: str
    abi: list[dict[str, Any]]
    bytecode: str
    deployed_bytecode: str
    path: Path


@cache
def load_artifact(name: str, artifacts_dir: Path = ARTIFACTS_DIR) -> Artifact:
    """Read ``<artifacts_dir>/<name>.json`` (cached per process)."""
    path = artifacts_dir / f"{name}.json"
    try:
        data = json.loads(path.read_text())
        return Artifact(
            name=data["contractName"],
            abi=data["abi"],
            bytecode=data["bytecode"],
            deployed_bytecode=data["deployedBytecode"],
            path=path,
        )
    except (OSError, ValueError, KeyError) as exc:
        raise ArtifactError(f"cannot load artifact {name!r} from {path}: {exc}") from exc


# --- manifest -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Manifest:
    """Where the contracts of one deployment live."""

    chain_id: int
    deployment_block: int
    addresses: dict[str, str]
    artifacts: dict[str, str]
    deployer: str
    operator: str
    vault_funding: int = 0
    version: int = MANIFEST_VERSION
    extra: dict[str, Any] = field(default_factory=dict)
    # contract -> role name -> the addresses holding it, read back from the chain at deployment.
    roles: dict[str, dict[str, list[str]]] = field(default_factory=dict)

    def address(self, name: str) -> str:
        """The address of contract ``name`` (its Solidity name, or a key of MANIFEST_KEYS)."""
        try:
            return self.addresses[MANIFEST_KEYS.get(name, name)]
        except KeyError:
            raise ManifestError(f"manifest has no address for {name!r}") from None

    def to_json(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "chain_id": self.chain_id,
            "deployment_block": self.deployment_block,
            "deployer": self.deployer,
            "operator": self.operator,
            "vault_funding": str(self.vault_funding),
            "addresses": dict(self.addresses),
            "artifacts": dict(self.artifacts),
            "extra": dict(self.extra),
            "roles": {c: {r: list(h) for r, h in rs.items()} for c, rs in self.roles.items()},
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Manifest:
        try:
            if data["version"] != MANIFEST_VERSION:
                raise ManifestError(f"unsupported manifest version {data['version']!r}")
            addresses: dict[str, str] = {
                k: to_checksum_address(v) for k, v in data["addresses"].items()
            }
            missing = [name for name in CONTRACT_NAMES if name not in addresses]
            if missing:
                raise ManifestError(f"manifest lacks addresses for {missing!r}")
            return cls(
                chain_id=int(data["chain_id"]),
                deployment_block=int(data["deployment_block"]),
                addresses=addresses,
                artifacts=dict(data["artifacts"]),
                deployer=to_checksum_address(data["deployer"]),
                operator=to_checksum_address(data["operator"]),
                vault_funding=int(data.get("vault_funding", 0)),
                extra=dict(data.get("extra", {})),
                roles={
                    contract: {
                        role: [to_checksum_address(a) for a in holders]
                        for role, holders in roles.items()
                    }
                    for contract, roles in data.get("roles", {}).items()
                },
            )
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, ManifestError):
                raise
            raise ManifestError(f"malformed manifest: {exc!r}") from exc


def load_manifest(path: Path | str) -> Manifest:
    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise ManifestError(f"cannot read manifest {path}: {exc}") from exc
    return Manifest.from_json(data)


def save_manifest(manifest: Manifest, path: Path | str) -> Path:
    """Write the manifest atomically (a reader never sees half a file)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w") as handle:
            json.dump(manifest.to_json(), handle, indent=2, sort_keys=True)
            handle.write("\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


# --- bindings -----------------------------------------------------------------------------


class Contracts:
    """web3 contract objects for one deployment: ``.token .avatar .vip .registry .settlement
    .accessories .shop .market .game_center .center_registry .contributions``."""

    def __init__(self, w3: Web3, manifest: Manifest, *, check_chain: bool = True) -> None:
        if check_chain and w3.eth.chain_id != manifest.chain_id:
            raise ManifestError(
                f"manifest is for chain {manifest.chain_id}, node is on {w3.eth.chain_id}"
            )
        self.w3 = w3
        self.manifest = manifest
        self.token = self._bind("DEWToken")
        self.avatar = self._bind("AvatarNFT")
        self.vip = self._bind("VIPPass")
        self.registry = self._bind("ScholarshipRegistry")
        self.settlement = self._bind("MatchSettlement")
        self.accessories = self._bind("Accessories")
        self.shop = self._bind("Shop")
        self.market = self._bind("Market")
        self.game_center = self._bind("GameCenter")
        self.center_registry = self._bind("CenterRegistry")
        self.contributions = self._bind("Contributions")

    def _bind(self, name: str) -> Contract:
        return self.w3.eth.contract(
            address=to_checksum_address(self.manifest.address(name)),
            abi=load_artifact(artifact_name(name)).abi,
        )

    def by_name(self, name: str) -> Contract:
        return {
            "DEWToken": self.token,
            "AvatarNFT": self.avatar,
            "VIPPass": self.vip,
            "ScholarshipRegistry": self.registry,
            "MatchSettlement": self.settlement,
            "Accessories": self.accessories,
            "Shop": self.shop,
            "Market": self.market,
            "GameCenter": self.game_center,
            "CenterRegistry": self.center_registry,
            "Contributions": self.contributions,
        }[MANIFEST_KEYS.get(name, name)]


# --- settle encoding ----------------------------------------------------------------------

PAYOUT_KIND_ACCOUNT = 0
PAYOUT_KIND_AVATAR = 1
MAX_PAYOUT_AMOUNT = (1 << 88) - 1
# The contract reads a match's payout count from a 16-bit field: the most one match can
# encode. The server asks for far fewer (outbox.MAX_PAYOUTS_PER_MATCH).
MAX_ENCODABLE_PAYOUTS = (1 << 16) - 1
MAX_AVATAR_ID = (1 << 96) - 1
MAX_PLAYED_AT = (1 << 64) - 1
_ADDRESS_MASK = (1 << 160) - 1

# Upper bounds for planning batches, from scripts/bench_gas.py on anvil. Worst cases: a match
# id that opens a fresh idempotency word (random ids); an account payout to a first-time DEW
# holder; an avatar payout split three ways to first-time holders, or one that never moved
# and sits at the end of a 32-id mint run (up to 31 extra reads to find its owner).
# eth_estimateGas on the real calldata is exact.
# Includes the vault's limit checks (two cold reads, the window) and, for the batch that leaves
# a window nearly full, its hold report to the registry (about 30,000 the first time).
SETTLE_GAS_BASE = 100_000
SETTLE_GAS_PER_MATCH = 27_000
SETTLE_GAS_PER_ACCOUNT_PAYOUT = 27_000
SETTLE_GAS_PER_AVATAR_PAYOUT = 120_000


@dataclass(frozen=True)
class SettlementPayout:
    """One payout of a match: to an account, or to an avatar, split per the agreement in
    force at ``played_at`` (unix seconds, chain time; None: when it is settled)."""

    amount: int
    account: str | None = None
    avatar_id: int | None = None
    played_at: int | None = None

    def __post_init__(self) -> None:
        if (self.account is None) == (self.avatar_id is None):
            raise SettlementEncodingError(
                f"a payout needs exactly one of account/avatar_id: {self!r}"
            )
        if not isinstance(self.amount, int) or not 0 < self.amount <= MAX_PAYOUT_AMOUNT:
            raise SettlementEncodingError(
                f"payout amount must be in 1..2**88-1 wei, got {self.amount!r}"
            )
        if self.account is not None:
            if not Web3.is_address(self.account) or int(self.account, 16) == 0:
                raise SettlementEncodingError(f"bad payout account {self.account!r}")
            object.__setattr__(self, "account", to_checksum_address(self.account))
        elif not isinstance(self.avatar_id, int) or not 0 < self.avatar_id <= MAX_AVATAR_ID:
            raise SettlementEncodingError(f"bad avatar id {self.avatar_id!r}")
        if self.played_at is not None:
            if self.avatar_id is None:
                raise SettlementEncodingError(f"only an avatar payout has a play time: {self!r}")
            if (
                not isinstance(self.played_at, int)
                or isinstance(self.played_at, bool)
                or not 0 < self.played_at <= MAX_PLAYED_AT
            ):
                raise SettlementEncodingError(f"bad play time {self.played_at!r}")

    @property
    def word(self) -> int:
        """The 32-byte payout word: kind (8 bits) | amount (88 bits) | target (160 bits);
        an avatar's target is played_at (64 bits, 0: at settlement) | avatar id (96 bits)."""
        if self.account is not None:
            return (PAYOUT_KIND_ACCOUNT << 248) | (self.amount << 160) | int(self.account, 16)
        assert self.avatar_id is not None
        return (
            (PAYOUT_KIND_AVATAR << 248)
            | (self.amount << 160)
            | ((self.played_at or 0) << 96)
            | self.avatar_id
        )


def decode_payout_word(word: int) -> SettlementPayout:
    """Inverse of :attr:`SettlementPayout.word` (e.g. to read back a submitted batch)."""
    kind = word >> 248
    amount = (word >> 160) & MAX_PAYOUT_AMOUNT
    target = word & _ADDRESS_MASK
    if kind == PAYOUT_KIND_ACCOUNT:
        return SettlementPayout(amount=amount, account=to_checksum_address(target.to_bytes(20)))
    if kind == PAYOUT_KIND_AVATAR:
        played_at = target >> 96
        return SettlementPayout(
            amount=amount, avatar_id=target & MAX_AVATAR_ID, played_at=played_at or None
        )
    raise SettlementEncodingError(f"unknown payout kind {kind} in word {word:#066x}")


def _bytes32(value: bytes | str | int, what: str) -> bytes:
    if isinstance(value, int) and not isinstance(value, bool):
        if not 0 <= value < 1 << 256:
            raise SettlementEncodingError(f"{what} out of range: {value!r}")
        return value.to_bytes(32, "big")
    if isinstance(value, str):
        try:
            value = bytes.fromhex(value.removeprefix("0x"))
        except ValueError:
            raise SettlementEncodingError(f"{what} is not hex: {value!r}") from None
    if not isinstance(value, bytes) or len(value) != 32:
        raise SettlementEncodingError(f"{what} must be 32 bytes, got {value!r}")
    return value


@dataclass(frozen=True)
class SettlementMatch:
    """One match to settle: its id, the sha256 of its record, and its payouts.

    ``match_id`` and ``result_hash`` accept 32 bytes, a 0x-hex string, or an int. Sequential
    match ids (e.g. ``match_number``) share idempotency storage words and settle cheaper.
    """

    match_id: bytes
    result_hash: bytes
    payouts: tuple[SettlementPayout, ...] = ()

    def __init__(
        self,
        match_id: bytes | str | int,
        result_hash: bytes | str | int,
        payouts: Iterable[SettlementPayout] = (),
    ) -> None:
        object.__setattr__(self, "match_id", _bytes32(match_id, "match_id"))
        object.__setattr__(self, "result_hash", _bytes32(result_hash, "result_hash"))
        object.__setattr__(self, "payouts", tuple(payouts))
        if self.match_id == bytes(32):
            raise SettlementEncodingError("match_id 0 is reserved")
        if self.result_hash == bytes(32):
            raise SettlementEncodingError(f"match {self.match_id.hex()} needs a result hash")
        if len(self.payouts) > MAX_ENCODABLE_PAYOUTS:
            raise SettlementEncodingError(f"too many payouts in one match: {len(self.payouts)}")
        for payout in self.payouts:
            if not isinstance(payout, SettlementPayout):
                raise SettlementEncodingError(f"not a SettlementPayout: {payout!r}")

    @property
    def total(self) -> int:
        return sum(p.amount for p in self.payouts)


def pack_settle_batch(matches: Iterable[SettlementMatch]) -> bytes:
    """The ``batch`` bytes argument of ``settle`` (layout in IMatchSettlement.sol)."""
    parts: list[bytes] = []
    for match in matches:
        if not match.payouts:
            # settle refuses it (SettlementNoPayouts): it would only use up the match id.
            raise SettlementEncodingError(f"match {match.match_id.hex()} has no payouts")
        parts.append(match.match_id)
        parts.append(match.result_hash)
        parts.append(len(match.payouts).to_bytes(2, "big"))
        parts.extend(payout.word.to_bytes(32, "big") for payout in match.payouts)
    if not parts:
        raise SettlementEncodingError("a settle batch needs at least one match")
    return b"".join(parts)


def encode_settle(contracts: Contracts, matches: Iterable[SettlementMatch]) -> bytes:
    """Complete calldata (selector + arguments) for ``MatchSettlement.settle``."""
    data = contracts.settlement.encode_abi("settle", args=[pack_settle_batch(matches)])
    return bytes.fromhex(data.removeprefix("0x"))


def estimate_settle_gas(matches: Sequence[SettlementMatch]) -> int:
    """An upper-bound gas limit for settling ``matches`` (worst case: all new holders)."""
    gas = SETTLE_GAS_BASE
    for match in matches:
        gas += SETTLE_GAS_PER_MATCH
        for payout in match.payouts:
            if payout.avatar_id is not None:
                gas += SETTLE_GAS_PER_AVATAR_PAYOUT
            else:
                gas += SETTLE_GAS_PER_ACCOUNT_PAYOUT
    return gas
