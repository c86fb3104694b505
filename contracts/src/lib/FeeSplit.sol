// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title How a fee is cut into its treasury, center and creator legs
/// @dev The one split of SPEC A5 (its Python twin is backend/economy/fee_schedule.py
///      `split_fee`). `centerBps` and `creatorBps` are shares of the fee, in basis points of it;
///      the legs always sum to `fee` exactly: each share rounds down, the treasury takes the
///      remainder, and a missing center or creator's share goes to the treasury.
library FeeSplit {
    uint256 internal constant BPS = 10_000;

    /// @notice The shares name more than the whole fee.
    error FeeSplitBpsTooHigh(uint256 centerBps, uint256 creatorBps);

    function split(uint256 fee, uint16 centerBps, uint16 creatorBps, bool hasCenter, bool hasCreator)
        internal
        pure
        returns (uint256 treasury, uint256 center, uint256 creator)
    {
        if (uint256(centerBps) + creatorBps > BPS) revert FeeSplitBpsTooHigh(centerBps, creatorBps);
        if (hasCenter) center = fee * centerBps / BPS;
        if (hasCreator) creator = fee * creatorBps / BPS;
        // Safe: center + creator <= fee * (centerBps + creatorBps) / BPS <= fee.
        unchecked {
            treasury = fee - center - creator;
        }
    }
}
