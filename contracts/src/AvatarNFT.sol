// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {DEWAccessControl} from "./access/DEWAccessControl.sol";
import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";
import {ERC2981} from "@openzeppelin/contracts/token/common/ERC2981.sol";
import {IERC165} from "@openzeppelin/contracts/utils/introspection/IERC165.sol";
import {IAvatarNFT} from "./interfaces/IAvatarNFT.sol";
import {IERC4907} from "./interfaces/IERC4907.sol";
import {IShopMintable} from "./interfaces/IShopMintable.sol";

/// @title DEW player avatars: ERC-721 + ERC-4907 with cheap batch minting
/// @dev Batch minting in the manner of ERC721A, on top of OZ's ERC721: a run of consecutive ids
///      minted to one recipient is recorded once, at its first id, in `_runOwner`. A token gets
///      its own OZ ownership record the first time it moves; until then `_ownerOf` walks back
///      to the start of its run. Runs are capped at `MAX_RUN` ids, so that walk costs at most
///      `MAX_RUN - 1` extra storage reads, and avatars minted to distinct players cost none.
///      Burning is not supported, which keeps the fallback sound.
///      Resales pay an ERC-2981 royalty (default receiver the admin until the admin names the
///      treasury), capped at `MAX_ROYALTY_BPS`; the shop mints single avatars through `shopMint`.
contract AvatarNFT is ERC721, ERC2981, DEWAccessControl, IAvatarNFT, IShopMintable {
    bytes32 public constant MINTER_ROLE = keccak256("MINTER_ROLE");
    bytes32 public constant RENTAL_ROLE = keccak256("RENTAL_ROLE");
    /// @notice Held by the first-sale shop only: it may mint one avatar per `shopMint`.
    bytes32 public constant SHOP_ROLE = keccak256("SHOP_ROLE");
    /// @notice The highest royalty the admin may set: 10% of a resale price.
    uint96 public constant MAX_ROYALTY_BPS = 1000;
    /// @notice The royalty until the admin sets one: 5%.
    uint96 public constant DEFAULT_ROYALTY_BPS = 500;
    /// @notice The most ids one ownership record covers.
    uint256 public constant MAX_RUN = 32;
    /// @notice The longest a rental lock may run.
    uint64 public constant MAX_RENTAL = 365 days;

    /// @dev One storage slot per avatar with a user or a transfer. `rented` marks a lock set by
    ///      the rental role: until `expires` the avatar cannot move and its user cannot be
    ///      changed. `transfers` counts the avatar's transfers (wrapping at 2**24), so that the
    ///      registry can tell a sale, even one undone, from no sale; it shares the slot the
    ///      transfer hook reads anyway.
    struct UserInfo {
        address user;
        uint64 expires;
        bool rented;
        uint24 transfers;
    }

    mapping(uint256 firstId => address) private _runOwner;
    uint256 private _nextTokenId = 1;
    string private _baseTokenURI;
    mapping(uint256 tokenId => UserInfo) private _users;
    /// @dev Who set the rental lock; kept apart so a plain `setUser` costs one slot.
    mapping(uint256 tokenId => address registry) private _locker;

    constructor(address admin, string memory baseURI_) ERC721("DEW Avatar", "DEWAV") DEWAccessControl(admin) {
        _baseTokenURI = baseURI_;
        _setDefaultRoyalty(admin, DEFAULT_ROYALTY_BPS);
    }

    /// @inheritdoc IAvatarNFT
    function mintBatch(address[] calldata recipients) external onlyRole(MINTER_ROLE) returns (uint256 firstTokenId) {
        uint256 n = recipients.length;
        if (n == 0) revert AvatarEmptyBatch();
        firstTokenId = _nextTokenId;
        uint256 id = firstTokenId;
        uint256 i;
        while (i < n) {
            address to = recipients[i];
            if (to == address(0)) revert ERC721InvalidReceiver(address(0));
            uint256 runEnd = i + 1;
            while (runEnd < n && runEnd - i < MAX_RUN && recipients[runEnd] == to) {
                ++runEnd;
            }
            _runOwner[id] = to;
            // Safe: ids and counts are bounded by the calldata length, far below 2**128.
            unchecked {
                uint256 count = runEnd - i;
                for (uint256 k; k < count; ++k) {
                    emit Transfer(address(0), to, id + k);
                }
                id += count;
                _increaseBalance(to, uint128(count));
            }
            i = runEnd;
        }
        _nextTokenId = id;
    }

    /// @inheritdoc IShopMintable
    /// @dev One avatar per call, minted like a one-recipient `mintBatch` (no receiver callback,
    ///      so a buyer contract cannot re-enter the shop mid-purchase); `itemId` is ignored.
    function shopMint(address to, uint256, uint256 amount, bytes calldata)
        external
        onlyRole(SHOP_ROLE)
        returns (uint256 tokenId)
    {
        if (amount != 1) revert AvatarShopAmount(amount);
        if (to == address(0)) revert ERC721InvalidReceiver(address(0));
        tokenId = _nextTokenId;
        _runOwner[tokenId] = to;
        // Safe: one id more than the last, far below 2**128.
        unchecked {
            _nextTokenId = tokenId + 1;
            _increaseBalance(to, 1);
        }
        emit Transfer(address(0), to, tokenId);
    }

    /// @inheritdoc IAvatarNFT
    function setRoyalty(address receiver, uint96 bps) external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (bps > MAX_ROYALTY_BPS) revert AvatarRoyaltyTooHigh(bps, MAX_ROYALTY_BPS);
        _setDefaultRoyalty(receiver, bps);
        emit RoyaltySet(receiver, bps);
    }

    /// @inheritdoc IERC4907
    function setUser(uint256 tokenId, address user, uint64 expires) external {
        address owner = _requireOwned(tokenId);
        _checkAuthorized(owner, msg.sender, tokenId);
        UserInfo storage info = _users[tokenId];
        if (info.rented && block.timestamp < info.expires) revert AvatarRented(tokenId, info.expires);
        (info.user, info.expires, info.rented) = (user, expires, false);
        emit UpdateUser(tokenId, user, expires);
    }

    /// @inheritdoc IAvatarNFT
    function startRental(uint256 tokenId, address user, uint64 expires) external onlyRole(RENTAL_ROLE) {
        _requireOwned(tokenId);
        if (expires <= block.timestamp) revert AvatarRentalExpired(expires, block.timestamp);
        if (expires > block.timestamp + MAX_RENTAL) revert AvatarRentalTooLong(expires, block.timestamp + MAX_RENTAL);
        UserInfo storage info = _users[tokenId];
        if (info.rented && block.timestamp < info.expires) revert AvatarRented(tokenId, info.expires);
        (info.user, info.expires, info.rented) = (user, expires, true);
        _locker[tokenId] = msg.sender;
        emit UpdateUser(tokenId, user, expires);
        emit AvatarRentalStarted(tokenId, user, expires);
    }

    /// @inheritdoc IAvatarNFT
    function endRental(uint256 tokenId) external {
        _requireOwned(tokenId);
        UserInfo storage info = _users[tokenId];
        address locker = info.rented && block.timestamp < info.expires ? _locker[tokenId] : address(0);
        if (locker != msg.sender) revert AvatarNotLockedBy(tokenId, msg.sender, locker);
        (info.user, info.expires, info.rented) = (address(0), 0, false);
        delete _locker[tokenId];
        emit UpdateUser(tokenId, address(0), 0);
        emit AvatarRentalEnded(tokenId);
    }

    /// @inheritdoc IAvatarNFT
    function setBaseURI(string calldata baseURI_) external onlyRole(DEFAULT_ADMIN_ROLE) {
        _baseTokenURI = baseURI_;
        emit BaseURIUpdated(baseURI_);
    }

    /// @inheritdoc IERC4907
    function userOf(uint256 tokenId) external view returns (address) {
        UserInfo storage info = _users[tokenId];
        // ERC-4907: the user may use the avatar *before* `expires`.
        return block.timestamp < info.expires ? info.user : address(0);
    }

    /// @inheritdoc IERC4907
    function userExpires(uint256 tokenId) external view returns (uint256) {
        return _users[tokenId].expires;
    }

    /// @inheritdoc IAvatarNFT
    function rentedUntil(uint256 tokenId) external view returns (uint64) {
        UserInfo storage info = _users[tokenId];
        return info.rented ? info.expires : 0;
    }

    /// @inheritdoc IAvatarNFT
    function rentalLocker(uint256 tokenId) external view returns (address) {
        UserInfo storage info = _users[tokenId];
        return info.rented && block.timestamp < info.expires ? _locker[tokenId] : address(0);
    }

    /// @inheritdoc IAvatarNFT
    function nextTokenId() external view returns (uint256) {
        return _nextTokenId;
    }

    /// @inheritdoc IAvatarNFT
    function transferCount(uint256 tokenId) external view returns (uint256) {
        return _users[tokenId].transfers;
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

    /// @dev Batch-minted avatars that never moved are owned by their run's recipient.
    function _ownerOf(uint256 tokenId) internal view override returns (address) {
        address owner = super._ownerOf(tokenId);
        if (owner != address(0) || tokenId == 0 || tokenId >= _nextTokenId) return owner;
        // Terminates within MAX_RUN - 1 steps: every minted id's run starts at or below it
        // with a non-zero `_runOwner` entry, and id 1 always starts a run.
        uint256 id = tokenId;
        while ((owner = _runOwner[id]) == address(0)) {
            --id;
        }
        return owner;
    }

    /// @dev The one transfer hook: a rented avatar cannot move, and a move clears the user
    ///      (ERC-4907), including an expired rental lock.
    function _update(address to, uint256 tokenId, address auth) internal override returns (address from) {
        UserInfo memory info = _users[tokenId];
        if (info.rented && block.timestamp < info.expires) revert AvatarRented(tokenId, info.expires);
        from = super._update(to, tokenId, auth);
        if (from != to) {
            // Safe: the counter is meant to wrap; only equality with an offer's copy matters.
            unchecked {
                _users[tokenId] = UserInfo({user: address(0), expires: 0, rented: false, transfers: info.transfers + 1});
            }
            if (info.rented) delete _locker[tokenId];
            if (info.user != address(0) || info.rented) emit UpdateUser(tokenId, address(0), 0);
        }
    }
}
