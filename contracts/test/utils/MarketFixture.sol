// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Accessories} from "../../src/Accessories.sol";
import {Market} from "../../src/Market.sol";
import {Shop} from "../../src/Shop.sol";
import {IMarket} from "../../src/interfaces/IMarket.sol";
import {IShop} from "../../src/interfaces/IShop.sol";
import {Fixture} from "./Fixture.sol";

/// @dev The shared fixture plus the markets, wired as backend/chain/deploy.py wires them
///      (royalties to `royaltyReceiver` here, the treasury in a deployment, so that tests can
///      tell the royalty from the fee).
abstract contract MarketFixture is Fixture {
    uint16 internal constant FEE_BPS = 250;
    uint96 internal constant ROYALTY_BPS = 500;
    uint256 internal constant HAT = 7;
    uint256 internal constant CAPE = 8;

    address internal royaltyReceiver = address(0x2981);
    address internal seller = address(0x5E11);
    address internal buyer = address(0xB11E);

    Accessories internal accessories;
    Shop internal shop;
    Market internal market;

    function setUp() public virtual override {
        super.setUp();
        accessories = new Accessories(admin, avatar);
        shop = new Shop(admin, token, treasury);
        market = new Market(admin, token, treasury, avatar, accessories, FEE_BPS);
        vm.startPrank(admin);
        avatar.grantRole(avatar.SHOP_ROLE(), address(shop));
        accessories.grantRole(accessories.SHOP_ROLE(), address(shop));
        vip.grantRole(vip.SHOP_ROLE(), address(shop));
        accessories.grantRole(accessories.CATALOG_ROLE(), operator);
        shop.grantRole(shop.LISTER_ROLE(), operator);
        shop.grantRole(shop.GUARDIAN_ROLE(), operator);
        market.grantRole(market.GUARDIAN_ROLE(), operator);
        shop.setItem(address(avatar), IShop.ItemKind.Mintable);
        shop.setItem(address(accessories), IShop.ItemKind.Mintable);
        shop.setItem(address(vip), IShop.ItemKind.VipPass);
        market.setToken(address(avatar), IMarket.Standard.ERC721);
        market.setToken(address(accessories), IMarket.Standard.ERC1155);
        avatar.setRoyalty(royaltyReceiver, ROYALTY_BPS);
        accessories.setRoyalty(royaltyReceiver, ROYALTY_BPS);
        vm.stopPrank();
        vm.startPrank(operator);
        accessories.defineType(HAT, 100, "https://dew.example/accessories/hat.json");
        accessories.defineType(CAPE, 3, "https://dew.example/accessories/cape.json");
        vm.stopPrank();
        vm.label(address(accessories), "Accessories");
        vm.label(address(shop), "Shop");
        vm.label(address(market), "Market");
    }

    /// @dev `to` buys one `typeId` accessory in the shop (listed here at 1 DEW).
    function _buyAccessory(address to, uint256 typeId) internal {
        vm.prank(operator);
        uint256 listingId = shop.list(address(accessories), typeId, DEW, 1, 0);
        _giveDew(to, DEW);
        vm.startPrank(to);
        token.approve(address(shop), DEW);
        shop.buy(listingId, DEW);
        vm.stopPrank();
    }

    /// @dev `seller_` approves the market for everything and lists.
    function _list(address seller_, address token_, uint256 id, uint256 amount, uint256 price)
        internal
        returns (uint256 listingId)
    {
        vm.startPrank(seller_);
        avatar.setApprovalForAll(address(market), true);
        accessories.setApprovalForAll(address(market), true);
        listingId = market.list(token_, id, amount, price, uint64(block.timestamp + 7 days));
        vm.stopPrank();
    }

    /// @dev `buyer_` gets `price` DEW, approves the market and buys `listingId`.
    function _buy(address buyer_, uint256 listingId, uint256 price) internal {
        _giveDew(buyer_, price);
        vm.startPrank(buyer_);
        token.approve(address(market), price);
        market.buy(listingId, price);
        vm.stopPrank();
    }
}
