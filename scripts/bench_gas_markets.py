"""Gas of the markets (issue 19), measured from receipts in the same run as their baselines.

Called by ``scripts/bench_gas.py`` on its deployment. Figures:

- ``shop_buy_gas``: ``Shop.buy`` of an avatar (DEW buyer -> treasury, mint to the buyer);
  baseline ``shop_baseline_gas``: a plain OpenZeppelin ERC-721 mint transaction plus a
  ``DEWToken.transfer`` transaction (the same two effects done apart).
- ``market_buy_gas``: ``Market.buy`` of a listed avatar (royalty and fee to the treasury in one
  leg, the rest to the seller, the avatar seller -> buyer); baseline ``market_baseline_gas``: a
  plain ERC-721 ``safeTransferFrom`` transaction.
- ``equip_gas``: ``Accessories.equip`` of a first accessory on an avatar; baseline
  ``equip_baseline_gas``: a plain ERC-721 ``safeTransferFrom`` transaction.
- The ERC-6551 alternative: ``tba_create_gas`` (the avatar's account, once per avatar),
  ``tba_equip_gas`` (an ERC-1155 ``safeTransferFrom`` into the account), ``tba_unequip_gas``
  (the owner's ``execute`` sending it back), against ``equip_gas`` and ``unequip_gas``.

Every buyer and seller already holds DEW and has approved the contract (approvals are one-off
transactions a wallet makes once), and every listing has sold once before, so no figure
carries a first-ever write of a shared slot.
"""

from __future__ import annotations

from typing import Any

from backend.chain.contracts import REPO_ROOT, load_artifact

DEW = 10**18
PRICE = 10 * DEW
MAX_UINT = 2**256 - 1
HAT, CAPE = 1, 2
SHOP_SUPPLY = 1000
# The benchmark-only contracts (contracts/test/mocks/): their artifacts are not shipped.
BENCH_ARTIFACTS_DIR = REPO_ROOT / "contracts" / "test" / "artifacts"


def deploy_bench_contract(b: Any, name: str, *args: Any) -> Any:
    """Deploy the benchmark-only contract ``name`` from ``b.deployer``."""
    artifact = load_artifact(name, BENCH_ARTIFACTS_DIR)
    factory = b.w3.eth.contract(abi=artifact.abi, bytecode=artifact.bytecode)
    tx_hash = factory.constructor(*args).transact({"from": b.deployer})
    address = b.w3.eth.wait_for_transaction_receipt(tx_hash)["contractAddress"]
    return b.w3.eth.contract(address=address, abi=artifact.abi)


def _wallet(b: Any) -> str:
    """A new address holding 1,000 DEW that approved the shop and the market for everything."""
    (who,) = b.new_addresses(1)
    b.impersonate(who)
    b.tx(b.deployer, b.c.token.functions.transfer(who, 1000 * DEW))
    for spender in (b.c.shop.address, b.c.market.address):
        b.tx(who, b.c.token.functions.approve(spender, MAX_UINT))
    for item in (b.c.avatar, b.c.accessories):
        b.tx(who, item.functions.setApprovalForAll(b.c.market.address, True))
    return who


def _shop_buy(b: Any, buyer: str, listing_id: int) -> int:
    return b.tx(buyer, b.c.shop.functions.buy(listing_id, PRICE))


def _last_shop_avatar(b: Any) -> int:
    return int(b.c.avatar.functions.nextTokenId().call()) - 1


def _market_sale(b: Any, seller: str, buyer: str, token: Any, item_id: int, n: int) -> int:
    expires = b.w3.eth.get_block("latest")["timestamp"] + 86_400
    b.tx(seller, b.c.market.functions.list(token.address, item_id, n, PRICE, expires))
    listing_id = b.c.market.functions.listingCount().call()
    return b.tx(buyer, b.c.market.functions.buy(listing_id, PRICE))


def measure(b: Any) -> dict[str, Any]:
    """Every market figure and its baseline (see the module docstring)."""
    c, f = b.c, {}
    for type_id, name in ((HAT, "hat"), (CAPE, "cape")):
        b.tx(b.operator, c.accessories.functions.defineType(type_id, 10**6, name))
    listings = {}
    for key, item, item_id in (
        ("avatar", c.avatar, 0),
        ("hat", c.accessories, HAT),
        ("cape", c.accessories, CAPE),
    ):
        b.tx(b.operator, c.shop.functions.list(item.address, item_id, PRICE, SHOP_SUPPLY, 0))
        listings[key] = c.shop.functions.listingCount().call()
    warm = _wallet(b)
    for key in listings:  # each listing's sold counter and each type's supply written once
        _shop_buy(b, warm, listings[key])

    # First sale: a buyer who owns no avatar yet.
    buyer = _wallet(b)
    f["shop_buy_gas"] = _shop_buy(b, buyer, listings["avatar"])
    f["shop_buy_gas_accessory"] = _shop_buy(b, buyer, listings["hat"])
    plain = b.plain_erc721()
    holder, minted_to, new_owner, third_owner = b.new_addresses(4)
    for who in (holder, minted_to):
        b.impersonate(who)
    b.tx(b.deployer, plain.functions.mint(holder))  # id 1; the counter slot exists from then
    # id 2, to an address that held none, like the shop's buyer.
    f["plain_mint_gas"] = b.tx(b.deployer, plain.functions.mint(minted_to))
    f["dew_transfer_gas"] = b.tx(warm, c.token.functions.transfer(b.deployer, PRICE))
    f["shop_baseline_gas"] = f["plain_mint_gas"] + f["dew_transfer_gas"]

    # Resale: the first buyer sells the avatar on to a new buyer (royalty and fee legs).
    avatar_id = _last_shop_avatar(b)
    second = _wallet(b)
    f["market_buy_gas"] = _market_sale(b, buyer, second, c.avatar, avatar_id, 1)
    f["market_buy_gas_accessory"] = _market_sale(b, buyer, second, c.accessories, HAT, 1)
    # Baselines: to a holder that held no token of that contract, like the buyer above.
    f["market_baseline_gas"] = b.tx(holder, plain.functions.safeTransferFrom(holder, new_owner, 1))

    # Equip: the second buyer dresses the avatar it bought with a cape from the shop (it buys
    # three, so that the cape the ERC-6551 account gets below leaves a balance too).
    for _ in range(3):
        _shop_buy(b, second, listings["cape"])
    f["equip_gas"] = b.tx(second, c.accessories.functions.equip(avatar_id, CAPE))
    f["equip_gas_second_type"] = b.tx(second, c.accessories.functions.equip(avatar_id, HAT))
    f["unequip_gas"] = b.tx(second, c.accessories.functions.unequip(avatar_id, HAT))
    f["equip_baseline_gas"] = b.tx(
        minted_to, plain.functions.safeTransferFrom(minted_to, third_owner, 2)
    )

    # ERC-6551: the avatar's token-bound account holds the second cape instead.
    registry = deploy_bench_contract(b, "ERC6551BenchRegistry")
    implementation = deploy_bench_contract(b, "ERC6551BenchAccount")
    args = (implementation.address, b"\x00" * 32, b.w3.eth.chain_id, c.avatar.address, avatar_id)
    f["tba_create_gas"] = b.tx(second, registry.functions.createAccount(*args))
    account = registry.functions.account(*args).call()
    f["tba_equip_gas"] = b.tx(
        second, c.accessories.functions.safeTransferFrom(second, account, CAPE, 1, b"")
    )
    back = c.accessories.encode_abi("safeTransferFrom", args=[account, second, CAPE, 1, b""])
    bound = b.w3.eth.contract(address=account, abi=implementation.abi)
    f["tba_unequip_gas"] = b.tx(second, bound.functions.execute(c.accessories.address, 0, back, 0))

    f["ratio_shop_buy_vs_mint_plus_transfer"] = round(f["shop_buy_gas"] / f["shop_baseline_gas"], 3)
    f["ratio_market_buy_vs_safe_transfer"] = round(
        f["market_buy_gas"] / f["market_baseline_gas"], 3
    )
    f["ratio_equip_vs_safe_transfer"] = round(f["equip_gas"] / f["equip_baseline_gas"], 3)
    f["ratio_tba_first_equip_vs_equip"] = round(
        (f["tba_create_gas"] + f["tba_equip_gas"]) / f["equip_gas"], 3
    )
    return f
