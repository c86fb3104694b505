// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {AvatarNFT} from "../../src/AvatarNFT.sol";
import {DEWToken} from "../../src/DEWToken.sol";
import {MatchSettlement} from "../../src/MatchSettlement.sol";
import {ScholarshipRegistry} from "../../src/ScholarshipRegistry.sol";
import {VIPPass} from "../../src/VIPPass.sol";
import {IMatchSettlement} from "../../src/interfaces/IMatchSettlement.sol";
import {IScholarshipRegistry as IR} from "../../src/interfaces/IScholarshipRegistry.sol";
import {Vm} from "../utils/Test.sol";

/// @dev Drives the whole system with random but valid-looking actions and keeps the ghost
///      values the invariants compare against. Calls that revert are fine: nothing may change.
contract Handler {
    Vm internal constant vm = Vm(address(uint160(uint256(keccak256("hevm cheat code")))));

    uint256 public constant MATCH_POOL = 24;
    uint256 public constant ACTORS = 6;
    uint256 public constant AVATARS = 8;

    DEWToken public immutable token;
    AvatarNFT public immutable avatar;
    VIPPass public immutable vip;
    ScholarshipRegistry public immutable registry;
    MatchSettlement public immutable settlement;
    address public immutable operator;

    address[ACTORS] public actors;

    // Ghosts.
    uint256 public ghostPaid;
    mapping(uint256 matchNumber => uint256) public timesSettled;
    uint256 public unauthorizedSuccesses;
    uint256 public lockBreaches;
    uint256 public calls;

    constructor(
        DEWToken token_,
        AvatarNFT avatar_,
        VIPPass vip_,
        ScholarshipRegistry registry_,
        MatchSettlement settlement_,
        address operator_
    ) {
        token = token_;
        avatar = avatar_;
        vip = vip_;
        registry = registry_;
        settlement = settlement_;
        operator = operator_;
        for (uint256 i; i < ACTORS; ++i) {
            actors[i] = address(uint160(0xA000 + i));
        }
    }

    function actorList() external view returns (address[ACTORS] memory) {
        return actors;
    }

    function _pick(uint256 seed, uint256 n) internal pure returns (uint256) {
        return seed % n;
    }

    function _actor(uint256 seed) internal view returns (address) {
        return actors[_pick(seed, ACTORS)];
    }

    function _avatarId(uint256 seed) internal pure returns (uint256) {
        return 1 + _pick(seed, AVATARS);
    }

    /// A batch of up to four matches with ids from a small pool (so repeats are common).
    function settle(uint256 seed, uint8 matchCount) external {
        ++calls;
        uint256 n = 1 + _pick(matchCount, 4);
        bytes memory batch;
        uint256 expected;
        bool[MATCH_POOL + 1] memory inBatch;
        for (uint256 i; i < n; ++i) {
            uint256 r = uint256(keccak256(abi.encode(seed, i)));
            uint256 number = 1 + _pick(r, MATCH_POOL);
            uint256 payouts = _pick(r >> 8, 4);
            bytes memory body;
            uint256 total;
            for (uint256 k; k < payouts; ++k) {
                uint256 rk = uint256(keccak256(abi.encode(r, k)));
                uint256 amount = 1 + _pick(rk >> 16, 1e21);
                uint256 word = rk % 3 == 0
                    ? (1 << 248 | amount << 160 | _avatarId(rk >> 8))
                    : (amount << 160 | uint160(_actor(rk >> 8)));
                body = bytes.concat(body, bytes32(word));
                total += amount;
            }
            batch = bytes.concat(
                batch, abi.encodePacked(bytes32(number), keccak256(abi.encode(number)), uint16(payouts)), body
            );
            if (!settlement.isSettled(bytes32(number)) && !inBatch[number]) expected += total;
            inBatch[number] = true;
        }
        vm.recordLogs();
        vm.prank(operator);
        settlement.settle(batch);
        Vm.Log[] memory logs = vm.getRecordedLogs();
        for (uint256 i; i < logs.length; ++i) {
            if (logs[i].emitter == address(settlement) && logs[i].topics[0] == IMatchSettlement.MatchSettled.selector) {
                ++timesSettled[uint256(logs[i].topics[1])];
            }
        }
        // Computed from the inputs, not from what settle reports.
        ghostPaid += expected;
    }

    /// An owner offers one of their avatars; another actor accepts.
    function rent(
        uint256 avatarSeed,
        uint256 scholarSeed,
        bool fixedRent,
        uint64 duration,
        uint128 rentAmount,
        uint16 bps
    ) external {
        ++calls;
        uint256 id = _avatarId(avatarSeed);
        address owner = avatar.ownerOf(id);
        address scholar = _actor(scholarSeed);
        if (scholar == owner) return;
        IR.OfferTerms memory t;
        t.duration = uint64(1 + duration % 30 days);
        t.validUntil = uint64(block.timestamp + 1 days);
        if (fixedRent) {
            t.terms = IR.Terms.FixedRent;
            t.rent = uint128(rentAmount % (50 * 1e18));
            t.dustTo = IR.Party.Scholar;
        } else {
            t.terms = IR.Terms.RewardsDivision;
            t.ownerBps = bps % 10_001;
            t.dustTo = IR.Party(bps % 2 == 0 ? 0 : 2);
        }
        vm.prank(owner);
        uint256 agreementId = registry.offer(id, scholar, t);
        vm.prank(scholar);
        registry.accept(agreementId);
    }

    function terminate(uint256 avatarSeed) external {
        ++calls;
        uint256 agreementId = registry.activeAgreementOf(_avatarId(avatarSeed));
        if (agreementId == 0) return;
        vm.prank(registry.agreementOf(agreementId).scholar);
        registry.terminate(agreementId);
    }

    function claimRent(uint256 avatarSeed) external {
        ++calls;
        uint256 agreementId = registry.activeAgreementOf(_avatarId(avatarSeed));
        if (agreementId != 0) registry.claimRent(agreementId);
    }

    function close(uint256 avatarSeed) external {
        ++calls;
        uint256 agreementId = registry.activeAgreementOf(_avatarId(avatarSeed));
        if (agreementId != 0) registry.close(agreementId);
    }

    function warp(uint32 seconds_) external {
        ++calls;
        vm.warp(block.timestamp + seconds_ % 3 days);
    }

    /// The owner of a rented avatar tries to take it back or hand its use to someone else.
    function ownerOverrides(uint256 avatarSeed, uint256 otherSeed, bool viaTransfer) external {
        ++calls;
        uint256 id = _avatarId(avatarSeed);
        uint256 agreementId = registry.activeAgreementOf(id);
        address owner = avatar.ownerOf(id);
        address other = _actor(otherSeed);
        bool locked = agreementId != 0 && block.timestamp < registry.agreementOf(agreementId).endsAt;
        vm.prank(owner);
        bool ok;
        if (viaTransfer) {
            (ok,) = address(avatar).call(abi.encodeCall(avatar.transferFrom, (owner, other, id)));
        } else {
            (ok,) = address(avatar).call(abi.encodeCall(avatar.setUser, (id, other, uint64(block.timestamp + 1 days))));
        }
        if (ok && locked) ++lockBreaches;
    }

    /// Someone without the role tries every privileged action.
    function strangerActs(uint256 actorSeed, uint8 which) external {
        ++calls;
        address who = _actor(actorSeed);
        bytes memory data;
        address target;
        uint256 w = which % 6;
        if (w == 0) (target, data) = (address(token), abi.encodeCall(token.mint, (who, 1)));
        if (w == 1) (target, data) = (address(avatar), abi.encodeCall(avatar.mintBatch, (_single(who))));
        if (w == 2) {
            bytes memory batch = abi.encodePacked(
                bytes32(uint256(999)), bytes32(uint256(1)), uint16(1), bytes32(uint256(1) << 160 | uint160(who))
            );
            (target, data) = (address(settlement), abi.encodeCall(settlement.settle, (batch)));
        }
        if (w == 3) (target, data) = (address(registry), abi.encodeCall(registry.setScreened, (who, true)));
        if (w == 4) (target, data) = (address(vip), abi.encodeCall(vip.issue, (who, uint64(block.timestamp + 1))));
        if (w == 5) {
            (target, data) =
            (address(avatar), abi.encodeCall(avatar.startRental, (1, who, uint64(block.timestamp + 1))));
        }
        vm.prank(who);
        (bool ok,) = target.call(data);
        if (ok) ++unauthorizedSuccesses;
    }

    function _single(address who) internal pure returns (address[] memory list) {
        list = new address[](1);
        list[0] = who;
    }
}
