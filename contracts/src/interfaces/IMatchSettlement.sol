// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title The reward vault that settles finished matches
/// @notice The vault holds DEW funded by the treasury (a funded vault, not minting: the amount
///         the server can ever pay is bounded by what was put in, and topping up is an explicit,
///         visible transfer). `settle` pays a batch of matches in one transaction.
///
///         Batch layout (tightly packed bytes, big-endian; build it with the Python encoder
///         `backend.chain.contracts.encode_settle`):
///           batch  := match+
///           match  := matchId (32) | resultHash (32) | payoutCount (2) | payout (32) * payoutCount
///           payout := kind (1 byte) | amount (11 bytes, DEW wei) | target (20 bytes)
///             kind 0: target is the recipient address
///             kind 1: target is playedAt (8 bytes, unix seconds) | avatarId (12 bytes); the
///                     amount is split per the agreement in force at playedAt
///                     (`IScholarshipRegistry.payeesAt`; playedAt 0 means now), so a match
///                     settled after its rental ended still pays that rental's parties
///
///         Limits (the blast radius of a stolen settler key): a match may pay at most
///         `maxPerMatch`, and all batches together at most `periodLimit` and at most
///         `maxMatches` settled matches per window of `period` seconds (a window opens at the
///         first payment after the previous one ended, so any `period`-long span sees at most
///         twice the limits). A batch that would pass a limit reverts whole with
///         `SettlementMatchOverLimit`, `SettlementOutflowLimit` or `SettlementMatchLimit` and
///         changes nothing: its matches stay unsettled, to be paid once the window resets or the
///         admin raises the limit. The match count bounds how many future match ids a stolen
///         key can use up with dust payouts. The guardian can `pause` settlement; only the admin
///         unpauses. A match header with no payouts is refused (it would only use up its matchId).
///
///         No payee can make a batch revert: a payout leg to a refused payee (this vault, the
///         registry, the DEW token or the avatar contract) stays in the vault, with
///         `PayoutWithheld`, and the rest of the batch is paid.
///
///         Idempotency: each matchId pays at most once. A matchId already settled (earlier or
///         earlier in the same batch) is SKIPPED with `MatchSkipped`, not reverted, so one
///         repeated match never blocks the other matches of a batch and a retried transaction
///         is harmless. Malformed input reverts the whole batch and changes nothing.
///
///         Events: `MatchSettled` per settled match and, per recipient, the DEW token's
///         standard `Transfer(vault, recipient, amount)` (emitted in batch order, after all
///         `MatchSettled` events of the call); each avatar payout also emits
///         `AvatarPayoutSplit`. An underfunded vault reverts the batch with the token's
///         `ERC20InsufficientBalance(vault, balance, needed)`. Settled matchIds are kept in a bitmap:
///         ids that differ only in their last byte share one storage word, so sequential ids
///         (e.g. `bytes32(uint256(matchNumber))`) make the idempotency record far cheaper.
interface IMatchSettlement {
    /// @notice `settle` was called with no bytes.
    error SettlementEmptyBatch();
    /// @notice The batch bytes end inside a match header or payout list.
    error SettlementMalformedBatch(uint256 offset, uint256 length);
    /// @notice The zero matchId is reserved; every match needs a result hash.
    error SettlementInvalidMatch(bytes32 matchId, bytes32 resultHash);
    /// @notice A payout has amount zero.
    error SettlementZeroPayout(bytes32 matchId, uint256 index);
    /// @notice A payout's kind byte is not 0 (address) or 1 (avatar).
    error SettlementInvalidPayoutKind(bytes32 matchId, uint256 index, uint256 kind);
    /// @notice A payout is to the zero address or to avatar id 0.
    error SettlementInvalidRecipient(bytes32 matchId, uint256 index);
    /// @notice A match header lists no payouts.
    error SettlementNoPayouts(bytes32 matchId);
    /// @notice A match would pay `paid`, more than `maxPerMatch`.
    error SettlementMatchOverLimit(bytes32 matchId, uint256 paid, uint256 maxPerMatch);
    /// @notice The batch would take the window's outflow to `spent`, past `periodLimit`; the
    ///         current window ends at `resetsAt` (a unix time).
    error SettlementOutflowLimit(uint256 spent, uint256 periodLimit, uint256 resetsAt);
    /// @notice Settlement is paused.
    error SettlementPaused();
    /// @notice The batch would take the window's settled matches to `matches`, past
    ///         `maxMatches`; the current window ends at `resetsAt` (a unix time).
    error SettlementMatchLimit(uint256 matches, uint256 maxMatches, uint256 resetsAt);
    /// @notice Limits out of range: an amount that is not whole DEW or is above its maximum
    ///         (`MAX_PERIOD_LIMIT`, `MAX_PER_MATCH_LIMIT`), a period of zero or above
    ///         `MAX_PERIOD`, or a match count above `MAX_MATCHES_PER_PERIOD`.
    error SettlementInvalidLimits(uint256 periodLimit, uint256 maxPerMatch, uint256 period, uint256 maxMatches);

    /// @notice A match was settled; `paid` is the sum of its payouts.
    event MatchSettled(bytes32 indexed matchId, bytes32 resultHash, uint256 paid);
    /// @notice A matchId in the batch was already settled and was skipped; `resultHash` is the
    ///         one given this time (compare it with the `MatchSettled` one).
    event MatchSkipped(bytes32 indexed matchId, bytes32 resultHash);
    /// @notice How one avatar payout was divided and to whom (agreementId 0: no agreement, all
    ///         to the avatar's owner; manager and scholar are then the zero address). `playedAt`
    ///         is the play time the agreement was looked up at (the block time when the payout
    ///         gave 0 or a future time).
    event AvatarPayoutSplit(
        bytes32 indexed matchId,
        uint256 indexed avatarId,
        uint256 indexed agreementId,
        uint64 playedAt,
        address owner,
        address manager,
        address scholar,
        uint256 toOwner,
        uint256 toManager,
        uint256 toScholar
    );
    /// @notice A payout leg of `matchId` to a refused payee (this vault, the registry, the DEW
    ///         token or the avatar contract) was not sent: `amount` stayed in the vault (the admin
    ///         can `withdraw` it). It is still part of the match's `paid`, `totalPaid` and the
    ///         window's spending; an avatar payout's `AvatarPayoutSplit` still names `recipient`.
    event PayoutWithheld(bytes32 indexed matchId, address indexed recipient, uint256 amount);
    /// @notice The registry refused a settlement hold report (see
    ///         `IScholarshipRegistry.noteSettlementHold`); the pause or settlement went ahead.
    event SettlementHoldNotReported(bool paused, uint256 heldUntil);
    /// @notice The admin took DEW out of the vault.
    event VaultWithdrawn(address indexed to, uint256 amount);
    /// @notice The admin set the outflow limits.
    event LimitsSet(uint256 periodLimit, uint256 maxPerMatch, uint256 period, uint256 maxMatches);
    /// @notice The guardian paused settlement.
    event Paused(address indexed guardian);
    /// @notice The admin resumed settlement.
    event Unpaused(address indexed admin);

    /// @notice The largest `periodLimit` (2**32 - 1 DEW).
    function MAX_PERIOD_LIMIT() external view returns (uint256);

    /// @notice The largest `maxPerMatch` (2**24 - 1 DEW).
    function MAX_PER_MATCH_LIMIT() external view returns (uint256);

    /// @notice The longest `period` in seconds (2**22 - 1, about 48 days).
    function MAX_PERIOD() external view returns (uint256);

    /// @notice The largest `maxMatches` (2**31 - 1).
    function MAX_MATCHES_PER_PERIOD() external view returns (uint256);

    /// @notice Settles a batch of matches (layout above). Only `SETTLER_ROLE`, when not paused.
    /// @return settled The number of matches paid (skipped ones excluded).
    /// @return paid The DEW paid out by this call.
    function settle(bytes calldata batch) external returns (uint256 settled, uint256 paid);

    /// @notice True once `matchId` has been settled.
    function isSettled(bytes32 matchId) external view returns (bool);

    /// @notice All DEW ever paid out by `settle`.
    function totalPaid() external view returns (uint256);

    /// @notice Sends DEW out of the vault. Only `DEFAULT_ADMIN_ROLE`.
    function withdraw(address to, uint256 amount) external;

    /// @notice Sets the outflow limits (DEW wei, in whole DEW; seconds; settled matches per
    ///         window); they apply at once, also to the current window. Only `DEFAULT_ADMIN_ROLE`.
    function setLimits(uint256 periodLimit, uint256 maxPerMatch, uint256 period, uint256 maxMatches) external;

    /// @notice The outflow limits (all zero until the admin sets them: nothing can be paid).
    function limits()
        external
        view
        returns (uint256 periodLimit, uint256 maxPerMatch, uint256 period, uint256 maxMatches);

    /// @notice The current window's settled matches and how many more it may settle now (a
    ///         window that has ended counts as a fresh one).
    function windowMatches() external view returns (uint256 settled, uint256 available);

    /// @notice The current window: when it started, what it has paid (each batch counted
    ///         rounded up to the milli-DEW), and what `settle` may still pay now (a window that
    ///         has ended counts as a fresh one).
    function outflow() external view returns (uint256 windowStart, uint256 spent, uint256 available);

    /// @notice Stops `settle`, and tells the registry (so `reclaimIdle` waits). Only `GUARDIAN_ROLE`.
    function pause() external;

    /// @notice Lets `settle` run again, and tells the registry (idle time counts from now).
    ///         Only `DEFAULT_ADMIN_ROLE`.
    function unpause() external;

    /// @notice True while settlement is paused.
    function paused() external view returns (bool);

    /// @notice The DEW token the vault pays in.
    function token() external view returns (address);

    /// @notice The registry that decides how avatar payouts are split.
    function registry() external view returns (address);

    function SETTLER_ROLE() external view returns (bytes32);

    function GUARDIAN_ROLE() external view returns (bytes32);
}
