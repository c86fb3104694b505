// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {IERC721} from "@openzeppelin/contracts/token/ERC721/IERC721.sol";
import {IERC1155} from "@openzeppelin/contracts/token/ERC1155/IERC1155.sol";
import {IERC2981} from "@openzeppelin/contracts/interfaces/IERC2981.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";
import {DEWAccessControl} from "./access/DEWAccessControl.sol";
import {IAccessories} from "./interfaces/IAccessories.sol";
import {IAvatarNFT} from "./interfaces/IAvatarNFT.sol";
import {IGameCenter} from "./interfaces/IGameCenter.sol";
import {IMarket} from "./interfaces/IMarket.sol";
import {FeeSplit} from "./lib/FeeSplit.sol";

/// @title The resale market (no escrow, approval based)
/// @dev Every DEW leg is a `transferFrom` from the buyer to its payee and the item moves
///      seller -> buyer directly, so the market's balances stay zero whatever the call order.
///      A sale has no center and no creator: the fee split (FeeSplit, SPEC A5) gives the whole
///      fee to the treasury. The royalty is capped at `MAX_ROYALTY_BPS` whatever the token
///      answers, so royalty + fee never exceed 20% of the price and the seller's leg is never
///      negative.
contract Market is DEWAccessControl, ReentrancyGuardTransient, IMarket {
    using SafeERC20 for IERC20;

    /// @notice May pause the market.
    bytes32 public constant GUARDIAN_ROLE = keccak256("GUARDIAN_ROLE");
    uint256 private constant BPS = 10_000;
    /// @notice The highest market fee: 10%.
    uint16 public constant MAX_FEE_BPS = 1000;
    /// @notice The most royalty a sale pays, whatever the token asks: 10%.
    uint256 public constant MAX_ROYALTY_BPS = 1000;
    /// @notice The highest listing price: one billion DEW (the whole supply).
    uint256 public constant MAX_PRICE = 1_000_000_000 * 1e18;
    /// @notice The most of one ERC-1155 id in one listing.
    uint256 public constant MAX_AMOUNT = 1_000_000;
    /// @notice The longest a listing stays open.
    uint64 public constant MAX_DURATION = 180 days;

    /// @notice The token prices are paid in.
    IERC20 public immutable dew;
    /// @notice Receives the fee's treasury leg.
    address public immutable treasury;
    /// @notice The avatars, whose rental lock and transfer count the market checks.
    IAvatarNFT public immutable avatar;
    /// @notice The accessories, whose equipped set on a listed avatar must not change before
    ///         the sale (a seller cannot strip an avatar between the buyer's look and the buy).
    IAccessories public immutable accessories;

    mapping(uint256 listingId => Listing) private _listings;
    mapping(address token => Standard) private _standards;
    uint256 private _listingCount;
    uint16 private _feeBps;
    bool private _paused;

    constructor(
        address admin,
        IERC20 dew_,
        address treasury_,
        IAvatarNFT avatar_,
        IAccessories accessories_,
        uint16 feeBps_
    ) DEWAccessControl(admin) {
        if (treasury_ == address(0)) revert MarketTokenInvalid(treasury_);
        if (feeBps_ > MAX_FEE_BPS) revert MarketFeeTooHigh(feeBps_);
        dew = dew_;
        treasury = treasury_;
        avatar = avatar_;
        accessories = accessories_;
        _feeBps = feeBps_;
    }

    /// @inheritdoc IMarket
    function setToken(address token, Standard standard) external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (token == address(0) || token == address(dew)) revert MarketTokenInvalid(token);
        _standards[token] = standard;
        emit MarketTokenSet(token, standard);
    }

    /// @inheritdoc IMarket
    function setFeeBps(uint16 feeBps_) external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (feeBps_ > MAX_FEE_BPS) revert MarketFeeTooHigh(feeBps_);
        _feeBps = feeBps_;
        emit MarketFeeSet(feeBps_);
    }

    /// @inheritdoc IMarket
    function list(address token, uint256 id, uint256 amount, uint256 price, uint64 expiresAt)
        external
        nonReentrant
        returns (uint256 listingId)
    {
        if (_paused) revert MarketPaused();
        Standard standard = _standards[token];
        if (standard == Standard.None) revert MarketTokenNotAllowed(token);
        if (standard == Standard.ERC721 ? amount != 1 : amount == 0 || amount > MAX_AMOUNT) {
            revert MarketAmountInvalid(amount);
        }
        if (price == 0 || price > MAX_PRICE) revert MarketPriceInvalid(price);
        if (expiresAt <= block.timestamp || expiresAt > block.timestamp + MAX_DURATION) {
            revert MarketExpiryInvalid(expiresAt);
        }
        listingId = ++_listingCount;
        Listing memory l = Listing({
            seller: msg.sender,
            expiresAt: expiresAt,
            status: Status.Open,
            token: token,
            amount: uint96(amount),
            id: id,
            price: uint128(price),
            transferCount: 0,
            equipped: 0
        });
        (l.transferCount, l.equipped) = _itemState(token, id, msg.sender, standard);
        _checkSellable(listingId, l, standard);
        _listings[listingId] = l;
        emit Listed(listingId, msg.sender, token, id, amount, price, expiresAt);
    }

    /// @inheritdoc IMarket
    function cancel(uint256 listingId) external nonReentrant {
        Listing storage l = _listings[listingId];
        Status status = l.status;
        if (status == Status.None) revert MarketUnknownListing(listingId);
        if (l.seller != msg.sender) revert MarketNotSeller(listingId, msg.sender);
        if (status != Status.Open) revert MarketListingNotOpen(listingId, status);
        l.status = Status.Cancelled;
        emit Cancelled(listingId);
    }

    /// @inheritdoc IMarket
    function buy(uint256 listingId, uint256 maxPrice) external nonReentrant {
        if (_paused) revert MarketPaused();
        Listing storage stored = _listings[listingId];
        Listing memory l = stored;
        if (l.status == Status.None) revert MarketUnknownListing(listingId);
        if (l.status != Status.Open) revert MarketListingNotOpen(listingId, l.status);
        if (block.timestamp >= l.expiresAt) revert MarketListingExpired(listingId, l.expiresAt);
        if (l.price > maxPrice) revert MarketPriceAboveMax(l.price, maxPrice);
        if (msg.sender == l.seller) revert MarketSelfPurchase(listingId);
        Standard standard = _standards[l.token];
        if (standard == Standard.None) revert MarketTokenNotAllowed(l.token);
        _checkSellable(listingId, l, standard);
        stored.status = Status.Sold;
        (uint256 royalty, uint256 fee) = _pay(l);
        if (standard == Standard.ERC721) {
            IERC721(l.token).safeTransferFrom(l.seller, msg.sender, l.id);
        } else {
            IERC1155(l.token).safeTransferFrom(l.seller, msg.sender, l.id, l.amount, "");
        }
        emit Sold(listingId, msg.sender, l.seller, l.token, l.id, l.amount, l.price, royalty, fee);
    }

    /// @inheritdoc IMarket
    function pause() external onlyRole(GUARDIAN_ROLE) {
        _paused = true;
        emit MarketPausedSet(true);
    }

    /// @inheritdoc IMarket
    function unpause() external onlyRole(DEFAULT_ADMIN_ROLE) {
        _paused = false;
        emit MarketPausedSet(false);
    }

    /// @inheritdoc IMarket
    function listing(uint256 listingId) external view returns (Listing memory) {
        return _listings[listingId];
    }

    /// @inheritdoc IMarket
    function listingCount() external view returns (uint256) {
        return _listingCount;
    }

    /// @inheritdoc IMarket
    function feeBps() external view returns (uint16) {
        return _feeBps;
    }

    /// @inheritdoc IMarket
    function tokenStandard(address token) external view returns (Standard) {
        return _standards[token];
    }

    /// @inheritdoc IMarket
    function paused() external view returns (bool) {
        return _paused;
    }

    /// @dev The seller still holds the item and has approved the market, an avatar is not
    ///      rented, and the item is as it was listed (`_itemState`).
    function _checkSellable(uint256 listingId, Listing memory l, Standard standard) private view {
        if (standard == Standard.ERC721) {
            if (IERC721(l.token).ownerOf(l.id) != l.seller) revert MarketSellerNotOwner(listingId, l.seller);
            if (
                !IERC721(l.token).isApprovedForAll(l.seller, address(this))
                    && IERC721(l.token).getApproved(l.id) != address(this)
            ) revert MarketNotApproved(l.seller, l.token);
            if (l.token == address(avatar)) {
                uint64 until = avatar.rentedUntil(l.id);
                if (until > block.timestamp) revert MarketItemRented(l.id, until);
            }
        } else {
            if (IERC1155(l.token).balanceOf(l.seller, l.id) < l.amount) {
                revert MarketSellerNotOwner(listingId, l.seller);
            }
            if (!IERC1155(l.token).isApprovedForAll(l.seller, address(this))) {
                revert MarketNotApproved(l.seller, l.token);
            }
        }
        (uint24 transfers, uint96 state) = _itemState(l.token, l.id, l.seller, standard);
        if (transfers != l.transferCount || state != l.equipped) revert MarketListingStale(listingId);
    }

    /// @dev What a listing pins, so that it goes stale when the item changes under it: for an
    ///      avatar its transfer count and (a 96-bit hash of) the accessories it wears; for the
    ///      accessories, how many times the seller's holding of the type moved out; for another
    ///      ERC-721 (a game center) its transfer count and a hash of its description, so a blank
    ///      center placed after listing is not sold as the one the buyer saw. A token without
    ///      these views pins zero.
    function _itemState(address token, uint256 id, address seller, Standard standard)
        private
        view
        returns (uint24 transfers, uint96 state)
    {
        if (token == address(avatar)) {
            transfers = uint24(avatar.transferCount(id));
            state = uint96(uint256(keccak256(abi.encode(accessories.equippedWord(id)))));
        } else if (token == address(accessories)) {
            transfers = uint24(accessories.moveCount(seller, id));
        } else if (standard == Standard.ERC721) {
            try IGameCenter(token).transferCount(id) returns (uint256 count) {
                transfers = uint24(count);
            } catch {}
            try IGameCenter(token).centerOf(id) returns (
                string memory name, bytes2 country, string memory city, int32 latE2, int32 lonE2, uint16 capacity
            ) {
                state = uint96(uint256(keccak256(abi.encode(name, country, city, latE2, lonE2, capacity))));
            } catch {}
        }
    }

    /// @dev Moves the price from the buyer: royalty, fee legs, and the rest to the seller.
    function _pay(Listing memory l) private returns (uint256 royalty, uint256 fee) {
        address receiver;
        (receiver, royalty) = _royalty(l.token, l.id, l.price);
        fee = l.price * _feeBps / BPS;
        (uint256 toTreasury,,) = FeeSplit.split(fee, 0, 0, false, false);
        uint256 toSeller = l.price - royalty - fee;
        IERC20 token = dew;
        // A royalty to the treasury (the deployed case) joins the fee's treasury leg: one
        // transfer instead of two.
        if (receiver == treasury) toTreasury += royalty;
        else if (royalty != 0) token.safeTransferFrom(msg.sender, receiver, royalty);
        if (toTreasury != 0) token.safeTransferFrom(msg.sender, treasury, toTreasury);
        token.safeTransferFrom(msg.sender, l.seller, toSeller);
    }

    /// @dev The token's ERC-2981 royalty, capped; none when the token does not answer.
    function _royalty(address token, uint256 id, uint256 price) private view returns (address, uint256) {
        try IERC2981(token).royaltyInfo(id, price) returns (address receiver, uint256 amount) {
            if (receiver == address(0)) return (address(0), 0);
            uint256 cap = price * MAX_ROYALTY_BPS / BPS;
            return (receiver, amount > cap ? cap : amount);
        } catch {
            return (address(0), 0);
        }
    }
}
