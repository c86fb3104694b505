// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {MarketFixture} from "../utils/MarketFixture.sol";
import {MarketHandler} from "./MarketHandler.sol";

/// @dev Market and accessory invariants under random sequences of purchases, listings, stale
///      buys, transfers, equips, rentals and time.
contract MarketsInvariantTest is MarketFixture {
    MarketHandler internal handler;
    uint256 internal constant START_DEW = 10_000 * DEW;

    function setUp() public override {
        super.setUp();
        vm.startPrank(operator);
        uint256 hats = shop.list(address(accessories), HAT, 5 * DEW, 1000, 0);
        uint256 capes = shop.list(address(accessories), CAPE, 5 * DEW, 1000, 0);
        vm.stopPrank();
        handler = new MarketHandler(token, avatar, accessories, shop, market, registry, [HAT, CAPE], [hats, capes]);
        address[4] memory actors = handler.actorList();
        address[] memory recipients = new address[](handler.AVATARS());
        for (uint256 i; i < recipients.length; ++i) {
            recipients[i] = actors[i % actors.length];
        }
        vm.prank(operator);
        avatar.mintBatch(recipients);
        for (uint256 i; i < actors.length; ++i) {
            _screen(actors[i]);
            _giveDew(actors[i], START_DEW);
            vm.startPrank(actors[i]);
            token.approve(address(market), type(uint256).max);
            token.approve(address(shop), type(uint256).max);
            avatar.setApprovalForAll(address(market), true);
            accessories.setApprovalForAll(address(market), true);
            vm.stopPrank();
        }
        targetContract(address(handler));
    }

    /// No escrow: the market and the shop never hold DEW, avatars or accessories.
    function invariant_marketAndShopHoldNothing() public view {
        vm.assertEq(token.balanceOf(address(market)), 0);
        vm.assertEq(token.balanceOf(address(shop)), 0);
        vm.assertEq(avatar.balanceOf(address(market)), 0);
        vm.assertEq(accessories.balanceOf(address(market), HAT), 0);
        vm.assertEq(accessories.balanceOf(address(market), CAPE), 0);
    }

    /// DEW only moves between the actors, the treasury and the royalty receiver.
    function invariant_dewConserved() public view {
        address[4] memory actors = handler.actorList();
        uint256 held = token.balanceOf(treasury) + token.balanceOf(royaltyReceiver);
        for (uint256 i; i < actors.length; ++i) {
            held += token.balanceOf(actors[i]);
        }
        vm.assertEq(held, actors.length * START_DEW);
    }

    /// Every accessory minted is held by an actor or worn by an avatar; the contract holds
    /// exactly what is equipped; supply never passes the cap.
    function invariant_accessoriesAccounted() public view {
        address[4] memory actors = handler.actorList();
        uint256[2] memory typeIds = [HAT, CAPE];
        for (uint256 k; k < typeIds.length; ++k) {
            uint256 t = typeIds[k];
            uint256 worn;
            for (uint256 a = 1; a <= handler.AVATARS(); ++a) {
                if (accessories.isEquipped(a, t)) ++worn;
                vm.assertLe(accessories.equippedOf(a).length, accessories.MAX_EQUIPPED());
            }
            vm.assertEq(accessories.balanceOf(address(accessories), t), worn);
            uint256 held = worn;
            for (uint256 i; i < actors.length; ++i) {
                held += accessories.balanceOf(actors[i], t);
            }
            vm.assertEq(held, accessories.totalSupply(t));
            vm.assertLe(accessories.totalSupply(t), accessories.maxSupply(t));
        }
    }

    /// Nothing is equipped or removed on a rented avatar; a rented avatar is never sold; a
    /// listing whose avatar moved since is never filled.
    function invariant_noRentedChangeNoStaleSale() public view {
        vm.assertEq(handler.rentedChanges(), 0);
        vm.assertEq(handler.rentedSales(), 0);
        vm.assertEq(handler.staleSales(), 0);
    }
}
