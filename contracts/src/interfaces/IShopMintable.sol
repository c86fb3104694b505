// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title What the shop may mint: avatars, accessories, game centers (never DEW)
/// @notice The first-sale shop (Shop.sol) holds each item contract's SHOP_ROLE and nothing
///         else; it calls `shopMint` in the same transaction that moves the buyer's DEW to the
///         treasury.
interface IShopMintable {
    /// @notice Mints `amount` of item `itemId` to `to` for the shop (only the contract's SHOP_ROLE).
    ///         Avatars and Game Centers ignore itemId/amount==1 and return the new token id;
    ///         accessories mint `amount` of type `itemId` and return itemId.
    function shopMint(address to, uint256 itemId, uint256 amount, bytes calldata data)
        external
        returns (uint256 tokenId);
}
