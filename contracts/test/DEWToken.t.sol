// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IAccessControl} from "@openzeppelin/contracts/access/IAccessControl.sol";
import {IERC20Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IDEWToken} from "../src/interfaces/IDEWToken.sol";
import {Fixture} from "./utils/Fixture.sol";

contract DEWTokenTest is Fixture {
    address internal alice = address(0xA11CE);
    address internal bob = address(0xB0B);

    function test_metadata() public view {
        vm.assertEq(token.name(), "Domino Earning World");
        vm.assertEq(token.symbol(), "DEW");
        vm.assertEq(uint256(token.decimals()), 18);
        vm.assertEq(token.cap(), CAP);
        vm.assertEq(token.totalSupply(), VAULT);
    }

    function test_mint_creditsAndEmits() public {
        vm.expectEmit(true, true, false, true, address(token));
        emit IERC20.Transfer(address(0), alice, 5 * DEW);
        _giveDew(alice, 5 * DEW);
        vm.assertEq(token.balanceOf(alice), 5 * DEW);
        vm.assertEq(token.totalSupply(), VAULT + 5 * DEW);
    }

    function test_mint_revertsWithoutMinterRole() public {
        vm.expectRevert(
            abi.encodeWithSelector(
                IAccessControl.AccessControlUnauthorizedAccount.selector, stranger, token.MINTER_ROLE()
            )
        );
        vm.prank(stranger);
        token.mint(stranger, 1);
    }

    function test_mint_revertsPastCap() public {
        uint256 room = CAP - VAULT;
        _giveDew(alice, room);
        vm.expectRevert(abi.encodeWithSelector(IDEWToken.DEWCapExceeded.selector, CAP + 1, CAP));
        vm.prank(treasury);
        token.mint(alice, 1);
    }

    function test_mint_revertsToZeroAddress() public {
        vm.expectRevert(abi.encodeWithSelector(IERC20Errors.ERC20InvalidReceiver.selector, address(0)));
        vm.prank(treasury);
        token.mint(address(0), 1);
    }

    function test_transfer_movesBalance() public {
        _giveDew(alice, 10);
        vm.prank(alice);
        vm.assertTrue(token.transfer(bob, 4));
        vm.assertEq(token.balanceOf(alice), 6);
        vm.assertEq(token.balanceOf(bob), 4);
    }

    function test_transfer_toSelfKeepsBalance() public {
        _giveDew(alice, 10);
        vm.prank(alice);
        token.transfer(alice, 7);
        vm.assertEq(token.balanceOf(alice), 10);
    }

    function test_transfer_revertsOnInsufficientBalance() public {
        _giveDew(alice, 3);
        vm.expectRevert(abi.encodeWithSelector(IERC20Errors.ERC20InsufficientBalance.selector, alice, 3, 4));
        vm.prank(alice);
        token.transfer(bob, 4);
    }

    function test_transfer_revertsToZeroAddress() public {
        vm.expectRevert(abi.encodeWithSelector(IERC20Errors.ERC20InvalidReceiver.selector, address(0)));
        vm.prank(alice);
        token.transfer(address(0), 0);
    }

    function test_transferFrom_spendsAllowance() public {
        _giveDew(alice, 10);
        vm.prank(alice);
        token.approve(bob, 6);
        vm.prank(bob);
        token.transferFrom(alice, bob, 4);
        vm.assertEq(token.allowance(alice, bob), 2);
        vm.assertEq(token.balanceOf(bob), 4);
    }

    function test_transferFrom_infiniteAllowanceIsNotSpent() public {
        _giveDew(alice, 10);
        vm.prank(alice);
        token.approve(bob, type(uint256).max);
        vm.prank(bob);
        token.transferFrom(alice, bob, 4);
        vm.assertEq(token.allowance(alice, bob), type(uint256).max);
    }

    function test_transferFrom_revertsOnInsufficientAllowance() public {
        _giveDew(alice, 10);
        vm.prank(alice);
        token.approve(bob, 3);
        vm.expectRevert(abi.encodeWithSelector(IERC20Errors.ERC20InsufficientAllowance.selector, bob, 3, 4));
        vm.prank(bob);
        token.transferFrom(alice, bob, 4);
    }

    function test_transferFrom_revertsFromZeroAddress() public {
        vm.expectRevert(abi.encodeWithSelector(IERC20Errors.ERC20InvalidSender.selector, address(0)));
        vm.prank(bob);
        token.transferFrom(address(0), bob, 0);
    }

    function test_approve_revertsForZeroSpender() public {
        vm.expectRevert(abi.encodeWithSelector(IERC20Errors.ERC20InvalidSpender.selector, address(0)));
        vm.prank(alice);
        token.approve(address(0), 1);
    }

    function test_approve_emitsApproval() public {
        vm.expectEmit(true, true, false, true, address(token));
        emit IERC20.Approval(alice, bob, 9);
        vm.prank(alice);
        token.approve(bob, 9);
    }

    function _permitDigest(address holder, address spender, uint256 value, uint256 nonce, uint256 deadline)
        internal
        view
        returns (bytes32)
    {
        bytes32 structHash = keccak256(
            abi.encode(
                keccak256("Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)"),
                holder,
                spender,
                value,
                nonce,
                deadline
            )
        );
        return keccak256(abi.encodePacked("\x19\x01", token.DOMAIN_SEPARATOR(), structHash));
    }

    function test_permit_setsAllowanceAndUsesNonce() public {
        uint256 key = 0xA11CE;
        address holder = vm.addr(key);
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(key, _permitDigest(holder, bob, 77, 0, START + 1 hours));
        token.permit(holder, bob, 77, START + 1 hours, v, r, s);
        vm.assertEq(token.allowance(holder, bob), 77);
        vm.assertEq(token.nonces(holder), 1);
    }

    function test_permit_revertsOnReplay() public {
        uint256 key = 0xA11CE;
        address holder = vm.addr(key);
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(key, _permitDigest(holder, bob, 77, 0, START + 1 hours));
        token.permit(holder, bob, 77, START + 1 hours, v, r, s);
        vm.expectRevert();
        token.permit(holder, bob, 77, START + 1 hours, v, r, s);
    }

    function test_permit_revertsWhenExpired() public {
        uint256 key = 0xA11CE;
        address holder = vm.addr(key);
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(key, _permitDigest(holder, bob, 77, 0, START - 1));
        vm.expectRevert(abi.encodeWithSelector(IDEWToken.ERC2612ExpiredSignature.selector, START - 1));
        token.permit(holder, bob, 77, START - 1, v, r, s);
    }

    function test_permit_revertsForWrongSigner() public {
        address holder = vm.addr(0xA11CE);
        address forger = vm.addr(0xBAD);
        (uint8 v, bytes32 r, bytes32 s) = vm.sign(0xBAD, _permitDigest(holder, bob, 77, 0, START + 1));
        vm.expectRevert(abi.encodeWithSelector(IDEWToken.ERC2612InvalidSigner.selector, forger, holder));
        token.permit(holder, bob, 77, START + 1, v, r, s);
    }

    function test_disperse_paysEveryRecipientOnce() public {
        _giveDew(alice, 100);
        uint256[] memory words = new uint256[](3);
        words[0] = _toAccount(bob, 10);
        words[1] = _toAccount(address(0xC0), 20);
        words[2] = _toAccount(bob, 30);
        vm.expectEmit(true, true, false, true, address(token));
        emit IERC20.Transfer(alice, bob, 10);
        vm.prank(alice);
        uint256 total = token.disperse(words);
        vm.assertEq(total, 60);
        vm.assertEq(token.balanceOf(alice), 40);
        vm.assertEq(token.balanceOf(bob), 40);
        vm.assertEq(token.balanceOf(address(0xC0)), 20);
    }

    /// Issue 9 item 5: a word to the sender used to pass with an empty balance (credited, then
    /// debited) and log a Transfer of money the sender never held.
    function test_disperse_revertsWhenARecipientIsTheSender() public {
        vm.expectRevert(abi.encodeWithSelector(IDEWToken.DEWInvalidTransfer.selector, 0));
        vm.prank(alice);
        token.disperse(_one(_toAccount(alice, 100)));
        _giveDew(alice, 50);
        vm.expectRevert(abi.encodeWithSelector(IDEWToken.DEWInvalidTransfer.selector, 1));
        vm.prank(alice);
        token.disperse(_two(_toAccount(bob, 50), _toAccount(alice, 50)));
        vm.assertEq(token.balanceOf(alice), 50);
        vm.assertEq(token.balanceOf(bob), 0);
    }

    function test_disperse_revertsOnInsufficientBalance() public {
        _giveDew(alice, 5);
        uint256[] memory words = new uint256[](2);
        words[0] = _toAccount(bob, 3);
        words[1] = _toAccount(bob, 3);
        vm.expectRevert(abi.encodeWithSelector(IERC20Errors.ERC20InsufficientBalance.selector, alice, 5, 6));
        vm.prank(alice);
        token.disperse(words);
    }

    function test_disperse_revertsOnZeroAmount() public {
        _giveDew(alice, 5);
        uint256[] memory words = _two(_toAccount(bob, 1), _toAccount(bob, 0));
        vm.expectRevert(abi.encodeWithSelector(IDEWToken.DEWInvalidTransfer.selector, 1));
        vm.prank(alice);
        token.disperse(words);
    }

    function test_disperse_revertsOnZeroRecipient() public {
        _giveDew(alice, 5);
        vm.expectRevert(abi.encodeWithSelector(IDEWToken.DEWInvalidTransfer.selector, 0));
        vm.prank(alice);
        token.disperse(_one(_toAccount(address(0), 1)));
    }

    function testFuzz_disperse_conservesSupply(uint256 a, uint256 b, uint256 c, uint160 toSeed) public {
        a = bound(a, 1, (CAP - VAULT) / 3);
        b = bound(b, 1, (CAP - VAULT) / 3);
        c = bound(c, 1, (CAP - VAULT) / 3);
        address r1 = address(uint160(bound(toSeed, 1, type(uint128).max)));
        vm.assume(r1 != alice);
        uint256 sum = a + b + c;
        _giveDew(alice, sum);
        uint256[] memory words = new uint256[](3);
        words[0] = _toAccount(r1, a);
        words[1] = _toAccount(bob, b);
        words[2] = _toAccount(r1, c);
        uint256 supply = token.totalSupply();
        vm.prank(alice);
        token.disperse(words);
        vm.assertEq(token.totalSupply(), supply);
        uint256 after_ = token.balanceOf(alice) + token.balanceOf(bob) + (r1 == bob ? 0 : token.balanceOf(r1));
        vm.assertEq(after_, sum);
        vm.assertEq(token.balanceOf(alice), 0);
    }

    function testFuzz_transfer_conservesBalances(uint256 minted, uint256 sent) public {
        minted = bound(minted, 0, CAP - VAULT);
        sent = bound(sent, 0, minted);
        _giveDew(alice, minted);
        vm.prank(alice);
        token.transfer(bob, sent);
        vm.assertEq(token.balanceOf(alice) + token.balanceOf(bob), minted);
        vm.assertEq(token.balanceOf(bob), sent);
    }
}
