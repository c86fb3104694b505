"""Deploy to a fresh anvil, read every contract back, and load the manifest from disk."""

from __future__ import annotations

import hashlib

import pytest
from eth_account import Account
from web3 import Web3
from web3.logs import DISCARD

from backend.chain.contracts import (
    CONTRACT_NAMES,
    DEFAULT_ADMIN_ROLE,
    ISSUER_ROLE,
    MANIFEST_KEYS,
    MINTER_ROLE,
    RENTAL_ROLE,
    REPO_ROOT,
    ROLES,
    SCREENER_ROLE,
    SETTLER_ROLE,
    Contracts,
    ManifestError,
    SettlementMatch,
    SettlementPayout,
    artifact_name,
    encode_settle,
    load_artifact,
    load_manifest,
)
from backend.chain.deploy import (
    DEW,
    MAX_SETTLE_MATCHES,
    MAX_SETTLE_PER_MATCH,
    MAX_SETTLE_PERIOD_LIMIT,
    MAX_SETTLE_PERIOD_S,
    DeployConfig,
    deploy_all,
    hot_key_rights,
    planned_outflow_per_day,
    planned_period_limit,
)
from backend.chain.exceptions import ChainValueError
from backend.config import EconomySettings
from tests.fixtures.anvil import Deployment


def send(d: Deployment, key: str, data: bytes | str, to: str) -> dict:
    account = Account.from_key(key)
    tx = {
        "from": account.address,
        "to": to,
        "data": data,
        "nonce": d.w3.eth.get_transaction_count(account.address),
        "chainId": d.w3.eth.chain_id,
        "gas": 2_000_000,
        "maxFeePerGas": 10**10,
        "maxPriorityFeePerGas": 10**9,
    }
    signed = account.sign_transaction(tx)
    tx_hash = d.w3.eth.send_raw_transaction(signed.raw_transaction)
    return d.w3.eth.wait_for_transaction_receipt(tx_hash, timeout=30)


def test_manifest_on_disk_matches_the_chain(deployment: Deployment) -> None:
    manifest = load_manifest(deployment.manifest_path)
    assert manifest == deployment.manifest
    assert manifest.chain_id == deployment.anvil.chain_id == deployment.w3.eth.chain_id
    assert 0 < manifest.deployment_block <= deployment.w3.eth.block_number
    for name in CONTRACT_NAMES:
        code = bytes(deployment.w3.eth.get_code(manifest.address(name)))
        artifact = load_artifact(artifact_name(name))
        expected = bytes.fromhex(artifact.deployed_bytecode.removeprefix("0x"))
        # Immutables (zero placeholders in the artifact) are filled in at deployment.
        assert len(code) == len(expected)
        assert all(a == b for a, b in zip(code, expected, strict=True) if b != 0)
        assert (REPO_ROOT / manifest.artifacts[name]).is_file()


def test_every_contract_reads_back(deployment: Deployment) -> None:
    c = deployment.contracts
    m = deployment.manifest
    config = DeployConfig()
    assert c.token.functions.name().call() == "Domino Earning World"
    assert c.token.functions.symbol().call() == "DEW"
    assert c.token.functions.decimals().call() == 18
    assert c.token.functions.cap().call() == config.token_cap
    # Minted once, up to the cap: the vault's funding and the rest to the treasury.
    assert c.token.functions.totalSupply().call() == config.token_cap
    treasury = m.extra["treasury"]
    assert treasury == m.deployer
    assert c.token.functions.balanceOf(treasury).call() == config.token_cap - config.vault_funding
    assert c.token.functions.balanceOf(m.address("MatchSettlement")).call() == config.vault_funding
    assert c.avatar.functions.nextTokenId().call() == 1
    assert c.avatar.functions.supportsInterface(bytes.fromhex("ad092b5c")).call()
    assert c.vip.functions.VIP_TIER().call() == 1
    assert c.vip.functions.isValid(m.operator).call() is False
    assert c.registry.functions.avatar().call() == m.address("AvatarNFT")
    assert c.registry.functions.token().call() == m.address("DEWToken")
    assert c.registry.functions.agreementCount().call() == 0
    assert c.settlement.functions.token().call() == m.address("DEWToken")
    assert c.settlement.functions.registry().call() == m.address("ScholarshipRegistry")
    assert c.settlement.functions.totalPaid().call() == 0
    limits = m.extra["settle_limits"]
    assert list(c.settlement.functions.limits().call()) == [
        int(limits["period_limit"]),
        int(limits["max_per_match"]),
        limits["period_s"],
        limits["max_matches"],
    ]
    assert c.settlement.functions.paused().call() is False


@pytest.mark.parametrize(
    ("contract", "role", "holder"),
    [
        ("avatar", MINTER_ROLE, "operator"),
        ("avatar", RENTAL_ROLE, "ScholarshipRegistry"),
        ("vip", ISSUER_ROLE, "operator"),
        ("registry", SCREENER_ROLE, "operator"),
        ("settlement", SETTLER_ROLE, "operator"),
        ("settlement", DEFAULT_ADMIN_ROLE, "deployer"),
        ("game_center", MINTER_ROLE, "operator"),
        ("game_center", RENTAL_ROLE, "CenterRegistry"),
        ("center_registry", SCREENER_ROLE, "operator"),
    ],
)
def test_roles_are_granted(deployment: Deployment, contract: str, role: bytes, holder: str) -> None:
    m = deployment.manifest
    address = {"operator": m.operator, "deployer": m.deployer}.get(holder) or m.address(holder)
    bound = getattr(deployment.contracts, contract)
    assert bound.functions.hasRole(role, address).call() is True
    stranger = Account.from_key(deployment.player_keys[-1]).address
    assert bound.functions.hasRole(role, stranger).call() is False


def test_no_hot_key_holds_mint_or_admin_rights(deployment: Deployment) -> None:
    """The operator's hot key holds no admin role and cannot mint DEW; nobody can mint DEW."""
    m = deployment.manifest
    c = deployment.contracts
    operator = Account.from_key(deployment.operator_key).address
    assert m.operator == operator != m.deployer
    # What the manifest records is what the chain says, for every contract and role.
    for name, roles in m.roles.items():
        bound = c.by_name(name)
        assert set(roles) == set(ROLES[name])
        if not roles:
            continue  # Contributions: no roles, no admin
        for role, holders in roles.items():
            for holder in holders:
                assert bound.functions.hasRole(ROLES[name][role], holder).call(), (name, role)
            assert bound.functions.hasRole(ROLES[name][role], operator).call() == (
                operator in holders
            )
        assert roles["DEFAULT_ADMIN_ROLE"] == [m.deployer]
        assert bound.functions.defaultAdmin().call() == m.deployer
        assert bound.functions.hasRole(DEFAULT_ADMIN_ROLE, operator).call() is False
    assert hot_key_rights(m.roles, operator) == []
    assert m.roles["DEWToken"]["MINTER_ROLE"] == []
    for who in (operator, m.deployer):
        assert c.token.functions.hasRole(MINTER_ROLE, who).call() is False
    assert m.roles["MatchSettlement"]["SETTLER_ROLE"] == [operator]
    assert m.roles["AvatarNFT"]["RENTAL_ROLE"] == [m.address("ScholarshipRegistry")]
    # Only the vault may record a match on the registry (the split and the idle clock).
    assert m.roles["ScholarshipRegistry"]["SETTLEMENT_ROLE"] == [m.address("MatchSettlement")]


def test_deploy_refuses_the_deployer_as_operator(anvil) -> None:
    w3 = Web3(Web3.HTTPProvider(anvil.rpc_url))
    deployer = Account.from_key(anvil.keys[5])
    before = w3.eth.get_transaction_count(deployer.address)
    with pytest.raises(ChainValueError, match="must not be the deployer"):
        deploy_all(w3, anvil.keys[5], operator=deployer.address)
    treasury = Account.from_key(anvil.keys[6]).address
    with pytest.raises(ChainValueError, match="must not be the treasury"):
        deploy_all(w3, anvil.keys[5], operator=treasury, treasury=treasury)
    assert w3.eth.get_transaction_count(deployer.address) == before  # nothing was sent


@pytest.mark.parametrize(
    "limits",
    [
        {"settle_period_limit": 10 * DEW + 1},  # the vault's limits are whole DEW
        {"settle_max_per_match": DEW // 2},
        {"settle_period_limit": MAX_SETTLE_PERIOD_LIMIT + DEW},
        {"settle_max_per_match": MAX_SETTLE_PER_MATCH + DEW},
        {"settle_period_s": MAX_SETTLE_PERIOD_S + 1},
        {"settle_period_s": 0},
        {"settle_max_matches": MAX_SETTLE_MATCHES + 1},
    ],
)
def test_deploy_refuses_limits_the_vault_cannot_hold(anvil, limits) -> None:
    w3 = Web3(Web3.HTTPProvider(anvil.rpc_url))
    deployer = Account.from_key(anvil.keys[5])
    before = w3.eth.get_transaction_count(deployer.address)
    operator = Account.from_key(anvil.keys[7]).address
    with pytest.raises(ChainValueError, match="settlement limits out of range"):
        deploy_all(w3, anvil.keys[5], operator=operator, config=DeployConfig(**limits))
    assert w3.eth.get_transaction_count(deployer.address) == before  # nothing was sent


def test_settle_period_limit_is_the_planned_outflow_with_headroom() -> None:
    # It was a fixed 1,000,000 DEW a day: a stolen settler key drained the vault in 9 days
    # whatever the game paid out.
    economy = EconomySettings(emission_per_wallet_per_day=50 * DEW, withdrawal_max=1_001 * DEW)
    plan = 1_000 * 50 * DEW + 2 * 10_000 * DEW + 4 * 1_001 * DEW
    assert planned_outflow_per_day(economy) == plan
    assert planned_period_limit(economy) == 111_006 * DEW  # 74,004 DEW * 3/2, whole DEW
    assert planned_period_limit(EconomySettings(withdrawal_max=DEW + 1)) % DEW == 0
    default = DeployConfig()
    assert default.settle_period_limit == planned_period_limit() == 240_000 * DEW
    # A stolen settler key pays one window at once and one more every 24 h after.
    windows = -(-default.vault_funding // default.settle_period_limit)
    assert (windows - 1) * default.settle_period_s // 3600 == 984  # docs/contracts.md


def test_deploy_limit_maxima_are_the_contracts(deployment: Deployment) -> None:
    settlement = deployment.contracts.settlement
    assert settlement.functions.MAX_PERIOD_LIMIT().call() == MAX_SETTLE_PERIOD_LIMIT
    assert settlement.functions.MAX_PER_MATCH_LIMIT().call() == MAX_SETTLE_PER_MATCH
    assert settlement.functions.MAX_PERIOD().call() == MAX_SETTLE_PERIOD_S
    assert settlement.functions.MAX_MATCHES_PER_PERIOD().call() == MAX_SETTLE_MATCHES


def test_deploy_hands_the_admin_role_over_in_two_steps(anvil, chain_snapshot) -> None:
    w3 = Web3(Web3.HTTPProvider(anvil.rpc_url))
    deployer_key, admin_key, operator_key = anvil.keys[5], anvil.keys[6], anvil.keys[7]
    admin = Account.from_key(admin_key).address
    m = deploy_all(
        w3,
        deployer_key,
        operator=Account.from_key(operator_key).address,
        admin=admin,
        config=DeployConfig(vault_funding=10 * 10**18, token_cap=100 * 10**18),
    )
    c = Contracts(w3, m)
    assert m.extra["admin"] == m.extra["treasury"] == admin
    assert c.token.functions.balanceOf(admin).call() == 90 * 10**18
    for name in CONTRACT_NAMES:
        if "DEFAULT_ADMIN_ROLE" not in ROLES[name]:
            continue  # Contributions has no admin
        bound = c.by_name(name)
        pending, _schedule = bound.functions.pendingDefaultAdmin().call()
        assert pending == admin
        assert bound.functions.defaultAdmin().call() == m.deployer  # until admin accepts


def test_contracts_refuse_a_manifest_for_another_chain(deployment: Deployment) -> None:
    wrong = type(deployment.manifest)(**{**deployment.manifest.__dict__, "chain_id": 1})
    with pytest.raises(ManifestError, match="chain 1"):
        Contracts(deployment.w3, wrong)


def test_operator_mints_avatars_and_settles_a_match(deployment: Deployment, chain_snapshot) -> None:
    c = deployment.contracts
    player = Account.from_key(deployment.player_keys[0]).address
    receipt = send(
        deployment,
        deployment.operator_key,
        c.avatar.encode_abi("mintBatch", args=[[player, player]]),
        c.avatar.address,
    )
    assert receipt["status"] == 1
    minted = [
        log["args"]["tokenId"]
        for log in c.avatar.events.Transfer().process_receipt(receipt, errors=DISCARD)
    ]
    assert minted == [1, 2]
    assert c.avatar.functions.ownerOf(2).call() == player

    match = SettlementMatch(
        match_id=7,
        result_hash=hashlib.sha256(b"record").digest(),
        payouts=[SettlementPayout(amount=5 * 10**18, account=player)],
    )
    data = encode_settle(c, [match])
    settlement = c.settlement.address
    receipt = send(deployment, deployment.operator_key, data, settlement)
    assert receipt["status"] == 1
    assert c.token.functions.balanceOf(player).call() == 5 * 10**18
    assert c.settlement.functions.isSettled(match.match_id).call() is True
    settled = c.settlement.events.MatchSettled().process_receipt(receipt, errors=DISCARD)
    assert [e["args"]["matchId"] for e in settled] == [match.match_id]
    assert settled[0]["args"]["paid"] == 5 * 10**18

    # The same match again is skipped, not paid twice.
    receipt = send(deployment, deployment.operator_key, data, settlement)
    assert receipt["status"] == 1
    skipped = c.settlement.events.MatchSkipped().process_receipt(receipt, errors=DISCARD)
    assert [e["args"]["matchId"] for e in skipped] == [match.match_id]
    assert c.token.functions.balanceOf(player).call() == 5 * 10**18
    assert Web3.to_checksum_address(player) == player


def test_centers_and_contributions_are_wired(deployment: Deployment) -> None:
    """Issue 20: the center registry rents GameCenters for DEW, contributions go to the vault,
    center resales pay their royalty to the treasury, and only the vault holds SETTLEMENT_ROLE
    on the avatars' registry (none on the centers')."""
    c = deployment.contracts
    m = deployment.manifest
    for alias, name in MANIFEST_KEYS.items():
        assert m.address(alias) == m.address(name)
    assert c.center_registry.functions.avatar().call() == m.address("GameCenter")
    assert c.center_registry.functions.token().call() == m.address("DEWToken")
    assert c.contributions.functions.token().call() == m.address("DEWToken")
    assert c.contributions.functions.vault().call() == m.address("MatchSettlement")
    assert c.game_center.functions.nextTokenId().call() == 1
    assert c.game_center.functions.supportsInterface(bytes.fromhex("2a55205a")).call()  # 2981
    receiver, royalty = c.game_center.functions.royaltyInfo(1, 10_000).call()
    assert (receiver, royalty) == (m.extra["treasury"], DeployConfig().center_royalty_bps)
    assert m.roles["GameCenter"]["RENTAL_ROLE"] == [m.address("CenterRegistry")]
    shop = [m.address("Shop")] if "Shop" in m.addresses else []  # issue 19's shop, once merged
    assert m.roles["GameCenter"]["SHOP_ROLE"] == shop
    assert m.roles["CenterRegistry"]["SETTLEMENT_ROLE"] == []
    assert m.roles["Contributions"] == {}


def test_operator_mints_a_center(deployment: Deployment, chain_snapshot) -> None:
    c = deployment.contracts
    owner = Account.from_key(deployment.player_keys[0]).address
    call = c.game_center.encode_abi(
        "mintCenter", args=[owner, "Club Dominó", b"DO", "Santo Domingo", 1847, -6990, 12]
    )
    receipt = send(deployment, deployment.operator_key, call, c.game_center.address)
    assert receipt["status"] == 1
    (minted,) = c.game_center.events.CenterMinted().process_receipt(receipt, errors=DISCARD)
    assert minted["args"]["centerId"] == 1
    assert minted["args"]["to"] == owner
    assert c.game_center.functions.centerOf(1).call() == [
        "Club Dominó",
        b"DO",
        "Santo Domingo",
        1847,
        -6990,
        12,
    ]
    assert c.game_center.functions.payeeOf(1).call() == owner
    # A stranger cannot mint: the call reverts and changes nothing.
    stranger_key = deployment.player_keys[1]
    receipt = send(deployment, stranger_key, call, c.game_center.address)
    assert receipt["status"] == 0
    assert c.game_center.functions.nextTokenId().call() == 2
