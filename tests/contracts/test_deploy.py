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
    MINTER_ROLE,
    RENTAL_ROLE,
    REPO_ROOT,
    SCREENER_ROLE,
    SETTLER_ROLE,
    Contracts,
    ManifestError,
    SettlementMatch,
    SettlementPayout,
    encode_settle,
    load_artifact,
    load_manifest,
)
from backend.chain.deploy import DeployConfig
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
        expected = bytes.fromhex(load_artifact(name).deployed_bytecode.removeprefix("0x"))
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


@pytest.mark.parametrize(
    ("contract", "role", "holder"),
    [
        ("token", MINTER_ROLE, "operator"),
        ("avatar", MINTER_ROLE, "operator"),
        ("avatar", RENTAL_ROLE, "ScholarshipRegistry"),
        ("vip", ISSUER_ROLE, "operator"),
        ("registry", SCREENER_ROLE, "operator"),
        ("settlement", SETTLER_ROLE, "operator"),
        ("settlement", DEFAULT_ADMIN_ROLE, "deployer"),
    ],
)
def test_roles_are_granted(deployment: Deployment, contract: str, role: bytes, holder: str) -> None:
    m = deployment.manifest
    address = {"operator": m.operator, "deployer": m.deployer}.get(holder) or m.address(holder)
    bound = getattr(deployment.contracts, contract)
    assert bound.functions.hasRole(role, address).call() is True
    stranger = Account.from_key(deployment.player_keys[-1]).address
    assert bound.functions.hasRole(role, stranger).call() is False


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
