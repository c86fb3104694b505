// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// @title DEW Contribution: anyone (a creator, usually) adds DEW to a tournament's prize pool
/// @notice `contribute` moves DEW from the caller straight to the reward vault (MatchSettlement),
///         which pays the tournament's prizes, and emits `Contributed`; the server's indexer adds
///         the amount to that tournament's pool in the ledger. Nothing is held here, and nothing
///         can be taken back: the contract has no admin, no withdrawal and no balance. A
///         tournament's contributions together stay within the vault's per-match limit (its
///         prizes are settled as one match), so its settlement can always go through.
interface IContributions {
    /// @notice The token or the vault given at construction is the zero address.
    error ContributionInvalidSetup(address token, address vault);
    /// @notice The tournament id is zero or above `MAX_TOURNAMENT_ID`.
    error ContributionInvalidTournament(uint256 tournamentId);
    /// @notice The amount is below `MIN_CONTRIBUTION` or above `MAX_CONTRIBUTION`.
    error ContributionInvalidAmount(uint256 amount, uint256 min, uint256 max);

    /// @notice The tournament's contributions would total `total`, past the vault's per-match
    ///         limit `maxPerMatch` (MatchSettlement.limits): its prizes could never be settled.
    error ContributionOverMatchLimit(uint256 tournamentId, uint256 total, uint256 maxPerMatch);

    /// @notice `from` moved `amount` DEW wei to the vault for tournament `tournamentId`'s prizes.
    event Contributed(uint256 indexed tournamentId, address indexed from, uint256 amount);

    /// @notice Moves `amount` DEW from the caller to the vault for tournament `tournamentId`.
    ///         The caller approves this contract for `amount` first (or uses the permit variant).
    function contribute(uint256 tournamentId, uint256 amount) external;

    /// @notice `contribute` with an ERC-2612 permit for `amount`, in one transaction. A permit
    ///         already used (e.g. seen and submitted by someone else) is ignored, and the
    ///         allowance it set is used.
    function contributeWithPermit(uint256 tournamentId, uint256 amount, uint256 deadline, uint8 v, bytes32 r, bytes32 s)
        external;

    /// @notice DEW wei contributed to tournament `tournamentId` so far.
    function contributedTo(uint256 tournamentId) external view returns (uint256);

    /// @notice The DEW token.
    function token() external view returns (address);

    /// @notice The reward vault that receives contributions.
    function vault() external view returns (address);
}
