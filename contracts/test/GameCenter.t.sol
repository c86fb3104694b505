// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IAccessControl} from "@openzeppelin/contracts/access/IAccessControl.sol";
import {IERC721Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {IERC2981} from "@openzeppelin/contracts/interfaces/IERC2981.sol";
import {IERC721} from "@openzeppelin/contracts/token/ERC721/IERC721.sol";
import {GameCenter} from "../src/GameCenter.sol";
import {ScholarshipRegistry} from "../src/ScholarshipRegistry.sol";
import {IAvatarNFT} from "../src/interfaces/IAvatarNFT.sol";
import {IERC4907} from "../src/interfaces/IERC4907.sol";
import {IGameCenter} from "../src/interfaces/IGameCenter.sol";
import {IScholarshipRegistry} from "../src/interfaces/IScholarshipRegistry.sol";
import {Fixture} from "./utils/Fixture.sol";

/// @dev The GameCenter wired as deploy.py wires it: the operator mints, a second
///      ScholarshipRegistry over the centers holds RENTAL_ROLE, a shop holds SHOP_ROLE.
abstract contract CenterFixture is Fixture {
    address internal shop = address(0x5409);
    address internal renter = address(0x4E27);

    GameCenter internal center;
    ScholarshipRegistry internal centerRegistry;

    function setUp() public virtual override {
        super.setUp();
        center = new GameCenter(admin, "https://dew.example/centers/");
        centerRegistry = new ScholarshipRegistry(admin, IAvatarNFT(address(center)), token);
        vm.startPrank(admin);
        center.grantRole(center.MINTER_ROLE(), operator);
        center.grantRole(center.SHOP_ROLE(), shop);
        center.grantRole(center.RENTAL_ROLE(), address(centerRegistry));
        centerRegistry.grantRole(centerRegistry.SCREENER_ROLE(), operator);
        vm.stopPrank();
        vm.label(address(center), "GameCenter");
        vm.label(address(centerRegistry), "CenterRegistry");
    }

    function _mintCenter(address to) internal returns (uint256 id) {
        vm.prank(operator);
        id = center.mintCenter(to, "Club Domino", "DO", "Santo Domingo", 1847, -6990, 12);
    }

    /// @dev `owner_` (screened) rents `centerId` to `renter_` for `rent` DEW over `duration`.
    function _rentCenter(uint256 centerId, address owner_, address renter_, uint64 duration, uint128 rent)
        internal
        returns (uint256 agreementId)
    {
        if (!centerRegistry.isScreened(owner_)) {
            vm.prank(operator);
            centerRegistry.setScreened(owner_, true);
        }
        vm.prank(owner_);
        agreementId = centerRegistry.offer(centerId, renter_, _fixedRent(duration, rent));
        vm.prank(renter_);
        token.approve(address(centerRegistry), rent);
        vm.prank(renter_);
        centerRegistry.accept(agreementId);
    }
}

contract GameCenterTest is CenterFixture {
    // --- minting and its bounds ---

    function test_mintCenter_storesTheDescription() public {
        vm.expectEmit(true, true, false, true, address(center));
        emit IGameCenter.CenterMinted(1, owner, "Club Domino", "DO", "Santo Domingo", 1847, -6990, 12);
        uint256 id = _mintCenter(owner);
        vm.assertEq(id, 1);
        vm.assertEq(center.ownerOf(1), owner);
        vm.assertEq(center.nextTokenId(), 2);
        (string memory name, bytes2 country, string memory city, int32 lat, int32 lon, uint16 capacity) =
            center.centerOf(1);
        vm.assertEq(name, "Club Domino");
        vm.assertEq(bytes32(country), bytes32(bytes2("DO")));
        vm.assertEq(city, "Santo Domingo");
        vm.assertTrue(lat == 1847 && lon == -6990 && capacity == 12);
        vm.assertTrue(center.isPlaced(1));
        vm.assertEq(center.payeeOf(1), owner);
        vm.assertEq(_mintCenter(stranger), 2);
    }

    function test_mintCenter_onlyMinter() public {
        vm.expectRevert(
            abi.encodeWithSelector(
                IAccessControl.AccessControlUnauthorizedAccount.selector, stranger, center.MINTER_ROLE()
            )
        );
        vm.prank(stranger);
        center.mintCenter(stranger, "Mine", "DO", "Santiago", 0, 0, 1);
        vm.assertEq(center.nextTokenId(), 1);
    }

    function test_mintCenter_refusesTheZeroAddress() public {
        vm.expectRevert(abi.encodeWithSelector(IERC721Errors.ERC721InvalidReceiver.selector, address(0)));
        vm.prank(operator);
        center.mintCenter(address(0), "Club", "DO", "Santiago", 0, 0, 1);
    }

    function test_mintCenter_acceptsTheEdges() public {
        string memory longest = "0123456789012345678901234567890123456789012345678901234567890123";
        vm.startPrank(operator);
        center.mintCenter(owner, longest, "AZ", longest, 9000, 18_000, 500);
        center.mintCenter(owner, "x", "ZA", "y", -9000, -18_000, 1);
        vm.stopPrank();
        vm.assertEq(center.balanceOf(owner), 2);
    }

    function test_mintCenter_refusesBadNamesAndCities() public {
        string memory tooLong = "01234567890123456789012345678901234567890123456789012345678901234";
        vm.startPrank(operator);
        vm.expectRevert(abi.encodeWithSelector(IGameCenter.GameCenterInvalidName.selector, 0));
        center.mintCenter(owner, "", "DO", "Santiago", 0, 0, 1);
        vm.expectRevert(abi.encodeWithSelector(IGameCenter.GameCenterInvalidName.selector, 65));
        center.mintCenter(owner, tooLong, "DO", "Santiago", 0, 0, 1);
        vm.expectRevert(abi.encodeWithSelector(IGameCenter.GameCenterInvalidCity.selector, 0));
        center.mintCenter(owner, "Club", "DO", "", 0, 0, 1);
        vm.expectRevert(abi.encodeWithSelector(IGameCenter.GameCenterInvalidCity.selector, 65));
        center.mintCenter(owner, "Club", "DO", tooLong, 0, 0, 1);
        vm.stopPrank();
        vm.assertEq(center.nextTokenId(), 1);
    }

    function test_mintCenter_refusesBadCountries() public {
        bytes2[5] memory bad = [bytes2("do"), bytes2("D1"), bytes2(0), bytes2("@A"), bytes2("A[")];
        vm.startPrank(operator);
        for (uint256 i; i < bad.length; ++i) {
            vm.expectRevert(abi.encodeWithSelector(IGameCenter.GameCenterInvalidCountry.selector, bad[i]));
            center.mintCenter(owner, "Club", bad[i], "Santiago", 0, 0, 1);
        }
        vm.stopPrank();
    }

    function test_mintCenter_refusesCapacityOutOfBounds() public {
        vm.startPrank(operator);
        vm.expectRevert(abi.encodeWithSelector(IGameCenter.GameCenterInvalidCapacity.selector, 0));
        center.mintCenter(owner, "Club", "DO", "Santiago", 0, 0, 0);
        vm.expectRevert(abi.encodeWithSelector(IGameCenter.GameCenterInvalidCapacity.selector, 501));
        center.mintCenter(owner, "Club", "DO", "Santiago", 0, 0, 501);
        vm.stopPrank();
    }

    function testFuzz_mintCenter_locationBounds(int32 lat, int32 lon) public {
        bool inside = lat >= -9000 && lat <= 9000 && lon >= -18_000 && lon <= 18_000;
        if (!inside) {
            vm.expectRevert(abi.encodeWithSelector(IGameCenter.GameCenterInvalidLocation.selector, lat, lon));
        }
        vm.prank(operator);
        center.mintCenter(owner, "Club", "DO", "Santiago", lat, lon, 1);
        vm.assertEq(center.balanceOf(owner), inside ? 1 : 0);
    }

    function testFuzz_mintCenter_capacityBounds(uint16 capacity) public {
        bool inside = capacity >= 1 && capacity <= 500;
        if (!inside) {
            vm.expectRevert(abi.encodeWithSelector(IGameCenter.GameCenterInvalidCapacity.selector, capacity));
        }
        vm.prank(operator);
        center.mintCenter(owner, "Club", "DO", "Santiago", 0, 0, capacity);
        vm.assertEq(center.balanceOf(owner), inside ? 1 : 0);
    }

    function test_centerOf_revertsForAMissingCenter() public {
        vm.expectRevert(abi.encodeWithSelector(IERC721Errors.ERC721NonexistentToken.selector, 1));
        center.centerOf(1);
        vm.expectRevert(abi.encodeWithSelector(IERC721Errors.ERC721NonexistentToken.selector, 1));
        center.payeeOf(1);
    }

    // --- the shop ---

    function test_shopMint_describedCenter() public {
        bytes memory data = abi.encode("Shop Club", bytes2("MX"), "Monterrey", int32(2567), int32(-10_031), uint16(20));
        vm.prank(shop);
        uint256 id = center.shopMint(owner, 999, 1, data);
        vm.assertEq(id, 1);
        (string memory name, bytes2 country,,,, uint16 capacity) = center.centerOf(id);
        vm.assertEq(name, "Shop Club");
        vm.assertEq(bytes32(country), bytes32(bytes2("MX")));
        vm.assertTrue(capacity == 20);
        vm.assertTrue(center.isPlaced(id));
    }

    function test_shopMint_blankCenterIsPlacedOnceByItsOwner() public {
        vm.prank(shop);
        uint256 id = center.shopMint(owner, 0, 1, "");
        vm.assertFalse(center.isPlaced(id));
        (,,,,, uint16 capacity) = center.centerOf(id);
        vm.assertTrue(capacity == center.SHOP_CAPACITY());

        vm.expectRevert(abi.encodeWithSelector(IERC721Errors.ERC721InsufficientApproval.selector, stranger, id));
        vm.prank(stranger);
        center.place(id, "Theirs", "DO", "Santiago", 0, 0);

        vm.expectRevert(abi.encodeWithSelector(IGameCenter.GameCenterInvalidCountry.selector, bytes2("d0")));
        vm.prank(owner);
        center.place(id, "Mine", "d0", "Santiago", 0, 0);

        vm.expectEmit(true, true, false, true, address(center));
        emit IGameCenter.CenterPlaced(id, owner, "Mine", "DO", "Santiago", 1945, -7070);
        vm.prank(owner);
        center.place(id, "Mine", "DO", "Santiago", 1945, -7070);
        vm.assertTrue(center.isPlaced(id));
        (,,,,, capacity) = center.centerOf(id);
        vm.assertTrue(capacity == center.SHOP_CAPACITY());

        vm.expectRevert(abi.encodeWithSelector(IGameCenter.GameCenterAlreadyPlaced.selector, id));
        vm.prank(owner);
        center.place(id, "Moved", "US", "Miami", 2577, -8019);
    }

    function test_place_refusesAnOperatorMintedCenter() public {
        uint256 id = _mintCenter(owner);
        vm.expectRevert(abi.encodeWithSelector(IGameCenter.GameCenterAlreadyPlaced.selector, id));
        vm.prank(owner);
        center.place(id, "Moved", "US", "Miami", 2577, -8019);
    }

    function test_shopMint_refusals() public {
        vm.expectRevert(
            abi.encodeWithSelector(
                IAccessControl.AccessControlUnauthorizedAccount.selector, operator, center.SHOP_ROLE()
            )
        );
        vm.prank(operator);
        center.shopMint(owner, 0, 1, "");
        vm.startPrank(shop);
        vm.expectRevert(abi.encodeWithSelector(IGameCenter.GameCenterShopAmount.selector, 2));
        center.shopMint(owner, 0, 2, "");
        vm.expectRevert(abi.encodeWithSelector(IGameCenter.GameCenterShopAmount.selector, 0));
        center.shopMint(owner, 0, 0, "");
        vm.expectRevert(abi.encodeWithSelector(IGameCenter.GameCenterInvalidDescription.selector, 64));
        center.shopMint(owner, 0, 1, abi.encode(uint256(1), uint256(2)));
        bytes memory zeroCapacity = abi.encode("Club", bytes2("DO"), "Santiago", int32(0), int32(0), uint16(0));
        vm.expectRevert(abi.encodeWithSelector(IGameCenter.GameCenterInvalidCapacity.selector, 0));
        center.shopMint(owner, 0, 1, zeroCapacity);
        vm.expectRevert(abi.encodeWithSelector(IERC721Errors.ERC721InvalidReceiver.selector, address(0)));
        center.shopMint(address(0), 0, 1, "");
        vm.stopPrank();
        vm.assertEq(center.nextTokenId(), 1);
    }

    /// Whatever bytes the shop passes, a center is minted only when they describe a valid one.
    function testFuzz_shopMint_neverMintsAnInvalidCenter(bytes calldata data) public {
        vm.prank(shop);
        try center.shopMint(owner, 0, 1, data) returns (uint256 id) {
            (string memory name, bytes2 country, string memory city, int32 lat, int32 lon, uint16 capacity) =
                center.centerOf(id);
            if (data.length == 0) {
                vm.assertFalse(center.isPlaced(id));
                vm.assertTrue(capacity == center.SHOP_CAPACITY());
                return;
            }
            vm.assertTrue(bytes(name).length >= 1 && bytes(name).length <= 64);
            vm.assertTrue(bytes(city).length >= 1 && bytes(city).length <= 64);
            vm.assertTrue(country[0] >= "A" && country[0] <= "Z" && country[1] >= "A" && country[1] <= "Z");
            vm.assertTrue(lat >= -9000 && lat <= 9000 && lon >= -18_000 && lon <= 18_000);
            vm.assertTrue(capacity >= 1 && capacity <= 500);
        } catch {
            vm.assertEq(center.nextTokenId(), 1);
        }
    }

    /// A described shop center is minted exactly when every field is within its bounds.
    function testFuzz_shopMint_describedBounds(
        string calldata name,
        bytes2 country,
        string calldata city,
        int32 lat,
        int32 lon,
        uint16 capacity
    ) public {
        // Around the bounds, so that both outcomes are common: letters '@'..'[' and coordinates
        // and capacities a little past their limits.
        country = bytes2(uint16(0x40 + uint8(country[0]) % 28) << 8 | uint16(0x40 + uint8(country[1]) % 28));
        lat = int32(int256(bound(uint256(int256(lat) + 2 ** 31), 2 ** 31 - 9100, 2 ** 31 + 9100)) - 2 ** 31);
        lon = int32(int256(bound(uint256(int256(lon) + 2 ** 31), 2 ** 31 - 18_100, 2 ** 31 + 18_100)) - 2 ** 31);
        capacity = uint16(bound(capacity, 0, 520));
        bool valid = bytes(name).length >= 1 && bytes(name).length <= 64 && bytes(city).length >= 1
            && bytes(city).length <= 64 && country[0] >= "A" && country[0] <= "Z" && country[1] >= "A"
            && country[1] <= "Z" && lat >= -9000 && lat <= 9000 && lon >= -18_000 && lon <= 18_000 && capacity >= 1
            && capacity <= 500;
        bytes memory data = abi.encode(name, country, city, lat, lon, capacity);
        vm.prank(shop);
        try center.shopMint(owner, 0, 1, data) returns (uint256 id) {
            vm.assertTrue(valid, "an invalid description was minted");
            (string memory storedName,,,,, uint16 storedCapacity) = center.centerOf(id);
            vm.assertEq(storedName, name);
            vm.assertTrue(storedCapacity == capacity);
        } catch {
            vm.assertFalse(valid, "a valid description was refused");
            vm.assertEq(center.nextTokenId(), 1);
        }
    }

    // --- royalties and interfaces ---

    function test_royalty_defaultsToTheAdminAndIsCapped() public {
        uint256 id = _mintCenter(owner);
        (address receiver, uint256 amount) = center.royaltyInfo(id, 10_000);
        vm.assertEq(receiver, admin);
        vm.assertEq(amount, 500);
        vm.expectEmit(true, false, false, true, address(center));
        emit IGameCenter.RoyaltySet(treasury, 1000);
        vm.prank(admin);
        center.setRoyalty(treasury, 1000);
        (receiver, amount) = center.royaltyInfo(id, 10_000);
        vm.assertEq(receiver, treasury);
        vm.assertEq(amount, 1000);
        vm.expectRevert(abi.encodeWithSelector(IGameCenter.GameCenterRoyaltyTooHigh.selector, 1001, 1000));
        vm.prank(admin);
        center.setRoyalty(treasury, 1001);
        vm.expectRevert(
            abi.encodeWithSelector(
                IAccessControl.AccessControlUnauthorizedAccount.selector, operator, center.DEFAULT_ADMIN_ROLE()
            )
        );
        vm.prank(operator);
        center.setRoyalty(operator, 0);
    }

    function test_supportsItsInterfaces() public view {
        vm.assertTrue(center.supportsInterface(type(IERC721).interfaceId));
        vm.assertTrue(center.supportsInterface(type(IERC2981).interfaceId));
        vm.assertTrue(center.supportsInterface(type(IERC4907).interfaceId));
        vm.assertTrue(center.supportsInterface(type(IAccessControl).interfaceId));
        vm.assertFalse(center.supportsInterface(0xffffffff));
    }

    // --- payee, users and the rental lock ---

    function test_payeeOf_isTheUserUntilItExpires() public {
        uint256 id = _mintCenter(owner);
        vm.prank(owner);
        center.setUser(id, manager, START + 1 days);
        vm.assertEq(center.payeeOf(id), manager);
        vm.warp(START + 1 days);
        vm.assertEq(center.payeeOf(id), owner);
    }

    function test_transfer_clearsTheUserAndPaysTheNewOwner() public {
        uint256 id = _mintCenter(owner);
        vm.prank(owner);
        center.setUser(id, manager, START + 1 days);
        vm.prank(owner);
        center.transferFrom(owner, stranger, id);
        vm.assertEq(center.userOf(id), address(0));
        vm.assertEq(center.payeeOf(id), stranger);
        vm.assertEq(center.transferCount(id), 1);
    }

    function test_rental_locksTheCenterAndPaysTheRenter() public {
        uint256 id = _mintCenter(owner);
        _giveDew(renter, 1000 * DEW);
        uint256 agreementId = _rentCenter(id, owner, renter, 30 days, uint128(300 * DEW));
        vm.assertEq(center.payeeOf(id), renter);
        vm.assertEq(center.rentalLocker(id), address(centerRegistry));
        vm.assertTrue(center.rentedUntil(id) == START + 30 days);
        vm.assertEq(token.balanceOf(address(centerRegistry)), 300 * DEW);

        vm.expectRevert(abi.encodeWithSelector(IGameCenter.GameCenterRented.selector, id, START + 30 days));
        vm.prank(owner);
        center.transferFrom(owner, stranger, id);
        vm.expectRevert(abi.encodeWithSelector(IGameCenter.GameCenterRented.selector, id, START + 30 days));
        vm.prank(owner);
        center.setUser(id, owner, START + 60 days);
        // Another rental-role holder can neither release nor take over the lock.
        address otherRegistry = address(0x0742);
        vm.startPrank(admin);
        center.grantRole(center.RENTAL_ROLE(), otherRegistry);
        vm.stopPrank();
        vm.startPrank(otherRegistry);
        vm.expectRevert(
            abi.encodeWithSelector(
                IGameCenter.GameCenterNotLockedBy.selector, id, otherRegistry, address(centerRegistry)
            )
        );
        center.endRental(id);
        vm.expectRevert(abi.encodeWithSelector(IGameCenter.GameCenterRented.selector, id, START + 30 days));
        center.startRental(id, otherRegistry, START + 40 days);
        vm.stopPrank();

        // Half way, the owner has earned half the rent.
        vm.warp(START + 15 days);
        vm.prank(owner);
        centerRegistry.claimRent(agreementId);
        vm.assertEq(token.balanceOf(owner), 150 * DEW);

        // After the term the owner is paid again, and the center moves.
        vm.warp(START + 30 days);
        vm.assertEq(center.payeeOf(id), owner);
        vm.prank(owner);
        center.transferFrom(owner, stranger, id);
        vm.assertEq(center.payeeOf(id), stranger);
    }

    function test_rental_renterTerminatesEarlyAndIsRefunded() public {
        uint256 id = _mintCenter(owner);
        _giveDew(renter, 1000 * DEW);
        uint256 agreementId = _rentCenter(id, owner, renter, 10 days, uint128(100 * DEW));
        vm.warp(START + 4 days);
        vm.prank(renter);
        centerRegistry.terminate(agreementId);
        vm.assertEq(token.balanceOf(owner), 40 * DEW);
        vm.assertEq(token.balanceOf(renter), 960 * DEW);
        vm.assertEq(center.payeeOf(id), owner);
        vm.assertEq(center.userOf(id), address(0));
        vm.prank(owner);
        center.transferFrom(owner, stranger, id);
    }

    function test_rental_offerVoidedByATransfer() public {
        uint256 id = _mintCenter(owner);
        vm.prank(operator);
        centerRegistry.setScreened(owner, true);
        vm.prank(owner);
        uint256 agreementId = centerRegistry.offer(id, renter, _fixedRent(10 days, 0));
        vm.prank(owner);
        center.transferFrom(owner, stranger, id);
        vm.expectRevert(abi.encodeWithSelector(IScholarshipRegistry.OfferStale.selector, agreementId, owner, stranger));
        vm.prank(renter);
        centerRegistry.accept(agreementId);
    }

    function test_startRental_onlyTheRentalRoleAndBounded() public {
        uint256 id = _mintCenter(owner);
        vm.expectRevert(
            abi.encodeWithSelector(
                IAccessControl.AccessControlUnauthorizedAccount.selector, owner, center.RENTAL_ROLE()
            )
        );
        vm.prank(owner);
        center.startRental(id, renter, START + 1 days);
        vm.startPrank(address(centerRegistry));
        vm.expectRevert(abi.encodeWithSelector(IGameCenter.GameCenterRentalExpired.selector, START, START));
        center.startRental(id, renter, START);
        uint64 tooLong = START + 365 days + 1;
        vm.expectRevert(abi.encodeWithSelector(IGameCenter.GameCenterRentalTooLong.selector, tooLong, START + 365 days));
        center.startRental(id, renter, tooLong);
        vm.stopPrank();
        vm.assertEq(center.payeeOf(id), owner);
    }
}
