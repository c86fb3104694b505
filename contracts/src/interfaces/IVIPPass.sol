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

    /// @notice Grants `holder` a pass until at least `expiresAt` (the operator's grant). Never
    ///         shortens the pass: a grant ending before the current one changes nothing, and the
    ///         part the shop sold is left alone. Only `ISSUER_ROLE`.
    function issue(address holder, uint64 expiresAt) external;

    /// @notice Extends the part of `holder`'s pass bought in the shop to at least `until`.
    ///         Only `SHOP_ROLE` (the shop contract).
    function issuePaid(address holder, uint64 until) external;

    /// @notice Ends the operator's grant on `holder`'s pass; the pass is burnt unless a paid part
    ///         still runs (then `PassIssued` reports the remaining expiry). Only `ISSUER_ROLE`.
    function revoke(address holder) external;

    /// @notice Ends the paid part of `holder`'s pass (a refund, a fraud); burnt unless a grant
    ///         still runs. Only `DEFAULT_ADMIN_ROLE`: the hot issuer key cannot cancel what was paid.
    function revokePaid(address holder) external;

    /// @notice True while `holder` has a pass that has not expired.
    function isValid(address holder) external view returns (bool);

    /// @notice When `holder`'s pass expires (0 when none): the later of its two parts.
    function expiresAt(address holder) external view returns (uint64);

    /// @notice Until when the part bought in the shop runs (0: none).
    function paidUntil(address holder) external view returns (uint64);

    /// @notice Until when the operator's grant runs (0: none).
    function grantedUntil(address holder) external view returns (uint64);

    /// @notice The ERC-1155 id of the VIP tier.
    function VIP_TIER() external view returns (uint256);

    function ISSUER_ROLE() external view returns (bytes32);

    function SHOP_ROLE() external view returns (bytes32);
}
