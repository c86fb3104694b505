// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";
import {DEWAccessControl} from "./access/DEWAccessControl.sol";
import {IShop} from "./interfaces/IShop.sol";
import {IShopMintable} from "./interfaces/IShopMintable.sol";
import {IVIPPass} from "./interfaces/IVIPPass.sol";

/// @title The first-sale shop
/// @dev Limits (docs/contracts.md, "Shop and market"): the shop can only mint what a listing
///      names, one per purchase, within the listing's supply and the item's own cap, and only
///      against the listed price paid to the treasury in the same call; it has no right on DEW
///      and `setItem` refuses DEW. A stolen lister key can list or reprice items (sales still
///      pay the treasury, and `maxPrice` protects buyers); the guardian can pause.
contract Shop is DEWAccessControl, ReentrancyGuardTransient, IShop {
    using SafeERC20 for IERC20;

    /// @notice Lists and reprices items (the operator).
    bytes32 public constant LISTER_ROLE = keccak256("LISTER_ROLE");
    /// @notice May pause purchases.
    bytes32 public constant GUARDIAN_ROLE = keccak256("GUARDIAN_ROLE");
    /// @notice The highest listing price: one million DEW.
    uint256 public constant MAX_PRICE = 1_000_000 * 1e18;
    /// @notice The longest VIP term one purchase buys.
    uint64 public constant MAX_VIP_TERM = 366 days;

    /// @notice The token prices are paid in.
    IERC20 public immutable dew;
    /// @notice Receives every purchase price.
    address public immutable treasury;

    mapping(uint256 listingId => Listing) private _listings;
    mapping(address item => ItemKind) private _itemKinds;
    uint256 private _listingCount;
    bool private _paused;

    constructor(address admin, IERC20 dew_, address treasury_) DEWAccessControl(admin) {
        if (treasury_ == address(0)) revert ShopItemInvalid(treasury_);
        dew = dew_;
        treasury = treasury_;
    }

    /// @inheritdoc IShop
    function setItem(address item, ItemKind kind) external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (item == address(0) || item == address(dew)) revert ShopItemInvalid(item);
        _itemKinds[item] = kind;
        emit ShopItemSet(item, kind);
    }

    /// @inheritdoc IShop
    function list(address item, uint256 itemId, uint256 price, uint32 supply, uint64 vipTerm)
        external
        onlyRole(LISTER_ROLE)
        returns (uint256 listingId)
    {
        ItemKind kind = _itemKinds[item];
        if (kind == ItemKind.None) revert ShopItemNotAllowed(item);
        _checkPrice(price);
        if (supply == 0) revert ShopSupplyInvalid(supply);
        bool isVip = kind == ItemKind.VipPass;
        if (isVip ? vipTerm < 1 days || vipTerm > MAX_VIP_TERM : vipTerm != 0) revert ShopVipTermInvalid(vipTerm);
        listingId = ++_listingCount;
        _listings[listingId] = Listing({
            item: item,
            supply: supply,
            sold: 0,
            kind: kind,
            open: true,
            price: uint128(price),
            vipTerm: vipTerm,
            itemId: itemId
        });
        emit ShopListed(listingId, item, itemId, price, supply, vipTerm);
    }

    /// @inheritdoc IShop
    function setListing(uint256 listingId, uint256 price, bool open) external onlyRole(LISTER_ROLE) {
        Listing storage l = _listings[listingId];
        if (l.item == address(0)) revert ShopUnknownListing(listingId);
        _checkPrice(price);
        (l.price, l.open) = (uint128(price), open);
        emit ShopListingUpdated(listingId, price, open);
    }

    /// @inheritdoc IShop
    function buy(uint256 listingId, uint256 maxPrice) external nonReentrant returns (uint256 tokenId) {
        if (_paused) revert ShopPaused();
        Listing storage l = _listings[listingId];
        Listing memory m = l;
        if (m.item == address(0)) revert ShopUnknownListing(listingId);
        if (!m.open) revert ShopListingClosed(listingId);
        if (m.sold >= m.supply) revert ShopSoldOut(listingId, m.supply);
        if (m.price > maxPrice) revert ShopPriceAboveMax(m.price, maxPrice);
        // The item's kind now, not at listing: an unregistered item sells no more.
        if (_itemKinds[m.item] != m.kind) revert ShopItemNotAllowed(m.item);
        // Safe: sold < supply, a uint32.
        unchecked {
            l.sold = m.sold + 1;
        }
        dew.safeTransferFrom(msg.sender, treasury, m.price);
        tokenId = m.kind == ItemKind.VipPass
            ? _issueVip(IVIPPass(m.item), m.vipTerm)
            : IShopMintable(m.item).shopMint(msg.sender, m.itemId, 1, "");
        emit ShopPurchase(listingId, msg.sender, m.item, tokenId, m.price);
    }

    /// @inheritdoc IShop
    function pause() external onlyRole(GUARDIAN_ROLE) {
        _paused = true;
        emit ShopPausedSet(true);
    }

    /// @inheritdoc IShop
    function unpause() external onlyRole(DEFAULT_ADMIN_ROLE) {
        _paused = false;
        emit ShopPausedSet(false);
    }

    /// @inheritdoc IShop
    function listing(uint256 listingId) external view returns (Listing memory) {
        return _listings[listingId];
    }

    /// @inheritdoc IShop
    function listingCount() external view returns (uint256) {
        return _listingCount;
    }

    /// @inheritdoc IShop
    function itemKind(address item) external view returns (ItemKind) {
        return _itemKinds[item];
    }

    /// @inheritdoc IShop
    function paused() external view returns (bool) {
        return _paused;
    }

    /// @dev A pass runs `term` from now, or extends one still valid by `term` (a purchase never
    ///      shortens a pass the buyer already holds).
    function _issueVip(IVIPPass vip, uint64 term) private returns (uint256) {
        uint64 current = vip.expiresAt(msg.sender);
        uint64 start = current > block.timestamp ? current : uint64(block.timestamp);
        vip.issuePaid(msg.sender, start + term);
        return vip.VIP_TIER();
    }

    function _checkPrice(uint256 price) private pure {
        if (price == 0 || price > MAX_PRICE) revert ShopPriceInvalid(price);
    }
}
