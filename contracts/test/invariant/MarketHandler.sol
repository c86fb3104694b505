// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Accessories} from "../../src/Accessories.sol";
import {AvatarNFT} from "../../src/AvatarNFT.sol";
import {DEWToken} from "../../src/DEWToken.sol";
import {Market} from "../../src/Market.sol";
import {ScholarshipRegistry} from "../../src/ScholarshipRegistry.sol";
import {Shop} from "../../src/Shop.sol";
import {IMarket} from "../../src/interfaces/IMarket.sol";
import {IScholarshipRegistry as IR} from "../../src/interfaces/IScholarshipRegistry.sol";
import {Vm} from "../utils/Test.sol";

/// @dev Random shop purchases, listings, cancels, buys (fresh and stale), avatar transfers,
///      approvals, equips, rentals and time. Reverts are fine; the invariants check balances.
///      Breach counters record a call that succeeded where it must not have.
contract MarketHandler {
    Vm internal constant vm = Vm(address(uint160(uint256(keccak256("hevm cheat code")))));

    uint256 public constant ACTORS = 4;
    uint256 public constant AVATARS = 6;
    uint256 public constant TYPES = 2;

    DEWToken public immutable token;
    AvatarNFT public immutable avatar;
    Accessories public immutable accessories;
    Shop public immutable shop;
    Market public immutable market;
    ScholarshipRegistry public immutable registry;

    address[ACTORS] public actors;
    uint256[TYPES] public types;
    uint256[TYPES] public shopListings;

    uint256 public rentedChanges;
    uint256 public rentedSales;
    uint256 public staleSales;
    uint256 public sales;

    constructor(
        DEWToken token_,
        AvatarNFT avatar_,
        Accessories accessories_,
        Shop shop_,
        Market market_,
        ScholarshipRegistry registry_,
        uint256[TYPES] memory types_,
        uint256[TYPES] memory shopListings_
    ) {
        (token, avatar, accessories, shop, market, registry) =
        (token_, avatar_, accessories_, shop_, market_, registry_);
        types = types_;
        shopListings = shopListings_;
        for (uint256 i; i < ACTORS; ++i) {
            actors[i] = address(uint160(0xB000 + i));
        }
    }

    function actorList() external view returns (address[ACTORS] memory) {
        return actors;
    }

    function _actor(uint256 seed) internal view returns (address) {
        return actors[seed % ACTORS];
    }

    function _rented(uint256 avatarId) internal view returns (bool) {
        return avatar.rentedUntil(avatarId) > block.timestamp;
    }

    function shopBuy(uint256 actorSeed, uint256 typeSeed) external {
        vm.prank(_actor(actorSeed));
        try shop.buy(shopListings[typeSeed % TYPES], type(uint256).max) {} catch {}
    }

    function list(uint256 actorSeed, uint256 itemSeed, uint256 price, uint256 duration) external {
        address seller = _actor(actorSeed);
        price = 1 + price % 1_000e18;
        uint64 expiresAt = uint64(block.timestamp + 1 + duration % 30 days);
        if (itemSeed % 2 == 0) {
            uint256 avatarId = 1 + (itemSeed >> 1) % AVATARS;
            // Mostly the owner lists (a stranger's listing is refused and changes nothing).
            if (actorSeed % 4 != 0) seller = avatar.ownerOf(avatarId);
            vm.prank(seller);
            try market.list(address(avatar), avatarId, 1, price, expiresAt) {} catch {}
        } else {
            vm.prank(seller);
            uint256 amount = 1 + (itemSeed >> 8) % 2;
            try market.list(address(accessories), types[(itemSeed >> 1) % TYPES], amount, price, expiresAt) {} catch {}
        }
    }

    function cancel(uint256 actorSeed, uint256 listingSeed) external {
        uint256 count = market.listingCount();
        if (count == 0) return;
        vm.prank(_actor(actorSeed));
        try market.cancel(1 + listingSeed % count) {} catch {}
    }

    function buy(uint256 actorSeed, uint256 listingSeed) external {
        uint256 count = market.listingCount();
        if (count == 0) return;
        // Mostly one of the latest listings, sometimes any (old ones are often stale).
        uint256 listingId =
            listingSeed % 2 == 0 ? count - (listingSeed >> 1) % (count < 3 ? count : 3) : 1 + listingSeed % count;
        IMarket.Listing memory l = market.listing(listingId);
        bool isAvatar = l.token == address(avatar);
        bool rented = isAvatar && _rented(l.id);
        bool moved = isAvatar
            && (avatar.transferCount(l.id) % (1 << 24) != l.transferCount
                || uint96(uint256(keccak256(abi.encode(accessories.equippedWord(l.id))))) != l.equipped);
        vm.prank(_actor(actorSeed));
        try market.buy(listingId, type(uint256).max) {
            ++sales;
            if (rented) ++rentedSales;
            if (moved) ++staleSales;
        } catch {}
    }

    function transferAvatar(uint256 fromSeed, uint256 toSeed, uint256 avatarSeed) external {
        address from = _actor(fromSeed);
        vm.prank(from);
        try avatar.transferFrom(from, _actor(toSeed), 1 + avatarSeed % AVATARS) {} catch {}
    }

    function setApproval(uint256 actorSeed, bool approved, bool forAccessories) external {
        vm.prank(_actor(actorSeed));
        if (forAccessories) accessories.setApprovalForAll(address(market), approved);
        else avatar.setApprovalForAll(address(market), approved);
    }

    function equip(uint256 actorSeed, uint256 avatarSeed, uint256 typeSeed, bool on) external {
        uint256 avatarId = 1 + avatarSeed % AVATARS;
        uint256 typeId = types[typeSeed % TYPES];
        bool rented = _rented(avatarId);
        vm.prank(_actor(actorSeed));
        if (on) {
            try accessories.equip(avatarId, typeId) {
                if (rented) ++rentedChanges;
            } catch {}
        } else {
            try accessories.unequip(avatarId, typeId) {
                if (rented) ++rentedChanges;
            } catch {}
        }
    }

    /// The avatar's owner rents it to another actor for a week (a rewards division, no rent).
    function rent(uint256 avatarSeed, uint256 scholarSeed) external {
        uint256 avatarId = 1 + avatarSeed % AVATARS;
        address owner = avatar.ownerOf(avatarId);
        address scholar = _actor(scholarSeed);
        IR.OfferTerms memory t;
        t.terms = IR.Terms.RewardsDivision;
        t.duration = 7 days;
        t.ownerBps = 5000;
        t.dustTo = IR.Party.Owner;
        t.validUntil = type(uint64).max;
        vm.prank(owner);
        try registry.offer(avatarId, scholar, t) returns (uint256 agreementId) {
            vm.prank(scholar);
            try registry.accept(agreementId) {} catch {}
        } catch {}
    }

    function warp(uint256 seconds_) external {
        vm.warp(block.timestamp + seconds_ % 10 days);
    }
}
