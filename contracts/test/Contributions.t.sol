// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {Contributions} from "../src/Contributions.sol";
import {IContributions} from "../src/interfaces/IContributions.sol";
import {Fixture} from "./utils/Fixture.sol";

contract ContributionsTest is Fixture {
    Contributions internal contributions;
    address internal creator = address(0xC4EA);

    function setUp() public override {
        super.setUp();
        contributions = new Contributions(token, address(settlement));
        _giveDew(creator, 1000 * DEW);
    }

    function _contribute(address from, uint256 tournamentId, uint256 amount) internal {
        vm.prank(from);
        token.approve(address(contributions), amount);
        vm.prank(from);
        contributions.contribute(tournamentId, amount);
    }

    function test_contribute_movesDewToTheVault() public {
        vm.prank(creator);
        token.approve(address(contributions), 25 * DEW);
        vm.expectEmit(true, true, false, true, address(contributions));
        emit IContributions.Contributed(7, creator, 25 * DEW);
        vm.prank(creator);
        contributions.contribute(7, 25 * DEW);
        vm.assertEq(token.balanceOf(creator), 975 * DEW);
        vm.assertEq(token.balanceOf(address(settlement)), VAULT + 25 * DEW);
        vm.assertEq(token.balanceOf(address(contributions)), 0);
        vm.assertEq(contributions.vault(), address(settlement));
        vm.assertEq(contributions.token(), address(token));
    }

    function test_constructor_refusesZeroAddresses() public {
        vm.expectRevert(
            abi.encodeWithSelector(IContributions.ContributionInvalidSetup.selector, address(token), address(0))
        );
        new Contributions(token, address(0));
    }

    function test_contribute_refusesBadTournaments() public {
        uint256 tooHigh = contributions.MAX_TOURNAMENT_ID() + 1;
        vm.startPrank(creator);
        token.approve(address(contributions), DEW);
        vm.expectRevert(abi.encodeWithSelector(IContributions.ContributionInvalidTournament.selector, 0));
        contributions.contribute(0, DEW);
        vm.expectRevert(abi.encodeWithSelector(IContributions.ContributionInvalidTournament.selector, tooHigh));
        contributions.contribute(tooHigh, DEW);
        vm.stopPrank();
        vm.assertEq(token.balanceOf(creator), 1000 * DEW);
    }

    function test_contribute_refusesAmountsOutOfBounds() public {
        uint256 min = contributions.MIN_CONTRIBUTION();
        uint256 max = contributions.MAX_CONTRIBUTION();
        _giveDew(creator, max);
        vm.startPrank(creator);
        token.approve(address(contributions), type(uint256).max);
        vm.expectRevert(abi.encodeWithSelector(IContributions.ContributionInvalidAmount.selector, 0, min, max));
        contributions.contribute(1, 0);
        vm.expectRevert(abi.encodeWithSelector(IContributions.ContributionInvalidAmount.selector, min - 1, min, max));
        contributions.contribute(1, min - 1);
        vm.expectRevert(abi.encodeWithSelector(IContributions.ContributionInvalidAmount.selector, max + 1, min, max));
        contributions.contribute(1, max + 1);
        contributions.contribute(1, min);
        contributions.contribute(2, max);
        vm.stopPrank();
        vm.assertEq(token.balanceOf(address(settlement)), VAULT + min + max);
    }

    function test_contribute_withoutAllowanceChangesNothing() public {
        vm.expectRevert(
            abi.encodeWithSelector(IERC20Errors.ERC20InsufficientAllowance.selector, address(contributions), 0, DEW)
        );
        vm.prank(creator);
        contributions.contribute(1, DEW);
        vm.assertEq(token.balanceOf(creator), 1000 * DEW);
        vm.assertEq(token.balanceOf(address(settlement)), VAULT);
    }

    function test_contribute_beyondTheBalanceChangesNothing() public {
        vm.prank(stranger);
        token.approve(address(contributions), DEW);
        vm.expectRevert(abi.encodeWithSelector(IERC20Errors.ERC20InsufficientBalance.selector, stranger, 0, DEW));
        vm.prank(stranger);
        contributions.contribute(1, DEW);
        vm.assertEq(token.balanceOf(address(settlement)), VAULT);
    }

    function _permit(uint256 key, uint256 value, uint256 deadline) internal view returns (uint8, bytes32, bytes32) {
        address holder = vm.addr(key);
        bytes32 structHash = keccak256(
            abi.encode(
                keccak256("Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)"),
                holder,
                address(contributions),
                value,
                token.nonces(holder),
                deadline
            )
        );
        return vm.sign(key, keccak256(abi.encodePacked("\x19\x01", token.DOMAIN_SEPARATOR(), structHash)));
    }

    function test_contributeWithPermit_oneTransaction() public {
        uint256 key = 0xC4EA7;
        address signer = vm.addr(key);
        _giveDew(signer, 10 * DEW);
        (uint8 v, bytes32 r, bytes32 s) = _permit(key, 4 * DEW, START + 1 hours);
        vm.prank(signer);
        contributions.contributeWithPermit(3, 4 * DEW, START + 1 hours, v, r, s);
        vm.assertEq(token.balanceOf(signer), 6 * DEW);
        vm.assertEq(token.balanceOf(address(settlement)), VAULT + 4 * DEW);
    }

    function test_contributeWithPermit_frontRunPermitStillWorks() public {
        uint256 key = 0xC4EA7;
        address signer = vm.addr(key);
        _giveDew(signer, 10 * DEW);
        (uint8 v, bytes32 r, bytes32 s) = _permit(key, 4 * DEW, START + 1 hours);
        // Someone submits the permit first; the contribution then uses the allowance it set.
        token.permit(signer, address(contributions), 4 * DEW, START + 1 hours, v, r, s);
        vm.prank(signer);
        contributions.contributeWithPermit(3, 4 * DEW, START + 1 hours, v, r, s);
        vm.assertEq(token.balanceOf(signer), 6 * DEW);
    }

    function test_contributeWithPermit_badSignatureChangesNothing() public {
        uint256 key = 0xC4EA7;
        address signer = vm.addr(key);
        _giveDew(signer, 10 * DEW);
        (uint8 v, bytes32 r, bytes32 s) = _permit(key, 4 * DEW, START + 1 hours);
        // The signer's permit submitted by the creator names the creator as owner: invalid.
        vm.expectRevert(
            abi.encodeWithSelector(IERC20Errors.ERC20InsufficientAllowance.selector, address(contributions), 0, 4 * DEW)
        );
        vm.prank(creator);
        contributions.contributeWithPermit(3, 4 * DEW, START + 1 hours, v, r, s);
        vm.assertEq(token.balanceOf(creator), 1000 * DEW);
        vm.assertEq(token.balanceOf(signer), 10 * DEW);
    }

    function testFuzz_contribute_conservesDew(uint256 amount, uint256 tournamentId) public {
        amount = bound(amount, contributions.MIN_CONTRIBUTION(), 1000 * DEW);
        tournamentId = bound(tournamentId, 1, contributions.MAX_TOURNAMENT_ID());
        uint256 supply = token.totalSupply();
        _contribute(creator, tournamentId, amount);
        vm.assertEq(token.balanceOf(creator) + token.balanceOf(address(settlement)), 1000 * DEW + VAULT);
        vm.assertEq(token.totalSupply(), supply);
        vm.assertEq(token.allowance(creator, address(contributions)), 0);
    }
}
