// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

/// @title DEW, the game's reward token
/// @notice ERC-20 "Domino Earning World" / "DEW" with ERC-2612 permit, a hard cap and a minter role.
interface IDEWToken is IERC20 {
    /// @notice `disperse` was given a word whose amount or recipient is zero.
    /// @param index Position of the bad word in the list.
    error DEWInvalidTransfer(uint256 index);

    /// @notice Mints `amount` to `to`. Only `MINTER_ROLE`; reverts past the cap.
    function mint(address to, uint256 amount) external;

    /// @notice Sends from the caller to many recipients in one call; one `Transfer` per recipient.
    /// @dev Each word is `amount << 160 | recipient` (amount: 96 bits). Cheaper than separate
    ///      `transfer` transactions because the call, the caller's balance slot and the loop
    ///      overhead are paid once. The reward vault settles matches through it.
    /// @return total The sum of all amounts sent.
    function disperse(uint256[] calldata transfers) external returns (uint256 total);

    /// @notice The role allowed to mint.
    function MINTER_ROLE() external view returns (bytes32);
}
