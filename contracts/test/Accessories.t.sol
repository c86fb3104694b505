// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IAccessControl} from "@openzeppelin/contracts/access/IAccessControl.sol";
import {IERC1155Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {IERC2981} from "@openzeppelin/contracts/interfaces/IERC2981.sol";
import {IERC1155} from "@openzeppelin/contracts/token/ERC1155/IERC1155.sol";
import {Accessories} from "../src/Accessories.sol";
import {IAccessories} from "../src/interfaces/IAccessories.sol";
import {IScholarshipRegistry as IR} from "../src/interfaces/IScholarshipRegistry.sol";
import {MarketFixture} from "./utils/MarketFixture.sol";

/// @dev An avatar owner that, when an unequipped accessory reaches it, tries to take it off
///      again and to equip it back (re-entering Accessories from its ERC-1155 callback).
contract HostileWearer {
    Accessories internal immutable accessories;
    uint256 public reentries;
    bool public reentrySucceeded;

    constructor(Accessories accessories_) {
        accessories = accessories_;
    }

    function wear(uint256 avatarId, uint256 typeId) external {
        accessories.equip(avatarId, typeId);
    }

    function takeOff(uint256 avatarId, uint256 typeId) external {
        accessories.unequip(avatarId, typeId);
    }

    function onERC1155Received(address, address, uint256 id, uint256, bytes calldata) external returns (bytes4) {
        if (reentries++ == 0) {
            // Unequip again: the record is already cleared, so this must fail.
            try accessories.unequip(1, id) {
                reentrySucceeded = true;
            } catch {}
        }
        return this.onERC1155Received.selector;
    }
}

contract AccessoriesTest is MarketFixture {
    uint256 internal avatarId;

    function setUp() public override {
        super.setUp();
        avatarId = _mintAvatar(seller);
        _buyAccessory(seller, HAT);
        _buyAccessory(seller, CAPE);
    }

    function test_defineType_limitsAndUri() public {
        vm.assertEq(accessories.uri(HAT), "https://dew.example/accessories/hat.json");
        vm.assertEq(accessories.maxSupply(CAPE), 3);
        vm.startPrank(operator);
        vm.expectRevert(abi.encodeWithSelector(IAccessories.AccessoryTypeInvalid.selector, 0));
        accessories.defineType(0, 1, "");
        uint256 tooBig = uint256(type(uint32).max) + 1;
        vm.expectRevert(abi.encodeWithSelector(IAccessories.AccessoryTypeInvalid.selector, tooBig));
        accessories.defineType(tooBig, 1, "");
        vm.expectRevert(abi.encodeWithSelector(IAccessories.AccessoryTypeExists.selector, HAT));
        accessories.defineType(HAT, 1000, "other");
        vm.expectRevert(abi.encodeWithSelector(IAccessories.AccessoryMaxSupplyInvalid.selector, 0));
        accessories.defineType(9, 0, "");
        uint256 tooMany = accessories.MAX_TYPE_SUPPLY() + 1;
        vm.expectRevert(abi.encodeWithSelector(IAccessories.AccessoryMaxSupplyInvalid.selector, tooMany));
        accessories.defineType(9, tooMany, "");
        vm.stopPrank();
        bytes32 role = accessories.CATALOG_ROLE();
        vm.expectRevert(
            abi.encodeWithSelector(IAccessControl.AccessControlUnauthorizedAccount.selector, stranger, role)
        );
        vm.prank(stranger);
        accessories.defineType(9, 1, "");
        vm.assertEq(accessories.maxSupply(HAT), 100);
        vm.assertEq(accessories.uri(HAT), "https://dew.example/accessories/hat.json");
    }

    function test_shopMint_refusesUnknownTypesAndZero() public {
        vm.startPrank(address(shop));
        vm.expectRevert(abi.encodeWithSelector(IAccessories.AccessoryTypeUnknown.selector, 99));
        accessories.shopMint(buyer, 99, 1, "");
        vm.expectRevert(IAccessories.AccessoryZeroAmount.selector);
        accessories.shopMint(buyer, HAT, 0, "");
        vm.stopPrank();
    }

    function test_equip_holdsTheItemForTheAvatar() public {
        vm.expectEmit(true, true, true, true, address(accessories));
        emit IAccessories.Equipped(avatarId, HAT, seller);
        vm.prank(seller);
        accessories.equip(avatarId, HAT);
        vm.assertEq(accessories.balanceOf(seller, HAT), 0);
        vm.assertEq(accessories.balanceOf(address(accessories), HAT), 1);
        vm.assertTrue(accessories.isEquipped(avatarId, HAT));
        uint256[] memory on = accessories.equippedOf(avatarId);
        vm.assertEq(on.length, 1);
        vm.assertEq(on[0], HAT);

        vm.expectEmit(true, true, true, true, address(accessories));
        emit IAccessories.Unequipped(avatarId, HAT, seller);
        vm.prank(seller);
        accessories.unequip(avatarId, HAT);
        vm.assertEq(accessories.balanceOf(seller, HAT), 1);
        vm.assertEq(accessories.balanceOf(address(accessories), HAT), 0);
        vm.assertEq(accessories.equippedOf(avatarId).length, 0);
    }

    function test_equip_refusals() public {
        vm.expectRevert(abi.encodeWithSelector(IAccessories.AccessoryNotAvatarOwner.selector, avatarId, buyer, seller));
        vm.prank(buyer);
        accessories.equip(avatarId, HAT);
        vm.startPrank(seller);
        accessories.equip(avatarId, HAT);
        vm.expectRevert(abi.encodeWithSelector(IAccessories.AccessoryAlreadyEquipped.selector, avatarId, HAT));
        accessories.equip(avatarId, HAT);
        vm.expectRevert(abi.encodeWithSelector(IAccessories.AccessoryNotEquipped.selector, avatarId, CAPE));
        accessories.unequip(avatarId, CAPE);
        // A type the seller holds none of.
        vm.expectRevert(abi.encodeWithSelector(IERC1155Errors.ERC1155InsufficientBalance.selector, seller, 0, 1, 9));
        accessories.equip(avatarId, 9);
        // Out of the lanes' range, or 0: never a type.
        vm.expectRevert(abi.encodeWithSelector(IAccessories.AccessoryTypeUnknown.selector, 0));
        accessories.equip(avatarId, 0);
        uint256 tooBig = uint256(type(uint32).max) + 1;
        vm.expectRevert(abi.encodeWithSelector(IAccessories.AccessoryTypeUnknown.selector, tooBig));
        accessories.equip(avatarId, tooBig);
        vm.stopPrank();
        vm.assertEq(accessories.equippedOf(avatarId).length, 1);
    }

    function test_equip_atMostMaxEquippedTypes() public {
        uint256 max = accessories.MAX_EQUIPPED();
        for (uint256 t = 100; t <= 100 + max; ++t) {
            vm.prank(operator);
            accessories.defineType(t, 10, "");
            _buyAccessory(seller, t);
        }
        vm.startPrank(seller);
        for (uint256 t = 100; t < 100 + max; ++t) {
            accessories.equip(avatarId, t);
        }
        vm.expectRevert(abi.encodeWithSelector(IAccessories.AccessoryTooManyEquipped.selector, avatarId, max));
        accessories.equip(avatarId, 100 + max);
        // Taking one off makes room; the list stays consistent after a swap-remove.
        accessories.unequip(avatarId, 100);
        accessories.equip(avatarId, 100 + max);
        vm.stopPrank();
        uint256[] memory on = accessories.equippedOf(avatarId);
        vm.assertEq(on.length, max);
        for (uint256 i; i < on.length; ++i) {
            vm.assertTrue(accessories.isEquipped(avatarId, on[i]));
            vm.assertTrue(on[i] != 100);
        }
    }

    function test_rented_nothingEquippedOrRemoved() public {
        vm.prank(seller);
        accessories.equip(avatarId, HAT);
        _rent(avatarId, seller, scholar, _division(7 days, 5000, 0, address(0), IR.Party.Owner));
        uint64 until = avatar.rentedUntil(avatarId);
        vm.startPrank(seller);
        vm.expectRevert(abi.encodeWithSelector(IAccessories.AccessoryAvatarRented.selector, avatarId, until));
        accessories.unequip(avatarId, HAT);
        vm.expectRevert(abi.encodeWithSelector(IAccessories.AccessoryAvatarRented.selector, avatarId, until));
        accessories.equip(avatarId, CAPE);
        vm.stopPrank();
        // The scholar is not the owner either.
        vm.expectRevert(
            abi.encodeWithSelector(IAccessories.AccessoryNotAvatarOwner.selector, avatarId, scholar, seller)
        );
        vm.prank(scholar);
        accessories.unequip(avatarId, HAT);
        vm.assertTrue(accessories.isEquipped(avatarId, HAT));
        // After the term the owner may change them again.
        vm.warp(until);
        vm.prank(seller);
        accessories.unequip(avatarId, HAT);
        vm.assertEq(accessories.balanceOf(seller, HAT), 1);
    }

    function test_equippedItemsTravelWithTheAvatar() public {
        vm.startPrank(seller);
        accessories.equip(avatarId, HAT);
        accessories.equip(avatarId, CAPE);
        avatar.transferFrom(seller, buyer, avatarId);
        vm.expectRevert(abi.encodeWithSelector(IAccessories.AccessoryNotAvatarOwner.selector, avatarId, seller, buyer));
        accessories.unequip(avatarId, HAT);
        vm.stopPrank();
        vm.prank(buyer);
        accessories.unequip(avatarId, CAPE);
        vm.assertEq(accessories.balanceOf(buyer, CAPE), 1);
        vm.assertEq(accessories.balanceOf(seller, CAPE), 0);
        vm.assertTrue(accessories.isEquipped(avatarId, HAT));
    }

    function test_directTransfersToTheContractAreRefused() public {
        vm.expectRevert(abi.encodeWithSelector(IERC1155Errors.ERC1155InvalidReceiver.selector, address(accessories)));
        vm.prank(seller);
        accessories.safeTransferFrom(seller, address(accessories), HAT, 1, "");
    }

    function test_hostileReceiver_cannotUnequipTwice() public {
        HostileWearer hostile = new HostileWearer(accessories);
        vm.prank(seller);
        avatar.transferFrom(seller, address(hostile), avatarId);
        vm.prank(seller);
        accessories.safeTransferFrom(seller, address(hostile), HAT, 1, "");
        vm.assertEq(hostile.reentries(), 1); // the transfer itself called back once
        hostile.wear(avatarId, HAT);
        hostile.takeOff(avatarId, HAT);
        vm.assertEq(hostile.reentries(), 2);
        vm.assertFalse(hostile.reentrySucceeded());
        vm.assertEq(accessories.balanceOf(address(hostile), HAT), 1);
        vm.assertEq(accessories.balanceOf(address(accessories), HAT), 0);
    }

    function test_royalty_cappedAndAdminOnly() public {
        (address receiver, uint256 amount) = accessories.royaltyInfo(HAT, 1000 * DEW);
        vm.assertEq(receiver, royaltyReceiver);
        vm.assertEq(amount, 50 * DEW);
        vm.expectRevert(abi.encodeWithSelector(IAccessories.AccessoryRoyaltyTooHigh.selector, 1001, 1000));
        vm.prank(admin);
        accessories.setRoyalty(treasury, 1001);
        vm.expectRevert(
            abi.encodeWithSelector(IAccessControl.AccessControlUnauthorizedAccount.selector, operator, bytes32(0))
        );
        vm.prank(operator);
        accessories.setRoyalty(operator, 100);
        vm.assertTrue(accessories.supportsInterface(type(IERC2981).interfaceId));
        vm.assertTrue(accessories.supportsInterface(type(IERC1155).interfaceId));
    }

    /// Random equips and unequips across avatars and owners: the contract's balance of each
    /// type is exactly the number of avatars wearing it, and no avatar wears more than the cap.
    function testFuzz_heldEqualsEquipped(uint256 seed) public {
        uint256 second = _mintAvatar(seller);
        _buyAccessory(seller, HAT);
        uint256[2] memory avatars = [avatarId, second];
        uint256[2] memory types = [HAT, CAPE];
        for (uint256 step; step < 24; ++step) {
            uint256 r = uint256(keccak256(abi.encode(seed, step)));
            uint256 a = avatars[r % 2];
            uint256 t = types[(r >> 8) % 2];
            vm.prank(seller);
            if ((r >> 16) % 2 == 0) {
                try accessories.equip(a, t) {} catch {}
            } else {
                try accessories.unequip(a, t) {} catch {}
            }
            for (uint256 k; k < 2; ++k) {
                uint256 wearing = (accessories.isEquipped(avatars[0], types[k]) ? 1 : 0)
                    + (accessories.isEquipped(avatars[1], types[k]) ? 1 : 0);
                vm.assertEq(accessories.balanceOf(address(accessories), types[k]), wearing);
                vm.assertEq(accessories.balanceOf(seller, types[k]) + wearing, accessories.totalSupply(types[k]));
            }
        }
    }
}
