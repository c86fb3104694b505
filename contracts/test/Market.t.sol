// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IAccessControl} from "@openzeppelin/contracts/access/IAccessControl.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";
import {Market} from "../src/Market.sol";
import {IMarket} from "../src/interfaces/IMarket.sol";
import {IScholarshipRegistry as IR} from "../src/interfaces/IScholarshipRegistry.sol";
import {MarketFixture} from "./utils/MarketFixture.sol";

/// @dev A buyer whose token callbacks try to buy another listing from inside a purchase.
contract HostileBuyer {
    Market internal immutable market;
    uint256 public target;
    bool public reentered;
    bytes public reentryError;

    constructor(Market market_) {
        market = market_;
    }

    function buy(uint256 listingId, uint256 other) external {
        target = other;
        market.buy(listingId, type(uint256).max);
    }

    function _reenter() private {
        if (target == 0) return;
        uint256 other = target;
        target = 0;
        try market.buy(other, type(uint256).max) {
            reentered = true;
        } catch (bytes memory err) {
            reentryError = err;
            // Propagate: the whole purchase must then revert and move nothing.
            assembly ("memory-safe") {
                revert(add(err, 0x20), mload(err))
            }
        }
    }

    function onERC1155Received(address, address, uint256, uint256, bytes calldata) external returns (bytes4) {
        _reenter();
        return this.onERC1155Received.selector;
    }

    function onERC721Received(address, address, uint256, bytes calldata) external returns (bytes4) {
        _reenter();
        return this.onERC721Received.selector;
    }

    function approve(address token, address spender) external {
        (bool ok,) = token.call(abi.encodeWithSignature("approve(address,uint256)", spender, type(uint256).max));
        require(ok);
    }
}

contract MarketTest is MarketFixture {
    uint256 internal constant PRICE = 1000 * DEW;
    uint256 internal avatarId;

    function setUp() public override {
        super.setUp();
        avatarId = _mintAvatar(seller);
    }

    function _balances() internal view returns (uint256[5] memory b) {
        b = [
            token.balanceOf(seller),
            token.balanceOf(buyer),
            token.balanceOf(treasury),
            token.balanceOf(royaltyReceiver),
            token.balanceOf(address(market))
        ];
    }

    function test_buy_avatarPaysRoyaltyFeeAndSeller() public {
        uint256 listingId = _list(seller, address(avatar), avatarId, 1, PRICE);
        uint256[5] memory before = _balances();
        uint256 royalty = PRICE * ROYALTY_BPS / 10_000;
        uint256 fee = PRICE * FEE_BPS / 10_000;
        _giveDew(buyer, PRICE);
        vm.prank(buyer);
        token.approve(address(market), PRICE);
        before[1] = token.balanceOf(buyer) - PRICE;
        vm.expectEmit(true, true, true, true, address(market));
        emit IMarket.Sold(listingId, buyer, seller, address(avatar), avatarId, 1, PRICE, royalty, fee);
        vm.prank(buyer);
        market.buy(listingId, PRICE);
        vm.assertEq(avatar.ownerOf(avatarId), buyer);
        vm.assertEq(token.balanceOf(seller), before[0] + PRICE - royalty - fee);
        vm.assertEq(token.balanceOf(buyer), before[1]);
        vm.assertEq(token.balanceOf(treasury), before[2] + fee);
        vm.assertEq(token.balanceOf(royaltyReceiver), before[3] + royalty);
        vm.assertEq(token.balanceOf(address(market)), 0);
        vm.assertEq(uint8(market.listing(listingId).status), uint8(IMarket.Status.Sold));
        // Sold once: a second buy is refused by name.
        _giveDew(stranger, PRICE);
        vm.startPrank(stranger);
        token.approve(address(market), PRICE);
        vm.expectRevert(abi.encodeWithSelector(IMarket.MarketListingNotOpen.selector, listingId, IMarket.Status.Sold));
        market.buy(listingId, PRICE);
        vm.stopPrank();
    }

    function test_buy_royaltyToTheTreasuryJoinsTheFeeLeg() public {
        vm.prank(admin);
        avatar.setRoyalty(treasury, ROYALTY_BPS);
        uint256 listingId = _list(seller, address(avatar), avatarId, 1, PRICE);
        uint256 royalty = PRICE * ROYALTY_BPS / 10_000;
        uint256 fee = PRICE * FEE_BPS / 10_000;
        _giveDew(buyer, PRICE);
        vm.prank(buyer);
        token.approve(address(market), PRICE);
        uint256 treasuryBefore = token.balanceOf(treasury);
        vm.expectEmit(true, true, true, true, address(market));
        emit IMarket.Sold(listingId, buyer, seller, address(avatar), avatarId, 1, PRICE, royalty, fee);
        vm.prank(buyer);
        market.buy(listingId, PRICE);
        vm.assertEq(token.balanceOf(treasury), treasuryBefore + royalty + fee);
        vm.assertEq(token.balanceOf(seller), PRICE - royalty - fee);
    }

    function test_buy_accessories() public {
        _buyAccessory(seller, HAT);
        _buyAccessory(seller, HAT);
        uint256 listingId = _list(seller, address(accessories), HAT, 2, 10 * DEW);
        _buy(buyer, listingId, 10 * DEW);
        vm.assertEq(accessories.balanceOf(buyer, HAT), 2);
        vm.assertEq(accessories.balanceOf(seller, HAT), 0);
        vm.assertEq(accessories.balanceOf(address(market), HAT), 0);
        vm.assertEq(token.balanceOf(royaltyReceiver), DEW / 2);
    }

    function test_equippedItemsMoveWithASoldAvatar() public {
        _buyAccessory(seller, HAT);
        vm.prank(seller);
        accessories.equip(avatarId, HAT);
        uint256 listingId = _list(seller, address(avatar), avatarId, 1, PRICE);
        _buy(buyer, listingId, PRICE);
        vm.assertTrue(accessories.isEquipped(avatarId, HAT));
        vm.prank(buyer);
        accessories.unequip(avatarId, HAT);
        vm.assertEq(accessories.balanceOf(buyer, HAT), 1);
    }

    function test_cancel_onlySellerThenBuyFails() public {
        uint256 listingId = _list(seller, address(avatar), avatarId, 1, PRICE);
        vm.expectRevert(abi.encodeWithSelector(IMarket.MarketNotSeller.selector, listingId, buyer));
        vm.prank(buyer);
        market.cancel(listingId);
        vm.expectEmit(true, true, true, true, address(market));
        emit IMarket.Cancelled(listingId);
        vm.prank(seller);
        market.cancel(listingId);
        vm.expectRevert(
            abi.encodeWithSelector(IMarket.MarketListingNotOpen.selector, listingId, IMarket.Status.Cancelled)
        );
        vm.prank(seller);
        market.cancel(listingId);
        _expectStaleBuy(
            listingId,
            abi.encodeWithSelector(IMarket.MarketListingNotOpen.selector, listingId, IMarket.Status.Cancelled)
        );
        vm.expectRevert(abi.encodeWithSelector(IMarket.MarketUnknownListing.selector, 99));
        market.cancel(99);
    }

    /// A buy that must fail: it reverts with `err` and moves neither DEW nor the item.
    function _expectStaleBuy(uint256 listingId, bytes memory err) internal {
        _giveDew(buyer, PRICE);
        vm.prank(buyer);
        token.approve(address(market), PRICE);
        uint256[5] memory before = _balances();
        address itemOwner = avatar.ownerOf(avatarId);
        vm.expectRevert(err);
        vm.prank(buyer);
        market.buy(listingId, PRICE);
        uint256[5] memory afterwards = _balances();
        for (uint256 i; i < 5; ++i) {
            vm.assertEq(afterwards[i], before[i]);
        }
        vm.assertEq(avatar.ownerOf(avatarId), itemOwner);
    }

    function test_stale_expired() public {
        uint256 listingId = _list(seller, address(avatar), avatarId, 1, PRICE);
        uint64 expiresAt = market.listing(listingId).expiresAt;
        vm.warp(expiresAt);
        _expectStaleBuy(listingId, abi.encodeWithSelector(IMarket.MarketListingExpired.selector, listingId, expiresAt));
    }

    function test_stale_sellerMovedTheAvatar() public {
        uint256 listingId = _list(seller, address(avatar), avatarId, 1, PRICE);
        vm.prank(seller);
        avatar.transferFrom(seller, stranger, avatarId);
        _expectStaleBuy(listingId, abi.encodeWithSelector(IMarket.MarketSellerNotOwner.selector, listingId, seller));
        // Even back with the seller, the old listing stays dead.
        vm.prank(stranger);
        avatar.transferFrom(stranger, seller, avatarId);
        _expectStaleBuy(listingId, abi.encodeWithSelector(IMarket.MarketListingStale.selector, listingId));
    }

    function test_stale_avatarStrippedAfterListing() public {
        _buyAccessory(seller, HAT);
        vm.prank(seller);
        accessories.equip(avatarId, HAT);
        uint256 listingId = _list(seller, address(avatar), avatarId, 1, PRICE);
        vm.prank(seller);
        accessories.unequip(avatarId, HAT);
        _expectStaleBuy(listingId, abi.encodeWithSelector(IMarket.MarketListingStale.selector, listingId));
        // Put back as listed, the listing sells (with the hat on the avatar).
        vm.prank(seller);
        accessories.equip(avatarId, HAT);
        _buy(buyer, listingId, PRICE);
        vm.assertTrue(accessories.isEquipped(avatarId, HAT));
        vm.assertEq(avatar.ownerOf(avatarId), buyer);
    }

    function test_stale_approvalRevoked() public {
        uint256 listingId = _list(seller, address(avatar), avatarId, 1, PRICE);
        vm.prank(seller);
        avatar.setApprovalForAll(address(market), false);
        _expectStaleBuy(listingId, abi.encodeWithSelector(IMarket.MarketNotApproved.selector, seller, address(avatar)));
    }

    function test_stale_accessoryEquippedAway() public {
        _buyAccessory(seller, HAT);
        uint256 listingId = _list(seller, address(accessories), HAT, 1, PRICE);
        vm.prank(seller);
        accessories.equip(avatarId, HAT);
        _expectStaleBuy(listingId, abi.encodeWithSelector(IMarket.MarketSellerNotOwner.selector, listingId, seller));
    }

    function test_rentedAvatar_cannotBeListedOrSold() public {
        vm.startPrank(seller);
        avatar.setApprovalForAll(address(market), true);
        uint256 listingId = market.list(address(avatar), avatarId, 1, PRICE, uint64(block.timestamp + 30 days));
        vm.stopPrank();
        _rent(avatarId, seller, scholar, _division(7 days, 5000, 0, address(0), IR.Party.Owner));
        uint64 until = avatar.rentedUntil(avatarId);
        _expectStaleBuy(listingId, abi.encodeWithSelector(IMarket.MarketItemRented.selector, avatarId, until));
        vm.expectRevert(abi.encodeWithSelector(IMarket.MarketItemRented.selector, avatarId, until));
        vm.prank(seller);
        market.list(address(avatar), avatarId, 1, PRICE, uint64(block.timestamp + 1 days));
        // Once the term is over the listing (still unexpired) sells.
        vm.warp(until);
        _buy(buyer, listingId, PRICE);
        vm.assertEq(avatar.ownerOf(avatarId), buyer);
    }

    function test_buy_refusesAboveMaxSelfAndPaused() public {
        uint256 listingId = _list(seller, address(avatar), avatarId, 1, PRICE);
        _expectStaleBuyAt(
            listingId, PRICE - 1, abi.encodeWithSelector(IMarket.MarketPriceAboveMax.selector, PRICE, PRICE - 1)
        );
        vm.expectRevert(abi.encodeWithSelector(IMarket.MarketSelfPurchase.selector, listingId));
        vm.prank(seller);
        market.buy(listingId, PRICE);
        vm.prank(operator);
        market.pause();
        _expectStaleBuy(listingId, abi.encodeWithSelector(IMarket.MarketPaused.selector));
        vm.prank(admin);
        market.unpause();
        _buy(buyer, listingId, PRICE);
    }

    function _expectStaleBuyAt(uint256 listingId, uint256 maxPrice, bytes memory err) internal {
        _giveDew(buyer, PRICE);
        vm.prank(buyer);
        token.approve(address(market), PRICE);
        vm.expectRevert(err);
        vm.prank(buyer);
        market.buy(listingId, maxPrice);
        vm.assertEq(avatar.ownerOf(avatarId), seller);
    }

    function test_list_limits() public {
        vm.startPrank(seller);
        avatar.setApprovalForAll(address(market), true);
        uint64 later = uint64(block.timestamp + 1 days);
        vm.expectRevert(abi.encodeWithSelector(IMarket.MarketTokenNotAllowed.selector, address(token)));
        market.list(address(token), 0, 1, PRICE, later);
        vm.expectRevert(abi.encodeWithSelector(IMarket.MarketAmountInvalid.selector, 2));
        market.list(address(avatar), avatarId, 2, PRICE, later);
        vm.expectRevert(abi.encodeWithSelector(IMarket.MarketAmountInvalid.selector, 0));
        market.list(address(accessories), HAT, 0, PRICE, later);
        vm.expectRevert(abi.encodeWithSelector(IMarket.MarketPriceInvalid.selector, 0));
        market.list(address(avatar), avatarId, 1, 0, later);
        vm.expectRevert(abi.encodeWithSelector(IMarket.MarketExpiryInvalid.selector, uint64(block.timestamp)));
        market.list(address(avatar), avatarId, 1, PRICE, uint64(block.timestamp));
        uint64 tooLate = uint64(block.timestamp + 181 days);
        vm.expectRevert(abi.encodeWithSelector(IMarket.MarketExpiryInvalid.selector, tooLate));
        market.list(address(avatar), avatarId, 1, PRICE, tooLate);
        // Not the owner / not approved / not enough of an accessory.
        vm.stopPrank();
        vm.expectRevert(abi.encodeWithSelector(IMarket.MarketSellerNotOwner.selector, 1, buyer));
        vm.prank(buyer);
        market.list(address(avatar), avatarId, 1, PRICE, later);
        _buyAccessory(seller, HAT);
        vm.expectRevert(abi.encodeWithSelector(IMarket.MarketNotApproved.selector, seller, address(accessories)));
        vm.prank(seller);
        market.list(address(accessories), HAT, 1, PRICE, later);
        vm.assertEq(market.listingCount(), 0);
    }

    function test_admin_feeCapTokensAndRoles() public {
        vm.startPrank(admin);
        vm.expectRevert(abi.encodeWithSelector(IMarket.MarketFeeTooHigh.selector, 1001));
        market.setFeeBps(1001);
        vm.expectRevert(abi.encodeWithSelector(IMarket.MarketTokenInvalid.selector, address(token)));
        market.setToken(address(token), IMarket.Standard.ERC721);
        market.setFeeBps(0);
        vm.stopPrank();
        vm.expectRevert(
            abi.encodeWithSelector(IAccessControl.AccessControlUnauthorizedAccount.selector, operator, bytes32(0))
        );
        vm.prank(operator);
        market.setFeeBps(10);
        bytes32 guardian = market.GUARDIAN_ROLE();
        vm.expectRevert(
            abi.encodeWithSelector(IAccessControl.AccessControlUnauthorizedAccount.selector, stranger, guardian)
        );
        vm.prank(stranger);
        market.pause();
        // With no fee the seller gets everything but the royalty.
        uint256 listingId = _list(seller, address(avatar), avatarId, 1, PRICE);
        _buy(buyer, listingId, PRICE);
        vm.assertEq(token.balanceOf(seller), PRICE - PRICE * ROYALTY_BPS / 10_000);
    }

    function test_hostileErc1155Buyer_cannotReenter() public {
        _buyAccessory(seller, HAT);
        _buyAccessory(seller, CAPE);
        uint256 hats = _list(seller, address(accessories), HAT, 1, PRICE);
        uint256 capes = _list(seller, address(accessories), CAPE, 1, PRICE);
        HostileBuyer hostile = new HostileBuyer(market);
        _giveDew(address(hostile), 2 * PRICE);
        hostile.approve(address(token), address(market));
        uint256[5] memory before = _balances();
        vm.expectRevert(ReentrancyGuardTransient.ReentrancyGuardReentrantCall.selector);
        hostile.buy(hats, capes);
        uint256[5] memory afterwards = _balances();
        for (uint256 i; i < 5; ++i) {
            vm.assertEq(afterwards[i], before[i]);
        }
        vm.assertEq(token.balanceOf(address(hostile)), 2 * PRICE);
        vm.assertEq(accessories.balanceOf(seller, HAT), 1);
        vm.assertEq(accessories.balanceOf(seller, CAPE), 1);
        // Without re-entry the same contract buys normally.
        hostile.buy(hats, 0);
        vm.assertEq(accessories.balanceOf(address(hostile), HAT), 1);
        vm.assertFalse(hostile.reentered());
    }

    function test_hostileErc721Buyer_cannotReenter() public {
        uint256 second = _mintAvatar(seller);
        uint256 first = _list(seller, address(avatar), avatarId, 1, PRICE);
        uint256 other = _list(seller, address(avatar), second, 1, PRICE);
        HostileBuyer hostile = new HostileBuyer(market);
        _giveDew(address(hostile), 2 * PRICE);
        hostile.approve(address(token), address(market));
        vm.expectRevert(ReentrancyGuardTransient.ReentrancyGuardReentrantCall.selector);
        hostile.buy(first, other);
        vm.assertEq(avatar.ownerOf(avatarId), seller);
        vm.assertEq(token.balanceOf(address(hostile)), 2 * PRICE);
    }

    /// Any price, royalty and fee: the legs sum to the price, the royalty and fee stay within
    /// their caps, the market keeps nothing.
    function testFuzz_legsSumToThePrice(uint128 price, uint96 royaltyBps, uint16 feeBps) public {
        price = uint128(bound(price, 1, CAP / 10)); // the fixture's vault holds part of the cap
        royaltyBps = uint96(bound(royaltyBps, 0, 1000));
        feeBps = uint16(bound(feeBps, 0, 1000));
        vm.startPrank(admin);
        avatar.setRoyalty(royaltyReceiver, royaltyBps);
        market.setFeeBps(feeBps);
        vm.stopPrank();
        uint256 listingId = _list(seller, address(avatar), avatarId, 1, price);
        uint256[5] memory before = _balances();
        _buy(buyer, listingId, price);
        uint256 royalty = token.balanceOf(royaltyReceiver) - before[3];
        uint256 fee = token.balanceOf(treasury) - before[2];
        uint256 toSeller = token.balanceOf(seller) - before[0];
        vm.assertEq(royalty + fee + toSeller, price);
        vm.assertEq(royalty, uint256(price) * royaltyBps / 10_000);
        vm.assertEq(fee, uint256(price) * feeBps / 10_000);
        vm.assertLe(royalty + fee, uint256(price) / 5);
        vm.assertEq(token.balanceOf(buyer), 0);
        vm.assertEq(token.balanceOf(address(market)), 0);
        vm.assertEq(avatar.ownerOf(avatarId), buyer);
    }
}
