// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {FeeSplit} from "../src/lib/FeeSplit.sol";
import {FeeSplitHarness} from "./mocks/FeeSplitHarness.sol";
import {Test} from "./utils/Test.sol";

/// @dev The fee split (SPEC A5): legs sum to the fee exactly, no dust is lost, the bps are
///      bounded, and a missing party's share goes to the treasury.
contract FeeSplitTest is Test {
    uint256 internal constant BPS = 10_000;
    /// The largest fee the split accepts without overflow (fee * bps fits 256 bits).
    uint256 internal constant MAX_FEE = type(uint256).max / BPS;

    FeeSplitHarness internal harness = new FeeSplitHarness();

    function testFuzz_split_legsSumToTheFeeExactly(
        uint256 fee,
        uint16 centerBps,
        uint16 creatorBps,
        bool hasCenter,
        bool hasCreator
    ) public view {
        fee = bound(fee, 0, MAX_FEE);
        centerBps = uint16(bound(centerBps, 0, BPS));
        creatorBps = uint16(bound(creatorBps, 0, BPS - centerBps));
        (uint256 treasury, uint256 center, uint256 creator) =
            harness.split(fee, centerBps, creatorBps, hasCenter, hasCreator);
        vm.assertEq(treasury + center + creator, fee, "legs sum to the fee");
        // Each party gets its share rounded down, or nothing when it is missing.
        vm.assertEq(center, hasCenter ? fee * centerBps / BPS : 0, "center leg");
        vm.assertEq(creator, hasCreator ? fee * creatorBps / BPS : 0, "creator leg");
        // The treasury gets its own share, the missing parties' shares and the rounding
        // remainder, which is less than one wei per rounded leg.
        uint256 treasuryBps = BPS - (hasCenter ? centerBps : 0) - (hasCreator ? creatorBps : 0);
        uint256 floorShare = fee * treasuryBps / BPS;
        vm.assertGe(treasury, floorShare);
        vm.assertLe(treasury - floorShare, 2, "rounding remainder under one wei per leg");
    }

    function testFuzz_split_matchesTheLibraryCalledInternally(uint128 fee, uint16 centerBps, uint16 creatorBps)
        public
        view
    {
        centerBps = uint16(bound(centerBps, 0, BPS));
        creatorBps = uint16(bound(creatorBps, 0, BPS - centerBps));
        (uint256 t1, uint256 c1, uint256 r1) = harness.split(fee, centerBps, creatorBps, true, true);
        (uint256 t2, uint256 c2, uint256 r2) = FeeSplit.split(fee, centerBps, creatorBps, true, true);
        vm.assertTrue(t1 == t2 && c1 == c2 && r1 == r2);
    }

    function testFuzz_split_refusesSharesOverTheWholeFee(uint256 fee, uint16 centerBps, uint16 creatorBps) public {
        centerBps = uint16(bound(centerBps, 0, type(uint16).max));
        creatorBps = uint16(bound(creatorBps, BPS + 1 - (centerBps > BPS ? BPS : centerBps), type(uint16).max));
        vm.expectRevert(abi.encodeWithSelector(FeeSplit.FeeSplitBpsTooHigh.selector, centerBps, creatorBps));
        harness.split(fee, centerBps, creatorBps, false, false);
    }

    function test_split_examples() public view {
        (uint256 t, uint256 c, uint256 r) = harness.split(1001, 2000, 1000, true, true);
        vm.assertTrue(t == 701 && c == 200 && r == 100);
        (t, c, r) = harness.split(1001, 2000, 1000, false, true);
        vm.assertTrue(t == 901 && c == 0 && r == 100);
        (t, c, r) = harness.split(1001, 2000, 1000, true, false);
        vm.assertTrue(t == 801 && c == 200 && r == 0);
        (t, c, r) = harness.split(9, 5000, 5000, true, true);
        vm.assertTrue(t == 1 && c == 4 && r == 4);
        (t, c, r) = harness.split(0, 5000, 5000, true, true);
        vm.assertTrue(t == 0 && c == 0 && r == 0);
    }

    function test_split_overflowingFeeReverts() public {
        vm.expectRevert();
        harness.split(MAX_FEE + 1, 10_000, 0, true, false);
    }
}
