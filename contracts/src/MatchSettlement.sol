// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {DEWAccessControl} from "./access/DEWAccessControl.sol";
import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {SafeERC20} from "@openzeppelin/contracts/token/ERC20/utils/SafeERC20.sol";
import {IDEWToken} from "./interfaces/IDEWToken.sol";
import {IMatchSettlement} from "./interfaces/IMatchSettlement.sol";
import {IScholarshipRegistry} from "./interfaces/IScholarshipRegistry.sol";
import {IAvatarNFT} from "./interfaces/IAvatarNFT.sol";

/// @title The reward vault that settles finished matches
/// @dev Gas shape of `settle`: the batch is parsed straight from calldata, every payout leg is
///      collected into one list and sent with a single `DEWToken.disperse` call, so the call,
///      the vault's balance slot and the role check are paid once per batch, not per payout.
///      The per-match maximum shares one slot with the total-paid counter and the window, which
///      `settle` reads once and writes once per batch; the window's two limits (DEW and matches)
///      are a second slot that `settle` only reads, once per batch.
contract MatchSettlement is DEWAccessControl, IMatchSettlement {
    using SafeERC20 for IERC20;

    /// @inheritdoc IMatchSettlement
    bytes32 public constant SETTLER_ROLE = keccak256("SETTLER_ROLE");
    /// @inheritdoc IMatchSettlement
    bytes32 public constant GUARDIAN_ROLE = keccak256("GUARDIAN_ROLE");

    uint256 internal constant BPS = 10_000;
    uint256 internal constant MATCH_HEADER_BYTES = 66;
    uint256 internal constant PAYOUT_BYTES = 32;
    uint256 internal constant AMOUNT_MASK = (1 << 88) - 1;
    uint256 internal constant KIND_ACCOUNT = 0;
    uint256 internal constant KIND_AVATAR = 1;
    uint256 internal constant AVATAR_ID_MASK = (1 << 96) - 1;

    /// @inheritdoc IMatchSettlement
    uint256 public constant MAX_PERIOD_LIMIT = ((1 << 32) - 1) * 1e18;
    /// @inheritdoc IMatchSettlement
    uint256 public constant MAX_PER_MATCH_LIMIT = ((1 << 24) - 1) * 1e18;
    /// @inheritdoc IMatchSettlement
    uint256 public constant MAX_PERIOD = (1 << 22) - 1;
    /// @inheritdoc IMatchSettlement
    uint256 public constant MAX_MATCHES_PER_PERIOD = (1 << 31) - 1;

    // The vault's one state slot (see `_vault`): field positions and units.
    uint256 internal constant DEW = 1e18; // the limits are whole DEW
    uint256 internal constant SPENT_UNIT = 1e15; // the window's spending, in milli-DEW
    uint256 internal constant TOTAL_BITS = 100;
    uint256 internal constant SPENT_SHIFT = 100;
    uint256 internal constant SPENT_MASK = (1 << 42) - 1;
    uint256 internal constant MATCHES_SHIFT = 142;
    uint256 internal constant MATCHES_MASK = (1 << 31) - 1;
    uint256 internal constant HELD_BIT = 1 << 173;
    uint256 internal constant PER_MATCH_SHIFT = 174;
    uint256 internal constant PERIOD_SHIFT = 198;
    uint256 internal constant START_SHIFT = 220;
    uint256 internal constant START_MASK = (1 << 35) - 1;
    uint256 internal constant PAUSED_BIT = 1 << 255;
    // The read-only limits slot (see `_limits`).
    uint256 internal constant MAX_MATCHES_SHIFT = 32;
    /// @dev The window counts as held (for `reclaimIdle`) once fewer matches than this share of
    ///      `maxMatches` (1/64) may still be settled in it.
    uint256 internal constant HELD_MATCHES_DIVISOR = 64;

    IDEWToken internal immutable _token;
    IScholarshipRegistry internal immutable _registry;
    /// @dev Refused payees (see `PayoutWithheld`) besides this vault, the token and the registry.
    address internal immutable _avatar;

    /// @dev Bit `id & 0xff` of word `id >> 8` is set once matchId `id` is settled.
    mapping(uint256 word => uint256 bits) private _settled;
    /// @dev What `settle` writes once per batch, in one slot:
    ///        totalPaid (wei, 100 bits) | spent in the window (milli-DEW, 42) << 100
    ///        | matches settled in the window (31) << 142 | window held, reported (1) << 173
    ///        | maxPerMatch (DEW, 24) << 174 | period (s, 22) << 198
    ///        | window start (unix s, 35) << 220 | paused (1) << 255.
    ///      A batch adds its payouts to `spent` rounded up to the milli-DEW, so the limit is
    ///      never passed by rounding; the total is exact.
    uint256 private _vault;
    /// @dev The window's limits, which `settle` only reads: periodLimit (DEW, 32) | maxMatches (31) << 32.
    uint256 private _limits;

    constructor(address admin, IDEWToken token_, IScholarshipRegistry registry_) DEWAccessControl(admin) {
        _token = token_;
        _registry = registry_;
        _avatar = address(registry_.avatar());
    }

    /// @inheritdoc IMatchSettlement
    function settle(bytes calldata batch) external onlyRole(SETTLER_ROLE) returns (uint256 settled, uint256 paid) {
        if (batch.length == 0) revert SettlementEmptyBatch();
        uint256 maxPerMatch;
        {
            uint256 vault = _vault; // the one cold read of the vault's state; _spend's is warm
            if (vault & PAUSED_BIT != 0) revert SettlementPaused();
            maxPerMatch = _perMatchLimit(vault);
        }
        // The calldata of DEWToken.disperse(uint256[]) is built in place as payouts are read:
        // selector (ending at buf + 32), offset word, length word, then one word per leg.
        // Every payout is 32 bytes of the batch and becomes at most three legs.
        uint256 buf;
        uint256 legsAt;
        {
            bytes4 selector = IDEWToken.disperse.selector;
            uint256 maxLegs = (batch.length / PAYOUT_BYTES) * 3;
            assembly ("memory-safe") {
                buf := mload(0x40)
                mstore(buf, shr(224, selector))
                mstore(add(buf, 0x20), 0x20)
                legsAt := add(buf, 0x60)
                mstore(0x40, add(legsAt, mul(maxLegs, 0x20)))
            }
        }
        uint256 legCount;
        // Absolute calldata positions: `cursor` walks the batch, `end` is one past its last byte.
        uint256 cursor;
        uint256 end;
        assembly ("memory-safe") {
            cursor := batch.offset
            end := add(batch.offset, batch.length)
        }
        while (cursor < end) {
            if (end - cursor < MATCH_HEADER_BYTES) {
                revert SettlementMalformedBatch(cursor - _start(batch), batch.length);
            }
            bytes32 matchId;
            bytes32 resultHash;
            uint256 count;
            assembly ("memory-safe") {
                matchId := calldataload(cursor)
                resultHash := calldataload(add(cursor, 32))
                count := shr(240, calldataload(add(cursor, 64)))
            }
            uint256 first = cursor + MATCH_HEADER_BYTES;
            // Safe: count < 2**16 and first <= end, both far below 2**64.
            unchecked {
                cursor = first + count * PAYOUT_BYTES;
            }
            if (cursor > end) revert SettlementMalformedBatch(first - _start(batch), batch.length);
            if (matchId == 0 || resultHash == 0) revert SettlementInvalidMatch(matchId, resultHash);
            if (count == 0) revert SettlementNoPayouts(matchId);

            {
                uint256 wordIndex = uint256(matchId) >> 8;
                uint256 bit = 1 << (uint256(matchId) & 0xff);
                uint256 bits = _settled[wordIndex];
                if (bits & bit != 0) {
                    emit MatchSkipped(matchId, resultHash);
                    continue;
                }
                _settled[wordIndex] = bits | bit;
            }

            uint256 matchPaid;
            (legCount, matchPaid) = _collectPayouts(matchId, first, count, legsAt, legCount);
            if (matchPaid > maxPerMatch) revert SettlementMatchOverLimit(matchId, matchPaid, maxPerMatch);
            emit MatchSettled(matchId, resultHash, matchPaid);
            // Safe: amounts are below 2**88 each and a batch holds fewer than 2**40 payouts.
            unchecked {
                paid += matchPaid;
                ++settled;
            }
        }
        if (paid != 0) {
            _spend(paid, settled);
            // One call pays every leg; the token debits the vault once, for the total, and
            // reverts with ERC20InsufficientBalance(vault, balance, needed) when underfunded.
            address tokenAddress = address(_token);
            assembly ("memory-safe") {
                mstore(add(buf, 0x40), legCount)
                if iszero(call(gas(), tokenAddress, 0, add(buf, 28), add(0x44, mul(legCount, 0x20)), 0, 0)) {
                    // Bubble the token's error (e.g. ERC20InsufficientBalance) up unchanged.
                    let p := mload(0x40)
                    returndatacopy(p, 0, returndatasize())
                    revert(p, returndatasize())
                }
            }
        }
    }

    /// @inheritdoc IMatchSettlement
    function setLimits(uint256 periodLimit, uint256 maxPerMatch, uint256 period, uint256 maxMatches)
        external
        onlyRole(DEFAULT_ADMIN_ROLE)
    {
        if (
            periodLimit > MAX_PERIOD_LIMIT || periodLimit % DEW != 0 || maxPerMatch > MAX_PER_MATCH_LIMIT
                || maxPerMatch % DEW != 0 || period == 0 || period > MAX_PERIOD || maxMatches > MAX_MATCHES_PER_PERIOD
        ) {
            revert SettlementInvalidLimits(periodLimit, maxPerMatch, period, maxMatches);
        }
        // maxPerMatch and period sit in bits 174..219 of the vault slot.
        uint256 kept = _vault & ~(((1 << PERIOD_SHIFT + 22) - 1) ^ ((1 << PER_MATCH_SHIFT) - 1));
        _vault = kept | (period << PERIOD_SHIFT) | ((maxPerMatch / DEW) << PER_MATCH_SHIFT);
        _limits = (maxMatches << MAX_MATCHES_SHIFT) | (periodLimit / DEW);
        emit LimitsSet(periodLimit, maxPerMatch, period, maxMatches);
    }

    /// @inheritdoc IMatchSettlement
    function pause() external onlyRole(GUARDIAN_ROLE) {
        _vault |= PAUSED_BIT;
        emit Paused(msg.sender);
        _noteHold(true, 0);
    }

    /// @inheritdoc IMatchSettlement
    function unpause() external onlyRole(DEFAULT_ADMIN_ROLE) {
        _vault &= ~PAUSED_BIT;
        emit Unpaused(msg.sender);
        _noteHold(false, block.timestamp);
    }

    /// @inheritdoc IMatchSettlement
    function paused() external view returns (bool) {
        return _vault & PAUSED_BIT != 0;
    }

    /// @inheritdoc IMatchSettlement
    function limits()
        external
        view
        returns (uint256 periodLimit, uint256 maxPerMatch, uint256 period, uint256 maxMatches)
    {
        uint256 vault = _vault;
        uint256 limits_ = _limits;
        return (_periodLimit(limits_), _perMatchLimit(vault), _period(vault), limits_ >> MAX_MATCHES_SHIFT);
    }

    /// @inheritdoc IMatchSettlement
    function outflow() external view returns (uint256 windowStart, uint256 spent, uint256 available) {
        uint256 vault = _vault;
        (windowStart, spent,) = _window(vault);
        spent *= SPENT_UNIT;
        uint256 limit = _periodLimit(_limits);
        available = spent < limit ? limit - spent : 0;
    }

    /// @inheritdoc IMatchSettlement
    function windowMatches() external view returns (uint256 settled, uint256 available) {
        (,, settled) = _window(_vault);
        uint256 maxMatches = _limits >> MAX_MATCHES_SHIFT;
        available = settled < maxMatches ? maxMatches - settled : 0;
    }

    /// @inheritdoc IMatchSettlement
    function withdraw(address to, uint256 amount) external onlyRole(DEFAULT_ADMIN_ROLE) {
        IERC20(address(_token)).safeTransfer(to, amount);
        emit VaultWithdrawn(to, amount);
    }

    /// @inheritdoc IMatchSettlement
    function isSettled(bytes32 matchId) external view returns (bool) {
        return _settled[uint256(matchId) >> 8] & (1 << (uint256(matchId) & 0xff)) != 0;
    }

    /// @inheritdoc IMatchSettlement
    function totalPaid() external view returns (uint256) {
        return _vault & ((1 << TOTAL_BITS) - 1);
    }

    /// @inheritdoc IMatchSettlement
    function token() external view returns (address) {
        return address(_token);
    }

    /// @inheritdoc IMatchSettlement
    function registry() external view returns (address) {
        return address(_registry);
    }

    /// @dev Validates a match's payouts at calldata position `first` and appends their legs
    ///      (disperse words) at memory position `legsAt`.
    function _collectPayouts(bytes32 matchId, uint256 first, uint256 count, uint256 legsAt, uint256 legCount)
        private
        returns (uint256, uint256 paid)
    {
        for (uint256 i; i < count;) {
            uint256 payout;
            assembly ("memory-safe") {
                payout := calldataload(add(first, mul(i, 32)))
            }
            uint256 amount = (payout >> 160) & AMOUNT_MASK;
            uint256 kind = payout >> 248;
            if (amount == 0) revert SettlementZeroPayout(matchId, i);
            if (uint160(payout) == 0) revert SettlementInvalidRecipient(matchId, i);
            if (kind == KIND_ACCOUNT) {
                // Only a payout to the vault itself would revert the batch (the token refuses a
                // transfer to the sender); an account payout's recipient is the server's choice,
                // so the other refused payees are checked on avatar legs only (their payees are
                // the owners' choice). One comparison: this runs for every payout.
                bool refused;
                assembly ("memory-safe") {
                    refused := eq(and(payout, 0xffffffffffffffffffffffffffffffffffffffff), address())
                }
                if (refused) {
                    emit PayoutWithheld(matchId, address(uint160(payout)), amount);
                } else {
                    // An account payout word is already a disperse word: amount << 160 | to.
                    assembly ("memory-safe") {
                        mstore(add(legsAt, mul(legCount, 0x20)), payout)
                    }
                    // Safe: the buffer holds three legs per payout.
                    unchecked {
                        ++legCount;
                    }
                }
            } else if (kind == KIND_AVATAR) {
                if (payout & AVATAR_ID_MASK == 0) revert SettlementInvalidRecipient(matchId, i);
                legCount = _splitAvatarPayout(matchId, payout, amount, legsAt, legCount);
            } else {
                revert SettlementInvalidPayoutKind(matchId, i, kind);
            }
            // Safe: amounts are below 2**88 each and count < 2**16.
            unchecked {
                paid += amount;
                ++i;
            }
        }
        return (legCount, paid);
    }

    /// @dev Counts `paid` and `settled` matches against the current window (a new one opens
    ///      when the last has ended) and the total; reverts past either of the window's limits.
    ///      The first batch that leaves the window nearly full then reports the hold to the
    ///      registry (see `IScholarshipRegistry.noteSettlementHold`).
    function _spend(uint256 paid, uint256 settled) private {
        uint256 vault = _vault; // warm: settle read it at the top
        (uint256 start, uint256 spent, uint256 matches) = _window(vault);
        if (start != (vault >> START_SHIFT) & START_MASK) vault &= ~HELD_BIT; // a new window
        // Safe: paid < 2**110 (fewer than 2**22 payouts of under 2**88 wei), spent < 2**42 and
        // matches < 2**31, settled < 2**22.
        unchecked {
            spent += (paid + SPENT_UNIT - 1) / SPENT_UNIT;
            matches += settled;
        }
        uint256 limits_ = _limits; // the one (cold) read of the limits
        uint256 limit = _periodLimit(limits_);
        uint256 total = (vault & ((1 << TOTAL_BITS) - 1)) + paid;
        uint256 resetsAt = start + _period(vault);
        if (spent * SPENT_UNIT > limit || total >> TOTAL_BITS != 0) {
            revert SettlementOutflowLimit(spent * SPENT_UNIT, limit, resetsAt);
        }
        uint256 maxMatches = limits_ >> MAX_MATCHES_SHIFT;
        if (matches > maxMatches) revert SettlementMatchLimit(matches, maxMatches, resetsAt);
        // Only the window, its held flag and the total change; spent <= limit / 1e15 < 2**42
        // and matches <= maxMatches < 2**31.
        uint256 kept = vault & ~((1 << (MATCHES_SHIFT + 31)) - 1) & ~(START_MASK << START_SHIFT);
        vault = kept | (start << START_SHIFT) | (matches << MATCHES_SHIFT) | (spent << SPENT_SHIFT) | total;
        bool held;
        // Safe: spent * SPENT_UNIT <= limit and matches <= maxMatches, both checked above.
        unchecked {
            held = vault & HELD_BIT == 0
                && (limit - spent * SPENT_UNIT < _perMatchLimit(vault)
                    || maxMatches - matches < maxMatches / HELD_MATCHES_DIVISOR);
        }
        if (held) vault |= HELD_BIT;
        _vault = vault; // before the registry call below
        if (held) _noteHold(false, resetsAt);
    }

    /// @dev Tells the registry that settlement is held (paused, or a window nearly full until
    ///      `heldUntil`), so `reclaimIdle` does not count that time. Never blocks the caller: a
    ///      pause must always work, and so must a settlement.
    function _noteHold(bool paused_, uint256 heldUntil) private {
        // Safe cast: block times and window ends fit in 35 bits.
        try _registry.noteSettlementHold(paused_, uint64(heldUntil)) {}
        catch {
            emit SettlementHoldNotReported(paused_, heldUntil);
        }
    }

    /// @dev The window `settle` would count against now: its start, its spending (milli-DEW) and
    ///      its settled matches; a window that has ended counts as a fresh one starting now.
    function _window(uint256 vault) private view returns (uint256 start, uint256 spent, uint256 matches) {
        start = (vault >> START_SHIFT) & START_MASK;
        if (block.timestamp >= start + _period(vault)) return (block.timestamp, 0, 0);
        spent = (vault >> SPENT_SHIFT) & SPENT_MASK;
        matches = (vault >> MATCHES_SHIFT) & MATCHES_MASK;
    }

    /// @dev A payee that must not be paid: the vault itself (the token refuses a transfer to the
    ///      sender, which would revert the batch) or a contract of the system, where DEW would be
    ///      stuck (the registry, the token, the avatars).
    function _refused(address to) private view returns (bool) {
        return to == address(this) || to == address(_registry) || to == address(_token) || to == _avatar;
    }

    function _periodLimit(uint256 limits_) private pure returns (uint256) {
        return (limits_ & type(uint32).max) * DEW;
    }

    function _perMatchLimit(uint256 vault) private pure returns (uint256) {
        return ((vault >> PER_MATCH_SHIFT) & type(uint24).max) * DEW;
    }

    function _period(uint256 vault) private pure returns (uint256) {
        return (vault >> PERIOD_SHIFT) & ((1 << 22) - 1);
    }

    /// @dev The calldata position of a batch's first byte (for error offsets).
    function _start(bytes calldata batch) private pure returns (uint256 start) {
        assembly ("memory-safe") {
            start := batch.offset
        }
    }

    /// @dev Splits one avatar payout per the agreement in force when its match was played and
    ///      appends the non-zero legs.
    function _splitAvatarPayout(bytes32 matchId, uint256 payout, uint256 amount, uint256 legsAt, uint256 legCount)
        private
        returns (uint256)
    {
        uint256 avatarId = payout & AVATAR_ID_MASK;
        uint64 playedAt = uint64(payout >> 96);
        if (playedAt == 0 || playedAt > block.timestamp) playedAt = uint64(block.timestamp); // as the registry does
        IScholarshipRegistry.Payees memory p = _registry.recordMatch(avatarId, playedAt);
        uint256 toOwner = amount * p.ownerBps / BPS;
        uint256 toManager = amount * p.managerBps / BPS;
        uint256 toScholar = amount * (BPS - p.ownerBps - p.managerBps) / BPS;
        // Safe: each share rounds down, so their sum never exceeds amount.
        unchecked {
            uint256 dust = amount - toOwner - toManager - toScholar;
            if (p.dustTo == IScholarshipRegistry.Party.Owner) toOwner += dust;
            else if (p.dustTo == IScholarshipRegistry.Party.Manager) toManager += dust;
            else toScholar += dust;
        }
        emit AvatarPayoutSplit(
            matchId, avatarId, p.agreementId, playedAt, p.owner, p.manager, p.scholar, toOwner, toManager, toScholar
        );
        legCount = _appendLeg(matchId, legsAt, legCount, toOwner, p.owner);
        legCount = _appendLeg(matchId, legsAt, legCount, toManager, p.manager);
        legCount = _appendLeg(matchId, legsAt, legCount, toScholar, p.scholar);
        return legCount;
    }

    /// @dev Appends a disperse word for a non-zero leg (the buffer holds three legs per payout);
    ///      a leg to a refused payee stays in the vault instead, with `PayoutWithheld`.
    function _appendLeg(bytes32 matchId, uint256 legsAt, uint256 legCount, uint256 amount, address to)
        private
        returns (uint256)
    {
        if (amount == 0) return legCount;
        if (_refused(to)) {
            emit PayoutWithheld(matchId, to, amount);
            return legCount;
        }
        assembly ("memory-safe") {
            mstore(add(legsAt, mul(legCount, 0x20)), or(shl(160, amount), to))
        }
        // Safe: bounded by three legs per 32-byte payout of the calldata.
        unchecked {
            return legCount + 1;
        }
    }
}
