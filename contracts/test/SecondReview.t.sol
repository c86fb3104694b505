// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IAvatarNFT} from "../src/interfaces/IAvatarNFT.sol";
import {IMatchSettlement as IM} from "../src/interfaces/IMatchSettlement.sol";
import {IScholarshipRegistry as IR} from "../src/interfaces/IScholarshipRegistry.sol";
import {Fixture} from "./utils/Fixture.sol";
import {Vm} from "./utils/Test.sol";

/// @dev Issue 18, the second review's findings. Each `test_N*`/`test_info_*` test failed on the
///      contracts at 44477f0 (see docs/contracts.md, "Tests") and passes now.
contract SecondReviewTest is Fixture {
    address internal alice = address(0xA11CE);
    address internal buyer = address(0xB0B);

    bytes32 internal constant M1 = bytes32(uint256(1));
    bytes32 internal constant M2 = bytes32(uint256(2));

    // --- N1: no payee can make a batch revert ---

    /// A screened owner named the vault as its manager: every batch paying the avatar reverted
    /// (the token refuses a transfer to the sender), other players' payouts with it.
    function test_N1_managerIsVault_settlementStillPays() public {
        uint256 id = _mintAvatar(owner);
        uint256 agreementId = _rent(id, owner, scholar, _division(30 days, 3_000, 1_000, manager, IR.Party.Owner));
        // The offer check refuses the vault now; force the stored manager as the attack left it.
        _setManager(agreementId, address(settlement));
        vm.expectEmit(true, true, false, true, address(settlement));
        emit IM.PayoutWithheld(M1, address(settlement), 10 * DEW);
        _settle(_match(M1, _two(_toAccount(alice, 5 * DEW), _toAvatar(id, 100 * DEW))));
        vm.assertEq(token.balanceOf(alice), 5 * DEW);
        vm.assertEq(token.balanceOf(owner), 30 * DEW);
        vm.assertEq(token.balanceOf(scholar), 60 * DEW);
        vm.assertEq(token.balanceOf(address(settlement)), VAULT - 95 * DEW);
        vm.assertTrue(settlement.isSettled(M1));
    }

    function test_N1_offerAndAcceptRefuseUnpayableManagers() public {
        uint256 id = _mintAvatar(owner);
        _screen(owner);
        address[4] memory refused = [address(settlement), address(registry), address(token), address(avatar)];
        for (uint256 i; i < refused.length; ++i) {
            vm.prank(owner);
            vm.expectRevert(abi.encodeWithSelector(IR.InvalidManager.selector, refused[i], uint16(1_000)));
            registry.offer(id, scholar, _division(30 days, 3_000, 1_000, refused[i], IR.Party.Owner));
        }
        // A manager that becomes the vault (SETTLEMENT_ROLE) after the offer is refused at accept.
        address vault2 = address(0x7A17);
        vm.prank(owner);
        uint256 agreementId = registry.offer(id, scholar, _division(30 days, 3_000, 1_000, vault2, IR.Party.Owner));
        bytes32 role = registry.SETTLEMENT_ROLE();
        vm.prank(admin);
        registry.grantRole(role, vault2);
        vm.prank(scholar);
        vm.expectRevert(abi.encodeWithSelector(IR.InvalidManager.selector, vault2, uint16(1_000)));
        registry.accept(agreementId);
    }

    /// The variant without screening: the owner sends the avatar itself to the vault.
    function test_N1_avatarOwnedByVault_settlementStillPays() public {
        uint256 id = _mintAvatar(owner);
        vm.prank(owner);
        avatar.transferFrom(owner, address(settlement), id);
        vm.expectEmit(true, true, false, true, address(settlement));
        emit IM.PayoutWithheld(M1, address(settlement), 100 * DEW);
        _settle(_match(M1, _two(_toAccount(alice, 5 * DEW), _toAvatar(id, 100 * DEW))));
        vm.assertEq(token.balanceOf(alice), 5 * DEW);
        vm.assertEq(token.balanceOf(address(settlement)), VAULT - 5 * DEW);
    }

    /// DEW sent to the registry, the token or the avatar contract would be stuck there: an
    /// avatar leg to one of them (its owner's choice) stays in the vault too. (An account
    /// payout's recipient is the server's choice: only one to the vault itself is withheld.)
    function test_N1_systemContractsAreNeverPaidAvatarLegs() public {
        address[3] memory sinks = [address(registry), address(token), address(avatar)];
        uint256 escrow = token.balanceOf(address(registry));
        bytes memory batch;
        for (uint256 i; i < sinks.length; ++i) {
            uint256 id = _mintAvatar(owner);
            vm.prank(owner);
            avatar.transferFrom(owner, sinks[i], id);
            batch = bytes.concat(batch, _match(bytes32(i + 1), _two(_toAvatar(id, 9), _toAccount(alice, 1))));
        }
        vm.expectEmit(true, true, false, true, address(settlement));
        emit IM.PayoutWithheld(bytes32(uint256(1)), address(registry), 9);
        _settle(batch);
        vm.assertEq(token.balanceOf(address(token)), 0);
        vm.assertEq(token.balanceOf(address(avatar)), 0);
        vm.assertEq(token.balanceOf(address(registry)), escrow);
        vm.assertEq(token.balanceOf(alice), 3);
        vm.assertEq(token.balanceOf(address(settlement)), VAULT - 3);
    }

    /// A batch whose every leg is withheld still settles (an empty disperse).
    function test_N1_batchWithOnlyWithheldLegsSettles() public {
        (uint256 settled, uint256 paid) = _settle(_match(M1, _one(_toAccount(address(settlement), 3))));
        vm.assertEq(settled, 1);
        vm.assertEq(paid, 3);
        vm.assertEq(token.balanceOf(address(settlement)), VAULT);
    }

    // --- N2: match ids a stolen settler key cannot burn without bound ---

    /// One batch settled the next 2,000 sequential ids at 1 wei each; the window counted it as
    /// 0.001 DEW. Now the window also counts matches.
    function test_N2_burningFutureIdsIsBounded() public {
        _setLimits(100);
        bytes memory batch = _burnBatch(1, 2_000, alice);
        vm.expectRevert(abi.encodeWithSelector(IM.SettlementMatchLimit.selector, 2_000, 100, START + 1 days));
        _settle(batch);
        vm.assertFalse(settlement.isSettled(M1));
        // Within the count it settles; past it, the rest waits for the next window.
        _settle(_burnBatch(1, 100, alice));
        vm.expectRevert(abi.encodeWithSelector(IM.SettlementMatchLimit.selector, 101, 100, START + 1 days));
        _settle(_burnBatch(101, 1, alice));
        (uint256 settled, uint256 available) = settlement.windowMatches();
        vm.assertEq(settled, 100);
        vm.assertEq(available, 0);
        vm.warp(START + 1 days);
        _settle(_burnBatch(101, 1, alice));
        (settled, available) = settlement.windowMatches();
        vm.assertEq(settled, 1);
        vm.assertEq(available, 99);
    }

    /// Skipped (already settled) matches do not count.
    function test_N2_skippedMatchesDoNotCount() public {
        _setLimits(2);
        _settle(_burnBatch(1, 2, alice));
        vm.warp(START + 1 days);
        _settle(bytes.concat(_burnBatch(1, 2, alice), _burnBatch(3, 2, alice)));
        (uint256 settled,) = settlement.windowMatches();
        vm.assertEq(settled, 2);
    }

    function test_N2_limitsReadBack() public {
        _setLimits(12_345);
        (,,, uint256 maxMatches) = settlement.limits();
        vm.assertEq(maxMatches, 12_345);
        vm.prank(admin);
        vm.expectRevert(abi.encodeWithSelector(IM.SettlementInvalidLimits.selector, DEW, DEW, 1 days, 1 << 31));
        settlement.setLimits(DEW, DEW, 1 days, 1 << 31);
    }

    // --- N3: the walk of payeesAt is bounded ---

    /// An owner stacked agreements after a match (300 added about 1.28M gas to settling it).
    /// Now at most 8 are accepted per avatar per day.
    function test_N3_stackingAgreementsIsBounded() public {
        uint256 id = _mintAvatar(owner);
        _screen(owner);
        for (uint256 i; i < 8; ++i) {
            vm.prank(owner);
            uint256 a = registry.offer(id, scholar, _division(1, 5_000, 0, address(0), IR.Party.Owner));
            vm.prank(scholar);
            registry.accept(a);
            vm.warp(block.timestamp + 1);
        }
        vm.prank(owner);
        uint256 ninth = registry.offer(id, scholar, _division(1, 5_000, 0, address(0), IR.Party.Owner));
        vm.prank(scholar);
        vm.expectRevert(abi.encodeWithSelector(IR.AvatarAcceptLimit.selector, id, START + 1 days));
        registry.accept(ninth);
        vm.warp(START + 1 days);
        vm.prank(scholar);
        registry.accept(ninth);
    }

    /// A match settled a day after its play time walks back over at most 2 windows' accepts.
    function test_N3_walkGasForADayLateMatchIsBounded() public {
        uint256 id = _mintAvatar(owner);
        _screen(owner);
        uint64 playedAt = START;
        vm.warp(START + 1);
        for (uint256 i; i < 40; ++i) {
            vm.prank(owner);
            uint256 a = registry.offer(id, scholar, _division(1, 5_000, 0, address(0), IR.Party.Owner));
            vm.prank(scholar);
            try registry.accept(a) {} catch {}
            vm.warp(block.timestamp + 1 hours);
        }
        vm.assertLe(registry.agreementCount(), 40);
        uint256 gasBefore = gasleft();
        registry.payeesAt(id, playedAt);
        uint256 used = gasBefore - gasleft();
        // 16 agreements at most (8 per window, two windows within the day), ~4,300 gas each.
        vm.assertLe(used, 100_000, "walk gas");
    }

    // --- N4: reclaimIdle does not count time while settlement is held ---

    function test_N4_reclaimIdleRefusedAfterALongPause() public {
        uint256 id = _mintAvatar(owner);
        uint256 a = _rent(id, owner, scholar, _division(60 days, 5_000, 0, address(0), IR.Party.Owner));
        vm.prank(operator);
        settlement.pause();
        vm.warp(START + 8 days);
        vm.prank(owner);
        vm.expectRevert(abi.encodeWithSelector(IR.AgreementNotIdle.selector, a, type(uint64).max));
        registry.reclaimIdle(a);
        // After the unpause, idle time counts again from the unpause.
        vm.prank(admin);
        settlement.unpause();
        vm.prank(owner);
        vm.expectRevert(abi.encodeWithSelector(IR.AgreementNotIdle.selector, a, START + 15 days));
        registry.reclaimIdle(a);
        vm.warp(START + 15 days);
        vm.prank(owner);
        registry.reclaimIdle(a);
        vm.assertEq(uint256(registry.agreementOf(a).status), uint256(IR.Status.Ended));
    }

    /// A window left nearly full holds settlement until it resets: idle time counts from then.
    function test_N4_reclaimIdleWaitsForAFullWindowToReset() public {
        vm.prank(admin);
        settlement.setLimits(100 * DEW, 60 * DEW, 1 days, NO_MATCH_LIMIT);
        uint256 id = _mintAvatar(owner);
        uint256 a = _rent(id, owner, scholar, _division(60 days, 5_000, 0, address(0), IR.Party.Owner));
        vm.warp(START + 6 days);
        // 50 DEW left in the window: a 60 DEW match could be refused, so settlement is held.
        vm.expectEmit(false, false, false, true, address(registry));
        emit IR.SettlementHoldNoted(false, START + 7 days);
        _settle(_match(M1, _one(_toAccount(alice, 50 * DEW))));
        vm.warp(START + 8 days);
        vm.prank(owner);
        vm.expectRevert(abi.encodeWithSelector(IR.AgreementNotIdle.selector, a, START + 14 days));
        registry.reclaimIdle(a);
        (bool paused, uint64 heldUntil) = registry.settlementHold();
        vm.assertFalse(paused);
        vm.assertEq(uint256(heldUntil), START + 7 days);
    }

    /// A registry that refuses the report never blocks a pause.
    function test_N4_pauseWorksWhenTheRegistryRefusesTheReport() public {
        bytes32 role = registry.SETTLEMENT_ROLE();
        vm.prank(admin);
        registry.revokeRole(role, address(settlement));
        vm.expectEmit(false, false, false, true, address(settlement));
        emit IM.SettlementHoldNotReported(true, 0);
        vm.prank(operator);
        settlement.pause();
        vm.assertTrue(settlement.paused());
    }

    function test_N4_onlyTheVaultReportsHolds() public {
        bytes32 role = registry.SETTLEMENT_ROLE();
        vm.expectRevert(abi.encodeWithSignature("AccessControlUnauthorizedAccount(address,bytes32)", stranger, role));
        vm.prank(stranger);
        registry.noteSettlementHold(true, 0);
    }

    // --- N7: open listings cannot be burned for free ---

    function test_N7_openListingCannotBeBurnedAtOnce() public {
        uint256 id = _mintAvatar(owner);
        _screen(owner);
        vm.prank(owner);
        uint256 a = registry.offer(id, address(0), _division(30 days, 5_000, 0, address(0), IR.Party.Owner));
        vm.prank(scholar);
        registry.accept(a);
        vm.prank(scholar);
        vm.expectRevert(abi.encodeWithSelector(IR.AgreementInMinimumTerm.selector, a, START + 1 hours));
        registry.terminate(a);
        vm.warp(START + 1 hours);
        vm.prank(scholar);
        registry.terminate(a);
    }

    /// Fixed Rent under 10 wei paid nothing on an early termination (10% rounds to 0).
    function test_N7_cheapFixedRentListingHasTheMinimumTermToo() public {
        uint256 id = _mintAvatar(owner);
        _screen(owner);
        vm.prank(owner);
        uint256 a = registry.offer(id, address(0), _fixedRent(30 days, 9));
        _giveDew(scholar, 9);
        vm.prank(scholar);
        token.approve(address(registry), 9);
        vm.prank(scholar);
        registry.accept(a);
        vm.prank(scholar);
        vm.expectRevert(abi.encodeWithSelector(IR.AgreementInMinimumTerm.selector, a, START + 1 hours));
        registry.terminate(a);
    }

    // --- N8: a sale voids the avatar's offers ---

    function test_N8_offerDiesWithASale() public {
        uint256 id = _mintAvatar(owner);
        _screen(owner);
        vm.prank(owner);
        uint256 a = registry.offer(id, scholar, _division(30 days, 5_000, 0, address(0), IR.Party.Owner));
        vm.prank(owner);
        avatar.transferFrom(owner, buyer, id);
        vm.prank(buyer);
        avatar.transferFrom(buyer, owner, id);
        vm.assertEq(avatar.transferCount(id), 2);
        vm.prank(scholar);
        vm.expectRevert(abi.encodeWithSelector(IR.OfferStale.selector, a, owner, owner));
        registry.accept(a);
    }

    /// The counter survives the rental lock and user changes (it shares their slot).
    function test_N8_transferCountSurvivesRentals() public {
        uint256 id = _mintAvatar(owner);
        vm.prank(owner);
        avatar.transferFrom(owner, buyer, id);
        _rent(id, buyer, scholar, _division(1 days, 5_000, 0, address(0), IR.Party.Owner));
        vm.warp(START + 1 days);
        vm.prank(buyer);
        avatar.setUser(id, alice, uint64(START + 2 days));
        vm.assertEq(avatar.transferCount(id), 1);
        vm.prank(buyer);
        avatar.transferFrom(buyer, owner, id);
        vm.assertEq(avatar.transferCount(id), 2);
        vm.assertEq(avatar.userOf(id), address(0));
    }

    // --- Info ---

    /// The admin could move the rental role away from the registry under active rentals; the
    /// scholars could then not terminate, and their unused rent stayed locked. Now the role
    /// can go at once and the lock's holder still ends its own locks without it.
    function test_info_scholarTerminatesAfterTheRentalRoleIsRevoked() public {
        uint256 id = _mintAvatar(owner);
        _giveDew(scholar, 100 * DEW);
        uint256 a = _rent(id, owner, scholar, _fixedRent(30 days, uint128(100 * DEW)));
        bytes32 role = avatar.RENTAL_ROLE();
        vm.prank(admin);
        avatar.revokeRole(role, address(registry));
        vm.assertFalse(avatar.hasRole(role, address(registry)));
        vm.warp(START + 10 days);
        vm.prank(scholar);
        registry.terminate(a);
        vm.assertEq(token.balanceOf(scholar), 100 * DEW - registry.agreementOf(a).rentPaid);
        vm.assertEq(avatar.rentalLocker(id), address(0));
    }

    function test_info_splitEventCarriesPlayedAt() public {
        uint256 id = _mintAvatar(owner);
        uint256 agreementId = _rent(id, owner, scholar, _division(30 days, 5_000, 0, address(0), IR.Party.Owner));
        vm.warp(START + 2 hours);
        vm.expectEmit(true, true, true, true, address(settlement));
        emit IM.AvatarPayoutSplit(M1, id, agreementId, START + 1 hours, owner, address(0), scholar, 50, 0, 50);
        _settle(_match(M1, _one(_toAvatarAt(id, 100, START + 1 hours))));
        // playedAt 0 (or in the future) is the block time, as the split used it.
        vm.expectEmit(true, true, true, true, address(settlement));
        emit IM.AvatarPayoutSplit(M2, id, agreementId, START + 2 hours, owner, address(0), scholar, 50, 0, 50);
        _settle(_match(M2, _one(_toAvatarAt(id, 100, START + 9 hours))));
    }

    // --- helpers ---

    function _setLimits(uint256 maxMatches) internal {
        vm.prank(admin);
        settlement.setLimits(NO_PERIOD_LIMIT, NO_PER_MATCH_LIMIT, 1 days, maxMatches);
    }

    /// @dev Rewrites an agreement's manager in storage, as an attack from before the offer
    ///      check would have left it (slot 2 of the agreement: manager | duration | endedAt).
    function _setManager(uint256 agreementId, address newManager) internal {
        bytes32 base = keccak256(abi.encode(agreementId, _agreementsSlot()));
        bytes32 slot = bytes32(uint256(base) + 2);
        uint256 word = uint256(vm.load(address(registry), slot));
        word = (word & ~uint256(type(uint160).max)) | uint160(newManager);
        vm.store(address(registry), slot, bytes32(word));
        vm.assertEq(registry.agreementOf(agreementId).manager, newManager);
    }

    /// @dev The storage slot of ScholarshipRegistry._agreements (`forge inspect
    ///      ScholarshipRegistry storageLayout`); _setManager checks the result through agreementOf.
    function _agreementsSlot() internal pure returns (uint256) {
        return 5;
    }

    /// `count` sequential matches from `first`, each paying 1 wei to `to` (98 bytes each).
    function _burnBatch(uint256 first, uint256 count, address to) internal pure returns (bytes memory batch) {
        batch = new bytes(count * 98);
        uint256 payout = _toAccount(to, 1);
        for (uint256 i; i < count; ++i) {
            bytes32 id = bytes32(first + i);
            bytes32 hash = keccak256(abi.encode("record", id));
            assembly ("memory-safe") {
                let at := add(add(batch, 0x20), mul(i, 98))
                mstore(at, id)
                mstore(add(at, 32), hash)
                mstore(add(at, 64), shl(240, 1))
                mstore(add(at, 66), payout)
            }
        }
    }
}
