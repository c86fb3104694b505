// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IAccessControl} from "@openzeppelin/contracts/access/IAccessControl.sol";
import {IAccessories} from "../src/interfaces/IAccessories.sol";
import {IAvatarNFT} from "../src/interfaces/IAvatarNFT.sol";
import {IShop} from "../src/interfaces/IShop.sol";
import {MarketFixture} from "./utils/MarketFixture.sol";

contract ShopTest is MarketFixture {
    uint256 internal constant PRICE = 25 * DEW;

    function _listAvatar(uint32 supply) internal returns (uint256 listingId) {
        vm.prank(operator);
        listingId = shop.list(address(avatar), 0, PRICE, supply, 0);
    }

    function _pay(address who, uint256 amount) internal {
        _giveDew(who, amount);
        vm.prank(who);
        token.approve(address(shop), amount);
    }

    function test_buy_mintsTheAvatarAndPaysTheTreasuryInOneCall() public {
        uint256 listingId = _listAvatar(2);
        _pay(buyer, PRICE);
        uint256 treasuryBefore = token.balanceOf(treasury);
        vm.expectEmit(true, true, true, true, address(shop));
        emit IShop.ShopPurchase(listingId, buyer, address(avatar), 1, PRICE);
        vm.prank(buyer);
        uint256 tokenId = shop.buy(listingId, PRICE);
        vm.assertEq(tokenId, 1);
        vm.assertEq(avatar.ownerOf(1), buyer);
        vm.assertEq(token.balanceOf(buyer), 0);
        vm.assertEq(token.balanceOf(treasury), treasuryBefore + PRICE);
        vm.assertEq(token.balanceOf(address(shop)), 0);
        vm.assertEq(shop.listing(listingId).sold, 1);
    }

    function test_buy_accessoryAndVipPass() public {
        vm.startPrank(operator);
        uint256 hats = shop.list(address(accessories), HAT, PRICE, 10, 0);
        uint256 passes = shop.list(address(vip), 0, PRICE, 10, 30 days);
        vm.stopPrank();
        _pay(buyer, 3 * PRICE);
        vm.startPrank(buyer);
        vm.assertEq(shop.buy(hats, PRICE), HAT);
        vm.assertEq(shop.buy(passes, PRICE), vip.VIP_TIER());
        vm.stopPrank();
        vm.assertEq(accessories.balanceOf(buyer, HAT), 1);
        vm.assertEq(accessories.totalSupply(HAT), 1);
        vm.assertTrue(vip.isValid(buyer));
        vm.assertEq(vip.expiresAt(buyer), block.timestamp + 30 days);
        // A second pass extends the one still running; it never shortens it.
        vm.warp(block.timestamp + 10 days);
        vm.prank(buyer);
        shop.buy(passes, PRICE);
        vm.assertEq(vip.expiresAt(buyer), START + 60 days);
    }

    function test_buy_refusesAbovePriceSoldOutClosedUnknownAndPaused() public {
        uint256 listingId = _listAvatar(1);
        _pay(buyer, 10 * PRICE);
        vm.startPrank(buyer);
        vm.expectRevert(abi.encodeWithSelector(IShop.ShopPriceAboveMax.selector, PRICE, PRICE - 1));
        shop.buy(listingId, PRICE - 1);
        vm.expectRevert(abi.encodeWithSelector(IShop.ShopUnknownListing.selector, 99));
        shop.buy(99, PRICE);
        shop.buy(listingId, PRICE);
        vm.expectRevert(abi.encodeWithSelector(IShop.ShopSoldOut.selector, listingId, 1));
        shop.buy(listingId, PRICE);
        vm.stopPrank();

        uint256 closed = _listAvatar(5);
        vm.prank(operator);
        shop.setListing(closed, PRICE, false);
        vm.expectRevert(abi.encodeWithSelector(IShop.ShopListingClosed.selector, closed));
        vm.prank(buyer);
        shop.buy(closed, PRICE);

        vm.startPrank(operator);
        shop.setListing(closed, PRICE, true);
        shop.pause();
        vm.stopPrank();
        vm.expectRevert(IShop.ShopPaused.selector);
        vm.prank(buyer);
        shop.buy(closed, PRICE);
        vm.prank(admin);
        shop.unpause();
        vm.prank(buyer);
        shop.buy(closed, PRICE);
        vm.assertEq(avatar.balanceOf(buyer), 2);
    }

    function test_buy_withoutAllowanceMovesNothing() public {
        uint256 listingId = _listAvatar(1);
        _giveDew(buyer, PRICE);
        vm.expectRevert();
        vm.prank(buyer);
        shop.buy(listingId, PRICE);
        vm.assertEq(token.balanceOf(buyer), PRICE);
        vm.assertEq(avatar.nextTokenId(), 1);
        vm.assertEq(shop.listing(listingId).sold, 0);
    }

    function test_buy_stopsAtTheAccessoryCapWhateverTheListingSupply() public {
        vm.prank(operator);
        uint256 listingId = shop.list(address(accessories), CAPE, PRICE, 10, 0);
        _pay(buyer, 4 * PRICE);
        vm.startPrank(buyer);
        for (uint256 i; i < 3; ++i) {
            shop.buy(listingId, PRICE);
        }
        vm.expectRevert(abi.encodeWithSelector(IAccessories.AccessorySupplyExceeded.selector, CAPE, 3, 1, 3));
        shop.buy(listingId, PRICE);
        vm.stopPrank();
        vm.assertEq(token.balanceOf(buyer), PRICE);
        vm.assertEq(accessories.totalSupply(CAPE), 3);
        vm.assertEq(shop.listing(listingId).sold, 3);
    }

    function test_list_limits() public {
        vm.startPrank(operator);
        vm.expectRevert(abi.encodeWithSelector(IShop.ShopItemNotAllowed.selector, address(token)));
        shop.list(address(token), 0, PRICE, 1, 0);
        vm.expectRevert(abi.encodeWithSelector(IShop.ShopPriceInvalid.selector, 0));
        shop.list(address(avatar), 0, 0, 1, 0);
        uint256 tooMuch = shop.MAX_PRICE() + 1;
        vm.expectRevert(abi.encodeWithSelector(IShop.ShopPriceInvalid.selector, tooMuch));
        shop.list(address(avatar), 0, tooMuch, 1, 0);
        vm.expectRevert(abi.encodeWithSelector(IShop.ShopSupplyInvalid.selector, 0));
        shop.list(address(avatar), 0, PRICE, 0, 0);
        vm.expectRevert(abi.encodeWithSelector(IShop.ShopVipTermInvalid.selector, 1 days));
        shop.list(address(avatar), 0, PRICE, 1, 1 days);
        vm.expectRevert(abi.encodeWithSelector(IShop.ShopVipTermInvalid.selector, 0));
        shop.list(address(vip), 0, PRICE, 1, 0);
        vm.expectRevert(abi.encodeWithSelector(IShop.ShopVipTermInvalid.selector, 367 days));
        shop.list(address(vip), 0, PRICE, 1, 367 days);
        vm.expectRevert(abi.encodeWithSelector(IShop.ShopUnknownListing.selector, 1));
        shop.setListing(1, PRICE, true);
        vm.stopPrank();
        vm.assertEq(shop.listingCount(), 0);
    }

    function test_roles_listerGuardianAdminOnly() public {
        bytes32 lister = shop.LISTER_ROLE();
        vm.expectRevert(
            abi.encodeWithSelector(IAccessControl.AccessControlUnauthorizedAccount.selector, stranger, lister)
        );
        vm.prank(stranger);
        shop.list(address(avatar), 0, PRICE, 1, 0);
        bytes32 guardian = shop.GUARDIAN_ROLE();
        vm.expectRevert(
            abi.encodeWithSelector(IAccessControl.AccessControlUnauthorizedAccount.selector, stranger, guardian)
        );
        vm.prank(stranger);
        shop.pause();
        vm.expectRevert(
            abi.encodeWithSelector(IAccessControl.AccessControlUnauthorizedAccount.selector, operator, bytes32(0))
        );
        vm.prank(operator);
        shop.setItem(address(0xBEEF), IShop.ItemKind.Mintable);
        vm.expectRevert(
            abi.encodeWithSelector(IAccessControl.AccessControlUnauthorizedAccount.selector, operator, bytes32(0))
        );
        vm.prank(operator);
        shop.unpause();
    }

    function test_setItem_refusesDewAndZero_andUnregisteringStopsSales() public {
        vm.startPrank(admin);
        vm.expectRevert(abi.encodeWithSelector(IShop.ShopItemInvalid.selector, address(token)));
        shop.setItem(address(token), IShop.ItemKind.Mintable);
        vm.expectRevert(abi.encodeWithSelector(IShop.ShopItemInvalid.selector, address(0)));
        shop.setItem(address(0), IShop.ItemKind.Mintable);
        vm.stopPrank();
        uint256 listingId = _listAvatar(3);
        vm.prank(admin);
        shop.setItem(address(avatar), IShop.ItemKind.None);
        _pay(buyer, PRICE);
        vm.expectRevert(abi.encodeWithSelector(IShop.ShopItemNotAllowed.selector, address(avatar)));
        vm.prank(buyer);
        shop.buy(listingId, PRICE);
    }

    function test_shopMint_onlyTheShop() public {
        bytes32 role = avatar.SHOP_ROLE();
        vm.expectRevert(
            abi.encodeWithSelector(IAccessControl.AccessControlUnauthorizedAccount.selector, operator, role)
        );
        vm.prank(operator);
        avatar.shopMint(operator, 0, 1, "");
        vm.expectRevert(
            abi.encodeWithSelector(IAccessControl.AccessControlUnauthorizedAccount.selector, operator, role)
        );
        vm.prank(operator);
        accessories.shopMint(operator, HAT, 1, "");
        vm.expectRevert(abi.encodeWithSelector(IAvatarNFT.AvatarShopAmount.selector, 2));
        vm.prank(address(shop));
        avatar.shopMint(buyer, 0, 2, "");
    }

    function test_shopMint_avatarsFollowBatchMintedIds() public {
        address[] memory two = new address[](2);
        (two[0], two[1]) = (seller, seller);
        vm.prank(operator);
        avatar.mintBatch(two);
        vm.prank(address(shop));
        vm.assertEq(avatar.shopMint(buyer, 0, 1, ""), 3);
        vm.assertEq(avatar.ownerOf(2), seller);
        vm.assertEq(avatar.ownerOf(3), buyer);
        vm.prank(operator);
        vm.assertEq(avatar.mintBatch(two), 4);
        vm.assertEq(avatar.ownerOf(3), buyer);
        vm.assertEq(avatar.ownerOf(4), seller);
    }

    /// Whatever the listing supply, the type cap and the buys: the shop sells at most
    /// min(supply, cap), the treasury receives exactly the price of each sale, the shop keeps
    /// nothing.
    function testFuzz_supplyAndProceeds(uint32 supply, uint8 cap, uint8 attempts, uint96 price) public {
        supply = uint32(bound(supply, 1, 20));
        cap = uint8(bound(cap, 1, 20));
        attempts = uint8(bound(attempts, 0, 30));
        price = uint96(bound(price, 1, shop.MAX_PRICE()));
        vm.prank(operator);
        accessories.defineType(42, cap, "x");
        vm.prank(operator);
        uint256 listingId = shop.list(address(accessories), 42, price, supply, 0);
        _pay(buyer, uint256(price) * attempts);
        uint256 treasuryBefore = token.balanceOf(treasury);
        uint256 sold;
        for (uint256 i; i < attempts; ++i) {
            vm.prank(buyer);
            try shop.buy(listingId, price) {
                ++sold;
            } catch {}
        }
        uint256 limit = supply < cap ? supply : cap;
        vm.assertEq(sold, attempts < limit ? attempts : limit);
        vm.assertEq(accessories.totalSupply(42), sold);
        vm.assertEq(accessories.balanceOf(buyer, 42), sold);
        vm.assertEq(token.balanceOf(treasury) - treasuryBefore, sold * price);
        vm.assertEq(token.balanceOf(address(shop)), 0);
    }
}
