// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {DEWAccessControl} from "./access/DEWAccessControl.sol";
import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";
import {ERC2981} from "@openzeppelin/contracts/token/common/ERC2981.sol";
import {IERC165} from "@openzeppelin/contracts/utils/introspection/IERC165.sol";
import {IERC4907} from "./interfaces/IERC4907.sol";
import {IGameCenter} from "./interfaces/IGameCenter.sol";
import {IShopMintable} from "./interfaces/IShopMintable.sol";

/// @title DEW Game Centers (ERC-721 + ERC-4907 + ERC-2981)
/// @dev The rental lock is AvatarNFT's, with the same selectors (`startRental`, `endRental`,
///      `transferCount`, `ownerOf`), so an unchanged ScholarshipRegistry deployed over this
///      contract rents centers out under Fixed Rent (the decision and its gas: docs/contracts.md).
contract GameCenter is ERC721, ERC2981, DEWAccessControl, IGameCenter, IShopMintable {
    bytes32 public constant MINTER_ROLE = keccak256("MINTER_ROLE");
    bytes32 public constant SHOP_ROLE = keccak256("SHOP_ROLE");
    bytes32 public constant RENTAL_ROLE = keccak256("RENTAL_ROLE");
    uint256 public constant MAX_NAME_BYTES = 64;
    uint256 public constant MAX_CITY_BYTES = 64;
    int32 public constant MAX_LAT_E2 = 9000;
    int32 public constant MAX_LON_E2 = 18_000;
    uint16 public constant MIN_CAPACITY = 1;
    uint16 public constant MAX_CAPACITY = 500;
    /// @notice The capacity of a blank center sold by the shop (its buyer places it).
    uint16 public constant SHOP_CAPACITY = 8;
    uint64 public constant MAX_RENTAL = 365 days;
    uint96 public constant MAX_ROYALTY_BPS = 1000;
    uint96 public constant DEFAULT_ROYALTY_BPS = 500;

    /// @dev As AvatarNFT's: `rented` marks a lock set by the rental role; `transfers` counts moves.
    struct UserInfo {
        address user;
        uint64 expires;
        bool rented;
        uint24 transfers;
    }

    uint256 private _nextTokenId = 1;
    string private _baseTokenURI;
    mapping(uint256 centerId => Center) private _centers;
    mapping(uint256 centerId => UserInfo) private _users;
    mapping(uint256 centerId => address registry) private _locker;

    constructor(address admin, string memory baseURI_) ERC721("DEW Game Center", "DEWGC") DEWAccessControl(admin) {
        _baseTokenURI = baseURI_;
        _setDefaultRoyalty(admin, DEFAULT_ROYALTY_BPS);
    }

    /// @inheritdoc IGameCenter
    function mintCenter(
        address to,
        string calldata name,
        bytes2 country,
        string calldata city,
        int32 latE2,
        int32 lonE2,
        uint16 capacity
    ) external onlyRole(MINTER_ROLE) returns (uint256 centerId) {
        Center memory c = Center(name, city, country, latE2, lonE2, capacity);
        _checkDescription(c);
        centerId = _mintCenter(to, c);
    }

    /// @inheritdoc IShopMintable
    /// @dev `itemId` is ignored. `data` empty: a blank center of `SHOP_CAPACITY` tables that its
    ///      owner places once; otherwise `abi.encode(name, country, city, latE2, lonE2, capacity)`.
    ///      Minted without a receiver callback, so a buyer contract cannot re-enter the shop.
    function shopMint(address to, uint256, uint256 amount, bytes calldata data)
        external
        onlyRole(SHOP_ROLE)
        returns (uint256 centerId)
    {
        if (amount != 1) revert GameCenterShopAmount(amount);
        Center memory c = Center({name: "", city: "", country: 0, latE2: 0, lonE2: 0, capacity: SHOP_CAPACITY});
        if (data.length != 0) {
            // Six head words and at least one tail word per string; abi.decode checks the rest.
            if (data.length < 8 * 32) revert GameCenterInvalidDescription(data.length);
            (c.name, c.country, c.city, c.latE2, c.lonE2, c.capacity) =
                abi.decode(data, (string, bytes2, string, int32, int32, uint16));
            _checkDescription(c);
        }
        centerId = _mintCenter(to, c);
    }

    /// @inheritdoc IGameCenter
    function place(
        uint256 centerId,
        string calldata name,
        bytes2 country,
        string calldata city,
        int32 latE2,
        int32 lonE2
    ) external {
        address owner = _requireOwned(centerId);
        _checkAuthorized(owner, msg.sender, centerId);
        UserInfo storage info = _users[centerId];
        if (info.rented && block.timestamp < info.expires) revert GameCenterRented(centerId, info.expires);
        Center storage c = _centers[centerId];
        if (c.country != 0) revert GameCenterAlreadyPlaced(centerId);
        Center memory placed = Center(name, city, country, latE2, lonE2, c.capacity);
        _checkDescription(placed);
        _centers[centerId] = placed;
        emit CenterPlaced(centerId, msg.sender, name, country, city, latE2, lonE2);
    }

    /// @inheritdoc IGameCenter
    function setRoyalty(address receiver, uint96 bps) external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (bps > MAX_ROYALTY_BPS) revert GameCenterRoyaltyTooHigh(bps, MAX_ROYALTY_BPS);
        _setDefaultRoyalty(receiver, bps);
        emit RoyaltySet(receiver, bps);
    }

    /// @inheritdoc IERC4907
    function setUser(uint256 centerId, address user, uint64 expires) external {
        address owner = _requireOwned(centerId);
        _checkAuthorized(owner, msg.sender, centerId);
        UserInfo storage info = _users[centerId];
        if (info.rented && block.timestamp < info.expires) revert GameCenterRented(centerId, info.expires);
        (info.user, info.expires, info.rented) = (user, expires, false);
        emit UpdateUser(centerId, user, expires);
    }

    /// @inheritdoc IGameCenter
    function startRental(uint256 centerId, address user, uint64 expires) external onlyRole(RENTAL_ROLE) {
        _requireOwned(centerId);
        if (expires <= block.timestamp) revert GameCenterRentalExpired(expires, block.timestamp);
        if (expires > block.timestamp + MAX_RENTAL) {
            revert GameCenterRentalTooLong(expires, block.timestamp + MAX_RENTAL);
        }
        UserInfo storage info = _users[centerId];
        if (info.rented && block.timestamp < info.expires) revert GameCenterRented(centerId, info.expires);
        (info.user, info.expires, info.rented) = (user, expires, true);
        _locker[centerId] = msg.sender;
        emit UpdateUser(centerId, user, expires);
        emit CenterRentalStarted(centerId, user, expires);
    }

    /// @inheritdoc IGameCenter
    function endRental(uint256 centerId) external {
        _requireOwned(centerId);
        UserInfo storage info = _users[centerId];
        address locker = info.rented && block.timestamp < info.expires ? _locker[centerId] : address(0);
        if (locker != msg.sender) revert GameCenterNotLockedBy(centerId, msg.sender, locker);
        (info.user, info.expires, info.rented) = (address(0), 0, false);
        delete _locker[centerId];
        emit UpdateUser(centerId, address(0), 0);
        emit CenterRentalEnded(centerId);
    }

    /// @inheritdoc IGameCenter
    function centerOf(uint256 centerId)
        external
        view
        returns (string memory name, bytes2 country, string memory city, int32 latE2, int32 lonE2, uint16 capacity)
    {
        _requireOwned(centerId);
        Center storage c = _centers[centerId];
        return (c.name, c.country, c.city, c.latE2, c.lonE2, c.capacity);
    }

    /// @inheritdoc IGameCenter
    function isPlaced(uint256 centerId) external view returns (bool) {
        _requireOwned(centerId);
        return _centers[centerId].country != 0;
    }

    /// @inheritdoc IGameCenter
    function payeeOf(uint256 centerId) external view returns (address) {
        address owner = _requireOwned(centerId);
        UserInfo storage info = _users[centerId];
        address user = block.timestamp < info.expires ? info.user : address(0);
        return user != address(0) ? user : owner;
    }

    /// @inheritdoc IERC4907
    function userOf(uint256 centerId) external view returns (address) {
        UserInfo storage info = _users[centerId];
        return block.timestamp < info.expires ? info.user : address(0);
    }

    /// @inheritdoc IERC4907
    function userExpires(uint256 centerId) external view returns (uint256) {
        return _users[centerId].expires;
    }

    /// @inheritdoc IGameCenter
    function rentedUntil(uint256 centerId) external view returns (uint64) {
        UserInfo storage info = _users[centerId];
        return info.rented ? info.expires : 0;
    }

    /// @inheritdoc IGameCenter
    function rentalLocker(uint256 centerId) external view returns (address) {
        UserInfo storage info = _users[centerId];
        return info.rented && block.timestamp < info.expires ? _locker[centerId] : address(0);
    }

    /// @inheritdoc IGameCenter
    function transferCount(uint256 centerId) external view returns (uint256) {
        return _users[centerId].transfers;
    }

    /// @inheritdoc IGameCenter
    function nextTokenId() external view returns (uint256) {
        return _nextTokenId;
    }

    function supportsInterface(bytes4 interfaceId)
        public
        view
        override(ERC721, ERC2981, DEWAccessControl, IERC165)
        returns (bool)
    {
        return interfaceId == type(IERC4907).interfaceId || super.supportsInterface(interfaceId);
    }

    function _baseURI() internal view override returns (string memory) {
        return _baseTokenURI;
    }

    function _mintCenter(address to, Center memory c) private returns (uint256 centerId) {
        centerId = _nextTokenId;
        // Safe: one id per call, far below 2**256.
        unchecked {
            _nextTokenId = centerId + 1;
        }
        _centers[centerId] = c;
        _mint(to, centerId);
        emit CenterMinted(centerId, to, c.name, c.country, c.city, c.latE2, c.lonE2, c.capacity);
    }

    /// @dev The bounds every description meets (the capacity is checked here too).
    function _checkDescription(Center memory c) private pure {
        uint256 nameLength = bytes(c.name).length;
        if (nameLength == 0 || nameLength > MAX_NAME_BYTES) revert GameCenterInvalidName(nameLength);
        uint256 cityLength = bytes(c.city).length;
        if (cityLength == 0 || cityLength > MAX_CITY_BYTES) revert GameCenterInvalidCity(cityLength);
        if (!_isLetter(c.country[0]) || !_isLetter(c.country[1])) revert GameCenterInvalidCountry(c.country);
        if (c.latE2 < -MAX_LAT_E2 || c.latE2 > MAX_LAT_E2 || c.lonE2 < -MAX_LON_E2 || c.lonE2 > MAX_LON_E2) {
            revert GameCenterInvalidLocation(c.latE2, c.lonE2);
        }
        if (c.capacity < MIN_CAPACITY || c.capacity > MAX_CAPACITY) revert GameCenterInvalidCapacity(c.capacity);
    }

    function _isLetter(bytes1 b) private pure returns (bool) {
        return b >= "A" && b <= "Z";
    }

    /// @dev The one transfer hook: a rented center cannot move, and a move clears the user.
    function _update(address to, uint256 centerId, address auth) internal override returns (address from) {
        UserInfo memory info = _users[centerId];
        if (info.rented && block.timestamp < info.expires) revert GameCenterRented(centerId, info.expires);
        from = super._update(to, centerId, auth);
        if (from != to && from != address(0)) {
            // Safe: the counter is meant to wrap; only equality with an offer's copy matters.
            unchecked {
                _users[centerId] =
                    UserInfo({user: address(0), expires: 0, rented: false, transfers: info.transfers + 1});
            }
            if (info.rented) delete _locker[centerId];
            if (info.user != address(0) || info.rented) emit UpdateUser(centerId, address(0), 0);
        }
    }
}
