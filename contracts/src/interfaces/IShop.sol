// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title The first-sale shop: avatars, accessories and VIP passes for DEW
/// @notice The operator lists item types at a DEW price with a supply; a buyer approves DEW to
///         the shop and calls `buy`, which moves the price from the buyer straight to the
///         treasury and mints the item to the buyer in the same transaction. The shop holds
///         SHOP_ROLE on the item contracts the admin registered and on VIPPass,
///         never any DEW right; it never holds DEW or items.
interface IShop {
    /// @notice What an item contract is to the shop: unknown, an `IShopMintable`, or VIPPass.
    enum ItemKind {
        None,
        Mintable,
        VipPass
    }

    /// @notice The item contract is not registered (or is DEW, which never is).
    error ShopItemNotAllowed(address item);
    /// @notice A price must be between 1 wei and `MAX_PRICE`.
    error ShopPriceInvalid(uint256 price);
    /// @notice A supply must be at least 1.
    error ShopSupplyInvalid(uint32 supply);
    /// @notice A VIP listing needs a term between 1 day and `MAX_VIP_TERM`; others none.
    error ShopVipTermInvalid(uint64 vipTerm);
    /// @notice No such listing.
    error ShopUnknownListing(uint256 listingId);
    /// @notice The listing is closed.
    error ShopListingClosed(uint256 listingId);
    /// @notice The listing's supply is sold out.
    error ShopSoldOut(uint256 listingId, uint32 supply);
    /// @notice The price is above what the buyer accepted.
    error ShopPriceAboveMax(uint256 price, uint256 maxPrice);
    /// @notice The shop is paused by its guardian.
    error ShopPaused();
    /// @notice DEW cannot be registered as an item, nor the zero address.
    error ShopItemInvalid(address item);

    /// @notice An item contract was registered (or unregistered: kind None).
    event ShopItemSet(address indexed item, ItemKind kind);
    /// @notice A listing was created.
    event ShopListed(
        uint256 indexed listingId, address indexed item, uint256 itemId, uint256 price, uint32 supply, uint64 vipTerm
    );
    /// @notice A listing's price or open flag changed.
    event ShopListingUpdated(uint256 indexed listingId, uint256 price, bool open);
    /// @notice `buyer` paid `price` DEW to the treasury and received `tokenId` of `item`.
    event ShopPurchase(
        uint256 indexed listingId, address indexed buyer, address indexed item, uint256 tokenId, uint256 price
    );
    /// @notice The guardian paused or the admin unpaused sales.
    event ShopPausedSet(bool paused);

    /// @notice One listing: what is sold, at what price, how many, and the VIP term.
    struct Listing {
        address item;
        uint32 supply;
        uint32 sold;
        ItemKind kind;
        bool open;
        uint128 price;
        uint64 vipTerm;
        uint256 itemId;
    }

    /// @notice Registers `item` as `kind` (None unregisters). Only `DEFAULT_ADMIN_ROLE`.
    function setItem(address item, ItemKind kind) external;

    /// @notice Lists `supply` of `itemId` of `item` at `price` DEW wei; a VIP listing sells
    ///         passes of `vipTerm` seconds. Only `LISTER_ROLE`. Returns the listing id (from 1).
    function list(address item, uint256 itemId, uint256 price, uint32 supply, uint64 vipTerm)
        external
        returns (uint256 listingId);

    /// @notice Changes a listing's price, opens or closes it. Only `LISTER_ROLE`.
    function setListing(uint256 listingId, uint256 price, bool open) external;

    /// @notice Buys one item of `listingId` for at most `maxPrice` DEW wei (the buyer approved
    ///         the shop for the price). Returns the minted token id (the accessory type; the
    ///         VIP tier for a pass).
    function buy(uint256 listingId, uint256 maxPrice) external returns (uint256 tokenId);

    /// @notice Stops every purchase. Only `GUARDIAN_ROLE`.
    function pause() external;

    /// @notice Resumes purchases. Only `DEFAULT_ADMIN_ROLE`.
    function unpause() external;

    /// @notice A listing (all zero when unknown).
    function listing(uint256 listingId) external view returns (Listing memory);

    /// @notice How many listings exist (ids run from 1 to this).
    function listingCount() external view returns (uint256);

    /// @notice What `item` is to the shop.
    function itemKind(address item) external view returns (ItemKind);

    /// @notice Whether purchases are paused.
    function paused() external view returns (bool);
}
