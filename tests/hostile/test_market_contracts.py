"""Hostile callers of the Shop, Market and Accessories contracts, on a real anvil deployment.

Each attack is a real signed transaction from the wallet that would try it (sent with a fixed
gas limit, so the node mines the revert); the test checks the named error (decoded with the
engine's error table, which knows the markets' errors) and that nothing changed on chain.
docs/contracts-markets.md lists the callers and their bounds.
"""

from __future__ import annotations

from typing import Any

import pytest
from eth_account import Account

from backend.chain.calls import _error_table, decode_revert
from tests.contracts.test_deploy import send
from tests.fixtures.anvil import Deployment

DEW = 10**18
PRICE = 5 * DEW
HAT = 11


def _encode(contract: Any, fn: str, *args: Any) -> str:
    return str(contract.encode_abi(fn, args=list(args)))


def refused(d: Deployment, key: str, contract: Any, fn: str, *args: Any) -> str:
    """The decoded error of ``fn(*args)`` from ``key``; the transaction, sent anyway, is
    mined as a revert."""
    sender = Account.from_key(key).address
    data = _encode(contract, fn, *args)
    answer = d.w3.provider.make_request(
        "eth_call", [{"from": sender, "to": contract.address, "data": data}, "latest"]
    )
    assert "error" in answer, f"{fn} did not revert: {answer}"
    assert send(d, key, data, contract.address)["status"] == 0
    return decode_revert(answer["error"].get("data"), _error_table())


def _snapshot(d: Deployment) -> tuple[int, ...]:
    c = d.contracts
    return (
        c.shop.functions.listingCount().call(),
        c.market.functions.listingCount().call(),
        c.avatar.functions.nextTokenId().call(),
        c.accessories.functions.totalSupply(HAT).call(),
        c.market.functions.feeBps().call(),
        c.token.functions.balanceOf(d.manifest.extra["treasury"]).call(),
    )


@pytest.fixture
def market_setup(deployment: Deployment, chain_snapshot) -> Deployment:
    d, c = deployment, deployment.contracts
    send(
        d,
        d.operator_key,
        _encode(c.accessories, "defineType", HAT, 5, "hat"),
        c.accessories.address,
    )
    send(
        d, d.operator_key, _encode(c.shop, "list", c.avatar.address, 0, PRICE, 3, 0), c.shop.address
    )
    return d


@pytest.mark.parametrize(
    ("who", "contract", "fn", "args", "error"),
    [
        ("player", "shop", "list", ("avatar", 0, PRICE, 1, 0), "AccessControlUnauthorizedAccount"),
        ("player", "shop", "setListing", (1, 1, True), "AccessControlUnauthorizedAccount"),
        ("player", "shop", "pause", (), "AccessControlUnauthorizedAccount"),
        ("operator", "shop", "setItem", ("token", 1), "AccessControlUnauthorizedAccount"),
        ("operator", "shop", "unpause", (), "AccessControlUnauthorizedAccount"),
        ("deployer", "shop", "setItem", ("token", 1), "ShopItemInvalid"),
        ("operator", "shop", "list", ("token", 0, PRICE, 1, 0), "ShopItemNotAllowed"),
        ("operator", "shop", "list", ("avatar", 0, 0, 1, 0), "ShopPriceInvalid"),
        ("operator", "shop", "list", ("vip", 0, PRICE, 1, 10), "ShopVipTermInvalid"),
        (
            "operator",
            "avatar",
            "shopMint",
            ("operator", 0, 1, b""),
            "AccessControlUnauthorizedAccount",
        ),
        (
            "player",
            "accessories",
            "shopMint",
            ("player", HAT, 1, b""),
            "AccessControlUnauthorizedAccount",
        ),
        ("player", "accessories", "defineType", (99, 1, "x"), "AccessControlUnauthorizedAccount"),
        ("operator", "accessories", "defineType", (HAT, 1000, "x"), "AccessoryTypeExists"),
        ("operator", "accessories", "defineType", (2**32, 1, "x"), "AccessoryTypeInvalid"),
        ("player", "accessories", "equip", (1, HAT), "ERC721NonexistentToken"),
        ("operator", "market", "setFeeBps", (10,), "AccessControlUnauthorizedAccount"),
        ("deployer", "market", "setFeeBps", (1001,), "MarketFeeTooHigh"),
        ("deployer", "market", "setToken", ("token", 1), "MarketTokenInvalid"),
        ("operator", "avatar", "setRoyalty", ("operator", 100), "AccessControlUnauthorizedAccount"),
        ("deployer", "avatar", "setRoyalty", ("operator", 1001), "AvatarRoyaltyTooHigh"),
        ("player", "market", "list", ("token", 1, 1, PRICE, 2**40), "MarketTokenNotAllowed"),
        ("player", "market", "buy", (7, PRICE), "MarketUnknownListing"),
        ("player", "market", "cancel", (7,), "MarketUnknownListing"),
        ("player", "shop", "buy", (1, PRICE - 1), "ShopPriceAboveMax"),
        ("player", "shop", "buy", (9, PRICE), "ShopUnknownListing"),
    ],
)
def test_refused_and_nothing_changes(
    market_setup: Deployment, who: str, contract: str, fn: str, args: tuple, error: str
) -> None:
    d, c = market_setup, market_setup.contracts
    keys = {"player": d.player_keys[4], "operator": d.operator_key, "deployer": d.deployer_key}
    names = {
        "avatar": c.avatar.address,
        "token": c.token.address,
        "vip": c.vip.address,
        "operator": d.operator,
        "player": Account.from_key(keys["player"]).address,
    }
    resolved = tuple(names.get(a, a) if isinstance(a, str) else a for a in args)
    before = _snapshot(d)
    reason = refused(d, keys[who], getattr(c, contract), fn, *resolved)
    assert reason.startswith(f"{error}("), reason
    assert _snapshot(d) == before


def test_a_repriced_listing_cannot_take_more_than_the_buyer_allowed(
    market_setup: Deployment,
) -> None:
    """The lister (a stolen hot key) raises the price after the buyer approved a larger
    allowance: the buyer's maxPrice refuses the purchase and no DEW moves."""
    d, c = market_setup, market_setup.contracts
    buyer_key = d.player_keys[5]
    buyer = Account.from_key(buyer_key).address
    send(d, d.deployer_key, _encode(c.token, "transfer", buyer, 100 * DEW), c.token.address)
    send(d, buyer_key, _encode(c.token, "approve", c.shop.address, 100 * DEW), c.token.address)
    send(d, d.operator_key, _encode(c.shop, "setListing", 1, 50 * DEW, True), c.shop.address)
    before = _snapshot(d)
    reason = refused(d, buyer_key, c.shop, "buy", 1, PRICE)
    assert reason.startswith("ShopPriceAboveMax("), reason
    assert c.token.functions.balanceOf(buyer).call() == 100 * DEW
    assert _snapshot(d) == before


def test_a_stolen_issuer_key_cannot_cut_or_cancel_a_paid_vip_pass(
    market_setup: Deployment,
) -> None:
    """A player buys a year of VIP in the shop; the operator's issuer key (stolen, or an
    ordinary 30-day grant) then grants 30 days and revokes: the paid year stays. Before, the
    grant re-dated the pass to 30 days and the revoke burnt it."""
    d, c = market_setup, market_setup.contracts
    buyer_key = d.player_keys[6]
    buyer = Account.from_key(buyer_key).address
    year = 366 * 86_400
    send(
        d, d.operator_key, _encode(c.shop, "list", c.vip.address, 0, PRICE, 5, year), c.shop.address
    )
    listing = c.shop.functions.listingCount().call()
    send(d, d.deployer_key, _encode(c.token, "transfer", buyer, PRICE), c.token.address)
    send(d, buyer_key, _encode(c.token, "approve", c.shop.address, PRICE), c.token.address)
    assert send(d, buyer_key, _encode(c.shop, "buy", listing, PRICE), c.shop.address)["status"] == 1
    paid = c.vip.functions.expiresAt(buyer).call()
    now = d.w3.eth.get_block("latest")["timestamp"]
    assert paid >= now + year - 60
    grant = _encode(c.vip, "issue", buyer, now + 30 * 86_400)
    assert send(d, d.operator_key, grant, c.vip.address)["status"] == 1
    assert c.vip.functions.expiresAt(buyer).call() == paid
    assert send(d, d.operator_key, _encode(c.vip, "revoke", buyer), c.vip.address)["status"] == 1
    assert c.vip.functions.isValid(buyer).call() is True
    assert c.vip.functions.expiresAt(buyer).call() == paid
    # The paid part is the admin's alone to end.
    reason = refused(d, d.operator_key, c.vip, "revokePaid", buyer)
    assert reason.startswith("AccessControlUnauthorizedAccount("), reason
    assert c.vip.functions.isValid(buyer).call() is True
