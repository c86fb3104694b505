// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IAccessControl} from "@openzeppelin/contracts/access/IAccessControl.sol";
import {IVIPPass} from "../src/interfaces/IVIPPass.sol";
import {Fixture} from "./utils/Fixture.sol";

contract VIPPassTest is Fixture {
    address internal alice = address(0xA11CE);

    function _issue(address holder, uint64 expiresAt) internal {
        vm.prank(operator);
        vip.issue(holder, expiresAt);
    }

    function test_issue_makesPassValidUntilExpiry() public {
        vm.expectEmit(true, false, false, true, address(vip));
        emit IVIPPass.PassIssued(alice, START + 30 days);
        _issue(alice, START + 30 days);
        vm.assertTrue(vip.isValid(alice));
        vm.assertEq(uint256(vip.expiresAt(alice)), START + 30 days);
        vm.assertEq(vip.balanceOf(alice, vip.VIP_TIER()), 1);
        vm.warp(START + 30 days);
        vm.assertFalse(vip.isValid(alice));
    }

    function test_issue_again_redatesWithoutSecondPass() public {
        _issue(alice, START + 1 days);
        _issue(alice, START + 60 days);
        vm.assertEq(vip.balanceOf(alice, 1), 1);
        vm.warp(START + 2 days);
        vm.assertTrue(vip.isValid(alice));
    }

    function test_issue_revertsForPastExpiryOrZeroHolder() public {
        vm.expectRevert(abi.encodeWithSelector(IVIPPass.VIPPassInvalidIssue.selector, alice, START));
        vm.prank(operator);
        vip.issue(alice, START);
        vm.expectRevert(abi.encodeWithSelector(IVIPPass.VIPPassInvalidIssue.selector, address(0), START + 1));
        vm.prank(operator);
        vip.issue(address(0), START + 1);
    }

    function test_issue_revertsWithoutIssuerRole() public {
        vm.expectRevert(
            abi.encodeWithSelector(IAccessControl.AccessControlUnauthorizedAccount.selector, alice, vip.ISSUER_ROLE())
        );
        vm.prank(alice);
        vip.issue(alice, START + 1);
    }

    function test_revoke_removesPass() public {
        _issue(alice, START + 1 days);
        vm.expectEmit(true, false, false, false, address(vip));
        emit IVIPPass.PassRevoked(alice);
        vm.prank(operator);
        vip.revoke(alice);
        vm.assertFalse(vip.isValid(alice));
        vm.assertEq(vip.balanceOf(alice, 1), 0);
        vm.assertEq(uint256(vip.expiresAt(alice)), 0);
    }

    function test_revoke_revertsWhenNotHeld() public {
        vm.expectRevert(abi.encodeWithSelector(IVIPPass.VIPPassNotHeld.selector, alice));
        vm.prank(operator);
        vip.revoke(alice);
    }

    function test_revoke_revertsWithoutIssuerRole() public {
        _issue(alice, START + 1 days);
        vm.expectRevert(
            abi.encodeWithSelector(IAccessControl.AccessControlUnauthorizedAccount.selector, alice, vip.ISSUER_ROLE())
        );
        vm.prank(alice);
        vip.revoke(alice);
    }

    function test_pass_isNotTransferable() public {
        _issue(alice, START + 1 days);
        vm.expectRevert(abi.encodeWithSelector(IVIPPass.VIPPassNonTransferable.selector, alice, stranger));
        vm.prank(alice);
        vip.safeTransferFrom(alice, stranger, 1, 1, "");
    }

    function test_isValid_falseWithoutPass() public view {
        vm.assertFalse(vip.isValid(alice));
        vm.assertTrue(vip.supportsInterface(0xd9b67a26)); // ERC-1155
    }

    function testFuzz_isValid_tracksExpiry(uint64 lifetime, uint64 later) public {
        lifetime = uint64(bound(lifetime, 1, 3650 days));
        later = uint64(bound(later, 0, 2 * 3650 days));
        _issue(alice, START + lifetime);
        vm.warp(START + later);
        vm.assertEq(vip.isValid(alice), later < lifetime);
    }
}
