"""Deploy every DEW contract, grant the roles, fund the reward vault, return the manifest.

Used by ``scripts/deploy.py`` (any RPC URL), the test fixtures and the demo. Each transaction
is signed locally and waited for with a deadline before the next one is sent, so it works the
same on anvil and on a real network.

Keys (docs/contracts.md, "Threat model"): the *deployer* becomes the admin of every contract
(or hands the admin role to ``admin`` in two steps); the *operator* is the backend's hot wallet
and must be another key: it gets only the day-to-day roles (avatar minter, VIP issuer,
screener, settler, guardian), never DEW minting or an admin role. DEW is minted once, up to
the cap (the vault's funding to the vault, the rest to the treasury), and the deployer then
renounces ``MINTER_ROLE``, so nobody can mint DEW afterwards.

The markets: the *shop* contract gets ``SHOP_ROLE`` on the avatars, accessories,
game centers and VIPPass (whose paid part of a pass only it extends), and nothing on DEW; the
*market* contract gets no role at all (it only moves what sellers and buyers approved).
Royalties on both item contracts go to the treasury.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from typing import Any

from eth_account import Account
from eth_account.signers.local import LocalAccount
from hexbytes import HexBytes
from web3 import Web3
from web3.contract.contract import ContractConstructor, ContractFunction
from web3.exceptions import TransactionNotFound
from web3.types import Nonce, TxReceipt

from backend.chain.contracts import (
    ARTIFACTS_DIR,
    CATALOG_ROLE,
    GUARDIAN_ROLE,
    ISSUER_ROLE,
    LISTER_ROLE,
    MINTER_ROLE,
    RENTAL_ROLE,
    REPO_ROOT,
    ROLES,
    SCREENER_ROLE,
    SETTLEMENT_ROLE,
    SETTLER_ROLE,
    SHOP_ROLE,
    Manifest,
    artifact_name,
    load_artifact,
)
from backend.chain.exceptions import ChainError, ChainValueError
from backend.config import EconomySettings, FeeSettings

logger = logging.getLogger(__name__)

DEW = 10**18
# The largest limits MatchSettlement can hold (its MAX_* constants; the limits are whole DEW):
# "no limit" in tests.
MAX_SETTLE_PERIOD_LIMIT = ((1 << 32) - 1) * DEW
MAX_SETTLE_PER_MATCH = ((1 << 24) - 1) * DEW
MAX_SETTLE_PERIOD_S = (1 << 22) - 1
MAX_SETTLE_MATCHES = (1 << 31) - 1
# The contracts' hard caps (Market.MAX_FEE_BPS, AvatarNFT/Accessories.MAX_ROYALTY_BPS).
MAX_MARKET_FEE_BPS = 1000
MAX_ROYALTY_BPS = 1000
# Shop.ItemKind and Market.Standard values.
SHOP_ITEM_MINTABLE = 1
SHOP_ITEM_VIP = 2
MARKET_ERC721 = 1
MARKET_ERC1155 = 2
MAX_CENTER_ROYALTY_BPS = 1000  # GameCenter.MAX_ROYALTY_BPS
# The game's planned daily outflow from the vault (docs/contracts.md, "Threat model"): match
# emission (wallets earning in a day, each at most ``DEW_ECONOMY_EMISSION_PER_WALLET_PER_DAY``,
# which also bounds what a season's budget can pay out a day), tournament prize matches (each
# at most the per-match limit) and stake withdrawals (each at most ``DEW_ECONOMY_WITHDRAWAL_MAX``).
PLANNED_EARNING_WALLETS = 1_000
PLANNED_PRIZE_MATCHES_PER_DAY = 2
PLANNED_WITHDRAWALS_PER_DAY = 4
DEFAULT_SETTLE_MAX_PER_MATCH = 10_000 * DEW
# The settler's window limit is the plan times this headroom (3/2): a stolen settler key then
# pays out at most 1.5 days of planned outflow a day, and the alert DewVaultOutflowAbovePlan
# (deploy/prometheus/alerts.yml) fires once a window has paid more than the plan (2/3 of it).
SETTLE_HEADROOM = (3, 2)


def planned_outflow_per_day(economy: EconomySettings | None = None) -> int:
    """The DEW wei the game plans to pay out of the vault in a day."""
    economy = economy or EconomySettings()
    return (
        PLANNED_EARNING_WALLETS * economy.emission_per_wallet_per_day
        + PLANNED_PRIZE_MATCHES_PER_DAY * DEFAULT_SETTLE_MAX_PER_MATCH
        + PLANNED_WITHDRAWALS_PER_DAY * economy.withdrawal_max
    )


def planned_period_limit(economy: EconomySettings | None = None) -> int:
    """The settler's daily limit: the planned outflow with headroom, rounded up to whole DEW
    (the vault holds whole DEW)."""
    numerator, denominator = SETTLE_HEADROOM
    wei = -(-planned_outflow_per_day(economy) * numerator // denominator)
    return -(-wei // DEW) * DEW


class DeploymentError(ChainError):
    """A deployment transaction failed or was not mined in time."""


class HotKeyError(DeploymentError):
    """Everything was deployed, but the roles read back leave the operator's hot key an admin,
    DEW still mintable, or the shop's mint rights anywhere but on the shop (or the shop or
    market holding a role they must not). ``manifest`` holds the deployed addresses: save it
    anyway, or contracts already on chain are lost track of."""

    def __init__(self, message: str, manifest: Manifest) -> None:
        super().__init__(message)
        self.manifest = manifest


@dataclass(frozen=True)
class DeployConfig:
    """What to deploy with. Amounts are DEW wei."""

    token_cap: int = 1_000_000_000 * DEW
    vault_funding: int = 10_000_000 * DEW
    avatar_base_uri: str = "https://dew.example/avatars/"
    center_base_uri: str = "https://dew.example/centers/"
    # ERC-2981 royalty on center resales, to the treasury (GameCenter.MAX_ROYALTY_BPS: 1000).
    center_royalty_bps: int = 500
    vip_uri: str = "https://dew.example/vip/{id}.json"
    receipt_timeout_s: float = 120.0
    # The vault's outflow limits (MatchSettlement.setLimits): at most ``settle_period_limit``
    # DEW wei per ``settle_period_s`` window and ``settle_max_per_match`` per match, both whole
    # DEW, and at most ``settle_max_matches`` settled matches per window (which bounds the
    # match ids a stolen settler key can use up; set it near twice a window's real matches).
    # The window limit is the planned daily outflow with headroom (``planned_period_limit``,
    # 240,000 DEW with the default settings), not a round figure: a stolen settler key drains
    # no faster than the game pays.
    settle_period_s: int = 86_400
    settle_period_limit: int = field(default_factory=planned_period_limit)
    settle_max_per_match: int = DEFAULT_SETTLE_MAX_PER_MATCH
    settle_max_matches: int = 100_000
    # The resale market's fee and the ERC-2981 royalty of avatars and accessories, in basis
    # points of a sale price (each at most 10%, the contracts' caps). The fee is the one fee
    # schedule's (``DEW_FEES_MARKET_BPS``, docs/economy.md "Fees"), as deployed.
    market_fee_bps: int = field(default_factory=lambda: FeeSettings().market_bps)
    royalty_bps: int = 500


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
        self.nonce = Nonce(self.nonce + 1)
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
    operator: str,
    admin: str | None = None,
    treasury: str | None = None,
    guardian: str | None = None,
    config: DeployConfig | None = None,
) -> Manifest:
    """Deploy every contract (CONTRACT_NAMES) and wire them up; returns the manifest (not yet
    saved).

    ``operator`` (required; not the deployer, admin or treasury) is the backend's hot wallet: it
    gets the avatar minter, VIP issuer, screener, settler, accessory catalog and shop lister
    roles. ``guardian`` (default: the operator) may pause settlement, the shop and the market.
    The registry gets the avatar's rental role. The shop gets SHOP_ROLE on avatars,
    accessories, game centers and VIPPass; the market trades avatars and accessories for a
    ``market_fee_bps`` fee; both item contracts pay ``royalty_bps`` royalties to the treasury.
    DEW is minted once, up to the cap: ``vault_funding`` to the vault and the rest to
    ``treasury`` (default: the admin); then the deployer renounces ``MINTER_ROLE``. The
    deployer is the admin of every contract; with ``admin`` set it also starts the two-step
    admin transfer to that address, which ``admin`` accepts with ``acceptDefaultAdminTransfer``
    after the contracts' delay. The manifest's ``roles`` are read back from the chain; if they
    leave the operator an admin, DEW mintable, or the shop's and market's rights wider than
    stated, ``HotKeyError`` is raised carrying the manifest (save it: the contracts are
    deployed).
    """
    config = config or DeployConfig()
    account: LocalAccount = Account.from_key(deployer_key)
    deployer = account.address
    operator = _checksum(operator, "operator")
    admin = _checksum(admin, "admin") if admin else deployer
    treasury = _checksum(treasury, "treasury") if treasury else admin
    guardian = _checksum(guardian, "guardian") if guardian else operator
    cold = {"deployer": deployer, "admin": admin, "treasury": treasury}
    for name, address in cold.items():
        if address == operator:
            raise ChainValueError(
                f"the operator (the backend's hot wallet) must not be the {name}: {operator}"
            )
    if not 0 <= config.vault_funding <= config.token_cap:
        raise ChainValueError("vault_funding must be between 0 and the token cap")
    if not (
        0 < config.settle_period_s <= MAX_SETTLE_PERIOD_S
        and 0 <= config.settle_period_limit <= MAX_SETTLE_PERIOD_LIMIT
        and 0 <= config.settle_max_per_match <= MAX_SETTLE_PER_MATCH
        and 0 <= config.settle_max_matches <= MAX_SETTLE_MATCHES
        and config.settle_period_limit % DEW == 0
        and config.settle_max_per_match % DEW == 0
    ):
        raise ChainValueError(f"settlement limits out of range: {config!r}")
    if not (
        0 <= config.market_fee_bps <= MAX_MARKET_FEE_BPS
        and 0 <= config.royalty_bps <= MAX_ROYALTY_BPS
    ):
        raise ChainValueError(f"market fee or royalty out of range: {config!r}")
    if not 0 <= config.center_royalty_bps <= MAX_CENTER_ROYALTY_BPS:
        raise ChainValueError(f"center_royalty_bps out of 0..1000: {config.center_royalty_bps}")
    sender = _Sender(w3, account, config.receipt_timeout_s)

    def deploy(name: str, *args: Any) -> tuple[str, int]:
        artifact = load_artifact(artifact_name(name))
        factory = w3.eth.contract(abi=artifact.abi, bytecode=artifact.bytecode)
        receipt = sender.send(factory.constructor(*args), f"deploy {name}")
        address = receipt["contractAddress"]
        if address is None:  # a mined contract creation always names its contract
            raise DeploymentError(f"deploy {name}: the receipt names no contract")
        return Web3.to_checksum_address(address), receipt["blockNumber"]

    token_address, first_block = deploy("DEWToken", deployer, config.token_cap)
    avatar_address, _ = deploy("AvatarNFT", deployer, config.avatar_base_uri)
    vip_address, _ = deploy("VIPPass", deployer, config.vip_uri)
    registry_address, _ = deploy("ScholarshipRegistry", deployer, avatar_address, token_address)
    settlement_address, _ = deploy("MatchSettlement", deployer, token_address, registry_address)
    accessories_address, _ = deploy("Accessories", deployer, avatar_address)
    shop_address, _ = deploy("Shop", deployer, token_address, treasury)
    market_address, _ = deploy(
        "Market",
        deployer,
        token_address,
        treasury,
        avatar_address,
        accessories_address,
        config.market_fee_bps,
    )
    # The eight contracts wired together below, in the manifest's order.
    core = {
        "DEWToken": token_address,
        "AvatarNFT": avatar_address,
        "VIPPass": vip_address,
        "ScholarshipRegistry": registry_address,
        "MatchSettlement": settlement_address,
        "Accessories": accessories_address,
        "Shop": shop_address,
        "Market": market_address,
    }
    addresses = core | _deploy_centers_and_contributions(
        deploy, deployer, token_address, settlement_address, config.center_base_uri
    )

    def bind(name: str) -> Any:
        return w3.eth.contract(
            address=Web3.to_checksum_address(addresses[name]),
            abi=load_artifact(artifact_name(name)).abi,
        )

    token, avatar, vip, registry, settlement, accessories, shop, market = map(bind, core)
    grants = [
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
        (settlement, GUARDIAN_ROLE, guardian, "MatchSettlement.GUARDIAN_ROLE -> guardian"),
        (avatar, SHOP_ROLE, shop_address, "AvatarNFT.SHOP_ROLE -> shop"),
        (accessories, SHOP_ROLE, shop_address, "Accessories.SHOP_ROLE -> shop"),
        (vip, SHOP_ROLE, shop_address, "VIPPass.SHOP_ROLE -> shop"),
        (accessories, CATALOG_ROLE, operator, "Accessories.CATALOG_ROLE -> operator"),
        (shop, LISTER_ROLE, operator, "Shop.LISTER_ROLE -> operator"),
        (shop, GUARDIAN_ROLE, guardian, "Shop.GUARDIAN_ROLE -> guardian"),
        (market, GUARDIAN_ROLE, guardian, "Market.GUARDIAN_ROLE -> guardian"),
    ]
    grants += _center_grants(bind, addresses, operator)
    for contract, role, holder, what in grants:
        if not contract.functions.hasRole(role, holder).call():
            sender.send(contract.functions.grantRole(role, holder), f"grant {what}")
    _set_center_royalty(sender, bind("GameCenter"), treasury, config.center_royalty_bps)
    sender.send(
        settlement.functions.setLimits(
            config.settle_period_limit,
            config.settle_max_per_match,
            config.settle_period_s,
            config.settle_max_matches,
        ),
        "set the vault's outflow limits",
    )

    _wire_markets(sender, addresses, treasury, config)

    # DEW is minted once, up to the cap; then nobody holds MINTER_ROLE any more.
    sender.send(token.functions.grantRole(MINTER_ROLE, deployer), "grant DEWToken.MINTER_ROLE")
    if config.vault_funding:
        sender.send(
            token.functions.mint(settlement_address, config.vault_funding), "fund the vault"
        )
    rest = config.token_cap - config.vault_funding
    if rest:
        sender.send(token.functions.mint(treasury, rest), "mint the rest of the cap to treasury")
    sender.send(
        token.functions.renounceRole(MINTER_ROLE, deployer), "renounce DEWToken.MINTER_ROLE"
    )
    if admin != deployer:
        for name in addresses:
            if "DEFAULT_ADMIN_ROLE" not in ROLES[name]:
                continue  # Contributions has no admin
            sender.send(
                bind(name).functions.beginDefaultAdminTransfer(admin),
                f"{name}: begin the admin transfer to {admin}",
            )

    candidates = {deployer, admin, treasury, operator, guardian, *addresses.values()}
    roles = role_holders(w3, addresses, candidates)
    manifest = Manifest(
        chain_id=w3.eth.chain_id,
        deployment_block=first_block,
        addresses=addresses,
        artifacts={
            name: str((ARTIFACTS_DIR / f"{artifact_name(name)}.json").relative_to(REPO_ROOT))
            for name in addresses
        },
        deployer=deployer,
        operator=operator,
        vault_funding=config.vault_funding,
        extra={
            "admin": admin,
            "treasury": treasury,
            "guardian": guardian,
            "market_fee_bps": config.market_fee_bps,
            "royalty_bps": config.royalty_bps,
            "settle_limits": {
                "period_s": config.settle_period_s,
                "period_limit": str(config.settle_period_limit),
                "max_per_match": str(config.settle_max_per_match),
                "max_matches": config.settle_max_matches,
            },
        },
        roles=roles,
    )
    _check_hot_key(manifest)
    return manifest


def _wire_markets(
    sender: _Sender, addresses: dict[str, str], treasury: str, config: DeployConfig
) -> None:
    """What the shop may sell, what the market may trade, and the royalties to the treasury."""
    w3 = sender.w3

    def bind(name: str) -> Any:
        return w3.eth.contract(
            address=Web3.to_checksum_address(addresses[name]), abi=load_artifact(name).abi
        )

    shop, market = bind("Shop"), bind("Market")
    avatar, accessories = addresses["AvatarNFT"], addresses["Accessories"]
    vip = addresses["VIPPass"]
    for item, kind, what in (
        (avatar, SHOP_ITEM_MINTABLE, "avatars"),
        (accessories, SHOP_ITEM_MINTABLE, "accessories"),
        (vip, SHOP_ITEM_VIP, "VIP passes"),
        (addresses["GameCenter"], SHOP_ITEM_MINTABLE, "game centers"),
    ):
        sender.send(shop.functions.setItem(item, kind), f"the shop sells {what}")
    for token, standard, what in (
        (avatar, MARKET_ERC721, "avatars"),
        (accessories, MARKET_ERC1155, "accessories"),
        (addresses["GameCenter"], MARKET_ERC721, "game centers"),
    ):
        sender.send(market.functions.setToken(token, standard), f"the market trades {what}")
    for name in ("AvatarNFT", "Accessories"):
        sender.send(
            bind(name).functions.setRoyalty(treasury, config.royalty_bps),
            f"{name}: royalty {config.royalty_bps} bps to the treasury",
        )


# --- game centers, their rental registry, contributions ---------------------------------------


def _deploy_centers_and_contributions(
    deploy: Any, deployer: str, token_address: str, settlement_address: str, base_uri: str
) -> dict[str, str]:
    """Deploy the GameCenter, the ScholarshipRegistry that rents centers out (Fixed Rent over
    the GameCenter; docs/contracts.md) and Contributions (DEW to the vault for a tournament)."""
    center_address, _ = deploy("GameCenter", deployer, base_uri)
    center_registry_address, _ = deploy("CenterRegistry", deployer, center_address, token_address)
    contributions_address, _ = deploy("Contributions", token_address, settlement_address)
    return {
        "GameCenter": center_address,
        "CenterRegistry": center_registry_address,
        "Contributions": contributions_address,
    }


def _center_grants(
    bind: Any, addresses: dict[str, str], operator: str
) -> list[tuple[Any, bytes, str, str]]:
    """The operator mints centers and screens center owners; the centers' registry may lock a
    rented center. Nobody gets the centers' registry's SETTLEMENT_ROLE: a center's fee legs
    are account payouts (``GameCenter.payeeOf``), never split by a registry."""
    center, center_registry = bind("GameCenter"), bind("CenterRegistry")
    grants: list[tuple[Any, bytes, str, str]] = [
        (center, MINTER_ROLE, operator, "GameCenter.MINTER_ROLE -> operator"),
        (
            center,
            RENTAL_ROLE,
            addresses["CenterRegistry"],
            "GameCenter.RENTAL_ROLE -> center registry",
        ),
        (center_registry, SCREENER_ROLE, operator, "CenterRegistry.SCREENER_ROLE -> operator"),
    ]
    if "Shop" in addresses:  # the shop sells blank centers, placed by their buyers
        grants.append((center, SHOP_ROLE, addresses["Shop"], "GameCenter.SHOP_ROLE -> shop"))
    return grants


def _set_center_royalty(sender: _Sender, center: Any, treasury: str, bps: int) -> None:
    """Center resales pay their ERC-2981 royalty to the treasury (the deployer until now)."""
    sender.send(center.functions.setRoyalty(treasury, bps), "GameCenter royalty -> treasury")


def _checksum(address: str, what: str) -> str:
    if not isinstance(address, str) or not Web3.is_address(address):
        raise ChainValueError(f"{what} is not an address: {address!r}")
    return Web3.to_checksum_address(address)


def role_holders(
    w3: Web3, addresses: dict[str, str], candidates: set[str]
) -> dict[str, dict[str, list[str]]]:
    """Who among ``candidates`` holds each role of each contract, read from the chain.

    AccessControl does not enumerate holders, so the candidates are every address deploy
    knows (keys, treasury, the contracts themselves); a pending admin does not hold the role
    until it accepts.
    """
    roles: dict[str, dict[str, list[str]]] = {}
    for name, address in addresses.items():
        contract = w3.eth.contract(
            address=Web3.to_checksum_address(address), abi=load_artifact(artifact_name(name)).abi
        )
        roles[name] = {
            role_name: sorted(a for a in candidates if contract.functions.hasRole(role, a).call())
            for role_name, role in ROLES[name].items()
        }
    return roles


def hot_key_rights(roles: dict[str, dict[str, list[str]]], key: str) -> list[str]:
    """The admin and DEW-minting roles ``key`` holds (must be none for a hot key)."""
    return [
        f"{name}.{role}"
        for name, by_role in roles.items()
        for role, holders in by_role.items()
        if key in holders
        and (role == "DEFAULT_ADMIN_ROLE" or (name, role) == ("DEWToken", "MINTER_ROLE"))
    ]


def market_rights_problems(manifest: Manifest) -> list[str]:
    """What is wrong with the shop's and market's rights (empty when right): every contract's
    SHOP_ROLE (avatars, accessories, game centers, VIP passes) is held by the shop alone; the
    shop holds nothing on DEW and no admin role; the market holds no role at all."""
    roles = manifest.roles
    shop, market = manifest.address("Shop"), manifest.address("Market")
    problems = [
        f"{name}.SHOP_ROLE is held by {by_role['SHOP_ROLE']}, not by the shop alone"
        for name, by_role in roles.items()
        if "SHOP_ROLE" in by_role and by_role["SHOP_ROLE"] != [shop]
    ]
    for name, by_role in roles.items():
        for role, holders in by_role.items():
            if market in holders:
                problems.append(f"the market holds {name}.{role}")
            if shop in holders and (name == "DEWToken" or role == "DEFAULT_ADMIN_ROLE"):
                problems.append(f"the shop holds {name}.{role}")
    return problems


def _check_hot_key(manifest: Manifest) -> None:
    """The operator's hot key must hold no admin role anywhere and must not mint DEW; only the
    shop mints through SHOP_ROLE, and neither the shop nor the market holds more."""
    roles, operator = manifest.roles, manifest.operator
    rights = hot_key_rights(roles, operator)
    if rights:
        raise HotKeyError(f"the operator {operator} holds {', '.join(rights)}", manifest)
    if roles["DEWToken"]["MINTER_ROLE"]:
        minters = roles["DEWToken"]["MINTER_ROLE"]
        raise HotKeyError(f"DEW can still be minted by {minters}", manifest)
    problems = market_rights_problems(manifest)
    if problems:
        raise HotKeyError("; ".join(problems), manifest)
