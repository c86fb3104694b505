// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC1155} from "@openzeppelin/contracts/token/ERC1155/ERC1155.sol";
import {ERC2981} from "@openzeppelin/contracts/token/common/ERC2981.sol";
import {DEWAccessControl} from "./access/DEWAccessControl.sol";
import {IAccessories} from "./interfaces/IAccessories.sol";
import {IAvatarNFT} from "./interfaces/IAvatarNFT.sol";
import {IShopMintable} from "./interfaces/IShopMintable.sol";

/// @title Avatar accessories: cosmetic ERC-1155 types, equipped onto avatars
/// @dev Equipping moves one token from the owner to this contract and records it under the
///      avatar's id, in one word per avatar: eight 32-bit lanes, each a type id or 0 (empty),
///      so an equip or unequip reads and writes a single slot; nothing else ever sends tokens here (this contract does not accept ERC-1155
///      transfers), so its balance of a type is exactly the number equipped. Equipped items need
///      no hook on the avatar: they belong to `avatar.ownerOf(avatarId)` whoever that is now.
///      Chosen over ERC-6551 token-bound accounts by gas (docs/contracts.md, "Accessories").
contract Accessories is ERC1155, ERC2981, DEWAccessControl, IAccessories, IShopMintable {
    /// @notice Defines types (the operator).
    bytes32 public constant CATALOG_ROLE = keccak256("CATALOG_ROLE");
    /// @notice Held by the first-sale shop only: it mints within each type's cap.
    bytes32 public constant SHOP_ROLE = keccak256("SHOP_ROLE");
    /// @notice The most distinct types one avatar wears: the lanes of its equipped word.
    uint256 public constant MAX_EQUIPPED = 8;
    /// @notice Type ids fit a 32-bit lane.
    uint256 public constant MAX_TYPE_ID = type(uint32).max;
    uint256 private constant LANE_BITS = 32;
    uint256 private constant LANE_MASK = type(uint32).max;
    /// @notice The largest supply cap of one type.
    uint256 public constant MAX_TYPE_SUPPLY = 1_000_000_000;
    /// @notice The highest royalty the admin may set: 10% of a resale price.
    uint96 public constant MAX_ROYALTY_BPS = 1000;
    /// @notice The royalty until the admin sets one: 5%.
    uint96 public constant DEFAULT_ROYALTY_BPS = 500;

    /// @dev One slot per type: its cap and how many were minted.
    struct TypeInfo {
        uint128 maxSupply;
        uint128 totalSupply;
    }

    /// @notice The avatars accessories are equipped onto.
    IAvatarNFT public immutable avatar;

    mapping(uint256 typeId => TypeInfo) private _types;
    mapping(uint256 typeId => string) private _uris;
    /// @dev Eight 32-bit lanes per avatar, each an equipped type id or 0.
    mapping(uint256 avatarId => uint256) private _equipped;
    /// @dev How many times each holder's tokens of a type moved out (the market pins it).
    mapping(address holder => mapping(uint256 typeId => uint256)) private _moves;

    constructor(address admin, IAvatarNFT avatar_) ERC1155("") DEWAccessControl(admin) {
        avatar = avatar_;
        _setDefaultRoyalty(admin, DEFAULT_ROYALTY_BPS);
    }

    /// @inheritdoc IAccessories
    function defineType(uint256 typeId, uint256 maxSupply_, string calldata uri_) external onlyRole(CATALOG_ROLE) {
        if (typeId == 0 || typeId > MAX_TYPE_ID) revert AccessoryTypeInvalid(typeId);
        if (_types[typeId].maxSupply != 0) revert AccessoryTypeExists(typeId);
        if (maxSupply_ == 0 || maxSupply_ > MAX_TYPE_SUPPLY) revert AccessoryMaxSupplyInvalid(maxSupply_);
        _types[typeId].maxSupply = uint128(maxSupply_);
        _uris[typeId] = uri_;
        emit TypeDefined(typeId, maxSupply_, uri_);
        emit URI(uri_, typeId);
    }

    /// @inheritdoc IShopMintable
    /// @dev The receiver's ERC-1155 callback runs last, after the supply is counted.
    function shopMint(address to, uint256 itemId, uint256 amount, bytes calldata data)
        external
        onlyRole(SHOP_ROLE)
        returns (uint256 tokenId)
    {
        TypeInfo memory info = _types[itemId];
        if (info.maxSupply == 0) revert AccessoryTypeUnknown(itemId);
        if (amount == 0) revert AccessoryZeroAmount();
        if (amount > info.maxSupply - info.totalSupply) {
            revert AccessorySupplyExceeded(itemId, info.totalSupply, amount, info.maxSupply);
        }
        // Safe: checked against the cap just above.
        _types[itemId].totalSupply = uint128(info.totalSupply + amount);
        _mint(to, itemId, amount, data);
        return itemId;
    }

    /// @inheritdoc IAccessories
    function equip(uint256 avatarId, uint256 typeId) external {
        // Out of the lanes' range: never defined (a type in range that is undefined is refused
        // below by the caller's zero balance).
        if (typeId == 0 || typeId > MAX_TYPE_ID) revert AccessoryTypeUnknown(typeId);
        _checkAvatarOwner(avatarId);
        uint256 word = _equipped[avatarId];
        (uint256 lane, uint256 free) = _find(word, typeId);
        if (lane != MAX_EQUIPPED) revert AccessoryAlreadyEquipped(avatarId, typeId);
        if (free == MAX_EQUIPPED) revert AccessoryTooManyEquipped(avatarId, MAX_EQUIPPED);
        _equipped[avatarId] = word | typeId << (free * LANE_BITS);
        // No acceptance check: this contract is the receiver. Reverts on a short balance.
        _update(msg.sender, address(this), _asSingletonArray(typeId), _asSingletonArray(1));
        emit Equipped(avatarId, typeId, msg.sender);
    }

    /// @inheritdoc IAccessories
    function unequip(uint256 avatarId, uint256 typeId) external {
        _checkAvatarOwner(avatarId);
        uint256 word = _equipped[avatarId];
        (uint256 lane,) = _find(word, typeId);
        if (lane == MAX_EQUIPPED) revert AccessoryNotEquipped(avatarId, typeId);
        _equipped[avatarId] = word & ~(LANE_MASK << (lane * LANE_BITS));
        emit Unequipped(avatarId, typeId, msg.sender);
        // Last: the owner's ERC-1155 callback runs after the record is cleared.
        _safeTransferFrom(address(this), msg.sender, typeId, 1, "");
    }

    /// @inheritdoc IAccessories
    function setRoyalty(address receiver, uint96 bps) external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (bps > MAX_ROYALTY_BPS) revert AccessoryRoyaltyTooHigh(bps, MAX_ROYALTY_BPS);
        _setDefaultRoyalty(receiver, bps);
        emit RoyaltySet(receiver, bps);
    }

    /// @inheritdoc IAccessories
    function equippedOf(uint256 avatarId) external view returns (uint256[] memory types) {
        uint256 word = _equipped[avatarId];
        types = new uint256[](MAX_EQUIPPED);
        uint256 n;
        for (uint256 lane; lane < MAX_EQUIPPED; ++lane) {
            uint256 typeId = (word >> (lane * LANE_BITS)) & LANE_MASK;
            if (typeId != 0) types[n++] = typeId;
        }
        // Trim the array to the types found.
        assembly ("memory-safe") {
            mstore(types, n)
        }
    }

    /// @inheritdoc IAccessories
    function equippedWord(uint256 avatarId) external view returns (uint256) {
        return _equipped[avatarId];
    }

    /// @inheritdoc IAccessories
    function isEquipped(uint256 avatarId, uint256 typeId) external view returns (bool) {
        (uint256 lane,) = _find(_equipped[avatarId], typeId);
        return lane != MAX_EQUIPPED;
    }

    /// @inheritdoc IAccessories
    function moveCount(address holder, uint256 typeId) external view returns (uint256) {
        return _moves[holder][typeId];
    }

    /// @inheritdoc IAccessories
    function maxSupply(uint256 typeId) external view returns (uint256) {
        return _types[typeId].maxSupply;
    }

    /// @inheritdoc IAccessories
    function totalSupply(uint256 typeId) external view returns (uint256) {
        return _types[typeId].totalSupply;
    }

    /// @notice The metadata URI of `typeId` (empty when undefined).
    function uri(uint256 typeId) public view override returns (string memory) {
        return _uris[typeId];
    }

    function supportsInterface(bytes4 interfaceId)
        public
        view
        override(ERC1155, ERC2981, DEWAccessControl)
        returns (bool)
    {
        return super.supportsInterface(interfaceId);
    }

    /// @dev The one transfer hook: counts each move out of a holder (equips included; mints and
    ///      this contract's own unequips are not a holder's move).
    function _update(address from, address to, uint256[] memory ids, uint256[] memory values) internal override {
        super._update(from, to, ids, values);
        if (from != address(0) && from != address(this)) {
            for (uint256 i; i < ids.length; ++i) {
                // Safe: one per move, far below 2**256.
                unchecked {
                    ++_moves[from][ids[i]];
                }
            }
        }
    }

    /// @dev The caller owns the avatar and the avatar is not rented (a lock still in force).
    function _checkAvatarOwner(uint256 avatarId) private view {
        address owner = avatar.ownerOf(avatarId);
        if (owner != msg.sender) revert AccessoryNotAvatarOwner(avatarId, msg.sender, owner);
        uint64 until = avatar.rentedUntil(avatarId);
        if (until > block.timestamp) revert AccessoryAvatarRented(avatarId, until);
    }

    /// @dev The lane holding `typeId` and the first empty lane (MAX_EQUIPPED: none). Type 0 is
    ///      never found (it marks an empty lane and is never defined).
    function _find(uint256 word, uint256 typeId) private pure returns (uint256 lane, uint256 free) {
        (lane, free) = (MAX_EQUIPPED, MAX_EQUIPPED);
        if (typeId == 0 || typeId > MAX_TYPE_ID) return (lane, free);
        for (uint256 i; i < MAX_EQUIPPED; ++i) {
            uint256 held = (word >> (i * LANE_BITS)) & LANE_MASK;
            if (held == typeId) lane = i;
            else if (held == 0 && free == MAX_EQUIPPED) free = i;
        }
    }

    function _asSingletonArray(uint256 value) private pure returns (uint256[] memory array) {
        array = new uint256[](1);
        array[0] = value;
    }
}
