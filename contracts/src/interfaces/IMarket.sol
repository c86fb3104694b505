// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title The resale market: fixed-price listings of avatars and accessories for DEW
/// @notice No escrow: a seller approves the market (`setApprovalForAll`) and lists; the item
///         stays with the seller until a buyer pays. On `buy` the market moves the buyer's DEW
///         straight to the royalty receiver (ERC-2981), the fee legs and the seller, and the
///         item from the seller to the buyer; it never holds tokens or DEW. A listing whose
///         seller no longer holds the item (or moved it since listing, even if it came back),
///         lost the approval, expired or was cancelled reverts with a named error and moves
///         nothing; so does a listed avatar whose equipped accessories changed, or a listed game
///         center whose description changed (a blank center placed), since it was listed: a
///         listing pins what the buyer saw. A rented avatar cannot be listed or sold at all
///         until its rental ends. `list`, `cancel` and `buy` are reentrancy-guarded.
interface IMarket {
    /// @notice What a token contract is to the market.
    enum Standard {
        None,
        ERC721,
        ERC1155
    }

    /// @notice Where a listing stands on chain (expiry and staleness are checked on `buy`).
    enum Status {
        None,
        Open,
        Sold,
        Cancelled
    }

    /// @notice One listing. `transferCount` and `equipped` are what it pins (24 and 96 bits):
    ///         an avatar's transfer count and equipped-word hash; a game center's transfer count
    ///         and description hash; for accessories, the seller's `moveCount` of the type.
    struct Listing {
        address seller;
        uint64 expiresAt;
        Status status;
        address token;
        uint96 amount;
        uint256 id;
        uint128 price;
        uint24 transferCount;
        uint96 equipped;
    }

    /// @notice The token is not tradable here.
    error MarketTokenNotAllowed(address token);
    /// @notice DEW or the zero address cannot be registered.
    error MarketTokenInvalid(address token);
    /// @notice A price must be between 1 wei and `MAX_PRICE`.
    error MarketPriceInvalid(uint256 price);
    /// @notice An ERC-721 listing is of 1; an ERC-1155 one of 1 to `MAX_AMOUNT`.
    error MarketAmountInvalid(uint256 amount);
    /// @notice A listing must expire in the future and within `MAX_DURATION`.
    error MarketExpiryInvalid(uint64 expiresAt);
    /// @notice The seller does not hold the item (or not that many).
    error MarketSellerNotOwner(uint256 listingId, address seller);
    /// @notice The seller has not approved the market for the token.
    error MarketNotApproved(address seller, address token);
    /// @notice The avatar is rented until `until`: it cannot be listed or sold before then.
    error MarketItemRented(uint256 id, uint64 until);
    /// @notice No such listing.
    error MarketUnknownListing(uint256 listingId);
    /// @notice The listing was sold or cancelled.
    error MarketListingNotOpen(uint256 listingId, Status status);
    /// @notice The listing expired at `expiresAt`.
    error MarketListingExpired(uint256 listingId, uint64 expiresAt);
    /// @notice The item moved since it was listed (even if back to the seller), or the
    ///         avatar's equipped accessories or the center's description changed.
    error MarketListingStale(uint256 listingId);
    /// @notice The price is above what the buyer accepted.
    error MarketPriceAboveMax(uint256 price, uint256 maxPrice);
    /// @notice Only the seller cancels a listing.
    error MarketNotSeller(uint256 listingId, address caller);
    /// @notice A seller cannot buy their own listing.
    error MarketSelfPurchase(uint256 listingId);
    /// @notice The fee would pass `MAX_FEE_BPS`.
    error MarketFeeTooHigh(uint16 feeBps);
    /// @notice The market is paused by its guardian.
    error MarketPaused();

    /// @notice A token contract was registered (or unregistered: standard None).
    event MarketTokenSet(address indexed token, Standard standard);
    /// @notice The market fee changed.
    event MarketFeeSet(uint16 feeBps);
    /// @notice The guardian paused or the admin unpaused the market.
    event MarketPausedSet(bool paused);
    /// @notice A listing was created.
    event Listed(
        uint256 indexed listingId,
        address indexed seller,
        address indexed token,
        uint256 id,
        uint256 amount,
        uint256 price,
        uint64 expiresAt
    );
    /// @notice The seller cancelled a listing.
    event Cancelled(uint256 indexed listingId);
    /// @notice A listing was bought: `price` from the buyer, of which `royalty` to the
    ///         token's ERC-2981 receiver, `fee` to the fee legs, the rest to the seller.
    event Sold(
        uint256 indexed listingId,
        address indexed buyer,
        address indexed seller,
        address token,
        uint256 id,
        uint256 amount,
        uint256 price,
        uint256 royalty,
        uint256 fee
    );

    /// @notice Registers a token contract (None unregisters). Only `DEFAULT_ADMIN_ROLE`.
    function setToken(address token, Standard standard) external;

    /// @notice Sets the market fee in basis points of the price (at most `MAX_FEE_BPS`).
    ///         Only `DEFAULT_ADMIN_ROLE`.
    function setFeeBps(uint16 newFeeBps) external;

    /// @notice Lists `amount` of `id` of `token` at `price` DEW wei until `expiresAt`. The
    ///         caller must hold the item and have approved the market. Returns the listing id.
    function list(address token, uint256 id, uint256 amount, uint256 price, uint64 expiresAt)
        external
        returns (uint256 listingId);

    /// @notice Cancels an open listing. Only its seller.
    function cancel(uint256 listingId) external;

    /// @notice Buys the whole listing for its price, at most `maxPrice` DEW wei (the buyer
    ///         approved the market for it).
    function buy(uint256 listingId, uint256 maxPrice) external;

    /// @notice Stops listing and buying. Only `GUARDIAN_ROLE`.
    function pause() external;

    /// @notice Resumes the market. Only `DEFAULT_ADMIN_ROLE`.
    function unpause() external;

    /// @notice A listing (all zero when unknown).
    function listing(uint256 listingId) external view returns (Listing memory);

    /// @notice How many listings exist (ids run from 1 to this).
    function listingCount() external view returns (uint256);

    /// @notice The market fee in basis points of the price.
    function feeBps() external view returns (uint16);

    /// @notice What `token` is to the market.
    function tokenStandard(address token) external view returns (Standard);

    /// @notice Whether the market is paused.
    function paused() external view returns (bool);
}
