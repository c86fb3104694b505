// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IScholarshipRegistry as IR} from "../../src/interfaces/IScholarshipRegistry.sol";
import {Fixture} from "../utils/Fixture.sol";
import {Handler} from "./Handler.sol";

/// @dev System invariants under random sequences of settlements, rentals, time and attacks.
contract SystemInvariantTest is Fixture {
    Handler internal handler;

    function setUp() public override {
        super.setUp();
        handler = new Handler(token, avatar, vip, registry, settlement, operator);
        address[6] memory actors = handler.actorList();
        address[] memory recipients = new address[](handler.AVATARS());
        for (uint256 i; i < recipients.length; ++i) {
            recipients[i] = actors[i % 3];
        }
        vm.prank(operator);
        avatar.mintBatch(recipients);
        for (uint256 i; i < actors.length; ++i) {
            _screen(actors[i]);
            _giveDew(actors[i], 1_000 * DEW);
            vm.prank(actors[i]);
            token.approve(address(registry), type(uint256).max);
        }
        targetContract(address(handler));
    }

    /// No matchId is ever paid twice, and a settled id is exactly one that was paid once.
    function invariant_noMatchPaidTwice() public view {
        for (uint256 n = 1; n <= handler.MATCH_POOL(); ++n) {
            uint256 times = handler.timesSettled(n);
            vm.assertLe(times, 1, "a match was settled twice");
            vm.assertEq(settlement.isSettled(bytes32(n)), times == 1);
        }
    }

    /// The DEW that left the vault is exactly the sum of the payouts of settled matches.
    function invariant_totalPaidEqualsSettledPayouts() public view {
        vm.assertEq(settlement.totalPaid(), handler.ghostPaid());
        vm.assertEq(VAULT - token.balanceOf(address(settlement)), handler.ghostPaid());
    }

    /// Escrowed rent is conserved: the registry holds exactly the unpaid rent of active agreements.
    function invariant_escrowedRentConserved() public view {
        uint256 unpaid;
        uint256 count = registry.agreementCount();
        for (uint256 id = 1; id <= count; ++id) {
            IR.Agreement memory a = registry.agreementOf(id);
            if (a.status == IR.Status.Active) unpaid += a.rent - a.rentPaid;
        }
        vm.assertEq(registry.escrowedRent(), unpaid);
        vm.assertEq(token.balanceOf(address(registry)), unpaid);
    }

    /// DEW is only moved, never created or lost, outside minting.
    function invariant_supplyIsAccountedFor() public view {
        address[6] memory actors = handler.actorList();
        uint256 held = token.balanceOf(address(settlement)) + token.balanceOf(address(registry));
        for (uint256 i; i < actors.length; ++i) {
            held += token.balanceOf(actors[i]);
        }
        vm.assertEq(held, token.totalSupply());
    }

    /// Only role holders can mint, settle, screen, issue or rent out.
    function invariant_onlyRoleHoldersAct() public view {
        vm.assertEq(handler.unauthorizedSuccesses(), 0);
    }

    /// A rented avatar's user is its scholar until the term ends; the owner cannot override it.
    function invariant_rentedUserFixedBeforeExpiry() public view {
        vm.assertEq(handler.lockBreaches(), 0);
        for (uint256 avatarId = 1; avatarId <= handler.AVATARS(); ++avatarId) {
            uint256 id = registry.activeAgreementOf(avatarId);
            if (id == 0) continue;
            IR.Agreement memory a = registry.agreementOf(id);
            if (block.timestamp < a.endsAt) {
                vm.assertEq(avatar.userOf(avatarId), a.scholar);
                vm.assertEq(avatar.ownerOf(avatarId), a.owner);
            }
        }
    }
}
