// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {AvatarNFT} from "../../src/AvatarNFT.sol";
import {DEWToken} from "../../src/DEWToken.sol";
import {MatchSettlement} from "../../src/MatchSettlement.sol";
import {ScholarshipRegistry} from "../../src/ScholarshipRegistry.sol";
import {VIPPass} from "../../src/VIPPass.sol";
import {IScholarshipRegistry} from "../../src/interfaces/IScholarshipRegistry.sol";
import {Test} from "./Test.sol";

/// @dev The shared deployer: all five contracts wired as scripts/deploy.py wires them.
abstract contract Fixture is Test {
    uint256 internal constant DEW = 1e18;
    uint256 internal constant CAP = 1_000_000_000 * DEW;
    uint256 internal constant VAULT = 10_000_000 * DEW;
    uint64 internal constant START = 1_800_000_000;
    /// The largest limits the vault can hold ("no limit" in the shared fixture).
    uint256 internal constant NO_PERIOD_LIMIT = ((1 << 32) - 1) * 1e18;
    uint256 internal constant NO_PER_MATCH_LIMIT = ((1 << 24) - 1) * 1e18;
    uint256 internal constant NO_MATCH_LIMIT = (1 << 31) - 1;

    address internal admin = address(0xAD);
    address internal operator = address(0x0E);
    /// @dev Holds DEW's MINTER_ROLE so tests can create balances. A real deployment has no
    ///      minter at all: deploy.py mints the cap once and renounces the role.
    address internal treasury = address(0x7EA5);
    address internal stranger = address(0x57);
    address internal owner = address(0x0A11);
    address internal scholar = address(0x5C01);
    address internal manager = address(0x3A6);

    DEWToken internal token;
    AvatarNFT internal avatar;
    VIPPass internal vip;
    ScholarshipRegistry internal registry;
    MatchSettlement internal settlement;

    function setUp() public virtual {
        vm.warp(START);
        token = new DEWToken(admin, CAP);
        avatar = new AvatarNFT(admin, "https://dew.example/avatars/");
        vip = new VIPPass(admin, "https://dew.example/vip/{id}.json");
        registry = new ScholarshipRegistry(admin, avatar, token);
        settlement = new MatchSettlement(admin, token, registry);
        vm.startPrank(admin);
        token.grantRole(token.MINTER_ROLE(), treasury);
        avatar.grantRole(avatar.MINTER_ROLE(), operator);
        avatar.grantRole(avatar.RENTAL_ROLE(), address(registry));
        registry.grantRole(registry.SETTLEMENT_ROLE(), address(settlement));
        vip.grantRole(vip.ISSUER_ROLE(), operator);
        registry.grantRole(registry.SCREENER_ROLE(), operator);
        settlement.grantRole(settlement.SETTLER_ROLE(), operator);
        settlement.grantRole(settlement.GUARDIAN_ROLE(), operator);
        // No limit in the shared fixture (the limits' own tests set them): the largest ones.
        settlement.setLimits(NO_PERIOD_LIMIT, NO_PER_MATCH_LIMIT, 1 days, NO_MATCH_LIMIT);
        vm.stopPrank();
        vm.prank(treasury);
        token.mint(address(settlement), VAULT);
        vm.label(address(token), "DEWToken");
        vm.label(address(avatar), "AvatarNFT");
        vm.label(address(registry), "ScholarshipRegistry");
        vm.label(address(settlement), "MatchSettlement");
    }

    function _mintAvatar(address to) internal returns (uint256 id) {
        address[] memory recipients = new address[](1);
        recipients[0] = to;
        vm.prank(operator);
        id = avatar.mintBatch(recipients);
    }

    function _giveDew(address to, uint256 amount) internal {
        vm.prank(treasury);
        token.mint(to, amount);
    }

    function _screen(address who) internal {
        vm.prank(operator);
        registry.setScreened(who, true);
    }

    function _fixedRent(uint64 duration, uint128 rent)
        internal
        pure
        returns (IScholarshipRegistry.OfferTerms memory t)
    {
        t.terms = IScholarshipRegistry.Terms.FixedRent;
        t.duration = duration;
        t.rent = rent;
        t.dustTo = IScholarshipRegistry.Party.Scholar;
        t.validUntil = type(uint64).max;
    }

    function _division(
        uint64 duration,
        uint16 ownerBps,
        uint16 managerBps,
        address manager_,
        IScholarshipRegistry.Party dustTo
    ) internal pure returns (IScholarshipRegistry.OfferTerms memory t) {
        t.terms = IScholarshipRegistry.Terms.RewardsDivision;
        t.duration = duration;
        t.ownerBps = ownerBps;
        t.managerBps = managerBps;
        t.manager = manager_;
        t.dustTo = dustTo;
        t.validUntil = type(uint64).max;
    }

    /// @dev Owner (screened) offers `avatarId` to `scholar_` and the scholar accepts.
    function _rent(uint256 avatarId, address owner_, address scholar_, IScholarshipRegistry.OfferTerms memory t)
        internal
        returns (uint256 agreementId)
    {
        if (!registry.isScreened(owner_)) _screen(owner_);
        vm.prank(owner_);
        agreementId = registry.offer(avatarId, scholar_, t);
        if (t.rent != 0) {
            vm.prank(scholar_);
            token.approve(address(registry), t.rent);
        }
        vm.prank(scholar_);
        registry.accept(agreementId);
    }

    // --- settle batch encoding (mirror of backend.chain.contracts.pack_settle_batch) ---

    function _toAccount(address to, uint256 amount) internal pure returns (uint256) {
        return amount << 160 | uint160(to);
    }

    /// @dev An avatar payout for a match played now (playedAt 0).
    function _toAvatar(uint256 avatarId, uint256 amount) internal pure returns (uint256) {
        return 1 << 248 | amount << 160 | avatarId;
    }

    function _toAvatarAt(uint256 avatarId, uint256 amount, uint64 playedAt) internal pure returns (uint256) {
        return 1 << 248 | amount << 160 | uint256(playedAt) << 96 | avatarId;
    }

    function _match(bytes32 matchId, uint256[] memory payouts) internal pure returns (bytes memory m) {
        m = abi.encodePacked(matchId, keccak256(abi.encode("record", matchId)), uint16(payouts.length));
        for (uint256 i; i < payouts.length; ++i) {
            m = bytes.concat(m, bytes32(payouts[i]));
        }
    }

    function _one(uint256 payout) internal pure returns (uint256[] memory list) {
        list = new uint256[](1);
        list[0] = payout;
    }

    function _two(uint256 a, uint256 b) internal pure returns (uint256[] memory list) {
        list = new uint256[](2);
        list[0] = a;
        list[1] = b;
    }

    function _settle(bytes memory batch) internal returns (uint256 settled, uint256 paid) {
        vm.prank(operator);
        (settled, paid) = settlement.settle(batch);
    }
}
