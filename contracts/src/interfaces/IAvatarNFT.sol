// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC721} from "@openzeppelin/contracts/token/ERC721/IERC721.sol";
import {IERC4907} from "./IERC4907.sol";

/// @title DEW player avatars
/// @notice ERC-721 + ERC-4907 avatars, minted in cheap batches. The scholarship registry rents
///         them out: while a rental is active neither the owner nor an approved operator can
///         transfer the avatar or change its user, closing ERC-4907's "owner takes it back" gap.
interface IAvatarNFT is IERC721, IERC4907 {
    /// @notice The avatar is rented out until `until`; it cannot move or change user before then.
    error AvatarRented(uint256 tokenId, uint64 until);
    /// @notice A rental must end in the future.
    error AvatarRentalExpired(uint64 expires, uint256 nowTimestamp);
    /// @notice A rental may last at most `MAX_RENTAL` (365 days): it must end by `maxExpires`.
    error AvatarRentalTooLong(uint64 expires, uint256 maxExpires);
    /// @notice Only the registry that set a rental lock may clear it (`locker`; zero: no lock).
    error AvatarNotLockedBy(uint256 tokenId, address caller, address locker);
    /// @notice `mintBatch` was called with no recipients.
    error AvatarEmptyBatch();

    /// @notice The shop mints avatars one at a time (`shopMint` with amount 1).
    error AvatarShopAmount(uint256 amount);
    /// @notice A royalty above the hard cap (`MAX_ROYALTY_BPS`, 10%).
    error AvatarRoyaltyTooHigh(uint96 bps, uint96 maxBps);

    /// @notice The ERC-2981 royalty on resales changed.
    event RoyaltySet(address indexed receiver, uint96 bps);
    /// @notice An avatar was locked to `user` by the rental role until `expires`.
    event AvatarRentalStarted(uint256 indexed tokenId, address indexed user, uint64 expires);
    /// @notice The rental role released an avatar early (or after expiry).
    event AvatarRentalEnded(uint256 indexed tokenId);
    /// @notice The metadata base URI changed.
    event BaseURIUpdated(string baseURI);

    /// @notice Mints one avatar per recipient; ids are consecutive from `firstTokenId` (ids start
    ///         at 1). One `Transfer(0, recipient, id)` per avatar. Only `MINTER_ROLE`.
    /// @dev Consecutive equal recipients share one ownership record (up to 32 ids per record),
    ///      so a run costs about one storage write plus one event per avatar. Receivers are not
    ///      called back (like `_mint`).
    function mintBatch(address[] calldata recipients) external returns (uint256 firstTokenId);

    /// @notice Locks `tokenId` to `user` until `expires` (at most `MAX_RENTAL` from now): sets
    ///         the ERC-4907 user, blocks transfers and `setUser` until then. Only `RENTAL_ROLE`
    ///         (the scholarship registry), which becomes the lock's holder.
    function startRental(uint256 tokenId, address user, uint64 expires) external;

    /// @notice Ends a rental early: clears the lock and the user. Only the holder of a lock
    ///         still in force (another registry cannot release it, and an expired lock is not
    ///         cleared over a user the owner has set since); it needs no role, so a registry
    ///         whose `RENTAL_ROLE` was revoked still lets its scholars terminate.
    function endRental(uint256 tokenId) external;

    /// @notice The time until which `tokenId` is locked by a rental (0 or past when free).
    function rentedUntil(uint256 tokenId) external view returns (uint64);

    /// @notice The registry that set `tokenId`'s rental lock (zero when there is none).
    function rentalLocker(uint256 tokenId) external view returns (address);

    /// @notice Sets the metadata base URI. Only `DEFAULT_ADMIN_ROLE`.
    function setBaseURI(string calldata baseURI) external;

    /// @notice Sets the ERC-2981 royalty every resale pays: `bps` of the price to `receiver`
    ///         (the treasury). At most `MAX_ROYALTY_BPS` (10%). Only `DEFAULT_ADMIN_ROLE`.
    function setRoyalty(address receiver, uint96 bps) external;

    /// @notice The next id `mintBatch` will assign.
    function nextTokenId() external view returns (uint256);

    /// @notice How many times the avatar has been transferred (a 24-bit counter that wraps);
    ///         offers record it, so any transfer voids them.
    function transferCount(uint256 tokenId) external view returns (uint256);

    function MINTER_ROLE() external view returns (bytes32);
    function RENTAL_ROLE() external view returns (bytes32);
    function SHOP_ROLE() external view returns (bytes32);
}
