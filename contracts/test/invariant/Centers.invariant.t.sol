// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {Contributions} from "../../src/Contributions.sol";
import {GameCenter} from "../../src/GameCenter.sol";
import {ScholarshipRegistry} from "../../src/ScholarshipRegistry.sol";
import {IAvatarNFT} from "../../src/interfaces/IAvatarNFT.sol";
import {IScholarshipRegistry as IR} from "../../src/interfaces/IScholarshipRegistry.sol";
import {Fixture} from "../utils/Fixture.sol";
import {CenterHandler} from "./CenterHandler.sol";

/// @dev Game Centers rented through their ScholarshipRegistry, and contributions to the vault.
contract CentersInvariantTest is Fixture {
    GameCenter internal center;
    ScholarshipRegistry internal centerRegistry;
    Contributions internal contributions;
    CenterHandler internal handler;

    function setUp() public override {
        super.setUp();
        center = new GameCenter(admin, "https://dew.example/centers/");
        centerRegistry = new ScholarshipRegistry(admin, IAvatarNFT(address(center)), token);
        contributions = new Contributions(token, address(settlement));
        handler = new CenterHandler(token, center, centerRegistry, contributions);
        vm.startPrank(admin);
        center.grantRole(center.MINTER_ROLE(), operator);
        center.grantRole(center.RENTAL_ROLE(), address(centerRegistry));
        centerRegistry.grantRole(centerRegistry.SCREENER_ROLE(), operator);
        vm.stopPrank();
        address[5] memory actors = handler.actorList();
        for (uint256 i; i < actors.length; ++i) {
            vm.prank(operator);
            centerRegistry.setScreened(actors[i], true);
            _giveDew(actors[i], 1_000 * DEW);
            vm.startPrank(actors[i]);
            token.approve(address(centerRegistry), type(uint256).max);
            token.approve(address(contributions), type(uint256).max);
            vm.stopPrank();
        }
        for (uint256 i; i < handler.CENTERS(); ++i) {
            vm.prank(operator);
            center.mintCenter(actors[i % 2], "Club", "DO", "Santiago", int32(int256(i)), 0, 4);
        }
        targetContract(address(handler));
    }

    /// A rented center stays its owner's, and its fee legs go to the renter, until the term ends.
    function invariant_rentedCenterPaysTheRenterAndCannotMove() public view {
        vm.assertEq(handler.lockBreaches(), 0);
        for (uint256 centerId = 1; centerId <= handler.CENTERS(); ++centerId) {
            uint256 id = centerRegistry.activeAgreementOf(centerId);
            if (id == 0) continue;
            IR.Agreement memory a = centerRegistry.agreementOf(id);
            if (block.timestamp < a.endsAt) {
                vm.assertEq(center.payeeOf(centerId), a.scholar);
                vm.assertEq(center.ownerOf(centerId), a.owner);
            }
        }
    }

    /// The payee is always the owner or an unexpired user.
    function invariant_payeeIsOwnerOrCurrentUser() public view {
        for (uint256 centerId = 1; centerId <= handler.CENTERS(); ++centerId) {
            address payee = center.payeeOf(centerId);
            address user = center.userOf(centerId);
            vm.assertEq(payee, user != address(0) ? user : center.ownerOf(centerId));
        }
    }

    /// Every contributed wei reached the vault; nothing stays in Contributions.
    function invariant_contributionsReachTheVault() public view {
        vm.assertEq(token.balanceOf(address(settlement)), VAULT + handler.ghostContributed());
        vm.assertEq(token.balanceOf(address(contributions)), 0);
    }

    /// The centers' registry holds exactly the unpaid rent of its active agreements.
    function invariant_centerRentEscrowConserved() public view {
        uint256 unpaid;
        uint256 count = centerRegistry.agreementCount();
        for (uint256 id = 1; id <= count; ++id) {
            IR.Agreement memory a = centerRegistry.agreementOf(id);
            if (a.status == IR.Status.Active) unpaid += a.rent - a.rentPaid;
        }
        vm.assertEq(token.balanceOf(address(centerRegistry)), unpaid);
    }
}
