// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {IContributions} from "./interfaces/IContributions.sol";
import {IMatchSettlement} from "./interfaces/IMatchSettlement.sol";

/// @title DEW Contributions to tournament prize pools
/// @dev No balance and no role: the token and the vault are fixed at construction, the DEW goes
///      from the caller to the vault in one `transferFrom`, so there is nothing to steal here.
///      The one state is each tournament's total, kept within the vault's per-match limit: a
///      tournament's prizes are paid as one settled match, so a pool past that limit could never
///      be settled. Tournament ids are the server's (its competitions' numeric ids); whether an
///      id names an open tournament is the indexer's call (docs/contracts.md, threat model).
contract Contributions is IContributions {
    using SafeERC20 for IERC20;

    /// @notice The smallest contribution: 0.01 DEW (a dust contribution only spams the ledger).
    uint256 public constant MIN_CONTRIBUTION = 1e16;
    /// @notice The largest contribution: 1,000,000 DEW.
    uint256 public constant MAX_CONTRIBUTION = 1_000_000 * 1e18;
    /// @notice Tournament ids fit the server's 63-bit database ids.
    uint256 public constant MAX_TOURNAMENT_ID = (1 << 63) - 1;

    IERC20 private immutable _token;
    address private immutable _vault;
    mapping(uint256 tournamentId => uint256) private _contributed;

    constructor(IERC20 token_, address vault_) {
        if (address(token_) == address(0) || vault_ == address(0)) {
            revert ContributionInvalidSetup(address(token_), vault_);
        }
        _token = token_;
        _vault = vault_;
    }

    /// @inheritdoc IContributions
    function contribute(uint256 tournamentId, uint256 amount) external {
        _contribute(tournamentId, amount);
    }

    /// @inheritdoc IContributions
    function contributeWithPermit(uint256 tournamentId, uint256 amount, uint256 deadline, uint8 v, bytes32 r, bytes32 s)
        external
    {
        // A permit someone else submitted first leaves the allowance in place; the transfer
        // below then goes ahead, or fails with the token's clear ERC-20 error.
        try IERC20Permit(address(_token)).permit(msg.sender, address(this), amount, deadline, v, r, s) {} catch {}
        _contribute(tournamentId, amount);
    }

    /// @inheritdoc IContributions
    function contributedTo(uint256 tournamentId) external view returns (uint256) {
        return _contributed[tournamentId];
    }

    /// @inheritdoc IContributions
    function token() external view returns (address) {
        return address(_token);
    }

    /// @inheritdoc IContributions
    function vault() external view returns (address) {
        return _vault;
    }

    function _contribute(uint256 tournamentId, uint256 amount) private {
        if (tournamentId == 0 || tournamentId > MAX_TOURNAMENT_ID) revert ContributionInvalidTournament(tournamentId);
        if (amount < MIN_CONTRIBUTION || amount > MAX_CONTRIBUTION) {
            revert ContributionInvalidAmount(amount, MIN_CONTRIBUTION, MAX_CONTRIBUTION);
        }
        uint256 total = _contributed[tournamentId] + amount;
        (, uint256 maxPerMatch,,) = IMatchSettlement(_vault).limits();
        if (total > maxPerMatch) revert ContributionOverMatchLimit(tournamentId, total, maxPerMatch);
        _contributed[tournamentId] = total;
        emit Contributed(tournamentId, msg.sender, amount);
        _token.safeTransferFrom(msg.sender, _vault, amount);
    }
}
