"""Deploy every DEW contract, grant the roles, fund the reward vault, return the manifest.

Used by ``scripts/deploy.py`` (any RPC URL), the test fixtures and the demo. Each transaction
is signed locally and waited for with a deadline before the next one is sent, so it works the
same on anvil and on a real network.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Any

from eth_account import Account
from eth_account.signers.local import LocalAccount
from hexbytes import HexBytes
from web3 import Web3
from web3.contract.contract import ContractConstructor, ContractFunction
from web3.exceptions import TransactionNotFound
from web3.types import TxReceipt

from backend.chain.contracts import (
    ARTIFACTS_DIR,
    ISSUER_ROLE,
    MINTER_ROLE,
    RENTAL_ROLE,
    REPO_ROOT,
    SCREENER_ROLE,
    SETTLEMENT_ROLE,
    SETTLER_ROLE,
    Manifest,
    load_artifact,
)
from backend.chain.exceptions import ChainError

logger = logging.getLogger(__name__)

DEW = 10**18


class DeploymentError(ChainError):
    """A deployment transaction failed or was not mined in time."""


@dataclass(frozen=True)
class DeployConfig:
    """What to deploy with. Amounts are DEW wei."""

    token_cap: int = 1_000_000_000 * DEW
    vault_funding: int = 10_000_000 * DEW
    avatar_base_uri: str = "https://dew.example/avatars/"
    vip_uri: str = "https://dew.example/vip/{id}.json"
    receipt_timeout_s: float = 120.0


class _Sender:
    """Signs and sends the deployer's transactions one by one, tracking the nonce locally."""

    def __init__(self, w3: Web3, account: LocalAccount, timeout_s: float) -> None:
        self.w3 = w3
        self.account = account
        self.timeout_s = timeout_s
        self.nonce = w3.eth.get_transaction_count(account.address, "pending")

    def send(self, call: ContractFunction | ContractConstructor, what: str) -> TxReceipt:
        tx: dict[str, Any] = dict(
            call.build_transaction(
                {"from": self.account.address, "nonce": self.nonce, "chainId": self.w3.eth.chain_id}
            )
        )
        signed = self.account.sign_transaction(tx)
        tx_hash = self.w3.eth.send_raw_transaction(signed.raw_transaction)
        self.nonce += 1
        receipt = self._wait(HexBytes(tx_hash), what)
        if receipt["status"] != 1:
            raise DeploymentError(f"{what} reverted (tx {HexBytes(tx_hash).to_0x_hex()})")
        logger.info("%s: gas %s", what, receipt["gasUsed"])
        return receipt

    def _wait(self, tx_hash: HexBytes, what: str) -> TxReceipt:
        deadline = time.monotonic() + self.timeout_s
        while True:
            try:
                return self.w3.eth.get_transaction_receipt(tx_hash)
            except TransactionNotFound:
                pass
            if time.monotonic() > deadline:
                raise DeploymentError(
                    f"{what}: tx {tx_hash.to_0x_hex()} not mined within {self.timeout_s}s"
                )
            time.sleep(0.1)


def deploy_all(
    w3: Web3,
    deployer_key: str,
    *,
    operator: str | None = None,
    config: DeployConfig | None = None,
) -> Manifest:
    """Deploy all five contracts and wire them up; returns the manifest (not yet saved).

    The deployer keeps ``DEFAULT_ADMIN_ROLE`` everywhere. ``operator`` (default: the deployer)
    is the backend's hot wallet and gets the minter, issuer, screener and settler roles. The
    registry gets the avatar's rental role. The vault is funded by minting ``vault_funding``
    DEW straight into it.
    """
    config = config or DeployConfig()
    account: LocalAccount = Account.from_key(deployer_key)
    operator = Web3.to_checksum_address(operator or account.address)
    sender = _Sender(w3, account, config.receipt_timeout_s)
    admin = account.address

    def deploy(name: str, *args: Any) -> tuple[str, int]:
        artifact = load_artifact(name)
        factory = w3.eth.contract(abi=artifact.abi, bytecode=artifact.bytecode)
        receipt = sender.send(factory.constructor(*args), f"deploy {name}")
        return Web3.to_checksum_address(receipt["contractAddress"]), receipt["blockNumber"]

    token_address, first_block = deploy("DEWToken", admin, config.token_cap)
    avatar_address, _ = deploy("AvatarNFT", admin, config.avatar_base_uri)
    vip_address, _ = deploy("VIPPass", admin, config.vip_uri)
    registry_address, _ = deploy("ScholarshipRegistry", admin, avatar_address, token_address)
    settlement_address, _ = deploy("MatchSettlement", admin, token_address, registry_address)

    def bind(name: str, address: str) -> Any:
        return w3.eth.contract(address=address, abi=load_artifact(name).abi)

    token = bind("DEWToken", token_address)
    avatar = bind("AvatarNFT", avatar_address)
    vip = bind("VIPPass", vip_address)
    registry = bind("ScholarshipRegistry", registry_address)
    settlement = bind("MatchSettlement", settlement_address)

    grants = [
        (token, MINTER_ROLE, admin, "DEWToken.MINTER_ROLE -> deployer (vault funding)"),
        (token, MINTER_ROLE, operator, "DEWToken.MINTER_ROLE -> operator"),
        (avatar, MINTER_ROLE, operator, "AvatarNFT.MINTER_ROLE -> operator"),
        (avatar, RENTAL_ROLE, registry_address, "AvatarNFT.RENTAL_ROLE -> registry"),
        (vip, ISSUER_ROLE, operator, "VIPPass.ISSUER_ROLE -> operator"),
        (registry, SCREENER_ROLE, operator, "ScholarshipRegistry.SCREENER_ROLE -> operator"),
        (
            registry,
            SETTLEMENT_ROLE,
            settlement_address,
            "ScholarshipRegistry.SETTLEMENT_ROLE -> settlement",
        ),
        (settlement, SETTLER_ROLE, operator, "MatchSettlement.SETTLER_ROLE -> operator"),
    ]
    for contract, role, holder, what in grants:
        if not contract.functions.hasRole(role, holder).call():
            sender.send(contract.functions.grantRole(role, holder), f"grant {what}")
    if config.vault_funding:
        sender.send(
            token.functions.mint(settlement_address, config.vault_funding), "fund the vault"
        )

    addresses = {
        "DEWToken": token_address,
        "AvatarNFT": avatar_address,
        "VIPPass": vip_address,
        "ScholarshipRegistry": registry_address,
        "MatchSettlement": settlement_address,
    }
    return Manifest(
        chain_id=w3.eth.chain_id,
        deployment_block=first_block,
        addresses=addresses,
        artifacts={
            name: str((ARTIFACTS_DIR / f"{name}.json").relative_to(REPO_ROOT)) for name in addresses
        },
        deployer=admin,
        operator=operator,
        vault_funding=config.vault_funding,
    )
