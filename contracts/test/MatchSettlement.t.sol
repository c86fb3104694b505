// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IAccessControl} from "@openzeppelin/contracts/access/IAccessControl.sol";
import {IERC20Errors, IERC721Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IMatchSettlement as IM} from "../src/interfaces/IMatchSettlement.sol";
import {IScholarshipRegistry as IR} from "../src/interfaces/IScholarshipRegistry.sol";
import {Fixture} from "./utils/Fixture.sol";

contract MatchSettlementTest is Fixture {
    address internal alice = address(0xA11CE);
    address internal bob = address(0xB0B);

    bytes32 internal constant M1 = bytes32(uint256(1));
    bytes32 internal constant M2 = bytes32(uint256(2));
    bytes32 internal constant M3 = bytes32(uint256(3));

    function test_settle_paysAccountsAndRecordsMatch() public {
        bytes memory batch = bytes.concat(
            _match(M1, _two(_toAccount(alice, 5 * DEW), _toAccount(bob, 2 * DEW))),
            _match(M2, _one(_toAccount(alice, 1)))
        );
        vm.expectEmit(true, false, false, true, address(settlement));
        emit IM.MatchSettled(M1, keccak256(abi.encode("record", M1)), 7 * DEW);
        vm.expectEmit(true, false, false, true, address(settlement));
        emit IM.MatchSettled(M2, keccak256(abi.encode("record", M2)), 1);
        vm.expectEmit(true, true, false, true, address(token));
        emit IERC20.Transfer(address(settlement), alice, 5 * DEW);
        (uint256 settled, uint256 paid) = _settle(batch);
        vm.assertEq(settled, 2);
        vm.assertEq(paid, 7 * DEW + 1);
        vm.assertEq(token.balanceOf(alice), 5 * DEW + 1);
        vm.assertEq(token.balanceOf(bob), 2 * DEW);
        vm.assertEq(token.balanceOf(address(settlement)), VAULT - paid);
        vm.assertEq(settlement.totalPaid(), paid);
        vm.assertTrue(settlement.isSettled(M1));
        vm.assertTrue(settlement.isSettled(M2));
        vm.assertFalse(settlement.isSettled(M3));
    }

    function test_settle_skipsARepeatedMatchWithoutBlockingOthers() public {
        _settle(_match(M1, _one(_toAccount(alice, 10))));
        bytes memory batch = bytes.concat(_match(M1, _one(_toAccount(alice, 10))), _match(M2, _one(_toAccount(bob, 4))));
        vm.expectEmit(true, false, false, false, address(settlement));
        emit IM.MatchSkipped(M1, keccak256(abi.encode("record", M1)));
        (uint256 settled, uint256 paid) = _settle(batch);
        vm.assertEq(settled, 1);
        vm.assertEq(paid, 4);
        vm.assertEq(token.balanceOf(alice), 10);
        vm.assertEq(token.balanceOf(bob), 4);
    }

    function test_settle_skipsADuplicateWithinOneBatch() public {
        bytes memory m = _match(M3, _one(_toAccount(alice, 10)));
        (uint256 settled, uint256 paid) = _settle(bytes.concat(m, m));
        vm.assertEq(settled, 1);
        vm.assertEq(paid, 10);
        vm.assertEq(token.balanceOf(alice), 10);
    }

    function test_settle_bitmapKeepsNeighbouringIdsApart() public {
        bytes32 a = bytes32(uint256(0x1ff));
        bytes32 b = bytes32(uint256(0x200));
        _settle(_match(a, _one(_toAccount(alice, 1))));
        vm.assertTrue(settlement.isSettled(a));
        vm.assertFalse(settlement.isSettled(b));
        vm.assertFalse(settlement.isSettled(bytes32(uint256(0x1fe))));
        (uint256 settled,) = _settle(_match(b, _one(_toAccount(alice, 1))));
        vm.assertEq(settled, 1);
    }

    function test_settle_avatarWithoutAgreementPaysItsOwner() public {
        uint256 id = _mintAvatar(owner);
        vm.expectEmit(true, true, true, true, address(settlement));
        emit IM.AvatarPayoutSplit(M1, id, 0, START, owner, address(0), address(0), 100, 0, 0);
        _settle(_match(M1, _one(_toAvatar(id, 100))));
        vm.assertEq(token.balanceOf(owner), 100);
    }

    function test_settle_rewardsDivisionSplitsWithDustToNamedParty() public {
        uint256 id = _mintAvatar(owner);
        uint256 agreementId = _rent(id, owner, scholar, _division(7 days, 3333, 1111, manager, IR.Party.Manager));
        // 1001 * 3333 / 1e4 = 333, * 1111 / 1e4 = 111, * 5556 / 1e4 = 556; dust 1 -> manager.
        vm.expectEmit(true, true, true, true, address(settlement));
        emit IM.AvatarPayoutSplit(M1, id, agreementId, START, owner, manager, scholar, 333, 112, 556);
        _settle(_match(M1, _one(_toAvatar(id, 1001))));
        vm.assertEq(token.balanceOf(owner), 333);
        vm.assertEq(token.balanceOf(manager), 112);
        vm.assertEq(token.balanceOf(scholar), 556);
        vm.assertEq(token.balanceOf(address(settlement)), VAULT - 1001);
    }

    function test_settle_dustToOwnerOrScholar() public {
        uint256 a = _mintAvatar(owner);
        uint256 b = _mintAvatar(owner);
        _rent(a, owner, scholar, _division(7 days, 5000, 0, address(0), IR.Party.Owner));
        _rent(b, owner, bob, _division(7 days, 5000, 0, address(0), IR.Party.Scholar));
        _settle(_match(M1, _two(_toAvatar(a, 3), _toAvatar(b, 5))));
        vm.assertEq(token.balanceOf(owner), 2 + 2);
        vm.assertEq(token.balanceOf(scholar), 1);
        vm.assertEq(token.balanceOf(bob), 3);
    }

    function test_settle_fixedRentScholarKeepsEverything() public {
        uint256 id = _mintAvatar(owner);
        _rent(id, owner, scholar, _fixedRent(7 days, 0));
        _settle(_match(M1, _one(_toAvatar(id, 777))));
        vm.assertEq(token.balanceOf(scholar), 777);
        vm.assertEq(token.balanceOf(owner), 0);
    }

    function test_settle_afterTermEndsPaysTheOwner() public {
        uint256 id = _mintAvatar(owner);
        _rent(id, owner, scholar, _division(1 days, 1000, 0, address(0), IR.Party.Owner));
        vm.warp(START + 1 days);
        _settle(_match(M1, _one(_toAvatar(id, 50))));
        vm.assertEq(token.balanceOf(owner), 50);
        vm.assertEq(token.balanceOf(scholar), 0);
    }

    // --- errors ---

    function test_settle_revertsOnEmptyBatch() public {
        vm.expectRevert(IM.SettlementEmptyBatch.selector);
        _settle("");
    }

    function test_settle_revertsOnTruncatedHeader() public {
        bytes memory batch = bytes.concat(_match(M1, _one(_toAccount(alice, 1))), bytes1(0x01));
        vm.expectRevert(abi.encodeWithSelector(IM.SettlementMalformedBatch.selector, 98, 99));
        _settle(batch);
    }

    function test_settle_revertsOnTruncatedPayouts() public {
        bytes memory m = _match(M1, _two(_toAccount(alice, 1), _toAccount(bob, 1)));
        bytes memory cut = new bytes(m.length - 1);
        for (uint256 i; i < cut.length; ++i) {
            cut[i] = m[i];
        }
        vm.expectRevert(abi.encodeWithSelector(IM.SettlementMalformedBatch.selector, 66, cut.length));
        _settle(cut);
    }

    function test_settle_revertsOnZeroMatchIdOrResultHash() public {
        bytes memory batch = _match(bytes32(0), _one(_toAccount(alice, 1)));
        vm.expectRevert(
            abi.encodeWithSelector(
                IM.SettlementInvalidMatch.selector, bytes32(0), keccak256(abi.encode("record", bytes32(0)))
            )
        );
        _settle(batch);
        batch = abi.encodePacked(M1, bytes32(0), uint16(0));
        vm.expectRevert(abi.encodeWithSelector(IM.SettlementInvalidMatch.selector, M1, bytes32(0)));
        _settle(batch);
    }

    function test_settle_revertsOnZeroPayout() public {
        vm.expectRevert(abi.encodeWithSelector(IM.SettlementZeroPayout.selector, M1, 1));
        _settle(_match(M1, _two(_toAccount(alice, 1), _toAccount(bob, 0))));
    }

    function test_settle_revertsOnUnknownKind() public {
        uint256 word = 2 << 248 | _toAccount(alice, 1);
        vm.expectRevert(abi.encodeWithSelector(IM.SettlementInvalidPayoutKind.selector, M1, 0, 2));
        _settle(_match(M1, _one(word)));
    }

    function test_settle_revertsOnZeroRecipientOrAvatarZero() public {
        vm.expectRevert(abi.encodeWithSelector(IM.SettlementInvalidRecipient.selector, M1, 0));
        _settle(_match(M1, _one(_toAccount(address(0), 1))));
        vm.expectRevert(abi.encodeWithSelector(IM.SettlementInvalidRecipient.selector, M1, 0));
        _settle(_match(M1, _one(_toAvatar(0, 1))));
    }

    function test_settle_revertsForUnmintedAvatar() public {
        vm.expectRevert(abi.encodeWithSelector(IERC721Errors.ERC721NonexistentToken.selector, 99));
        _settle(_match(M1, _one(_toAvatar(99, 1))));
    }

    function test_settle_badMatchLaterInBatchChangesNothing() public {
        bytes memory batch = bytes.concat(_match(M1, _one(_toAccount(alice, 5))), _match(M2, _one(_toAccount(bob, 0))));
        vm.expectRevert(abi.encodeWithSelector(IM.SettlementZeroPayout.selector, M2, 0));
        _settle(batch);
        vm.assertFalse(settlement.isSettled(M1));
        vm.assertEq(token.balanceOf(alice), 0);
    }

    function test_settle_revertsWhenVaultIsShort() public {
        vm.expectRevert(
            abi.encodeWithSelector(
                IERC20Errors.ERC20InsufficientBalance.selector, address(settlement), VAULT, VAULT + 1
            )
        );
        _settle(_match(M1, _two(_toAccount(alice, VAULT), _toAccount(bob, 1))));
        vm.assertFalse(settlement.isSettled(M1));
    }

    function test_settle_revertsWithoutSettlerRole() public {
        vm.expectRevert(
            abi.encodeWithSelector(
                IAccessControl.AccessControlUnauthorizedAccount.selector, stranger, settlement.SETTLER_ROLE()
            )
        );
        vm.prank(stranger);
        settlement.settle(_match(M1, _one(_toAccount(stranger, 1))));
    }

    function test_withdraw_byAdminOnly() public {
        vm.expectRevert(
            abi.encodeWithSelector(IAccessControl.AccessControlUnauthorizedAccount.selector, operator, bytes32(0))
        );
        vm.prank(operator);
        settlement.withdraw(operator, 1);
        vm.expectEmit(true, false, false, true, address(settlement));
        emit IM.VaultWithdrawn(admin, 10);
        vm.prank(admin);
        settlement.withdraw(admin, 10);
        vm.assertEq(token.balanceOf(admin), 10);
    }

    function test_wiring() public view {
        vm.assertEq(settlement.token(), address(token));
        vm.assertEq(settlement.registry(), address(registry));
    }

    // --- fuzz ---

    /// For any amount, shares and dust party, the split pays out exactly the amount.
    function testFuzz_split_conservesAmount(uint256 amount, uint16 ownerBps, uint16 managerBps, uint8 dust) public {
        amount = bound(amount, 1, NO_PER_MATCH_LIMIT);
        ownerBps = uint16(bound(ownerBps, 0, 10_000));
        managerBps = uint16(bound(managerBps, 0, 10_000 - ownerBps));
        IR.Party dustTo = IR.Party(bound(dust, 0, 2));
        if (dustTo == IR.Party.Manager && managerBps == 0) dustTo = IR.Party.Owner;
        uint256 id = _mintAvatar(owner);
        _rent(
            id, owner, scholar, _division(7 days, ownerBps, managerBps, managerBps == 0 ? address(0) : manager, dustTo)
        );
        _giveDew(address(settlement), amount);
        _settle(_match(M1, _one(_toAvatar(id, amount))));
        uint256 total = token.balanceOf(owner) + token.balanceOf(manager) + token.balanceOf(scholar);
        vm.assertEq(total, amount);
        vm.assertEq(token.balanceOf(address(settlement)), VAULT);
        vm.assertGe(token.balanceOf(owner), amount * ownerBps / 10_000);
        vm.assertLe(token.balanceOf(owner), amount * ownerBps / 10_000 + 2);
    }

    /// Ids drawn from a small pool with repeats: each id pays once, paid == sum of first sights.
    function testFuzz_settle_paysEachMatchOnce(uint256 seed, uint8 n) public {
        uint256 count = bound(n, 1, 12);
        bytes memory batch;
        uint256 expected;
        bool[6] memory seen;
        for (uint256 i; i < count; ++i) {
            uint256 pick = uint256(keccak256(abi.encode(seed, i))) % 6;
            uint256 amount = 1 + uint256(keccak256(abi.encode(seed, i, "amount"))) % 1e20;
            if (!seen[pick]) expected += amount;
            seen[pick] = true;
            batch = bytes.concat(batch, _match(bytes32(pick + 1), _one(_toAccount(alice, amount))));
        }
        (, uint256 paid) = _settle(batch);
        vm.assertEq(paid, expected);
        vm.assertEq(token.balanceOf(alice), expected);
        (uint256 again, uint256 paidAgain) = _settle(batch);
        vm.assertEq(again, 0);
        vm.assertEq(paidAgain, 0);
    }

    // --- rewards follow the rental the match was played under (issue 9) ---

    /// The scholar's last-day match, settled the day after the term ended, pays the scholar.
    function test_settle_matchPlayedOnLastDayPaysScholarAfterTermEnded() public {
        uint256 id = _mintAvatar(owner);
        uint256 agreementId = _rent(id, owner, scholar, _division(7 days, 2000, 0, address(0), IR.Party.Owner));
        uint64 playedAt = START + 7 days - 1 hours;
        vm.warp(START + 8 days);
        vm.expectEmit(true, true, true, true, address(settlement));
        emit IM.AvatarPayoutSplit(M1, id, agreementId, playedAt, owner, address(0), scholar, 200, 0, 800);
        _settle(_match(M1, _one(_toAvatarAt(id, 1000, playedAt))));
        vm.assertEq(token.balanceOf(scholar), 800);
        vm.assertEq(token.balanceOf(owner), 200);
    }

    /// A match played before an early termination is split by the ended agreement; one played
    /// after it pays the owner.
    function test_settle_afterTerminationSplitsByPlayTime() public {
        uint256 id = _mintAvatar(owner);
        uint256 agreementId = _rent(id, owner, scholar, _division(7 days, 5000, 0, address(0), IR.Party.Owner));
        vm.warp(START + 2 days);
        vm.prank(scholar);
        registry.terminate(agreementId);
        vm.assertEq(uint256(registry.agreementOf(agreementId).endedAt), START + 2 days);
        vm.warp(START + 3 days);
        _settle(_match(M1, _two(_toAvatarAt(id, 100, START + 2 days - 1), _toAvatarAt(id, 10, START + 2 days))));
        vm.assertEq(token.balanceOf(scholar), 50);
        vm.assertEq(token.balanceOf(owner), 50 + 10);
    }

    /// After the term, the avatar is sold: the reward earned under the agreement still goes to
    /// that agreement's owner and scholar, not to the new owner.
    function test_settle_afterAvatarSoldPaysTheAgreementsParties() public {
        uint256 id = _mintAvatar(owner);
        _rent(id, owner, scholar, _division(1 days, 3000, 0, address(0), IR.Party.Owner));
        vm.warp(START + 1 days);
        vm.prank(owner);
        avatar.transferFrom(owner, bob, id);
        _settle(_match(M1, _two(_toAvatarAt(id, 1000, START + 1 hours), _toAvatarAt(id, 7, START + 1 days))));
        vm.assertEq(token.balanceOf(owner), 300);
        vm.assertEq(token.balanceOf(scholar), 700);
        vm.assertEq(token.balanceOf(bob), 7);
    }

    /// A match from an older rental, settled after the avatar was rented again, pays the older one.
    function test_settle_walksBackToTheAgreementOfThePlayTime() public {
        uint256 id = _mintAvatar(owner);
        uint256 first = _rent(id, owner, scholar, _division(1 days, 1000, 0, address(0), IR.Party.Owner));
        vm.warp(START + 2 days);
        uint256 second = _rent(id, owner, bob, _division(1 days, 9000, 0, address(0), IR.Party.Owner));
        vm.assertEq(uint256(registry.agreementOf(second).previousId), first);
        vm.expectEmit(true, true, true, true, address(settlement));
        emit IM.AvatarPayoutSplit(M1, id, first, START + 12 hours, owner, address(0), scholar, 10, 0, 90);
        _settle(_match(M1, _one(_toAvatarAt(id, 100, START + 12 hours))));
        // Between the two rentals nobody but the owner held the avatar.
        _settle(_match(M2, _one(_toAvatarAt(id, 100, START + 1 days + 1))));
        _settle(_match(M3, _one(_toAvatarAt(id, 100, START + 2 days))));
        vm.assertEq(token.balanceOf(scholar), 90);
        vm.assertEq(token.balanceOf(bob), 10);
        vm.assertEq(token.balanceOf(owner), 10 + 100 + 90);
    }

    /// A play time in the future is read as now; a time before any rental pays the owner.
    function test_settle_futurePlayTimeMeansNow() public {
        uint256 id = _mintAvatar(owner);
        _rent(id, owner, scholar, _division(1 days, 0, 0, address(0), IR.Party.Scholar));
        _settle(_match(M1, _two(_toAvatarAt(id, 5, START + 300 days), _toAvatarAt(id, 3, START - 1))));
        vm.assertEq(token.balanceOf(scholar), 5);
        vm.assertEq(token.balanceOf(owner), 3);
    }

    function test_settle_revertsOnAvatarZeroWithAPlayTime() public {
        vm.expectRevert(abi.encodeWithSelector(IM.SettlementInvalidRecipient.selector, M1, 0));
        _settle(_match(M1, _one(_toAvatarAt(0, 5, START))));
    }

    /// Settling a Rewards Division match records its play time on the agreement.
    function test_settle_recordsTheLastMatchOnTheAgreement() public {
        uint256 id = _mintAvatar(owner);
        uint256 agreementId = _rent(id, owner, scholar, _division(30 days, 1000, 0, address(0), IR.Party.Owner));
        vm.warp(START + 5 days);
        _settle(_match(M1, _two(_toAvatarAt(id, 5, START + 4 days), _toAvatarAt(id, 5, START + 3 days))));
        vm.assertEq(uint256(registry.agreementOf(agreementId).lastMatchAt), START + 4 days);
    }
}
