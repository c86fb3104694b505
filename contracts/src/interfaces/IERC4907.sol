// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title ERC-4907 rental extension of ERC-721 (interface id 0xad092b5c)
interface IERC4907 {
    /// @notice Emitted when the user of an NFT or its expiry changes (user 0 means none).
    event UpdateUser(uint256 indexed tokenId, address indexed user, uint64 expires);

    /// @notice Sets the user and the time the use expires. Owner or approved only.
    function setUser(uint256 tokenId, address user, uint64 expires) external;

    /// @notice The current user of an NFT, or the zero address when none or expired.
    function userOf(uint256 tokenId) external view returns (address);

    /// @notice The expiry of the current user; 0 when there is none.
    function userExpires(uint256 tokenId) external view returns (uint256);
}
