// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {IERC20Metadata} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Metadata.sol";
import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";

/// @title DEW, the game's reward token
/// @notice ERC-20 "Domino Earning World" / "DEW" (18 decimals) with ERC-2612 permit, a hard
///         cap on supply, a minter role, and `disperse` for cheap one-to-many payments.
///         Errors are OpenZeppelin's ERC-6093 ones (`ERC20InsufficientBalance` etc.).
interface IDEWToken is IERC20Metadata, IERC20Permit, IERC20Errors {
    /// @notice Minting would take the total supply past the cap.
    error DEWCapExceeded(uint256 supply, uint256 cap);
    /// @notice `disperse` was given a word whose amount or recipient is zero, or whose
    ///         recipient is the sender.
    /// @param index Position of the bad word in the list.
    error DEWInvalidTransfer(uint256 index);
    /// @notice The permit's deadline has passed.
    error ERC2612ExpiredSignature(uint256 deadline);
    /// @notice The permit was not signed by the owner.
    error ERC2612InvalidSigner(address signer, address owner);

    /// @notice Mints `amount` to `to`. Only `MINTER_ROLE`; reverts past the cap.
    function mint(address to, uint256 amount) external;

    /// @notice Sends from the caller to many recipients in one call; one `Transfer` per recipient.
    /// @dev Each word is `amount << 160 | recipient` (amount: 96 bits; not zero; the recipient is
    ///      neither zero nor the caller). The caller's balance is
    ///      checked and debited once, for the total, after the recipients are credited; the
    ///      result is the same as one `transfer` per word. The reward vault pays through it.
    /// @return total The sum of all amounts sent.
    function disperse(uint256[] calldata transfers) external returns (uint256 total);

    /// @notice The most DEW that can ever exist.
    function cap() external view returns (uint256);

    /// @notice The role allowed to mint.
    function MINTER_ROLE() external view returns (bytes32);
}
