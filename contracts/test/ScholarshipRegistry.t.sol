// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IAccessControl} from "@openzeppelin/contracts/access/IAccessControl.sol";
import {IERC20Errors} from "@openzeppelin/contracts/interfaces/draft-IERC6093.sol";
import {IAvatarNFT} from "../src/interfaces/IAvatarNFT.sol";
import {IScholarshipRegistry as IR} from "../src/interfaces/IScholarshipRegistry.sol";
import {Fixture} from "./utils/Fixture.sol";

contract ScholarshipRegistryTest is Fixture {
    uint256 internal avatarId;

    function setUp() public override {
        super.setUp();
        avatarId = _mintAvatar(owner);
        _screen(owner);
        _giveDew(scholar, 1000 * DEW);
    }

    function _offer(address to, IR.OfferTerms memory t) internal returns (uint256 id) {
        vm.prank(owner);
        id = registry.offer(avatarId, to, t);
    }

    function _approveRent(address who) internal {
        vm.prank(who);
        token.approve(address(registry), type(uint256).max);
    }

    function _acceptAs(address who, uint256 id) internal {
        _approveRent(who);
        vm.prank(who);
        registry.accept(id);
    }

    // --- screening ---

    function test_setScreened_byScreener() public {
        vm.expectEmit(true, true, false, true, address(registry));
        emit IR.OwnerScreened(stranger, true, operator);
        _screen(stranger);
        vm.assertTrue(registry.isScreened(stranger));
        vm.prank(operator);
        registry.setScreened(stranger, false);
        vm.assertFalse(registry.isScreened(stranger));
    }

    function test_setScreened_revertsWithoutScreenerRole() public {
        vm.expectRevert(
            abi.encodeWithSelector(
                IAccessControl.AccessControlUnauthorizedAccount.selector, owner, registry.SCREENER_ROLE()
            )
        );
        vm.prank(owner);
        registry.setScreened(owner, true);
    }

    // --- offers ---

    function test_offer_recordsDirectOffer() public {
        IR.OfferTerms memory t = _division(7 days, 3000, 1000, manager, IR.Party.Owner);
        vm.expectEmit(true, true, true, true, address(registry));
        emit IR.AgreementOffered(1, avatarId, owner, scholar, t);
        uint256 id = _offer(scholar, t);
        vm.assertEq(id, 1);
        IR.Agreement memory a = registry.agreementOf(id);
        vm.assertEq(a.owner, owner);
        vm.assertEq(a.scholar, scholar);
        vm.assertEq(uint256(a.status), uint256(IR.Status.Offered));
        vm.assertEq(uint256(a.ownerBps), 3000);
        vm.assertEq(registry.agreementCount(), 1);
    }

    function test_offer_revertsForUnscreenedOwner() public {
        uint256 other = _mintAvatar(stranger);
        vm.expectRevert(abi.encodeWithSelector(IR.OwnerNotScreened.selector, stranger));
        vm.prank(stranger);
        registry.offer(other, scholar, _fixedRent(1 days, 0));
    }

    function test_offer_revertsForNonOwner() public {
        _screen(stranger);
        vm.expectRevert(abi.encodeWithSelector(IR.NotAvatarOwner.selector, avatarId, stranger, owner));
        vm.prank(stranger);
        registry.offer(avatarId, scholar, _fixedRent(1 days, 0));
    }

    function test_offer_revertsOnBadDuration() public {
        vm.expectRevert(abi.encodeWithSelector(IR.InvalidDuration.selector, 0, 365 days));
        _offer(scholar, _fixedRent(0, 0));
        vm.expectRevert(abi.encodeWithSelector(IR.InvalidDuration.selector, 366 days, 365 days));
        _offer(scholar, _fixedRent(366 days, 0));
    }

    function test_offer_revertsOnBadShares() public {
        vm.expectRevert(abi.encodeWithSelector(IR.InvalidShares.selector, 9000, 1001));
        _offer(scholar, _division(1 days, 9000, 1001, manager, IR.Party.Owner));
        IR.OfferTerms memory t = _fixedRent(1 days, 5);
        t.ownerBps = 1;
        vm.expectRevert(abi.encodeWithSelector(IR.InvalidShares.selector, 1, 0));
        _offer(scholar, t);
    }

    function test_offer_revertsOnBadManager() public {
        vm.expectRevert(abi.encodeWithSelector(IR.InvalidManager.selector, address(0), 100));
        _offer(scholar, _division(1 days, 1000, 100, address(0), IR.Party.Owner));
        vm.expectRevert(abi.encodeWithSelector(IR.InvalidManager.selector, manager, 0));
        _offer(scholar, _division(1 days, 1000, 0, manager, IR.Party.Owner));
        IR.OfferTerms memory t = _fixedRent(1 days, 5);
        t.manager = manager;
        vm.expectRevert(abi.encodeWithSelector(IR.InvalidManager.selector, manager, 0));
        _offer(scholar, t);
    }

    function test_offer_revertsOnBadDustRecipient() public {
        vm.expectRevert(abi.encodeWithSelector(IR.InvalidDustRecipient.selector, IR.Party.Manager));
        _offer(scholar, _division(1 days, 1000, 0, address(0), IR.Party.Manager));
        IR.OfferTerms memory t = _fixedRent(1 days, 5);
        t.dustTo = IR.Party.Owner;
        vm.expectRevert(abi.encodeWithSelector(IR.InvalidDustRecipient.selector, IR.Party.Owner));
        _offer(scholar, t);
    }

    function test_offer_revertsOnRentUnderDivision() public {
        IR.OfferTerms memory t = _division(1 days, 1000, 0, address(0), IR.Party.Owner);
        t.rent = 1;
        vm.expectRevert(abi.encodeWithSelector(IR.InvalidRent.selector, 1));
        _offer(scholar, t);
    }

    function test_offer_revertsWhenScholarIsOwnerOrManager() public {
        vm.expectRevert(abi.encodeWithSelector(IR.InvalidScholar.selector, owner));
        _offer(owner, _fixedRent(1 days, 0));
        vm.expectRevert(abi.encodeWithSelector(IR.InvalidScholar.selector, manager));
        _offer(manager, _division(1 days, 1000, 10, manager, IR.Party.Owner));
    }

    function test_cancelOffer() public {
        uint256 id = _offer(scholar, _fixedRent(1 days, 0));
        vm.expectRevert(abi.encodeWithSelector(IR.NotOfferOwner.selector, id, scholar));
        vm.prank(scholar);
        registry.cancelOffer(id);
        vm.expectEmit(true, false, false, false, address(registry));
        emit IR.OfferCancelled(id);
        vm.prank(owner);
        registry.cancelOffer(id);
        vm.assertEq(uint256(registry.agreementOf(id).status), uint256(IR.Status.Cancelled));
        vm.expectRevert(abi.encodeWithSelector(IR.AgreementWrongStatus.selector, id, IR.Status.Cancelled));
        vm.prank(scholar);
        registry.accept(id);
        vm.expectRevert(abi.encodeWithSelector(IR.AgreementWrongStatus.selector, id, IR.Status.Cancelled));
        vm.prank(owner);
        registry.cancelOffer(id);
    }

    function test_unknownAgreement_reverts() public {
        vm.expectRevert(abi.encodeWithSelector(IR.AgreementNotFound.selector, 42));
        registry.accept(42);
        vm.expectRevert(abi.encodeWithSelector(IR.AgreementNotFound.selector, 42));
        registry.agreementOf(42);
    }

    // --- accepting ---

    function test_accept_direct_setsUserAndLocksAvatar() public {
        uint256 id = _offer(scholar, _division(7 days, 3000, 0, address(0), IR.Party.Scholar));
        vm.expectEmit(true, true, true, true, address(registry));
        emit IR.AgreementAccepted(id, avatarId, scholar, START + 7 days, 0);
        vm.prank(scholar);
        registry.accept(id);
        vm.assertEq(avatar.userOf(avatarId), scholar);
        vm.assertEq(registry.activeAgreementOf(avatarId), id);
        vm.expectRevert(abi.encodeWithSelector(IAvatarNFT.AvatarRented.selector, avatarId, START + 7 days));
        vm.prank(owner);
        avatar.setUser(avatarId, owner, START + 8 days);
        vm.expectRevert(abi.encodeWithSelector(IAvatarNFT.AvatarRented.selector, avatarId, START + 7 days));
        vm.prank(owner);
        avatar.transferFrom(owner, stranger, avatarId);
    }

    function test_accept_direct_revertsForOtherScholar() public {
        uint256 id = _offer(scholar, _fixedRent(1 days, 0));
        vm.expectRevert(abi.encodeWithSelector(IR.NotOfferedTo.selector, id, scholar, stranger));
        vm.prank(stranger);
        registry.accept(id);
    }

    function test_accept_openListing_byAnyScholar() public {
        uint256 id = _offer(address(0), _fixedRent(1 days, 0));
        _acceptAs(stranger, id);
        vm.assertEq(registry.agreementOf(id).scholar, stranger);
        vm.assertEq(avatar.userOf(avatarId), stranger);
    }

    function test_accept_revertsForOwnerOrManager() public {
        uint256 id = _offer(address(0), _division(1 days, 100, 100, manager, IR.Party.Owner));
        vm.expectRevert(abi.encodeWithSelector(IR.InvalidScholar.selector, owner));
        vm.prank(owner);
        registry.accept(id);
        vm.expectRevert(abi.encodeWithSelector(IR.InvalidScholar.selector, manager));
        vm.prank(manager);
        registry.accept(id);
    }

    function test_accept_revertsWhenOwnerNoLongerScreened() public {
        uint256 id = _offer(scholar, _fixedRent(1 days, 0));
        vm.prank(operator);
        registry.setScreened(owner, false);
        vm.expectRevert(abi.encodeWithSelector(IR.OwnerNotScreened.selector, owner));
        vm.prank(scholar);
        registry.accept(id);
    }

    function test_accept_revertsWhenAvatarChangedHands() public {
        uint256 id = _offer(scholar, _fixedRent(1 days, 0));
        vm.prank(owner);
        avatar.transferFrom(owner, stranger, avatarId);
        vm.expectRevert(abi.encodeWithSelector(IR.OfferStale.selector, id, owner, stranger));
        vm.prank(scholar);
        registry.accept(id);
    }

    function test_accept_revertsWhileAvatarRented() public {
        uint256 first = _offer(scholar, _fixedRent(1 days, 0));
        uint256 second = _offer(address(0), _fixedRent(1 days, 0));
        _acceptAs(scholar, first);
        vm.expectRevert(abi.encodeWithSelector(IR.AvatarAlreadyRented.selector, avatarId, first));
        vm.prank(stranger);
        registry.accept(second);
    }

    function test_accept_afterExpiryClosesPreviousAgreement() public {
        uint256 first = _offer(scholar, _fixedRent(1 days, 100));
        uint256 second = _offer(address(0), _fixedRent(1 days, 0));
        _acceptAs(scholar, first);
        vm.warp(START + 1 days);
        vm.expectEmit(true, false, false, true, address(registry));
        emit IR.AgreementExpired(first, 100);
        vm.prank(stranger);
        registry.accept(second);
        vm.assertEq(uint256(registry.agreementOf(first).status), uint256(IR.Status.Ended));
        vm.assertEq(token.balanceOf(owner), 100);
        vm.assertEq(avatar.userOf(avatarId), stranger);
    }

    function test_accept_revertsWithoutRentAllowance() public {
        uint256 id = _offer(scholar, _fixedRent(1 days, 100));
        vm.expectRevert(
            abi.encodeWithSelector(IERC20Errors.ERC20InsufficientAllowance.selector, address(registry), 0, 100)
        );
        vm.prank(scholar);
        registry.accept(id);
    }

    function _permit(uint256 key, uint256 value, uint256 deadline) internal view returns (uint8, bytes32, bytes32) {
        address holder = vm.addr(key);
        bytes32 structHash = keccak256(
            abi.encode(
                keccak256("Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)"),
                holder,
                address(registry),
                value,
                token.nonces(holder),
                deadline
            )
        );
        return vm.sign(key, keccak256(abi.encodePacked("\x19\x01", token.DOMAIN_SEPARATOR(), structHash)));
    }

    function test_acceptWithPermit_escrowsInOneTransaction() public {
        uint256 key = 0x5C01A2;
        address signer = vm.addr(key);
        _giveDew(signer, 500);
        uint256 id = _offer(signer, _fixedRent(10 days, 500));
        (uint8 v, bytes32 r, bytes32 s) = _permit(key, 500, START + 1 hours);
        vm.prank(signer);
        registry.acceptWithPermit(id, START + 1 hours, v, r, s);
        vm.assertEq(token.balanceOf(address(registry)), 500);
        vm.assertEq(avatar.userOf(avatarId), signer);
    }

    function test_acceptWithPermit_survivesAFrontRunPermit() public {
        uint256 key = 0x5C01A2;
        address signer = vm.addr(key);
        _giveDew(signer, 500);
        uint256 id = _offer(signer, _fixedRent(10 days, 500));
        (uint8 v, bytes32 r, bytes32 s) = _permit(key, 500, START + 1 hours);
        token.permit(signer, address(registry), 500, START + 1 hours, v, r, s);
        vm.prank(signer);
        registry.acceptWithPermit(id, START + 1 hours, v, r, s);
        vm.assertEq(token.balanceOf(address(registry)), 500);
    }

    function test_acceptWithPermit_revertsWithoutAValidPermit() public {
        uint256 id = _offer(scholar, _fixedRent(10 days, 500));
        vm.expectRevert(
            abi.encodeWithSelector(IERC20Errors.ERC20InsufficientAllowance.selector, address(registry), 0, 500)
        );
        vm.prank(scholar);
        registry.acceptWithPermit(id, START + 1 hours, 27, bytes32(uint256(1)), bytes32(uint256(2)));
        vm.assertEq(uint256(registry.agreementOf(id).status), uint256(IR.Status.Offered));
    }

    // --- Fixed Rent ---

    function test_fixedRent_escrowsAtAcceptance() public {
        uint256 id = _offer(scholar, _fixedRent(10 days, 1000));
        _acceptAs(scholar, id);
        vm.assertEq(token.balanceOf(address(registry)), 1000);
        vm.assertEq(registry.escrowedRent(), 1000);
        vm.assertEq(token.balanceOf(scholar), 1000 * DEW - 1000);
    }

    function test_claimRent_paysVestedPart() public {
        uint256 id = _offer(scholar, _fixedRent(10 days, 1000));
        _acceptAs(scholar, id);
        vm.warp(START + 3 days);
        vm.assertEq(registry.vestedRent(id), 300);
        vm.expectEmit(true, true, false, true, address(registry));
        emit IR.RentPaid(id, owner, 300);
        registry.claimRent(id);
        vm.assertEq(token.balanceOf(owner), 300);
        vm.warp(START + 5 days);
        vm.prank(stranger);
        vm.assertEq(registry.claimRent(id), 200);
        vm.assertEq(token.balanceOf(owner), 500);
        vm.assertEq(registry.escrowedRent(), 500);
        vm.assertEq(registry.claimRent(id), 0);
    }

    function test_vestedRent_isZeroUntilAccepted() public {
        uint256 id = _offer(scholar, _fixedRent(10 days, 1000));
        vm.warp(START + 5 days);
        vm.assertEq(registry.vestedRent(id), 0);
        vm.prank(owner);
        registry.cancelOffer(id);
        vm.assertEq(registry.vestedRent(id), 0);
    }

    function test_claimRent_revertsWhenNotActive() public {
        uint256 id = _offer(scholar, _fixedRent(10 days, 1000));
        vm.expectRevert(abi.encodeWithSelector(IR.AgreementWrongStatus.selector, id, IR.Status.Offered));
        registry.claimRent(id);
    }

    function test_terminate_refundsUnusedRentProRata() public {
        uint256 id = _offer(scholar, _fixedRent(10 days, 1000));
        _acceptAs(scholar, id);
        vm.warp(START + 4 days);
        vm.expectEmit(true, false, false, true, address(registry));
        emit IR.AgreementTerminated(id, 400, 600, START + 4 days);
        vm.prank(scholar);
        registry.terminate(id);
        vm.assertEq(token.balanceOf(owner), 400);
        vm.assertEq(token.balanceOf(scholar), 1000 * DEW - 400);
        vm.assertEq(token.balanceOf(address(registry)), 0);
        vm.assertEq(registry.escrowedRent(), 0);
        vm.assertEq(registry.vestedRent(id), 400);
        vm.assertEq(avatar.userOf(avatarId), address(0));
        vm.assertEq(registry.activeAgreementOf(avatarId), 0);
        // The avatar is the owner's again at once.
        vm.prank(owner);
        avatar.transferFrom(owner, stranger, avatarId);
    }

    function test_terminate_revertsForOthers() public {
        uint256 id = _offer(scholar, _fixedRent(10 days, 1000));
        _acceptAs(scholar, id);
        vm.expectRevert(abi.encodeWithSelector(IR.NotScholar.selector, id, owner));
        vm.prank(owner);
        registry.terminate(id);
    }

    function test_terminate_revertsAfterExpiry() public {
        uint256 id = _offer(scholar, _fixedRent(10 days, 1000));
        _acceptAs(scholar, id);
        vm.warp(START + 10 days);
        vm.expectRevert(abi.encodeWithSelector(IR.AgreementAlreadyExpired.selector, id, START + 10 days));
        vm.prank(scholar);
        registry.terminate(id);
    }

    function test_terminate_revertsWhenNotActive() public {
        uint256 id = _offer(scholar, _fixedRent(10 days, 1000));
        vm.expectRevert(abi.encodeWithSelector(IR.AgreementWrongStatus.selector, id, IR.Status.Offered));
        vm.prank(scholar);
        registry.terminate(id);
    }

    function test_close_afterExpiryPaysRemainingRent() public {
        uint256 id = _offer(scholar, _fixedRent(10 days, 1000));
        _acceptAs(scholar, id);
        vm.warp(START + 2 days);
        registry.claimRent(id);
        vm.warp(START + 10 days);
        vm.expectEmit(true, false, false, true, address(registry));
        emit IR.AgreementExpired(id, 800);
        vm.prank(stranger);
        registry.close(id);
        vm.assertEq(token.balanceOf(owner), 1000);
        vm.assertEq(registry.escrowedRent(), 0);
        vm.assertEq(avatar.userOf(avatarId), address(0));
        vm.expectRevert(abi.encodeWithSelector(IR.AgreementWrongStatus.selector, id, IR.Status.Ended));
        registry.close(id);
    }

    function test_close_revertsBeforeExpiry() public {
        uint256 id = _offer(scholar, _fixedRent(10 days, 1000));
        _acceptAs(scholar, id);
        vm.expectRevert(abi.encodeWithSelector(IR.AgreementNotExpired.selector, id, START + 10 days));
        registry.close(id);
    }

    function test_close_keepsAUserTheOwnerSetAfterExpiry() public {
        uint256 id = _offer(scholar, _fixedRent(1 days, 0));
        _acceptAs(scholar, id);
        vm.warp(START + 1 days);
        vm.prank(owner);
        avatar.setUser(avatarId, stranger, START + 5 days);
        registry.close(id);
        vm.assertEq(avatar.userOf(avatarId), stranger);
    }

    // --- payees ---

    function test_payeesOf_withoutAgreementIsTheOwner() public view {
        IR.Payees memory p = registry.payeesOf(avatarId);
        vm.assertEq(p.agreementId, 0);
        vm.assertEq(p.owner, owner);
        vm.assertEq(uint256(p.ownerBps), 10_000);
    }

    function test_payeesOf_followsTheActiveTerm() public {
        uint256 id = _offer(scholar, _division(2 days, 2500, 500, manager, IR.Party.Manager));
        _acceptAs(scholar, id);
        IR.Payees memory p = registry.payeesOf(avatarId);
        vm.assertEq(p.agreementId, id);
        vm.assertEq(p.scholar, scholar);
        vm.assertEq(p.manager, manager);
        vm.assertEq(uint256(p.ownerBps), 2500);
        vm.assertEq(uint256(p.managerBps), 500);
        vm.assertEq(uint256(p.dustTo), uint256(IR.Party.Manager));
        vm.warp(START + 2 days);
        p = registry.payeesOf(avatarId);
        vm.assertEq(p.agreementId, 0);
        vm.assertEq(uint256(p.ownerBps), 10_000);
    }

    function test_payeesOf_fixedRentGivesScholarEverything() public {
        uint256 id = _offer(scholar, _fixedRent(2 days, 10));
        _acceptAs(scholar, id);
        IR.Payees memory p = registry.payeesOf(avatarId);
        vm.assertEq(uint256(p.ownerBps) + p.managerBps, 0);
        vm.assertEq(p.scholar, scholar);
    }

    // --- fuzz ---

    /// Whatever the rent, term and exit time, owner + refund == rent and nothing stays behind.
    function testFuzz_terminate_conservesRent(uint128 rent, uint64 duration, uint64 exitAfter) public {
        rent = uint128(bound(rent, 0, 1000 * DEW));
        duration = uint64(bound(duration, 1, 365 days));
        exitAfter = uint64(bound(exitAfter, 0, duration - 1));
        uint256 id = _offer(scholar, _fixedRent(duration, rent));
        _acceptAs(scholar, id);
        uint256 scholarBefore = token.balanceOf(scholar) + rent;
        vm.warp(START + exitAfter);
        vm.prank(scholar);
        registry.terminate(id);
        uint256 ownerGot = token.balanceOf(owner);
        uint256 refund = token.balanceOf(scholar) - (scholarBefore - rent);
        vm.assertEq(ownerGot + refund, rent);
        uint256 vested = uint256(rent) * exitAfter / duration;
        uint256 minimum = uint256(rent) / 10;
        vm.assertEq(ownerGot, vested > minimum ? vested : minimum);
        vm.assertEq(token.balanceOf(address(registry)), 0);
    }

    /// Claims at arbitrary times never pay more than the rent, and closing pays exactly all of it.
    function testFuzz_claimRent_neverExceedsRent(uint128 rent, uint64 duration, uint64 t1, uint64 t2) public {
        rent = uint128(bound(rent, 0, 1000 * DEW));
        duration = uint64(bound(duration, 1, 365 days));
        t1 = uint64(bound(t1, 0, duration));
        t2 = uint64(bound(t2, t1, uint256(duration) * 2));
        uint256 id = _offer(scholar, _fixedRent(duration, rent));
        _acceptAs(scholar, id);
        vm.warp(START + t1);
        registry.claimRent(id);
        vm.assertLe(token.balanceOf(owner), rent);
        vm.warp(START + t2);
        if (t2 >= duration) {
            registry.close(id);
            vm.assertEq(token.balanceOf(owner), rent);
        } else {
            registry.claimRent(id);
            vm.assertLe(token.balanceOf(owner), rent);
        }
        vm.assertEq(token.balanceOf(address(registry)), registry.escrowedRent());
    }

    // --- offers: expiry and bulk cancel (issue 9) ---

    function test_offer_revertsWhenValidUntilPassed() public {
        IR.OfferTerms memory t = _fixedRent(1 days, 0);
        t.validUntil = START;
        vm.expectRevert(abi.encodeWithSelector(IR.InvalidValidUntil.selector, START, START));
        _offer(scholar, t);
    }

    function test_accept_revertsAfterValidUntil() public {
        IR.OfferTerms memory t = _fixedRent(1 days, 0);
        t.validUntil = START + 1 hours;
        uint256 id = _offer(address(0), t);
        vm.warp(START + 1 hours + 1);
        vm.expectRevert(abi.encodeWithSelector(IR.OfferExpired.selector, id, START + 1 hours));
        vm.prank(scholar);
        registry.accept(id);
        vm.warp(START + 1 hours);
        vm.prank(scholar);
        registry.accept(id);
        vm.assertEq(registry.activeAgreementOf(avatarId), id);
    }

    function test_cancelOffers_revokesEveryOpenOfferOfTheOwner() public {
        uint256 a = _offer(address(0), _fixedRent(1 days, 0));
        uint256 b = _offer(scholar, _division(1 days, 1000, 0, address(0), IR.Party.Owner));
        vm.expectEmit(true, true, false, true, address(registry));
        emit IR.OffersCancelled(owner, avatarId, 1);
        vm.prank(owner);
        registry.cancelOffers(avatarId);
        vm.assertEq(uint256(registry.offerNonce(owner, avatarId)), 1);
        vm.expectRevert(abi.encodeWithSelector(IR.OfferRevoked.selector, a, 0, 1));
        vm.prank(stranger);
        registry.accept(a);
        vm.expectRevert(abi.encodeWithSelector(IR.OfferRevoked.selector, b, 0, 1));
        vm.prank(scholar);
        registry.accept(b);
        // A new offer carries the new nonce and can be accepted.
        uint256 c = _offer(scholar, _fixedRent(1 days, 0));
        vm.prank(scholar);
        registry.accept(c);
        vm.assertEq(registry.activeAgreementOf(avatarId), c);
    }

    // --- accept + terminate at once (issue 9) ---

    /// Accepting an open Fixed Rent listing and terminating in the same transaction used to
    /// refund the whole rent: the listing was gone for nothing but gas. Now the owner keeps at
    /// least 10% of the rent.
    /// (A direct offer: an open listing also has a minimum term, see SecondReview.t.sol.)
    function test_terminate_atAcceptanceStillPaysTheMinimumRent() public {
        uint256 id = _offer(stranger, _fixedRent(30 days, 3000));
        _giveDew(stranger, 3000);
        _acceptAs(stranger, id);
        vm.prank(stranger);
        registry.terminate(id);
        vm.assertEq(token.balanceOf(owner), 300);
        vm.assertEq(token.balanceOf(stranger), 2700);
        vm.assertEq(registry.escrowedRent(), 0);
    }

    function test_terminate_recordsEndedAt() public {
        uint256 id = _offer(scholar, _division(10 days, 1000, 0, address(0), IR.Party.Owner));
        _acceptAs(scholar, id);
        vm.warp(START + 3 days);
        vm.prank(scholar);
        registry.terminate(id);
        IR.Agreement memory a = registry.agreementOf(id);
        vm.assertEq(uint256(a.endedAt), START + 3 days);
        vm.assertEq(uint256(a.endsAt), START + 10 days);
    }

    // --- idle Rewards Division agreements (issue 9) ---

    function _recordMatch(uint64 playedAt) internal {
        vm.prank(address(settlement));
        registry.recordMatch(avatarId, playedAt);
    }

    function test_reclaimIdle_afterMaxIdleWithoutMatches() public {
        uint256 id = _offer(scholar, _division(30 days, 1000, 0, address(0), IR.Party.Owner));
        _acceptAs(scholar, id);
        vm.warp(START + 7 days - 1);
        vm.expectRevert(abi.encodeWithSelector(IR.AgreementNotIdle.selector, id, START + 7 days));
        vm.prank(owner);
        registry.reclaimIdle(id);
        vm.warp(START + 7 days);
        vm.expectEmit(true, false, false, true, address(registry));
        emit IR.AgreementReclaimed(id, 0, START + 7 days);
        vm.prank(owner);
        registry.reclaimIdle(id);
        vm.assertEq(uint256(registry.agreementOf(id).status), uint256(IR.Status.Ended));
        vm.assertEq(avatar.userOf(avatarId), address(0));
        vm.prank(owner);
        avatar.transferFrom(owner, stranger, avatarId);
    }

    function test_reclaimIdle_countsFromTheLastSettledMatch() public {
        uint256 id = _offer(scholar, _division(30 days, 1000, 0, address(0), IR.Party.Owner));
        _acceptAs(scholar, id);
        vm.warp(START + 6 days);
        _recordMatch(START + 5 days);
        vm.assertEq(uint256(registry.agreementOf(id).lastMatchAt), START + 5 days);
        vm.warp(START + 11 days);
        vm.expectRevert(abi.encodeWithSelector(IR.AgreementNotIdle.selector, id, START + 12 days));
        vm.prank(owner);
        registry.reclaimIdle(id);
        vm.warp(START + 12 days);
        vm.prank(owner);
        registry.reclaimIdle(id);
        // A match the scholar played before the reclaim still pays the scholar's share.
        IR.Payees memory p = registry.payeesAt(avatarId, START + 12 days - 1);
        vm.assertEq(p.agreementId, id);
        vm.assertEq(registry.payeesAt(avatarId, START + 12 days).agreementId, 0);
    }

    function test_reclaimIdle_revertsForOthersAndFixedRent() public {
        uint256 id = _offer(scholar, _division(30 days, 1000, 0, address(0), IR.Party.Owner));
        _acceptAs(scholar, id);
        vm.warp(START + 8 days);
        vm.expectRevert(abi.encodeWithSelector(IR.NotAgreementOwner.selector, id, scholar));
        vm.prank(scholar);
        registry.reclaimIdle(id);
        vm.prank(scholar);
        registry.terminate(id);
        uint256 fixedId = _offer(scholar, _fixedRent(30 days, 0));
        _acceptAs(scholar, fixedId);
        vm.warp(START + 16 days);
        vm.expectRevert(abi.encodeWithSelector(IR.NotRewardsDivision.selector, fixedId));
        vm.prank(owner);
        registry.reclaimIdle(fixedId);
    }

    function test_recordMatch_revertsWithoutSettlementRole() public {
        vm.expectRevert(
            abi.encodeWithSelector(
                IAccessControl.AccessControlUnauthorizedAccount.selector, stranger, registry.SETTLEMENT_ROLE()
            )
        );
        vm.prank(stranger);
        registry.recordMatch(avatarId, START);
    }
}
