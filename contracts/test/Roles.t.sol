// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IAccessControl} from "@openzeppelin/contracts/access/IAccessControl.sol";
import {
    IAccessControlDefaultAdminRules as IRules
} from "@openzeppelin/contracts/access/extensions/IAccessControlDefaultAdminRules.sol";
import {Fixture} from "./utils/Fixture.sol";

/// @dev Issue 9, item 1: who holds which key, and how the admin role moves.
contract RolesTest is Fixture {
    uint48 internal constant DELAY = 2 days;

    function _all() internal view returns (IRules[5] memory list) {
        list = [
            IRules(address(token)),
            IRules(address(avatar)),
            IRules(address(vip)),
            IRules(address(registry)),
            IRules(address(settlement))
        ];
    }

    function test_defaultAdmin_isTheAdminEverywhere() public view {
        IRules[5] memory list = _all();
        for (uint256 i; i < list.length; ++i) {
            vm.assertEq(list[i].defaultAdmin(), admin);
            vm.assertEq(uint256(list[i].defaultAdminDelay()), DELAY);
            vm.assertFalse(IAccessControl(address(list[i])).hasRole(bytes32(0), operator));
        }
    }

    /// The operator's hot key cannot mint DEW (it held MINTER_ROLE before).
    function test_mint_revertsWhenCalledByTheOperator() public {
        vm.expectRevert(
            abi.encodeWithSelector(
                IAccessControl.AccessControlUnauthorizedAccount.selector, operator, token.MINTER_ROLE()
            )
        );
        vm.prank(operator);
        token.mint(operator, 1);
    }

    /// A (stolen) admin key cannot add a second admin in one transaction, on any contract.
    function test_grantRole_revertsWhenGrantingTheAdminRole() public {
        IRules[5] memory list = _all();
        for (uint256 i; i < list.length; ++i) {
            vm.expectRevert(IRules.AccessControlEnforcedDefaultAdminRules.selector);
            vm.prank(admin);
            IAccessControl(address(list[i])).grantRole(bytes32(0), stranger);
            vm.assertFalse(IAccessControl(address(list[i])).hasRole(bytes32(0), stranger));
        }
    }

    /// Handing the admin role over takes two steps and the delay; it can be cancelled meanwhile.
    function test_acceptDefaultAdminTransfer_revertsWhenTheDelayHasNotPassed() public {
        IRules[5] memory list = _all();
        address next = address(0x2AD);
        for (uint256 i; i < list.length; ++i) {
            vm.prank(admin);
            list[i].beginDefaultAdminTransfer(next);
            uint48 schedule = uint48(block.timestamp) + DELAY;
            vm.expectRevert(abi.encodeWithSelector(IRules.AccessControlEnforcedDefaultAdminDelay.selector, schedule));
            vm.prank(next);
            list[i].acceptDefaultAdminTransfer();
        }
        vm.warp(block.timestamp + DELAY + 1);
        for (uint256 i; i < list.length; ++i) {
            vm.prank(next);
            list[i].acceptDefaultAdminTransfer();
            vm.assertEq(list[i].defaultAdmin(), next);
            vm.assertFalse(IAccessControl(address(list[i])).hasRole(bytes32(0), admin));
        }
    }

    function test_acceptDefaultAdminTransfer_revertsWhenCancelled() public {
        address next = address(0x2AD);
        vm.prank(admin);
        settlement.beginDefaultAdminTransfer(next);
        vm.prank(admin);
        settlement.cancelDefaultAdminTransfer();
        vm.warp(block.timestamp + DELAY + 1);
        vm.expectRevert(abi.encodeWithSelector(IRules.AccessControlInvalidDefaultAdmin.selector, next));
        vm.prank(next);
        settlement.acceptDefaultAdminTransfer();
        vm.assertEq(settlement.defaultAdmin(), admin);
    }

    function test_beginDefaultAdminTransfer_revertsWhenNotTheAdmin() public {
        vm.expectRevert(
            abi.encodeWithSelector(IAccessControl.AccessControlUnauthorizedAccount.selector, operator, bytes32(0))
        );
        vm.prank(operator);
        token.beginDefaultAdminTransfer(operator);
    }
}
