// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {FeeSplit} from "../../src/lib/FeeSplit.sol";

/// @title FeeSplit as an external call, for the Python twin's tests on anvil (not deployed)
/// @dev backend/economy/fee_schedule.py `split_fee` must give the same legs as this call.
contract FeeSplitHarness {
    function split(uint256 fee, uint16 centerBps, uint16 creatorBps, bool hasCenter, bool hasCreator)
        external
        pure
        returns (uint256 treasury, uint256 center, uint256 creator)
    {
        return FeeSplit.split(fee, centerBps, creatorBps, hasCenter, hasCreator);
    }
}
