// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IAccessControl} from "@openzeppelin/contracts/access/IAccessControl.sol";
import {IERC721Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {IERC721} from "@openzeppelin/contracts/token/ERC721/IERC721.sol";
import {IAvatarNFT} from "../src/interfaces/IAvatarNFT.sol";
import {IERC4907} from "../src/interfaces/IERC4907.sol";
import {Fixture} from "./utils/Fixture.sol";

contract AvatarNFTTest is Fixture {
    address internal alice = address(0xA11CE);
    address internal bob = address(0xB0B);
    address internal carol = address(0xCA401);

    function _batch(address a, uint256 na, address b, uint256 nb) internal returns (uint256 first) {
        address[] memory recipients = new address[](na + nb);
        for (uint256 i; i < na; ++i) {
            recipients[i] = a;
        }
        for (uint256 i; i < nb; ++i) {
            recipients[na + i] = b;
        }
        vm.prank(operator);
        first = avatar.mintBatch(recipients);
    }

    function test_mintBatch_assignsConsecutiveIdsFromOne() public {
        uint256 first = _batch(alice, 3, bob, 2);
        vm.assertEq(first, 1);
        vm.assertEq(avatar.nextTokenId(), 6);
        for (uint256 id = 1; id <= 3; ++id) {
            vm.assertEq(avatar.ownerOf(id), alice);
        }
        vm.assertEq(avatar.ownerOf(4), bob);
        vm.assertEq(avatar.ownerOf(5), bob);
        vm.assertEq(avatar.balanceOf(alice), 3);
        vm.assertEq(avatar.balanceOf(bob), 2);
        vm.assertEq(_batch(carol, 1, carol, 0), 6);
    }

    function test_mintBatch_emitsOneTransferPerAvatar() public {
        vm.expectEmit(true, true, true, true, address(avatar));
        emit IERC721.Transfer(address(0), alice, 1);
        vm.expectEmit(true, true, true, true, address(avatar));
        emit IERC721.Transfer(address(0), alice, 2);
        vm.expectEmit(true, true, true, true, address(avatar));
        emit IERC721.Transfer(address(0), bob, 3);
        _batch(alice, 2, bob, 1);
    }

    function test_mintBatch_splitsLongRunsAtMaxRun() public {
        uint256 n = avatar.MAX_RUN() * 2 + 3;
        _batch(alice, n, bob, 1);
        for (uint256 id = 1; id <= n; ++id) {
            vm.assertEq(avatar.ownerOf(id), alice);
        }
        vm.assertEq(avatar.ownerOf(n + 1), bob);
        vm.assertEq(avatar.balanceOf(alice), n);
        // Moving the first id of a run leaves the rest of the run with its recipient.
        uint256 runStart = avatar.MAX_RUN() + 1;
        vm.prank(alice);
        avatar.transferFrom(alice, carol, runStart);
        vm.assertEq(avatar.ownerOf(runStart), carol);
        vm.assertEq(avatar.ownerOf(runStart + 1), alice);
        vm.assertEq(avatar.ownerOf(runStart - 1), alice);
    }

    function test_mintBatch_revertsWhenEmpty() public {
        vm.expectRevert(IAvatarNFT.AvatarEmptyBatch.selector);
        vm.prank(operator);
        avatar.mintBatch(new address[](0));
    }

    function test_mintBatch_revertsOnZeroRecipient() public {
        vm.expectRevert(abi.encodeWithSelector(IERC721Errors.ERC721InvalidReceiver.selector, address(0)));
        vm.prank(operator);
        avatar.mintBatch(new address[](2));
    }

    function test_mintBatch_revertsWithoutMinterRole() public {
        vm.expectRevert(
            abi.encodeWithSelector(
                IAccessControl.AccessControlUnauthorizedAccount.selector, stranger, avatar.MINTER_ROLE()
            )
        );
        vm.prank(stranger);
        avatar.mintBatch(new address[](1));
    }

    function test_ownerOf_revertsForUnmintedIds() public {
        _batch(alice, 2, bob, 0);
        vm.expectRevert(abi.encodeWithSelector(IERC721Errors.ERC721NonexistentToken.selector, 0));
        avatar.ownerOf(0);
        vm.expectRevert(abi.encodeWithSelector(IERC721Errors.ERC721NonexistentToken.selector, 3));
        avatar.ownerOf(3);
    }

    function test_transfer_ofBatchTokenKeepsNeighbours() public {
        _batch(alice, 5, bob, 0);
        vm.prank(alice);
        avatar.transferFrom(alice, carol, 3);
        vm.assertEq(avatar.ownerOf(2), alice);
        vm.assertEq(avatar.ownerOf(3), carol);
        vm.assertEq(avatar.ownerOf(4), alice);
        vm.assertEq(avatar.balanceOf(alice), 4);
        vm.assertEq(avatar.balanceOf(carol), 1);
        vm.prank(carol);
        avatar.transferFrom(carol, alice, 3);
        vm.assertEq(avatar.ownerOf(3), alice);
        vm.assertEq(avatar.balanceOf(alice), 5);
    }

    function test_transfer_revertsForNonOwner() public {
        _batch(alice, 1, bob, 0);
        vm.expectRevert(abi.encodeWithSelector(IERC721Errors.ERC721InsufficientApproval.selector, bob, 1));
        vm.prank(bob);
        avatar.transferFrom(alice, bob, 1);
    }

    function test_setUser_byOwnerAndApproved() public {
        _batch(alice, 1, bob, 0);
        vm.expectEmit(true, true, false, true, address(avatar));
        emit IERC4907.UpdateUser(1, bob, START + 100);
        vm.prank(alice);
        avatar.setUser(1, bob, START + 100);
        vm.assertEq(avatar.userOf(1), bob);
        vm.assertEq(avatar.userExpires(1), START + 100);
        vm.prank(alice);
        avatar.approve(carol, 1);
        vm.prank(carol);
        avatar.setUser(1, carol, START + 50);
        vm.assertEq(avatar.userOf(1), carol);
    }

    function test_setUser_revertsForStranger() public {
        _batch(alice, 1, bob, 0);
        vm.expectRevert(abi.encodeWithSelector(IERC721Errors.ERC721InsufficientApproval.selector, stranger, 1));
        vm.prank(stranger);
        avatar.setUser(1, stranger, START + 100);
    }

    function test_setUser_revertsForUnmintedToken() public {
        vm.expectRevert(abi.encodeWithSelector(IERC721Errors.ERC721NonexistentToken.selector, 9));
        avatar.setUser(9, bob, START + 100);
    }

    function test_userOf_isEmptyFromExpiry() public {
        _batch(alice, 1, bob, 0);
        vm.prank(alice);
        avatar.setUser(1, bob, START + 100);
        vm.warp(START + 99);
        vm.assertEq(avatar.userOf(1), bob);
        vm.warp(START + 100);
        vm.assertEq(avatar.userOf(1), address(0));
    }

    function test_transfer_clearsUser() public {
        _batch(alice, 1, bob, 0);
        vm.prank(alice);
        avatar.setUser(1, bob, START + 100);
        vm.expectEmit(true, true, false, true, address(avatar));
        emit IERC4907.UpdateUser(1, address(0), 0);
        vm.prank(alice);
        avatar.transferFrom(alice, carol, 1);
        vm.assertEq(avatar.userOf(1), address(0));
        vm.assertEq(avatar.userExpires(1), 0);
    }

    function test_startRental_locksTransfersAndSetUser() public {
        _batch(alice, 1, bob, 0);
        vm.expectEmit(true, true, false, true, address(avatar));
        emit IAvatarNFT.AvatarRentalStarted(1, bob, START + 100);
        vm.prank(address(registry));
        avatar.startRental(1, bob, START + 100);
        vm.assertEq(avatar.userOf(1), bob);
        vm.assertEq(uint256(avatar.rentedUntil(1)), START + 100);

        vm.expectRevert(abi.encodeWithSelector(IAvatarNFT.AvatarRented.selector, 1, START + 100));
        vm.prank(alice);
        avatar.setUser(1, alice, START + 200);
        vm.expectRevert(abi.encodeWithSelector(IAvatarNFT.AvatarRented.selector, 1, START + 100));
        vm.prank(alice);
        avatar.transferFrom(alice, carol, 1);
        vm.expectRevert(abi.encodeWithSelector(IAvatarNFT.AvatarRented.selector, 1, START + 100));
        vm.prank(address(registry));
        avatar.startRental(1, carol, START + 300);
    }

    function test_rentalLock_liftsAtExpiry() public {
        _batch(alice, 1, bob, 0);
        vm.prank(address(registry));
        avatar.startRental(1, bob, START + 100);
        vm.warp(START + 100);
        vm.prank(alice);
        avatar.transferFrom(alice, carol, 1);
        vm.assertEq(avatar.ownerOf(1), carol);
        vm.assertEq(uint256(avatar.rentedUntil(1)), 0);
    }

    function test_endRental_releases() public {
        _batch(alice, 1, bob, 0);
        vm.prank(address(registry));
        avatar.startRental(1, bob, START + 100);
        vm.expectEmit(true, false, false, false, address(avatar));
        emit IAvatarNFT.AvatarRentalEnded(1);
        vm.prank(address(registry));
        avatar.endRental(1);
        vm.assertEq(avatar.userOf(1), address(0));
        vm.prank(alice);
        avatar.setUser(1, carol, START + 10);
        vm.assertEq(avatar.userOf(1), carol);
    }

    function test_startRental_revertsWhenExpiryNotInFuture() public {
        _batch(alice, 1, bob, 0);
        vm.expectRevert(abi.encodeWithSelector(IAvatarNFT.AvatarRentalExpired.selector, START, START));
        vm.prank(address(registry));
        avatar.startRental(1, bob, START);
    }

    function test_rentalRole_isRequired() public {
        _batch(alice, 1, bob, 0);
        bytes memory denied = abi.encodeWithSelector(
            IAccessControl.AccessControlUnauthorizedAccount.selector, alice, avatar.RENTAL_ROLE()
        );
        vm.expectRevert(denied);
        vm.prank(alice);
        avatar.startRental(1, bob, START + 100);
        // Ending needs no role, only the lock: a stranger holds none.
        vm.expectRevert(abi.encodeWithSelector(IAvatarNFT.AvatarNotLockedBy.selector, 1, alice, address(0)));
        vm.prank(alice);
        avatar.endRental(1);
    }

    function test_rental_revertsForUnmintedToken() public {
        vm.expectRevert(abi.encodeWithSelector(IERC721Errors.ERC721NonexistentToken.selector, 4));
        vm.prank(address(registry));
        avatar.startRental(4, bob, START + 100);
        vm.expectRevert(abi.encodeWithSelector(IERC721Errors.ERC721NonexistentToken.selector, 4));
        vm.prank(address(registry));
        avatar.endRental(4);
    }

    function test_supportsInterface() public view {
        vm.assertTrue(avatar.supportsInterface(0xad092b5c));
        vm.assertTrue(avatar.supportsInterface(type(IERC721).interfaceId));
        vm.assertTrue(avatar.supportsInterface(type(IAccessControl).interfaceId));
        vm.assertFalse(avatar.supportsInterface(0xffffffff));
    }

    function test_tokenURI_usesBaseURI() public {
        _batch(alice, 12, bob, 0);
        vm.assertEq(avatar.tokenURI(12), "https://dew.example/avatars/12");
        vm.expectEmit(false, false, false, true, address(avatar));
        emit IAvatarNFT.BaseURIUpdated("ipfs://x/");
        vm.prank(admin);
        avatar.setBaseURI("ipfs://x/");
        vm.assertEq(avatar.tokenURI(1), "ipfs://x/1");
    }

    function test_setBaseURI_revertsForNonAdmin() public {
        vm.expectRevert(
            abi.encodeWithSelector(IAccessControl.AccessControlUnauthorizedAccount.selector, operator, bytes32(0))
        );
        vm.prank(operator);
        avatar.setBaseURI("x");
    }

    /// Random runs of recipients: every id resolves to its recipient, balances add up.
    function testFuzz_mintBatch_ownershipMatchesRecipients(uint256 seed, uint8 size) public {
        uint256 n = bound(size, 1, 80);
        address[] memory recipients = new address[](n);
        address[3] memory people = [alice, bob, carol];
        for (uint256 i; i < n; ++i) {
            recipients[i] = people[uint256(keccak256(abi.encode(seed, i / (1 + seed % 40)))) % 3];
        }
        _batch(carol, 1, carol, 0);
        vm.prank(operator);
        uint256 first = avatar.mintBatch(recipients);
        vm.assertEq(first, 2);
        uint256 total;
        for (uint256 i; i < n; ++i) {
            vm.assertEq(avatar.ownerOf(first + i), recipients[i]);
        }
        for (uint256 p; p < 3; ++p) {
            total += avatar.balanceOf(people[p]);
        }
        vm.assertEq(total, n + 1);
    }

    // --- rental bounds and lock holder (issue 9) ---

    function test_startRental_revertsWhenLongerThanMaxRental() public {
        _batch(alice, 1, bob, 0);
        uint64 tooLate = START + 365 days + 1;
        vm.expectRevert(abi.encodeWithSelector(IAvatarNFT.AvatarRentalTooLong.selector, tooLate, START + 365 days));
        vm.prank(address(registry));
        avatar.startRental(1, bob, tooLate);
        vm.prank(address(registry));
        avatar.startRental(1, bob, START + 365 days);
        vm.assertEq(uint256(avatar.rentedUntil(1)), START + 365 days);
    }

    function test_endRental_revertsWhenAnotherRegistrySetTheLock() public {
        _batch(alice, 1, bob, 0);
        address otherRegistry = address(0x2E6);
        vm.startPrank(admin);
        avatar.grantRole(avatar.RENTAL_ROLE(), otherRegistry);
        vm.stopPrank();
        vm.prank(address(registry));
        avatar.startRental(1, bob, START + 100);
        vm.assertEq(avatar.rentalLocker(1), address(registry));
        vm.expectRevert(
            abi.encodeWithSelector(IAvatarNFT.AvatarNotLockedBy.selector, 1, otherRegistry, address(registry))
        );
        vm.prank(otherRegistry);
        avatar.endRental(1);
        vm.assertEq(avatar.userOf(1), bob);
        vm.prank(address(registry));
        avatar.endRental(1);
        vm.assertEq(avatar.rentalLocker(1), address(0));
    }

    function test_endRental_revertsAfterTheLockExpired() public {
        _batch(alice, 1, bob, 0);
        vm.prank(address(registry));
        avatar.startRental(1, bob, START + 100);
        vm.warp(START + 100);
        vm.prank(alice);
        avatar.setUser(1, carol, START + 500);
        vm.expectRevert(abi.encodeWithSelector(IAvatarNFT.AvatarNotLockedBy.selector, 1, address(registry), address(0)));
        vm.prank(address(registry));
        avatar.endRental(1);
        vm.assertEq(avatar.userOf(1), carol);
    }
}
