// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IAccessControl} from "@openzeppelin/contracts/access/IAccessControl.sol";
import {ReentrancyGuardTransient} from "@openzeppelin/contracts/utils/ReentrancyGuardTransient.sol";
import {Contributions} from "../src/Contributions.sol";
import {GameCenter} from "../src/GameCenter.sol";
import {Market} from "../src/Market.sol";
import {ScholarshipRegistry} from "../src/ScholarshipRegistry.sol";
import {IAvatarNFT} from "../src/interfaces/IAvatarNFT.sol";
import {IContributions} from "../src/interfaces/IContributions.sol";
import {IMarket} from "../src/interfaces/IMarket.sol";
import {IScholarshipRegistry as IR} from "../src/interfaces/IScholarshipRegistry.sol";
import {IVIPPass} from "../src/interfaces/IVIPPass.sol";
import {MarketFixture} from "./utils/MarketFixture.sol";

/// @dev A contract that lists and cancels on the market from inside a purchase's callback.
contract ReenteringTrader {
    Market internal immutable market;
    uint256 public ownListing;
    bool public cancelOnReceive;

    constructor(Market market_) {
        market = market_;
    }

    function list(address token, uint256 id) external returns (uint256 listingId) {
        (bool ok,) = token.call(abi.encodeWithSignature("setApprovalForAll(address,bool)", address(market), true));
        require(ok);
        listingId = market.list(token, id, 1, 1e18, uint64(block.timestamp + 1 days));
        ownListing = listingId;
    }

    function buy(uint256 listingId, bool cancelInstead) external {
        cancelOnReceive = cancelInstead;
        (bool ok,) =
            address(market.dew()).call(abi.encodeWithSignature("approve(address,uint256)", address(market), 1e24));
        require(ok);
        (ok,) = address(market.avatar())
            .call(abi.encodeWithSignature("setApprovalForAll(address,bool)", address(market), true));
        require(ok);
        market.buy(listingId, type(uint256).max);
    }

    function onERC721Received(address, address, uint256 id, bytes calldata) external returns (bytes4) {
        if (cancelOnReceive) market.cancel(ownListing);
        else if (msg.sender != address(market)) market.list(msg.sender, id, 1, 1e18, uint64(block.timestamp + 1 days));
        return this.onERC721Received.selector;
    }

    function onERC1155Received(address, address, uint256, uint256, bytes calldata) external pure returns (bytes4) {
        return this.onERC1155Received.selector;
    }
}

/// @dev The third review's findings (tracker issue 30). Each test failed on the contracts
///      before their fix (docs/contracts.md, "Tests") and passes now.
contract ThirdReviewTest is MarketFixture {
    uint256 internal constant PRICE = 100 * DEW;
    address internal shopKey = address(0x5409);

    GameCenter internal center;
    ScholarshipRegistry internal centerRegistry;

    function setUp() public override {
        super.setUp();
        center = new GameCenter(admin, "https://dew.example/centers/");
        centerRegistry = new ScholarshipRegistry(admin, IAvatarNFT(address(center)), token);
        vm.startPrank(admin);
        center.grantRole(center.MINTER_ROLE(), operator);
        center.grantRole(center.SHOP_ROLE(), shopKey);
        center.grantRole(center.RENTAL_ROLE(), address(centerRegistry));
        centerRegistry.grantRole(centerRegistry.SCREENER_ROLE(), operator);
        market.setToken(address(center), IMarket.Standard.ERC721);
        vm.stopPrank();
    }

    // --- RENTAL_ROLE: revocable; no new lock after, locks in force run out ---

    function test_rentalRole_revokedRegistryStartsNoLockAndRunningLocksRunOut() public {
        uint256 rented = _mintAvatar(owner);
        uint256 other = _mintAvatar(owner);
        _rent(rented, owner, scholar, _division(30 days, 5_000, 0, address(0), IR.Party.Owner));
        bytes32 role = avatar.RENTAL_ROLE();
        vm.prank(admin);
        avatar.revokeRole(role, address(registry));
        vm.assertFalse(avatar.hasRole(role, address(registry)));
        // No new lock: the registry's accept reverts on the avatar's role check.
        vm.prank(owner);
        uint256 offer = registry.offer(other, scholar, _division(30 days, 5_000, 0, address(0), IR.Party.Owner));
        vm.expectRevert(
            abi.encodeWithSelector(IAccessControl.AccessControlUnauthorizedAccount.selector, address(registry), role)
        );
        vm.prank(scholar);
        registry.accept(offer);
        // The lock in force stays until its end, then lifts by itself.
        vm.assertEq(avatar.rentedUntil(rented), START + 30 days);
        vm.expectRevert(abi.encodeWithSelector(IAvatarNFT.AvatarRented.selector, rented, START + 30 days));
        vm.prank(owner);
        avatar.transferFrom(owner, stranger, rented);
        vm.warp(START + 30 days);
        vm.prank(owner);
        avatar.transferFrom(owner, stranger, rented);
        vm.assertEq(avatar.ownerOf(rented), stranger);
    }

    function test_rentalRole_centerRoleRevocableWhileRented() public {
        vm.prank(operator);
        uint256 id = center.mintCenter(owner, "Club Domino", "DO", "Santo Domingo", 1847, -6990, 12);
        vm.prank(operator);
        centerRegistry.setScreened(owner, true);
        vm.prank(owner);
        uint256 a = centerRegistry.offer(id, scholar, _fixedRent(30 days, 0));
        vm.prank(scholar);
        centerRegistry.accept(a);
        bytes32 role = center.RENTAL_ROLE();
        vm.prank(admin);
        center.revokeRole(role, address(centerRegistry));
        vm.assertEq(center.rentedUntil(id), START + 30 days);
        // The renter still terminates: the lock's holder ends it without the role.
        vm.warp(START + 2 days);
        vm.prank(scholar);
        centerRegistry.terminate(a);
        vm.assertEq(center.rentalLocker(id), address(0));
        vm.assertEq(center.payeeOf(id), owner);
    }

    // --- VIP: a grant never shortens a pass; the issuer cannot cancel a paid pass ---

    function _buyPasses(address who, uint256 count) internal {
        vm.prank(operator);
        uint256 passes = shop.list(address(vip), 0, PRICE, 10, 366 days);
        _giveDew(who, count * PRICE);
        vm.startPrank(who);
        token.approve(address(shop), count * PRICE);
        for (uint256 i; i < count; ++i) {
            shop.buy(passes, PRICE);
        }
        vm.stopPrank();
    }

    function test_vip_grantNeverShortensAPaidPass() public {
        _buyPasses(buyer, 2);
        uint64 paid = uint64(START + 2 * 366 days);
        vm.assertEq(vip.expiresAt(buyer), paid);
        vm.prank(operator);
        vip.issue(buyer, uint64(START + 30 days));
        vm.assertEq(vip.expiresAt(buyer), paid);
        vm.assertEq(vip.paidUntil(buyer), paid);
        vm.assertEq(vip.grantedUntil(buyer), START + 30 days);
        // A shorter grant does not cut a longer grant either.
        vm.prank(operator);
        vip.issue(stranger, uint64(START + 60 days));
        vm.prank(operator);
        vip.issue(stranger, uint64(START + 1 days));
        vm.assertEq(vip.expiresAt(stranger), START + 60 days);
    }

    function test_vip_issuerCannotRevokeAPaidPass() public {
        _buyPasses(buyer, 1);
        uint64 paid = uint64(START + 366 days);
        vm.prank(operator);
        vip.issue(buyer, uint64(START + 400 days));
        vm.expectEmit(true, false, false, true, address(vip));
        emit IVIPPass.PassIssued(buyer, paid);
        vm.prank(operator);
        vip.revoke(buyer);
        vm.assertTrue(vip.isValid(buyer));
        vm.assertEq(vip.expiresAt(buyer), paid);
        // Only the admin ends the paid part.
        vm.expectRevert(
            abi.encodeWithSelector(
                IAccessControl.AccessControlUnauthorizedAccount.selector, operator, vip.DEFAULT_ADMIN_ROLE()
            )
        );
        vm.prank(operator);
        vip.revokePaid(buyer);
        vm.prank(admin);
        vip.revokePaid(buyer);
        vm.assertFalse(vip.isValid(buyer));
        vm.assertEq(vip.balanceOf(buyer, vip.VIP_TIER()), 0);
    }

    // --- Market: center and accessory listings go stale; a listing pins what the buyer saw ---

    function test_stale_centerListingDoesNotReviveWhenTheCenterComesBack() public {
        vm.prank(operator);
        uint256 id = center.mintCenter(seller, "Club Domino", "DO", "Santo Domingo", 1847, -6990, 12);
        vm.prank(seller);
        center.setApprovalForAll(address(market), true);
        vm.prank(seller);
        uint256 listingId = market.list(address(center), id, 1, PRICE, uint64(block.timestamp + 7 days));
        vm.prank(seller);
        center.transferFrom(seller, stranger, id);
        vm.prank(stranger);
        center.transferFrom(stranger, seller, id);
        _expectStaleBuy(listingId);
    }

    function test_stale_blankCenterPlacedAfterListing() public {
        vm.prank(shopKey);
        uint256 id = center.shopMint(seller, 0, 1, "");
        vm.prank(seller);
        center.setApprovalForAll(address(market), true);
        vm.prank(seller);
        uint256 listingId = market.list(address(center), id, 1, PRICE, uint64(block.timestamp + 7 days));
        vm.prank(seller);
        center.place(id, "Nowhere", "AQ", "South Pole", -9000, 0);
        _expectStaleBuy(listingId);
    }

    function test_stale_accessoryListingDoesNotReviveWhenTheItemComesBack() public {
        _buyAccessory(seller, HAT);
        uint256 listingId = _list(seller, address(accessories), HAT, 1, PRICE);
        vm.prank(seller);
        accessories.safeTransferFrom(seller, stranger, HAT, 1, "");
        vm.prank(stranger);
        accessories.safeTransferFrom(stranger, seller, HAT, 1, "");
        _expectStaleBuy(listingId);
        // A fresh listing of the same item sells.
        uint256 fresh = _list(seller, address(accessories), HAT, 1, PRICE);
        _buy(buyer, fresh, PRICE);
        vm.assertEq(accessories.balanceOf(buyer, HAT), 1);
    }

    function _expectStaleBuy(uint256 listingId) internal {
        _giveDew(buyer, PRICE);
        vm.startPrank(buyer);
        token.approve(address(market), PRICE);
        vm.expectRevert(abi.encodeWithSelector(IMarket.MarketListingStale.selector, listingId));
        market.buy(listingId, PRICE);
        vm.stopPrank();
    }

    // --- Market: list and cancel are reentrancy-guarded as documented ---

    function test_reentrancy_listFromInsideABuyReverts() public {
        uint256 id = _mintAvatar(seller);
        uint256 listingId = _list(seller, address(avatar), id, 1, PRICE);
        ReenteringTrader trader = new ReenteringTrader(market);
        _giveDew(address(trader), PRICE);
        vm.expectRevert(ReentrancyGuardTransient.ReentrancyGuardReentrantCall.selector);
        trader.buy(listingId, false);
        vm.assertEq(avatar.ownerOf(id), seller);
    }

    function test_reentrancy_cancelFromInsideABuyReverts() public {
        uint256 id = _mintAvatar(seller);
        uint256 listingId = _list(seller, address(avatar), id, 1, PRICE);
        ReenteringTrader trader = new ReenteringTrader(market);
        _buyAccessory(address(trader), HAT);
        uint256 own = trader.list(address(accessories), HAT);
        _giveDew(address(trader), PRICE);
        vm.expectRevert(ReentrancyGuardTransient.ReentrancyGuardReentrantCall.selector);
        trader.buy(listingId, true);
        vm.assertTrue(market.listing(own).status == IMarket.Status.Open);
    }

    // --- Contributions stay within the vault's per-match limit ---

    function test_contributions_cannotPassTheVaultsPerMatchLimit() public {
        Contributions contributions = new Contributions(token, address(settlement));
        vm.prank(admin);
        settlement.setLimits(NO_PERIOD_LIMIT, 1000 * DEW, 1 days, NO_MATCH_LIMIT);
        _giveDew(stranger, 2000 * DEW);
        vm.startPrank(stranger);
        token.approve(address(contributions), 2000 * DEW);
        contributions.contribute(7, 600 * DEW);
        vm.expectRevert(
            abi.encodeWithSelector(IContributions.ContributionOverMatchLimit.selector, 7, 1200 * DEW, 1000 * DEW)
        );
        contributions.contribute(7, 600 * DEW);
        contributions.contribute(7, 400 * DEW);
        contributions.contribute(8, 600 * DEW);
        vm.stopPrank();
        vm.assertEq(contributions.contributedTo(7), 1000 * DEW);
        vm.assertEq(token.balanceOf(stranger), 400 * DEW);
    }

    // --- An open Rewards Division listing cannot be held for free ---

    function test_openDivisionListing_reclaimableSoonWithoutAMatch() public {
        uint256 id = _mintAvatar(owner);
        _screen(owner);
        vm.prank(owner);
        uint256 a = registry.offer(id, address(0), _division(30 days, 5_000, 0, address(0), IR.Party.Owner));
        vm.prank(stranger);
        registry.accept(a);
        uint64 reclaimable = uint64(START) + registry.OPEN_LISTING_IDLE();
        vm.expectRevert(abi.encodeWithSelector(IR.AgreementNotIdle.selector, a, reclaimable));
        vm.prank(owner);
        registry.reclaimIdle(a);
        vm.warp(reclaimable);
        vm.prank(owner);
        registry.reclaimIdle(a);
        vm.assertEq(avatar.rentedUntil(id), 0);
        vm.assertTrue(registry.agreementOf(a).status == IR.Status.Ended);
    }

    function test_openDivisionListing_playingScholarKeepsTheFullIdleWindow() public {
        uint256 id = _mintAvatar(owner);
        _screen(owner);
        vm.prank(owner);
        uint256 a = registry.offer(id, address(0), _division(30 days, 5_000, 0, address(0), IR.Party.Owner));
        vm.prank(scholar);
        registry.accept(a);
        vm.warp(START + 30 minutes);
        _settle(_match(bytes32(uint256(1)), _one(_toAvatar(id, 10 * DEW))));
        vm.warp(START + 2 hours);
        uint64 idleFrom = uint64(START + 30 minutes) + registry.MAX_IDLE();
        vm.expectRevert(abi.encodeWithSelector(IR.AgreementNotIdle.selector, a, idleFrom));
        vm.prank(owner);
        registry.reclaimIdle(a);
    }
}
