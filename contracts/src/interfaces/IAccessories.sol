// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title Avatar accessories: ERC-1155 types with a supply cap, equipped onto avatars
/// @notice An equipped accessory is held by the Accessories contract itself, keyed by the
///         avatar's id, so it belongs to whoever owns the avatar: it travels with the avatar
///         when the avatar is sold, and only the avatar's current owner can take it off. While
///         the avatar is rented (an active scholarship) nothing is equipped or removed.
interface IAccessories {
    /// @notice Type ids run from 1 to `MAX_TYPE_ID` (2**32 - 1).
    error AccessoryTypeInvalid(uint256 typeId);
    /// @notice The type was already defined.
    error AccessoryTypeExists(uint256 typeId);
    /// @notice The type is not defined.
    error AccessoryTypeUnknown(uint256 typeId);
    /// @notice A type's supply cap must be between 1 and `MAX_TYPE_SUPPLY`.
    error AccessoryMaxSupplyInvalid(uint256 maxSupply);
    /// @notice Minting `amount` more would pass the type's supply cap.
    error AccessorySupplyExceeded(uint256 typeId, uint256 totalSupply, uint256 amount, uint256 maxSupply);
    /// @notice A mint of nothing.
    error AccessoryZeroAmount();
    /// @notice Only the avatar's current owner equips and unequips it.
    error AccessoryNotAvatarOwner(uint256 avatarId, address caller, address owner);
    /// @notice The avatar is rented out until `until`: nothing is equipped or removed before then.
    error AccessoryAvatarRented(uint256 avatarId, uint64 until);
    /// @notice That type is already on the avatar (one of each type).
    error AccessoryAlreadyEquipped(uint256 avatarId, uint256 typeId);
    /// @notice That type is not on the avatar.
    error AccessoryNotEquipped(uint256 avatarId, uint256 typeId);
    /// @notice The avatar already wears `MAX_EQUIPPED` distinct types.
    error AccessoryTooManyEquipped(uint256 avatarId, uint256 maxEquipped);
    /// @notice A royalty above the hard cap (`MAX_ROYALTY_BPS`, 10%).
    error AccessoryRoyaltyTooHigh(uint96 bps, uint96 maxBps);

    /// @notice A type was defined with its supply cap and metadata URI.
    event TypeDefined(uint256 indexed typeId, uint256 maxSupply, string uri);
    /// @notice One of `typeId` was put on `avatarId` by its owner.
    event Equipped(uint256 indexed avatarId, uint256 indexed typeId, address indexed owner);
    /// @notice One of `typeId` was taken off `avatarId` and returned to its owner.
    event Unequipped(uint256 indexed avatarId, uint256 indexed typeId, address indexed owner);
    /// @notice The ERC-2981 royalty on resales changed.
    event RoyaltySet(address indexed receiver, uint96 bps);

    /// @notice Defines type `typeId` (1 to 2**32 - 1, once) with a supply cap and a metadata URI.
    ///         Only `CATALOG_ROLE`.
    function defineType(uint256 typeId, uint256 supplyCap, string calldata uri) external;

    /// @notice Puts one of `typeId` from the caller's balance onto `avatarId`. Only the
    ///         avatar's owner, not while it is rented, at most one of each type and
    ///         `MAX_EQUIPPED` types per avatar.
    function equip(uint256 avatarId, uint256 typeId) external;

    /// @notice Takes `typeId` off `avatarId` and sends it to the caller, the avatar's owner;
    ///         not while the avatar is rented.
    function unequip(uint256 avatarId, uint256 typeId) external;

    /// @notice Sets the ERC-2981 royalty on resales (at most 10%). Only `DEFAULT_ADMIN_ROLE`.
    function setRoyalty(address receiver, uint96 bps) external;

    /// @notice The types equipped on `avatarId` (at most `MAX_EQUIPPED`), in lane order.
    function equippedOf(uint256 avatarId) external view returns (uint256[] memory);

    /// @notice The packed equipped set of `avatarId`: eight 32-bit lanes, each a type id or 0.
    ///         The market pins it when an avatar is listed.
    function equippedWord(uint256 avatarId) external view returns (uint256);

    /// @notice Whether `typeId` is on `avatarId`.
    function isEquipped(uint256 avatarId, uint256 typeId) external view returns (bool);

    /// @notice How many times `holder`'s tokens of `typeId` moved out (a sale, a transfer, an
    ///         equip): the market's listings pin it, so a listing goes stale once the holding
    ///         moved, even if it came back.
    function moveCount(address holder, uint256 typeId) external view returns (uint256);

    /// @notice The supply cap of `typeId` (0: undefined).
    function maxSupply(uint256 typeId) external view returns (uint256);

    /// @notice How many of `typeId` were ever minted (nothing is burned).
    function totalSupply(uint256 typeId) external view returns (uint256);
}
