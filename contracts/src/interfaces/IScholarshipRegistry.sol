// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IAvatarNFT} from "./IAvatarNFT.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

/// @title Scholarship agreements between avatar owners and scholars
/// @notice A screened owner offers an avatar, to a named scholar or as an open listing. Accepting
///         starts the agreement: the avatar's ERC-4907 user becomes the scholar for the term and
///         the avatar is locked (no transfer, no `setUser`) until the term ends or the scholar
///         terminates early.
///         - Fixed Rent: the DEW rent is escrowed here at acceptance and vests to the owner
///           linearly over the term (`claimRent` pays what has vested). Early termination pays
///           the owner the vested part and refunds the unused part pro rata. The scholar keeps
///           100% of match rewards.
///         - Rewards Division: match rewards paid to the avatar are split by `MatchSettlement`:
///           `ownerBps` to the owner, `managerBps` to an optional manager, the rest to the
///           scholar; rounding dust goes to the party named by `dustTo`. The owner may end an
///           agreement whose scholar has had no match settled for `MAX_IDLE` (`reclaimIdle`),
///           or, for an open listing whose scholar has had no match settled at all, for
///           `OPEN_LISTING_IDLE`: taking an open listing holds the avatar only as long as
///           the taker plays it.
///         A reward is split by the agreement in force when its match was PLAYED
///         (`payeesAt`), however late it is settled: after the term ended, after an early
///         termination, or after the avatar was sold, the parties of that agreement are paid.
///         Offers expire at `validUntil`; `cancelOffers` withdraws all of an owner's open
///         offers for an avatar at once (a per-(owner, avatar) nonce), and any transfer of the
///         avatar voids its open offers (a per-avatar transfer counter).
interface IScholarshipRegistry {
    /// @notice The two kinds of agreement.
    enum Terms {
        FixedRent,
        RewardsDivision
    }

    /// @notice A party of an agreement; names who receives rounding dust.
    enum Party {
        Owner,
        Manager,
        Scholar
    }

    /// @notice Life cycle: Offered -> Active -> Ended, or Offered -> Cancelled.
    enum Status {
        None,
        Offered,
        Active,
        Ended,
        Cancelled
    }

    /// @notice What an owner offers.
    struct OfferTerms {
        Terms terms;
        /// Length of the term in seconds, counted from acceptance.
        uint64 duration;
        /// Fixed Rent only: DEW (wei) escrowed from the scholar at acceptance.
        uint128 rent;
        /// Rewards Division only: the owner's share in basis points.
        uint16 ownerBps;
        /// Rewards Division only: the manager's share in basis points (0 when no manager).
        uint16 managerBps;
        /// Rewards Division only: the manager, or the zero address when none.
        address manager;
        /// Rewards Division only: who receives rounding dust.
        Party dustTo;
        /// The last second at which the offer may be accepted.
        uint64 validUntil;
    }

    /// @notice A stored agreement (packed into six storage slots).
    struct Agreement {
        address owner;
        uint64 startsAt;
        Terms terms;
        Status status;
        Party dustTo;
        address scholar;
        /// The end of the term agreed at acceptance.
        uint64 endsAt;
        uint16 ownerBps;
        uint16 managerBps;
        address manager;
        uint32 duration;
        /// When the agreement really ended: `endsAt` when it ran its term, earlier when the
        /// scholar terminated it or the owner reclaimed it idle; 0 while it has not ended.
        uint64 endedAt;
        uint256 avatarId;
        uint128 rent;
        uint128 rentPaid;
        /// The offer's last second of validity.
        uint64 validUntil;
        /// The owner's offer nonce for this avatar when the offer was made (see `cancelOffers`).
        uint32 nonce;
        /// `AvatarNFT.transferCount` of the avatar when the offer was made: a transfer since
        /// (even one that brought it back) voids the offer.
        uint24 avatarTransfers;
        /// Offered to anyone (the zero address); its scholar then has a minimum term.
        bool openListing;
        /// The latest play time of a match settled under this agreement (0: none yet).
        uint64 lastMatchAt;
        /// The avatar's agreement accepted before this one (0: none); links its history.
        uint64 previousId;
    }

    /// @notice Who a match reward paid to an avatar goes to right now (see `payeesOf`).
    struct Payees {
        uint256 agreementId;
        address owner;
        address manager;
        address scholar;
        uint16 ownerBps;
        uint16 managerBps;
        Party dustTo;
    }

    /// @notice Only owners approved by a screener may offer avatars.
    error OwnerNotScreened(address owner);
    /// @notice The caller does not own the avatar.
    error NotAvatarOwner(uint256 avatarId, address caller, address owner);
    /// @notice The term is zero or longer than `MAX_DURATION`.
    error InvalidDuration(uint64 duration, uint64 maxDuration);
    /// @notice Shares exceed 10,000 bps, or are set on a Fixed Rent offer.
    error InvalidShares(uint16 ownerBps, uint16 managerBps);
    /// @notice A manager share needs a manager and vice versa; Fixed Rent has no manager.
    error InvalidManager(address manager, uint16 managerBps);
    /// @notice Dust cannot go to a manager that does not exist.
    error InvalidDustRecipient(Party dustTo);
    /// @notice Rent is only for Fixed Rent offers.
    error InvalidRent(uint128 rent);
    /// @notice The scholar cannot be the owner (or the manager).
    error InvalidScholar(address scholar);
    /// @notice No agreement has this id.
    error AgreementNotFound(uint256 agreementId);
    /// @notice The agreement is not in the state this call needs.
    error AgreementWrongStatus(uint256 agreementId, Status status);
    /// @notice A direct offer can only be accepted by its named scholar.
    error NotOfferedTo(uint256 agreementId, address scholar, address caller);
    /// @notice Only the offering owner may cancel an offer.
    error NotOfferOwner(uint256 agreementId, address caller);
    /// @notice Only the scholar may terminate an active agreement early.
    error NotScholar(uint256 agreementId, address caller);
    /// @notice The avatar changed hands since the offer was made.
    error OfferStale(uint256 agreementId, address offeredBy, address currentOwner);
    /// @notice The avatar already has an active agreement.
    error AvatarAlreadyRented(uint256 avatarId, uint256 agreementId);
    /// @notice The term has not ended yet.
    error AgreementNotExpired(uint256 agreementId, uint64 endsAt);
    /// @notice The term has ended already; use `close`.
    error AgreementAlreadyExpired(uint256 agreementId, uint64 endsAt);
    /// @notice `validUntil` must lie in the future.
    error InvalidValidUntil(uint64 validUntil, uint256 nowTimestamp);
    /// @notice The offer could be accepted only until `validUntil`.
    error OfferExpired(uint256 agreementId, uint64 validUntil);
    /// @notice The owner withdrew this offer with `cancelOffers` (its nonce is older).
    error OfferRevoked(uint256 agreementId, uint64 offerNonce, uint64 currentNonce);
    /// @notice Only the avatar's owner under the agreement may reclaim it.
    error NotAgreementOwner(uint256 agreementId, address caller);
    /// @notice Only a Rewards Division agreement can be reclaimed for idleness.
    error NotRewardsDivision(uint256 agreementId);
    /// @notice The scholar had a match settled too recently, or settlement was held: reclaimable
    ///         from `idleFrom` (`type(uint64).max` while settlement is paused).
    error AgreementNotIdle(uint256 agreementId, uint64 idleFrom);
    /// @notice An agreement taken from an open listing cannot be terminated before
    ///         `terminableFrom` (its minimum term).
    error AgreementInMinimumTerm(uint256 agreementId, uint64 terminableFrom);
    /// @notice The avatar had `MAX_ACCEPTS_PER_WINDOW` agreements accepted in its current
    ///         window; the next may be accepted from `retryAt`.
    error AvatarAcceptLimit(uint256 avatarId, uint64 retryAt);

    /// @notice A screener approved or withdrew an owner.
    event OwnerScreened(address indexed owner, bool approved, address indexed screener);
    /// @notice An owner offered an avatar (`scholar` is zero for an open listing).
    event AgreementOffered(
        uint256 indexed agreementId, uint256 indexed avatarId, address indexed owner, address scholar, OfferTerms terms
    );
    /// @notice The owner withdrew an offer that nobody had accepted.
    event OfferCancelled(uint256 indexed agreementId);
    /// @notice A scholar accepted; the avatar's user is the scholar until `endsAt`.
    event AgreementAccepted(
        uint256 indexed agreementId,
        uint256 indexed avatarId,
        address indexed scholar,
        uint64 endsAt,
        uint128 rentEscrowed
    );
    /// @notice Vested Fixed Rent was paid to the owner.
    event RentPaid(uint256 indexed agreementId, address indexed owner, uint256 amount);
    /// @notice The owner withdrew every open offer it made for `avatarId`; offers made with a
    ///         nonce below `nonce` can no longer be accepted.
    event OffersCancelled(address indexed owner, uint256 indexed avatarId, uint64 nonce);
    /// @notice The scholar ended the agreement before its term at `endedAt`; the unused rent
    ///         was refunded (the owner keeps at least `MIN_TERMINATION_BPS` of the rent).
    event AgreementTerminated(
        uint256 indexed agreementId, uint256 rentToOwner, uint256 refundToScholar, uint64 endedAt
    );
    /// @notice The agreement reached the end of its term and was closed.
    event AgreementExpired(uint256 indexed agreementId, uint256 rentToOwner);
    /// @notice The owner ended an idle Rewards Division agreement at `endedAt`.
    event AgreementReclaimed(uint256 indexed agreementId, uint64 lastMatchAt, uint64 endedAt);
    /// @notice The vault reported a settlement hold: `paused`, and the latest end of a hold
    ///         (an unpause, or a nearly full window's reset) so far.
    event SettlementHoldNoted(bool paused, uint64 heldUntil);

    /// @notice Approves (or withdraws) `owner` as allowed to offer. Only `SCREENER_ROLE`.
    function setScreened(address owner, bool approved) external;

    /// @notice Offers `avatarId`, to `scholar` or to anyone when `scholar` is zero.
    /// @dev The caller must own the avatar and be screened; a manager must be payable (not the
    ///      registry, the token, the avatar contract or a `SETTLEMENT_ROLE` holder).
    function offer(uint256 avatarId, address scholar, OfferTerms calldata terms) external returns (uint256 agreementId);

    /// @notice Withdraws an offer nobody has accepted. Only its owner.
    function cancelOffer(uint256 agreementId) external;

    /// @notice Withdraws, in one call, every offer the caller has open for `avatarId` (bumps
    ///         the caller's nonce for that avatar); returns the new nonce.
    function cancelOffers(uint256 avatarId) external returns (uint64 nonce);

    /// @notice Accepts an offer: escrows Fixed Rent (the caller must have approved the DEW) and
    ///         makes the caller the avatar's user for the term. Refused if the avatar was
    ///         transferred since the offer (`OfferStale`), if the manager cannot be paid
    ///         (`InvalidManager`), or past the avatar's accepts per window (`AvatarAcceptLimit`).
    function accept(uint256 agreementId) external;

    /// @notice `accept` in one transaction: first applies the scholar's ERC-2612 permit for the
    ///         rent (if a permit for it was already used, e.g. front-run, the allowance is
    ///         simply used as it stands).
    function acceptWithPermit(uint256 agreementId, uint256 deadline, uint8 v, bytes32 r, bytes32 s) external;

    /// @notice Pays the owner the Fixed Rent vested so far. Anyone may call; pays the owner.
    function claimRent(uint256 agreementId) external returns (uint256 paid);

    /// @notice The scholar ends an active agreement before its term: the owner receives the
    ///         vested rent, but at least `MIN_TERMINATION_BPS` of it (so accepting and terminating
    ///         at once cannot take an open listing off the market for free), the scholar the
    ///         unused rest, and the avatar is released. Records `endedAt`. An agreement taken
    ///         from an open listing cannot be terminated in its first `MIN_LISTING_TERM`
    ///         (`AgreementInMinimumTerm`).
    function terminate(uint256 agreementId) external;

    /// @notice The owner ends a Rewards Division agreement under which no match has been
    ///         settled for `MAX_IDLE`, counted from the latest of: acceptance, the last settled
    ///         match's play time, and the end of the last settlement hold (see
    ///         `settlementHold`); refused while settlement is paused. An open listing's
    ///         agreement with no match settled yet may be reclaimed after `OPEN_LISTING_IDLE`
    ///         instead. The avatar is released. Records `endedAt`.
    function reclaimIdle(uint256 agreementId) external;

    /// @notice The vault reports a hold on settlement: `paused` (true from `pause` until
    ///         `unpause`), and `heldUntil`, when a hold ends (the unpause time, or the reset of a
    ///         window that was left nearly full); the latest `heldUntil` is kept. Only
    ///         `SETTLEMENT_ROLE`.
    function noteSettlementHold(bool paused, uint64 heldUntil) external;

    /// @notice Whether settlement is paused, and the latest end of a settlement hold.
    function settlementHold() external view returns (bool paused, uint64 heldUntil);

    /// @notice Closes an agreement whose term has ended: pays the remaining rent to the owner
    ///         and releases the avatar. Anyone may call.
    function close(uint256 agreementId) external;

    /// @notice True when `owner` may offer avatars.
    function isScreened(address owner) external view returns (bool);

    /// @notice One agreement.
    function agreementOf(uint256 agreementId) external view returns (Agreement memory);

    /// @notice The avatar's active agreement id (0 when none), whether or not its term has run out.
    function activeAgreementOf(uint256 avatarId) external view returns (uint256);

    /// @notice Fixed Rent vested to the owner so far (paid or not).
    function vestedRent(uint256 agreementId) external view returns (uint256);

    /// @notice How a reward paid to `avatarId` now is split (`payeesAt` the current time).
    function payeesOf(uint256 avatarId) external view returns (Payees memory);

    /// @notice How a reward for a match played with `avatarId` at `playedAt` is split: by the
    ///         agreement in force then (`startsAt <= playedAt < endedAt`, or `endsAt` while it
    ///         has not ended), whoever owns the avatar now. Without one, everything goes to the
    ///         avatar's current owner; under Fixed Rent, to the scholar. A `playedAt` of 0 or in
    ///         the future means now.
    function payeesAt(uint256 avatarId, uint64 playedAt) external view returns (Payees memory);

    /// @notice `payeesAt` for `MatchSettlement`, which also records the match's play time on
    ///         the agreement (for `reclaimIdle`). Only `SETTLEMENT_ROLE`.
    function recordMatch(uint256 avatarId, uint64 playedAt) external returns (Payees memory);

    /// @notice The current offer nonce of `owner` for `avatarId`.
    function offerNonce(address owner, uint256 avatarId) external view returns (uint64);

    /// @notice Total Fixed Rent held in escrow.
    function escrowedRent() external view returns (uint256);

    /// @notice The number of agreements created so far (ids run from 1).
    function agreementCount() external view returns (uint256);

    /// @notice The avatar contract whose avatars are rented out.
    function avatar() external view returns (IAvatarNFT);

    /// @notice The DEW token rent is paid in.
    function token() external view returns (IERC20);

    function SCREENER_ROLE() external view returns (bytes32);
    function SETTLEMENT_ROLE() external view returns (bytes32);
}
