// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title VIP pass: one soulbound ERC-1155 tier with an expiry per holder
/// @notice The match server gates VIP tables on `isValid(holder)`.
interface IVIPPass {
    /// @notice Passes are bound to their holder.
    error VIPPassNonTransferable(address from, address to);
    /// @notice A pass must be issued for a real holder and expire in the future.
    error VIPPassInvalidIssue(address holder, uint64 expiresAt);
    /// @notice There is no pass to revoke.
    error VIPPassNotHeld(address holder);

    /// @notice A pass was issued or its expiry changed.
    event PassIssued(address indexed holder, uint64 expiresAt);
    /// @notice A pass was revoked.
    event PassRevoked(address indexed holder);

    /// @notice Issues (or re-dates) `holder`'s pass to expire at `expiresAt`. Only `ISSUER_ROLE`.
    function issue(address holder, uint64 expiresAt) external;

    /// @notice Takes `holder`'s pass away. Only `ISSUER_ROLE`.
    function revoke(address holder) external;

    /// @notice True while `holder` has a pass that has not expired.
    function isValid(address holder) external view returns (bool);

    /// @notice When `holder`'s pass expires (0 when none).
    function expiresAt(address holder) external view returns (uint64);

    /// @notice The ERC-1155 id of the VIP tier.
    function VIP_TIER() external view returns (uint256);

    function ISSUER_ROLE() external view returns (bytes32);
}
