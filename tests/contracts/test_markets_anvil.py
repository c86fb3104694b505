"""The markets as deployed by deploy_all, on anvil: shop purchase, equip, resale with royalty
and fee, a stale resale refused by name; and the deploy checks on the shop's and market's
rights."""

from __future__ import annotations

from dataclasses import replace

import pytest
from eth_account import Account
from web3.logs import DISCARD

from backend.chain.calls import _error_table, decode_revert
from backend.chain.contracts import ISSUER_ROLE, MINTER_ROLE, SHOP_ROLE
from backend.chain.deploy import DEW, DeployConfig, market_rights_problems
from tests.contracts.test_deploy import send
from tests.fixtures.anvil import Deployment

PRICE = 20 * DEW
MAX_UINT = 2**256 - 1
HAT = 3


def _call(d: Deployment, key: str, contract, fn: str, *args) -> dict:
    return send(d, key, contract.encode_abi(fn, args=list(args)), contract.address)


def _revert_reason(d: Deployment, key: str, contract, fn: str, *args) -> str:
    """Simulate the call and decode its custom error (the call must revert)."""
    sender = Account.from_key(key).address
    data = contract.encode_abi(fn, args=list(args))
    answer = d.w3.provider.make_request(
        "eth_call", [{"from": sender, "to": contract.address, "data": data}, "latest"]
    )
    assert "error" in answer, answer
    return decode_revert(answer["error"].get("data"), _error_table())


def test_deployed_roles_and_wiring(deployment: Deployment) -> None:
    c, m = deployment.contracts, deployment.manifest
    shop = m.address("shop")
    assert shop == m.address("Shop") == c.shop.address
    assert m.roles["AvatarNFT"]["SHOP_ROLE"] == [shop]
    assert m.roles["Accessories"]["SHOP_ROLE"] == [shop]
    assert m.roles["VIPPass"]["SHOP_ROLE"] == [shop]
    assert shop not in m.roles["VIPPass"]["ISSUER_ROLE"]
    assert m.roles["Shop"]["LISTER_ROLE"] == [m.operator]
    assert m.roles["Accessories"]["CATALOG_ROLE"] == [m.operator]
    assert c.token.functions.hasRole(MINTER_ROLE, shop).call() is False
    market = m.address("market")
    assert all(market not in holders for r in m.roles.values() for holders in r.values())
    assert market_rights_problems(m) == []
    assert c.shop.functions.itemKind(c.avatar.address).call() == 1
    assert c.shop.functions.itemKind(c.vip.address).call() == 2
    assert c.shop.functions.itemKind(c.token.address).call() == 0
    assert c.market.functions.tokenStandard(c.accessories.address).call() == 2
    assert c.market.functions.feeBps().call() == DeployConfig().market_fee_bps
    treasury = m.extra["treasury"]
    royalty = DeployConfig().royalty_bps
    assert c.avatar.functions.royaltyInfo(1, 10_000).call() == [treasury, royalty]
    assert c.shop.functions.treasury().call() == c.market.functions.treasury().call() == treasury


def test_market_rights_problems_names_each_wrong_grant(deployment: Deployment) -> None:
    m = deployment.manifest
    roles = {name: {r: list(h) for r, h in by.items()} for name, by in m.roles.items()}
    roles["AvatarNFT"]["SHOP_ROLE"].append(m.operator)
    roles["DEWToken"]["MINTER_ROLE"].append(m.address("Shop"))
    roles["ScholarshipRegistry"]["SCREENER_ROLE"].append(m.address("Market"))
    problems = market_rights_problems(replace(m, roles=roles))
    assert any("AvatarNFT.SHOP_ROLE" in p for p in problems)
    assert "the shop holds DEWToken.MINTER_ROLE" in problems
    assert "the market holds ScholarshipRegistry.SCREENER_ROLE" in problems
    assert SHOP_ROLE and ISSUER_ROLE  # the constants the grants use are exported


@pytest.mark.parametrize("contract", ["GameCenter", "VIPPass", "Accessories"])
def test_market_rights_problems_cover_every_shop_role(deployment: Deployment, contract) -> None:
    # Deploy checked only the avatars' and accessories' SHOP_ROLE: a second holder of the
    # centers' shop role (or of VIPPass's) passed unnoticed.
    m = deployment.manifest
    assert m.roles[contract]["SHOP_ROLE"] == [m.address("Shop")]
    roles = {name: {r: list(h) for r, h in by.items()} for name, by in m.roles.items()}
    roles[contract]["SHOP_ROLE"].append(m.operator)
    problems = market_rights_problems(replace(m, roles=roles))
    assert problems == [
        f"{contract}.SHOP_ROLE is held by {roles[contract]['SHOP_ROLE']}, not by the shop alone"
    ]


def test_buy_equip_resell_and_a_stale_resale(deployment: Deployment, chain_snapshot) -> None:
    d, c, m = deployment, deployment.contracts, deployment.manifest
    op = d.operator_key
    alice_key, bob_key, carol_key = d.player_keys[:3]
    alice, bob, carol = (Account.from_key(k).address for k in (alice_key, bob_key, carol_key))
    treasury = m.extra["treasury"]
    for who in (alice, bob, carol):
        _call(d, d.deployer_key, c.token, "transfer", who, 100 * DEW)
    _call(d, op, c.accessories, "defineType", HAT, 2, "https://dew.example/hat.json")
    _call(d, op, c.shop, "list", c.avatar.address, 0, PRICE, 10, 0)
    _call(d, op, c.shop, "list", c.accessories.address, HAT, PRICE, 10, 0)

    # First sale: alice buys an avatar and a hat; the price goes to the treasury.
    before = c.token.functions.balanceOf(treasury).call()
    _call(d, alice_key, c.token, "approve", c.shop.address, MAX_UINT)
    receipt = _call(d, alice_key, c.shop, "buy", 1, PRICE)
    (purchase,) = c.shop.events.ShopPurchase().process_receipt(receipt, errors=DISCARD)
    avatar_id = purchase["args"]["tokenId"]
    assert c.avatar.functions.ownerOf(avatar_id).call() == alice
    _call(d, alice_key, c.shop, "buy", 2, PRICE)
    assert c.token.functions.balanceOf(treasury).call() == before + 2 * PRICE
    assert c.token.functions.balanceOf(c.shop.address).call() == 0

    # Equip, then list the dressed avatar.
    _call(d, alice_key, c.accessories, "equip", avatar_id, HAT)
    assert c.accessories.functions.equippedOf(avatar_id).call() == [HAT]
    _call(d, alice_key, c.avatar, "setApprovalForAll", c.market.address, True)
    expires = d.w3.eth.get_block("latest")["timestamp"] + 86_400
    receipt = _call(d, alice_key, c.market, "list", c.avatar.address, avatar_id, 1, PRICE, expires)
    (listed,) = c.market.events.Listed().process_receipt(receipt, errors=DISCARD)
    listing_id = listed["args"]["listingId"]

    # Bob buys: royalty and fee to the treasury, the rest to alice; the hat comes along.
    _call(d, bob_key, c.token, "approve", c.market.address, MAX_UINT)
    balances = [c.token.functions.balanceOf(a).call() for a in (alice, bob, treasury)]
    receipt = _call(d, bob_key, c.market, "buy", listing_id, PRICE)
    (sold,) = c.market.events.Sold().process_receipt(receipt, errors=DISCARD)
    royalty, fee = sold["args"]["royalty"], sold["args"]["fee"]
    assert royalty == PRICE * DeployConfig().royalty_bps // 10_000
    assert fee == PRICE * DeployConfig().market_fee_bps // 10_000
    assert c.token.functions.balanceOf(alice).call() == balances[0] + PRICE - royalty - fee
    assert c.token.functions.balanceOf(bob).call() == balances[1] - PRICE
    assert c.token.functions.balanceOf(treasury).call() == balances[2] + royalty + fee
    assert c.token.functions.balanceOf(c.market.address).call() == 0
    assert c.avatar.functions.ownerOf(avatar_id).call() == bob
    assert c.accessories.functions.equippedOf(avatar_id).call() == [HAT]

    # Bob lists it, then gives it away: carol's buy is refused by name and moves nothing.
    _call(d, bob_key, c.avatar, "setApprovalForAll", c.market.address, True)
    _call(d, bob_key, c.market, "list", c.avatar.address, avatar_id, 1, PRICE, expires)
    stale_id = c.market.functions.listingCount().call()
    _call(d, bob_key, c.avatar, "transferFrom", bob, alice, avatar_id)
    _call(d, carol_key, c.token, "approve", c.market.address, MAX_UINT)
    reason = _revert_reason(d, carol_key, c.market, "buy", stale_id, PRICE)
    assert reason.startswith("MarketSellerNotOwner("), reason
    # Sent anyway (with a fixed gas limit), it is mined as a revert.
    assert _call(d, carol_key, c.market, "buy", stale_id, PRICE)["status"] == 0
    assert c.token.functions.balanceOf(carol).call() == 100 * DEW
    assert c.avatar.functions.ownerOf(avatar_id).call() == alice
