// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IAccessControl} from "@openzeppelin/contracts/access/IAccessControl.sol";
import {MatchSettlement} from "../src/MatchSettlement.sol";
import {IMatchSettlement as IM} from "../src/interfaces/IMatchSettlement.sol";
import {Fixture} from "./utils/Fixture.sol";

/// @dev Issue 9, items 2 and 5: what a settler key can do is bounded, and refused input is inert.
contract SettlementLimitsTest is Fixture {
    address internal alice = address(0xA11CE);
    address internal bob = address(0xB0B);

    bytes32 internal constant M1 = bytes32(uint256(1));
    bytes32 internal constant M2 = bytes32(uint256(2));
    bytes32 internal constant M3 = bytes32(uint256(3));

    uint256 internal constant LIMIT = 100 * DEW;
    uint256 internal constant PER_MATCH = 60 * DEW;
    uint256 internal constant PERIOD = 1 days;

    function _setLimits(uint256 periodLimit, uint256 maxPerMatch, uint256 period) internal {
        vm.prank(admin);
        settlement.setLimits(periodLimit, maxPerMatch, period, NO_MATCH_LIMIT);
    }

    function _pay(bytes32 id, address to, uint256 amount) internal pure returns (bytes memory) {
        return _match(id, _one(_toAccount(to, amount)));
    }

    // --- empty match headers ---

    /// A header with no payouts used to be recorded as settled: a settler could burn any
    /// future match id for free.
    function test_settle_revertsWhenAMatchHasNoPayouts() public {
        vm.expectRevert(abi.encodeWithSelector(IM.SettlementNoPayouts.selector, M2));
        _settle(bytes.concat(_pay(M1, alice, 1), _match(M2, new uint256[](0))));
        vm.assertFalse(settlement.isSettled(M1));
        vm.assertFalse(settlement.isSettled(M2));
        vm.assertEq(token.balanceOf(alice), 0);
    }

    // --- per-match maximum ---

    function test_settle_revertsWhenAMatchPaysMoreThanTheMaximum() public {
        _setLimits(LIMIT, PER_MATCH, PERIOD);
        bytes memory batch = bytes.concat(
            _pay(M1, alice, 10), _match(M2, _two(_toAccount(alice, 50 * DEW), _toAccount(bob, 10 * DEW + 1)))
        );
        vm.expectRevert(abi.encodeWithSelector(IM.SettlementMatchOverLimit.selector, M2, PER_MATCH + 1, PER_MATCH));
        _settle(batch);
        vm.assertFalse(settlement.isSettled(M1));
        _settle(_match(M2, _two(_toAccount(alice, 50 * DEW), _toAccount(bob, 10 * DEW))));
        vm.assertEq(token.balanceOf(alice), 50 * DEW);
        vm.assertEq(token.balanceOf(bob), 10 * DEW);
    }

    // --- outflow per window ---

    function test_settle_revertsWhenTheWindowLimitIsReached_andPaysAfterTheReset() public {
        _setLimits(LIMIT, PER_MATCH, PERIOD);
        _settle(_pay(M1, alice, 50 * DEW));
        vm.warp(START + PERIOD - 1);
        bytes memory next = bytes.concat(_pay(M2, bob, 40 * DEW), _pay(M3, bob, 20 * DEW));
        vm.expectRevert(
            abi.encodeWithSelector(IM.SettlementOutflowLimit.selector, 110 * DEW, LIMIT, uint256(START) + PERIOD)
        );
        _settle(next);
        // Nothing changed: not settled, not paid, not counted.
        vm.assertFalse(settlement.isSettled(M2));
        vm.assertEq(token.balanceOf(bob), 0);
        vm.assertEq(settlement.totalPaid(), 50 * DEW);
        (uint256 windowStart, uint256 spent, uint256 available) = settlement.outflow();
        vm.assertEq(windowStart, START);
        vm.assertEq(spent, 50 * DEW);
        vm.assertEq(available, 50 * DEW);

        vm.warp(START + PERIOD);
        (windowStart, spent, available) = settlement.outflow();
        vm.assertEq(windowStart, START + PERIOD);
        vm.assertEq(available, LIMIT);
        (uint256 settled, uint256 paid) = _settle(next);
        vm.assertEq(settled, 2);
        vm.assertEq(paid, 60 * DEW);
        vm.assertEq(token.balanceOf(bob), 60 * DEW);
        vm.assertEq(settlement.totalPaid(), 110 * DEW);
        (windowStart, spent, available) = settlement.outflow();
        vm.assertEq(spent, 60 * DEW);
        vm.assertEq(available, 40 * DEW);
        // The same matches again are skipped and cost no limit.
        (settled, paid) = _settle(next);
        vm.assertEq(settled, 0);
        vm.assertEq(paid, 0);
    }

    function test_settle_paysOnceTheAdminRaisesTheLimit() public {
        _setLimits(LIMIT, PER_MATCH, PERIOD);
        _settle(_pay(M1, alice, 60 * DEW));
        vm.expectRevert(abi.encodeWithSelector(IM.SettlementOutflowLimit.selector, 120 * DEW, LIMIT, START + PERIOD));
        _settle(_pay(M2, alice, 60 * DEW));
        vm.expectEmit(false, false, false, true, address(settlement));
        emit IM.LimitsSet(200 * DEW, PER_MATCH, PERIOD, NO_MATCH_LIMIT);
        _setLimits(200 * DEW, PER_MATCH, PERIOD);
        _settle(_pay(M2, alice, 60 * DEW));
        vm.assertEq(token.balanceOf(alice), 120 * DEW);
        (uint256 periodLimit, uint256 maxPerMatch, uint256 period,) = settlement.limits();
        vm.assertEq(periodLimit, 200 * DEW);
        vm.assertEq(maxPerMatch, PER_MATCH);
        vm.assertEq(period, PERIOD);
    }

    /// Fails closed: a vault whose limits were never set pays nothing.
    function test_settle_revertsWhenNoLimitWasSet() public {
        MatchSettlement fresh = new MatchSettlement(admin, token, registry);
        vm.startPrank(admin);
        fresh.grantRole(fresh.SETTLER_ROLE(), operator);
        vm.stopPrank();
        _giveDew(address(fresh), 10);
        vm.expectRevert(abi.encodeWithSelector(IM.SettlementMatchOverLimit.selector, M1, 1, 0));
        vm.prank(operator);
        fresh.settle(_pay(M1, alice, 1));
    }

    function test_setLimits_revertsWhenNotTheAdmin() public {
        vm.expectRevert(
            abi.encodeWithSelector(IAccessControl.AccessControlUnauthorizedAccount.selector, operator, bytes32(0))
        );
        vm.prank(operator);
        settlement.setLimits(LIMIT, PER_MATCH, PERIOD, NO_MATCH_LIMIT);
    }

    function test_setLimits_revertsWhenOutOfRange() public {
        uint256 bigPeriodLimit = settlement.MAX_PERIOD_LIMIT() + DEW;
        uint256 bigPerMatch = settlement.MAX_PER_MATCH_LIMIT() + DEW;
        uint256 longPeriod = settlement.MAX_PERIOD() + 1;
        vm.startPrank(admin);
        vm.expectRevert(
            abi.encodeWithSelector(IM.SettlementInvalidLimits.selector, bigPeriodLimit, DEW, PERIOD, NO_MATCH_LIMIT)
        );
        settlement.setLimits(bigPeriodLimit, DEW, PERIOD, NO_MATCH_LIMIT);
        vm.expectRevert(
            abi.encodeWithSelector(IM.SettlementInvalidLimits.selector, DEW, bigPerMatch, PERIOD, NO_MATCH_LIMIT)
        );
        settlement.setLimits(DEW, bigPerMatch, PERIOD, NO_MATCH_LIMIT);
        vm.expectRevert(abi.encodeWithSelector(IM.SettlementInvalidLimits.selector, DEW, DEW, 0, NO_MATCH_LIMIT));
        settlement.setLimits(DEW, DEW, 0, NO_MATCH_LIMIT);
        vm.expectRevert(
            abi.encodeWithSelector(IM.SettlementInvalidLimits.selector, DEW, DEW, longPeriod, NO_MATCH_LIMIT)
        );
        settlement.setLimits(DEW, DEW, longPeriod, NO_MATCH_LIMIT);
        // The limits are whole DEW.
        vm.expectRevert(
            abi.encodeWithSelector(IM.SettlementInvalidLimits.selector, DEW + 1, DEW, PERIOD, NO_MATCH_LIMIT)
        );
        settlement.setLimits(DEW + 1, DEW, PERIOD, NO_MATCH_LIMIT);
        vm.expectRevert(
            abi.encodeWithSelector(IM.SettlementInvalidLimits.selector, DEW, DEW / 2, PERIOD, NO_MATCH_LIMIT)
        );
        settlement.setLimits(DEW, DEW / 2, PERIOD, NO_MATCH_LIMIT);
        vm.stopPrank();
        (uint256 periodLimit, uint256 maxPerMatch, uint256 period,) = settlement.limits();
        vm.assertEq(periodLimit, NO_PERIOD_LIMIT);
        vm.assertEq(maxPerMatch, NO_PER_MATCH_LIMIT);
        vm.assertEq(period, 1 days);
    }

    function test_setLimits_acceptsTheMaxima() public {
        _setLimits(settlement.MAX_PERIOD_LIMIT(), settlement.MAX_PER_MATCH_LIMIT(), settlement.MAX_PERIOD());
        (uint256 periodLimit, uint256 maxPerMatch, uint256 period,) = settlement.limits();
        vm.assertEq(periodLimit, settlement.MAX_PERIOD_LIMIT());
        vm.assertEq(maxPerMatch, settlement.MAX_PER_MATCH_LIMIT());
        vm.assertEq(period, settlement.MAX_PERIOD());
    }

    /// The limits, the window, the total and the pause share one storage slot: changing one
    /// leaves the others as they were.
    function test_vaultState_fieldsAreIndependent() public {
        _setLimits(LIMIT, PER_MATCH, PERIOD);
        _settle(_pay(M1, alice, 30 * DEW + 7));
        vm.warp(START + 100);
        _setLimits(LIMIT + 5 * DEW, PER_MATCH - DEW, PERIOD * 2);
        vm.prank(operator);
        settlement.pause();
        vm.assertEq(settlement.totalPaid(), 30 * DEW + 7);
        (uint256 windowStart, uint256 spent,) = settlement.outflow();
        vm.assertEq(windowStart, START);
        vm.assertEq(spent, 30 * DEW + 1e15); // 7 wei counted as one milli-DEW
        vm.prank(admin);
        settlement.unpause();
        (uint256 periodLimit, uint256 maxPerMatch, uint256 period,) = settlement.limits();
        vm.assertEq(periodLimit, LIMIT + 5 * DEW);
        vm.assertEq(maxPerMatch, PER_MATCH - DEW);
        vm.assertEq(period, PERIOD * 2);
        vm.assertFalse(settlement.paused());
        _settle(_pay(M2, bob, 1));
        vm.assertEq(settlement.totalPaid(), 30 * DEW + 8);
        (windowStart, spent,) = settlement.outflow();
        vm.assertEq(windowStart, START);
        vm.assertEq(spent, 30 * DEW + 2e15);
    }

    /// The window counts each batch rounded up to the milli-DEW: rounding never lets a
    /// window pay past its limit, and the total stays exact.
    function test_settle_roundsTheWindowUpPerBatch() public {
        _setLimits(DEW, DEW, PERIOD);
        _settle(_pay(M1, alice, DEW - 1e15)); // exactly 999 milli-DEW
        vm.expectRevert(abi.encodeWithSelector(IM.SettlementOutflowLimit.selector, DEW + 1e15, DEW, START + PERIOD));
        _settle(_pay(M2, alice, 1e15 + 1)); // 1 milli-DEW and a wei: counts as 2
        _settle(_pay(M2, alice, 1e15));
        vm.assertEq(token.balanceOf(alice), DEW);
        vm.assertEq(settlement.totalPaid(), DEW);
    }

    /// Whatever the batches and the clock, no window pays more than the limit.
    function testFuzz_settle_neverPaysMoreThanTheLimitPerWindow(uint256 seed) public {
        _setLimits(LIMIT, PER_MATCH, PERIOD);
        uint256 windowStart; // no window yet: the first payment opens one
        uint256 inWindow; // what the window really paid
        uint256 counted; // what it counts: each batch rounded up to the milli-DEW
        uint256 now_ = START; // tracked here: the optimizer may reuse a block.timestamp read
        for (uint256 i; i < 20; ++i) {
            uint256 amount = 1 + uint256(keccak256(abi.encode(seed, i))) % PER_MATCH;
            uint256 step = uint256(keccak256(abi.encode(seed, i, "t"))) % (PERIOD / 2);
            uint256 charge = (amount + 1e15 - 1) / 1e15 * 1e15;
            now_ += step;
            vm.warp(now_);
            if (now_ >= windowStart + PERIOD) (windowStart, inWindow, counted) = (now_, 0, 0);
            vm.prank(operator);
            try settlement.settle(_pay(bytes32(i + 1), alice, amount)) returns (uint256, uint256 paid) {
                vm.assertEq(paid, amount);
                inWindow += paid;
                counted += charge;
            } catch {
                vm.assertGt(counted + charge, LIMIT);
            }
            vm.assertLe(inWindow, LIMIT);
            (, uint256 spent,) = settlement.outflow();
            vm.assertEq(spent, counted);
        }
    }

    // --- pause ---

    function test_settle_revertsWhilePaused() public {
        vm.expectEmit(true, false, false, true, address(settlement));
        emit IM.Paused(operator);
        vm.prank(operator); // the operator holds GUARDIAN_ROLE, as deploy.py grants it
        settlement.pause();
        vm.assertTrue(settlement.paused());
        vm.expectRevert(IM.SettlementPaused.selector);
        _settle(_pay(M1, alice, 1));
        vm.prank(admin);
        settlement.unpause();
        vm.assertFalse(settlement.paused());
        _settle(_pay(M1, alice, 1));
        vm.assertEq(token.balanceOf(alice), 1);
    }

    function test_pause_revertsWhenNotTheGuardian() public {
        vm.expectRevert(
            abi.encodeWithSelector(
                IAccessControl.AccessControlUnauthorizedAccount.selector, stranger, settlement.GUARDIAN_ROLE()
            )
        );
        vm.prank(stranger);
        settlement.pause();
    }

    /// The guardian can stop payouts but never resume them: a stolen guardian key cannot undo
    /// a pause the admin wants.
    function test_unpause_revertsWhenCalledByTheGuardian() public {
        vm.prank(operator);
        settlement.pause();
        vm.expectRevert(
            abi.encodeWithSelector(IAccessControl.AccessControlUnauthorizedAccount.selector, operator, bytes32(0))
        );
        vm.prank(operator);
        settlement.unpause();
        vm.assertTrue(settlement.paused());
    }

    function test_setLimits_keepsThePause() public {
        vm.prank(operator);
        settlement.pause();
        _setLimits(LIMIT, PER_MATCH, PERIOD);
        vm.assertTrue(settlement.paused());
    }

    // --- item 5 ---

    function test_settle_skippedMatchCarriesItsResultHash() public {
        _settle(_pay(M1, alice, 1));
        bytes memory again = abi.encodePacked(M1, bytes32(uint256(0xbeef)), uint16(1), bytes32(_toAccount(alice, 1)));
        vm.expectEmit(true, false, false, true, address(settlement));
        emit IM.MatchSkipped(M1, bytes32(uint256(0xbeef)));
        _settle(again);
    }

    /// A payout to the vault itself reverted the whole batch (DEWInvalidTransfer); now it stays
    /// in the vault, with an event, and the rest of the batch is paid (issue 18, N1).
    function test_settle_withholdsAPayoutToTheVault() public {
        vm.expectEmit(true, true, false, true, address(settlement));
        emit IM.PayoutWithheld(M1, address(settlement), 5);
        _settle(_match(M1, _two(_toAccount(alice, 1), _toAccount(address(settlement), 5))));
        vm.assertTrue(settlement.isSettled(M1));
        vm.assertEq(token.balanceOf(alice), 1);
        vm.assertEq(token.balanceOf(address(settlement)), VAULT - 1);
        vm.assertEq(settlement.totalPaid(), 6);
    }
}
