// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {DEWAccessControl} from "./access/DEWAccessControl.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {ReentrancyGuard} from "@openzeppelin/contracts/utils/ReentrancyGuard.sol";
import {IAvatarNFT} from "./interfaces/IAvatarNFT.sol";
import {IScholarshipRegistry} from "./interfaces/IScholarshipRegistry.sol";

/// @title Scholarship agreements between avatar owners and scholars
contract ScholarshipRegistry is DEWAccessControl, ReentrancyGuard, IScholarshipRegistry {
    using SafeERC20 for IERC20;

    /// @inheritdoc IScholarshipRegistry
    bytes32 public constant SCREENER_ROLE = keccak256("SCREENER_ROLE");
    /// @inheritdoc IScholarshipRegistry
    bytes32 public constant SETTLEMENT_ROLE = keccak256("SETTLEMENT_ROLE");
    uint16 public constant BPS = 10_000;
    uint64 public constant MAX_DURATION = 365 days;
    /// @notice An early termination pays the owner at least this share of the rent (10%).
    uint16 public constant MIN_TERMINATION_BPS = 1_000;
    /// @notice A Rewards Division agreement with no settled match for this long may be reclaimed.
    uint64 public constant MAX_IDLE = 7 days;
    /// @notice An open listing's agreement under which no match was settled yet may be
    ///         reclaimed after this long: a Rewards Division listing costs its taker no rent, so
    ///         taking it only to keep it off the market must not hold the avatar for `MAX_IDLE`.
    uint64 public constant OPEN_LISTING_IDLE = 1 hours;
    /// @notice A scholar who took an open listing may terminate only after this long (or the
    ///         whole term, if shorter): taking listings off the market costs their time.
    uint64 public constant MIN_LISTING_TERM = 1 hours;
    /// @notice At most this many agreements are accepted per avatar per `ACCEPT_WINDOW`, which
    ///         bounds the walk of `payeesAt` for a match settled late.
    uint64 public constant MAX_ACCEPTS_PER_WINDOW = 8;
    uint64 public constant ACCEPT_WINDOW = 1 days;

    IAvatarNFT public immutable avatar;
    IERC20 public immutable token;

    mapping(address owner => bool) private _screened;
    mapping(uint256 agreementId => Agreement) private _agreements;
    /// @dev The avatar's latest accepted agreement (active or ended); older ones are linked
    ///      through `Agreement.previousId`.
    mapping(uint256 avatarId => uint256 agreementId) private _latest;
    mapping(address owner => mapping(uint256 avatarId => uint64)) private _offerNonce;
    uint256 private _agreementCount;
    uint256 private _escrowed;
    /// @dev Per avatar: the start of its accept window (64 bits) | accepts in it << 64.
    mapping(uint256 avatarId => uint256) private _acceptWindow;
    /// @dev Settlement holds reported by the vault: heldUntil (64 bits) | paused << 64.
    uint256 private _hold;

    constructor(address admin, IAvatarNFT avatar_, IERC20 token_) DEWAccessControl(admin) {
        avatar = avatar_;
        token = token_;
    }

    /// @inheritdoc IScholarshipRegistry
    function setScreened(address owner, bool approved) external onlyRole(SCREENER_ROLE) {
        _screened[owner] = approved;
        emit OwnerScreened(owner, approved, msg.sender);
    }

    /// @inheritdoc IScholarshipRegistry
    function offer(uint256 avatarId, address scholar, OfferTerms calldata terms)
        external
        returns (uint256 agreementId)
    {
        if (!_screened[msg.sender]) revert OwnerNotScreened(msg.sender);
        address owner = avatar.ownerOf(avatarId);
        if (owner != msg.sender) revert NotAvatarOwner(avatarId, msg.sender, owner);
        _checkTerms(terms);
        if (scholar == msg.sender || (scholar != address(0) && scholar == terms.manager)) {
            revert InvalidScholar(scholar);
        }
        _checkManager(terms.manager, terms.managerBps);
        if (terms.validUntil <= block.timestamp) revert InvalidValidUntil(terms.validUntil, block.timestamp);
        agreementId = ++_agreementCount;
        Agreement storage a = _agreements[agreementId];
        a.owner = msg.sender;
        a.terms = terms.terms;
        a.status = Status.Offered;
        a.dustTo = terms.dustTo;
        a.scholar = scholar;
        a.ownerBps = terms.ownerBps;
        a.managerBps = terms.managerBps;
        a.manager = terms.manager;
        // Safe: _checkTerms bounds duration by MAX_DURATION (365 days < 2**32 seconds).
        a.duration = uint32(terms.duration);
        a.avatarId = avatarId;
        a.rent = terms.rent;
        a.validUntil = terms.validUntil;
        // Safe: a nonce passes 2**32 only after 2**32 cancelOffers calls by this owner.
        a.nonce = uint32(_offerNonce[msg.sender][avatarId]);
        // Safe: transferCount is a 24-bit counter.
        a.avatarTransfers = uint24(avatar.transferCount(avatarId));
        a.openListing = scholar == address(0);
        emit AgreementOffered(agreementId, avatarId, msg.sender, scholar, terms);
    }

    /// @inheritdoc IScholarshipRegistry
    function cancelOffer(uint256 agreementId) external {
        Agreement storage a = _existing(agreementId);
        if (a.status != Status.Offered) revert AgreementWrongStatus(agreementId, a.status);
        if (a.owner != msg.sender) revert NotOfferOwner(agreementId, msg.sender);
        a.status = Status.Cancelled;
        emit OfferCancelled(agreementId);
    }

    /// @inheritdoc IScholarshipRegistry
    function cancelOffers(uint256 avatarId) external returns (uint64 nonce) {
        nonce = ++_offerNonce[msg.sender][avatarId];
        emit OffersCancelled(msg.sender, avatarId, nonce);
    }

    /// @inheritdoc IScholarshipRegistry
    function accept(uint256 agreementId) external nonReentrant {
        _accept(agreementId);
    }

    /// @inheritdoc IScholarshipRegistry
    function acceptWithPermit(uint256 agreementId, uint256 deadline, uint8 v, bytes32 r, bytes32 s)
        external
        nonReentrant
    {
        uint256 rent = _existing(agreementId).rent;
        // A permit anyone saw in the mempool can be submitted first; then the allowance is
        // already there and `_accept` goes ahead (or fails on it with a clear ERC-20 error).
        try IERC20Permit(address(token)).permit(msg.sender, address(this), rent, deadline, v, r, s) {} catch {}
        _accept(agreementId);
    }

    function _accept(uint256 agreementId) private {
        Agreement storage a = _existing(agreementId);
        if (a.status != Status.Offered) revert AgreementWrongStatus(agreementId, a.status);
        if (a.scholar != address(0) && a.scholar != msg.sender) {
            revert NotOfferedTo(agreementId, a.scholar, msg.sender);
        }
        if (msg.sender == a.owner || msg.sender == a.manager) revert InvalidScholar(msg.sender);
        _checkManager(a.manager, a.managerBps);
        if (!_screened[a.owner]) revert OwnerNotScreened(a.owner);
        if (block.timestamp > a.validUntil) revert OfferExpired(agreementId, a.validUntil);
        uint256 avatarId = a.avatarId;
        uint64 nonce = _offerNonce[a.owner][avatarId];
        if (a.nonce != uint32(nonce)) revert OfferRevoked(agreementId, a.nonce, nonce);
        address currentOwner = avatar.ownerOf(avatarId);
        // A transfer since the offer voids it, even one that brought the avatar back.
        if (currentOwner != a.owner || a.avatarTransfers != uint24(avatar.transferCount(avatarId))) {
            revert OfferStale(agreementId, a.owner, currentOwner);
        }
        _countAccept(avatarId);

        uint256 previous = _latest[avatarId];
        if (previous != 0) {
            Agreement storage p = _agreements[previous];
            if (p.status == Status.Active) {
                if (block.timestamp < p.endsAt) revert AvatarAlreadyRented(avatarId, previous);
                _expire(previous, p);
            }
        }

        uint64 endsAt = uint64(block.timestamp) + a.duration;
        a.status = Status.Active;
        a.scholar = msg.sender;
        a.startsAt = uint64(block.timestamp);
        a.endsAt = endsAt;
        // Safe: agreement ids count up by one per offer, far below 2**64.
        a.previousId = uint64(previous);
        _latest[avatarId] = agreementId;
        uint128 rent = a.rent;
        if (rent != 0) {
            _escrowed += rent;
            token.safeTransferFrom(msg.sender, address(this), rent);
        }
        avatar.startRental(avatarId, msg.sender, endsAt);
        emit AgreementAccepted(agreementId, avatarId, msg.sender, endsAt, rent);
    }

    /// @inheritdoc IScholarshipRegistry
    function claimRent(uint256 agreementId) external nonReentrant returns (uint256 paid) {
        Agreement storage a = _existing(agreementId);
        if (a.status != Status.Active) revert AgreementWrongStatus(agreementId, a.status);
        paid = _payVestedRent(agreementId, a);
    }

    /// @inheritdoc IScholarshipRegistry
    function terminate(uint256 agreementId) external nonReentrant {
        Agreement storage a = _existing(agreementId);
        if (a.status != Status.Active) revert AgreementWrongStatus(agreementId, a.status);
        if (msg.sender != a.scholar) revert NotScholar(agreementId, msg.sender);
        if (block.timestamp >= a.endsAt) revert AgreementAlreadyExpired(agreementId, a.endsAt);
        if (a.openListing) {
            // Without a minimum term anyone could take every open listing off the market by
            // accepting and terminating in one transaction (free under Rewards Division).
            uint64 terminableFrom = a.startsAt + (a.duration < MIN_LISTING_TERM ? a.duration : MIN_LISTING_TERM);
            if (block.timestamp < terminableFrom) revert AgreementInMinimumTerm(agreementId, terminableFrom);
        }
        // The owner keeps at least MIN_TERMINATION_BPS of the rent: without it, accepting an
        // open Fixed Rent listing and terminating in the same transaction would take the
        // listing off the market at no cost but gas.
        uint256 vested = _vestedNow(a);
        uint256 minimum = uint256(a.rent) * MIN_TERMINATION_BPS / BPS;
        uint256 toOwner = _payRent(agreementId, a, vested > minimum ? vested : minimum);
        uint256 refund = a.rent - a.rentPaid;
        uint64 endedAt = uint64(block.timestamp);
        a.status = Status.Ended;
        a.endedAt = endedAt;
        if (refund != 0) {
            _escrowed -= refund;
            token.safeTransfer(a.scholar, refund);
        }
        avatar.endRental(a.avatarId);
        emit AgreementTerminated(agreementId, toOwner, refund, endedAt);
    }

    /// @inheritdoc IScholarshipRegistry
    function reclaimIdle(uint256 agreementId) external nonReentrant {
        Agreement storage a = _existing(agreementId);
        if (a.status != Status.Active) revert AgreementWrongStatus(agreementId, a.status);
        if (msg.sender != a.owner) revert NotAgreementOwner(agreementId, msg.sender);
        if (a.terms != Terms.RewardsDivision) revert NotRewardsDivision(agreementId);
        if (block.timestamp >= a.endsAt) revert AgreementAlreadyExpired(agreementId, a.endsAt);
        uint64 lastMatchAt = a.lastMatchAt;
        uint64 idleFrom = _idleFrom(a);
        if (block.timestamp < idleFrom) revert AgreementNotIdle(agreementId, idleFrom);
        uint64 endedAt = uint64(block.timestamp);
        a.status = Status.Ended;
        a.endedAt = endedAt;
        avatar.endRental(a.avatarId);
        emit AgreementReclaimed(agreementId, lastMatchAt, endedAt);
    }

    /// @inheritdoc IScholarshipRegistry
    function close(uint256 agreementId) external nonReentrant {
        Agreement storage a = _existing(agreementId);
        if (a.status != Status.Active) revert AgreementWrongStatus(agreementId, a.status);
        if (block.timestamp < a.endsAt) revert AgreementNotExpired(agreementId, a.endsAt);
        _expire(agreementId, a);
    }

    /// @inheritdoc IScholarshipRegistry
    function isScreened(address owner) external view returns (bool) {
        return _screened[owner];
    }

    /// @inheritdoc IScholarshipRegistry
    function agreementOf(uint256 agreementId) external view returns (Agreement memory) {
        return _existing(agreementId);
    }

    /// @inheritdoc IScholarshipRegistry
    function activeAgreementOf(uint256 avatarId) external view returns (uint256) {
        uint256 agreementId = _latest[avatarId];
        return _agreements[agreementId].status == Status.Active ? agreementId : 0;
    }

    /// @inheritdoc IScholarshipRegistry
    function offerNonce(address owner, uint256 avatarId) external view returns (uint64) {
        return _offerNonce[owner][avatarId];
    }

    /// @inheritdoc IScholarshipRegistry
    function vestedRent(uint256 agreementId) external view returns (uint256) {
        return _vested(_existing(agreementId));
    }

    /// @inheritdoc IScholarshipRegistry
    function payeesOf(uint256 avatarId) external view returns (Payees memory) {
        (Payees memory p,) = _payeesAt(avatarId, uint64(block.timestamp));
        return p;
    }

    /// @inheritdoc IScholarshipRegistry
    function payeesAt(uint256 avatarId, uint64 playedAt) external view returns (Payees memory) {
        (Payees memory p,) = _payeesAt(avatarId, _clampToNow(playedAt));
        return p;
    }

    /// @inheritdoc IScholarshipRegistry
    function recordMatch(uint256 avatarId, uint64 playedAt)
        external
        onlyRole(SETTLEMENT_ROLE)
        returns (Payees memory p)
    {
        playedAt = _clampToNow(playedAt);
        Agreement storage a;
        (p, a) = _payeesAt(avatarId, playedAt);
        // Only a Rewards Division agreement can be reclaimed for idleness, so only there is
        // the play time worth a storage write.
        if (p.agreementId != 0 && a.terms == Terms.RewardsDivision && playedAt > a.lastMatchAt) {
            a.lastMatchAt = playedAt;
        }
    }

    /// @inheritdoc IScholarshipRegistry
    function noteSettlementHold(bool paused, uint64 heldUntil) external onlyRole(SETTLEMENT_ROLE) {
        uint64 until = uint64(_hold);
        if (heldUntil > until) until = heldUntil;
        _hold = (paused ? 1 << 64 : 0) | until;
        emit SettlementHoldNoted(paused, until);
    }

    /// @inheritdoc IScholarshipRegistry
    function settlementHold() external view returns (bool paused, uint64 heldUntil) {
        uint256 hold = _hold;
        return (hold >> 64 != 0, uint64(hold));
    }

    /// @inheritdoc IScholarshipRegistry
    function escrowedRent() external view returns (uint256) {
        return _escrowed;
    }

    /// @inheritdoc IScholarshipRegistry
    function agreementCount() external view returns (uint256) {
        return _agreementCount;
    }

    function _checkTerms(OfferTerms calldata t) private pure {
        if (t.duration == 0 || t.duration > MAX_DURATION) revert InvalidDuration(t.duration, MAX_DURATION);
        if (t.terms == Terms.FixedRent) {
            if (t.ownerBps != 0 || t.managerBps != 0) revert InvalidShares(t.ownerBps, t.managerBps);
            if (t.manager != address(0)) revert InvalidManager(t.manager, t.managerBps);
            // Under Fixed Rent the scholar takes every reward, so any dust is the scholar's.
            if (t.dustTo != Party.Scholar) revert InvalidDustRecipient(t.dustTo);
        } else {
            if (uint256(t.ownerBps) + t.managerBps > BPS) revert InvalidShares(t.ownerBps, t.managerBps);
            if ((t.manager == address(0)) != (t.managerBps == 0)) revert InvalidManager(t.manager, t.managerBps);
            if (t.dustTo == Party.Manager && t.manager == address(0)) revert InvalidDustRecipient(t.dustTo);
            if (t.rent != 0) revert InvalidRent(t.rent);
        }
    }

    /// @dev A manager must be able to receive its share: not this registry, the token, the
    ///      avatar contract or the vault (a transfer to the vault reverts the vault's batch).
    function _checkManager(address manager, uint16 managerBps) private view {
        if (
            manager != address(0)
                && (manager == address(this)
                    || manager == address(token)
                    || manager == address(avatar)
                    || hasRole(SETTLEMENT_ROLE, manager))
        ) {
            revert InvalidManager(manager, managerBps);
        }
    }

    /// @dev Counts an acceptance against the avatar's window (a window opens at the first
    ///      acceptance after the last one ended).
    function _countAccept(uint256 avatarId) private {
        uint256 window = _acceptWindow[avatarId];
        uint64 start = uint64(window);
        uint256 accepts = window >> 64;
        if (block.timestamp >= start + ACCEPT_WINDOW) {
            start = uint64(block.timestamp);
            accepts = 0;
        }
        if (accepts >= MAX_ACCEPTS_PER_WINDOW) revert AvatarAcceptLimit(avatarId, start + ACCEPT_WINDOW);
        _acceptWindow[avatarId] = ((accepts + 1) << 64) | start;
    }

    /// @dev When an agreement becomes reclaimable for idleness: MAX_IDLE (OPEN_LISTING_IDLE for an
    ///      open listing without a settled match yet) after the latest of its acceptance, its
    ///      last settled match's play time and the end of the last settlement hold; never while
    ///      settlement is paused (the scholar's matches cannot be settled).
    function _idleFrom(Agreement storage a) private view returns (uint64) {
        uint256 hold = _hold;
        if (hold >> 64 != 0) return type(uint64).max;
        uint64 from = a.startsAt;
        uint64 lastMatchAt = a.lastMatchAt;
        if (lastMatchAt > from) from = lastMatchAt;
        if (uint64(hold) > from) from = uint64(hold);
        return from + (a.openListing && lastMatchAt == 0 ? OPEN_LISTING_IDLE : MAX_IDLE);
    }

    function _clampToNow(uint64 playedAt) private view returns (uint64) {
        return playedAt == 0 || playedAt > block.timestamp ? uint64(block.timestamp) : playedAt;
    }

    /// @dev Walks the avatar's accepted agreements from the latest back to the one that had
    ///      started by `playedAt`; it applies if it had not ended by then. Usually one step.
    function _payeesAt(uint256 avatarId, uint64 playedAt) private view returns (Payees memory p, Agreement storage a) {
        a = _agreements[0]; // never stored: agreement ids start at 1
        uint256 agreementId = _latest[avatarId];
        while (agreementId != 0) {
            a = _agreements[agreementId];
            if (a.startsAt <= playedAt) {
                uint64 end = a.endedAt != 0 ? a.endedAt : a.endsAt;
                if (playedAt < end) {
                    p.agreementId = agreementId;
                    p.owner = a.owner;
                    p.scholar = a.scholar;
                    p.manager = a.manager;
                    p.ownerBps = a.ownerBps;
                    p.managerBps = a.managerBps;
                    p.dustTo = a.dustTo;
                    return (p, a);
                }
                break;
            }
            agreementId = a.previousId;
        }
        p.owner = avatar.ownerOf(avatarId);
        p.ownerBps = BPS;
    }

    function _existing(uint256 agreementId) private view returns (Agreement storage a) {
        a = _agreements[agreementId];
        if (a.status == Status.None) revert AgreementNotFound(agreementId);
    }

    function _vested(Agreement storage a) private view returns (uint256) {
        if (a.status == Status.Active) return _vestedNow(a);
        // An ended agreement vested exactly what it paid the owner; the rest was refunded.
        if (a.status == Status.Ended) return a.rentPaid;
        return 0;
    }

    function _payVestedRent(uint256 agreementId, Agreement storage a) private returns (uint256) {
        return _payRent(agreementId, a, _vestedNow(a));
    }

    /// @dev Pays the owner what `vested` adds to the rent already paid.
    function _payRent(uint256 agreementId, Agreement storage a, uint256 vested) private returns (uint256 due) {
        due = vested - a.rentPaid;
        if (due != 0) {
            a.rentPaid = uint128(vested);
            _escrowed -= due;
            token.safeTransfer(a.owner, due);
            emit RentPaid(agreementId, a.owner, due);
        }
    }

    /// @dev Linear vesting over the term; rounds down, so the owner never gets ahead of time.
    function _vestedNow(Agreement storage a) private view returns (uint256) {
        return _vestedAt(a, block.timestamp);
    }

    function _vestedAt(Agreement storage a, uint256 time) private view returns (uint256) {
        uint256 rent = a.rent;
        if (time >= a.endsAt) return rent;
        return rent * (time - a.startsAt) / a.duration;
    }

    function _expire(uint256 agreementId, Agreement storage a) private {
        uint256 toOwner = _payVestedRent(agreementId, a);
        a.status = Status.Ended;
        a.endedAt = a.endsAt;
        // The avatar's rental lock ran out with the term; nothing to release. Calling
        // endRental here could wipe a user the owner has set since.
        emit AgreementExpired(agreementId, toOwner);
    }
}
