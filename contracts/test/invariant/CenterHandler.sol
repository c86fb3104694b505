// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Contributions} from "../../src/Contributions.sol";
import {DEWToken} from "../../src/DEWToken.sol";
import {GameCenter} from "../../src/GameCenter.sol";
import {ScholarshipRegistry} from "../../src/ScholarshipRegistry.sol";
import {IScholarshipRegistry as IR} from "../../src/interfaces/IScholarshipRegistry.sol";
import {Vm} from "../utils/Test.sol";

/// @dev Random rentals, transfers, user changes, terminations, time and contributions over a
///      few Game Centers; calls that revert are fine (nothing may change), the ghosts count
///      what succeeded.
contract CenterHandler {
    Vm internal constant vm = Vm(address(uint160(uint256(keccak256("hevm cheat code")))));

    uint256 public constant ACTORS = 5;
    uint256 public constant CENTERS = 4;

    DEWToken public immutable token;
    GameCenter public immutable center;
    ScholarshipRegistry public immutable registry;
    Contributions public immutable contributions;

    address[ACTORS] public actors;

    uint256 public ghostContributed;
    /// A transfer or user change of a center under a running rental that succeeded.
    uint256 public lockBreaches;

    constructor(DEWToken token_, GameCenter center_, ScholarshipRegistry registry_, Contributions contributions_) {
        token = token_;
        center = center_;
        registry = registry_;
        contributions = contributions_;
        for (uint256 i; i < ACTORS; ++i) {
            actors[i] = address(uint160(0xC000 + i));
        }
    }

    function actorList() external view returns (address[ACTORS] memory) {
        return actors;
    }

    function _actor(uint256 seed) internal view returns (address) {
        return actors[seed % ACTORS];
    }

    function _centerId(uint256 seed) internal pure returns (uint256) {
        return seed % CENTERS + 1;
    }

    function _locked(uint256 centerId) internal view returns (bool) {
        return center.rentedUntil(centerId) > block.timestamp;
    }

    function rent(uint256 centerSeed, uint256 renterSeed, uint64 duration, uint128 rent_) external {
        uint256 centerId = _centerId(centerSeed);
        address owner = center.ownerOf(centerId);
        address renter = _actor(renterSeed);
        duration = uint64(duration % 60 days + 1 hours);
        rent_ = uint128(rent_ % (50 * 1e18));
        IR.OfferTerms memory t;
        t.terms = IR.Terms.FixedRent;
        t.duration = duration;
        t.rent = rent_;
        t.dustTo = IR.Party.Scholar;
        t.validUntil = type(uint64).max;
        vm.prank(owner);
        try registry.offer(centerId, renter, t) returns (uint256 agreementId) {
            vm.prank(renter);
            try registry.accept(agreementId) {} catch {}
        } catch {}
    }

    function transfer(uint256 centerSeed, uint256 toSeed) external {
        uint256 centerId = _centerId(centerSeed);
        address owner = center.ownerOf(centerId);
        bool locked = _locked(centerId);
        vm.prank(owner);
        try center.transferFrom(owner, _actor(toSeed), centerId) {
            if (locked) ++lockBreaches;
        } catch {}
    }

    function setUser(uint256 centerSeed, uint256 userSeed, uint32 forSeconds) external {
        uint256 centerId = _centerId(centerSeed);
        bool locked = _locked(centerId);
        vm.prank(center.ownerOf(centerId));
        try center.setUser(centerId, _actor(userSeed), uint64(block.timestamp + forSeconds)) {
            if (locked) ++lockBreaches;
        } catch {}
    }

    function terminate(uint256 centerSeed) external {
        uint256 agreementId = registry.activeAgreementOf(_centerId(centerSeed));
        if (agreementId == 0) return;
        vm.prank(registry.agreementOf(agreementId).scholar);
        try registry.terminate(agreementId) {} catch {}
    }

    function claimRent(uint256 centerSeed) external {
        uint256 agreementId = registry.activeAgreementOf(_centerId(centerSeed));
        if (agreementId == 0) return;
        try registry.claimRent(agreementId) {} catch {}
    }

    function contribute(uint256 actorSeed, uint256 tournamentId, uint256 amount) external {
        address from = _actor(actorSeed);
        amount = amount % (20 * 1e18);
        vm.prank(from);
        try contributions.contribute(tournamentId % 5, amount) {
            ghostContributed += amount;
        } catch {}
    }

    function warp(uint32 seconds_) external {
        vm.warp(block.timestamp + seconds_ % 10 days);
    }
}
