// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {DEWAccessControl} from "./access/DEWAccessControl.sol";
import {ERC1155} from "@openzeppelin/contracts/token/ERC1155/ERC1155.sol";
import {IVIPPass} from "./interfaces/IVIPPass.sol";

/// @title VIP pass: one soulbound ERC-1155 tier with an expiry per holder
/// @dev A pass's expiry is the later of two parts kept apart in one slot: the part the shop
///      sold (`paidUntil`, set by SHOP_ROLE, cleared only by the admin) and the part the
///      operator granted (`grantedUntil`, set and cleared by ISSUER_ROLE). Neither ever
///      shortens the other, so a grant cannot cut a bought pass and a stolen issuer key
///      cannot cancel one.
contract VIPPass is ERC1155, DEWAccessControl, IVIPPass {
    /// @inheritdoc IVIPPass
    bytes32 public constant ISSUER_ROLE = keccak256("ISSUER_ROLE");
    /// @inheritdoc IVIPPass
    bytes32 public constant SHOP_ROLE = keccak256("SHOP_ROLE");
    /// @inheritdoc IVIPPass
    uint256 public constant VIP_TIER = 1;

    struct Term {
        uint64 paidUntil;
        uint64 grantedUntil;
    }

    mapping(address holder => Term) private _terms;

    constructor(address admin, string memory uri_) ERC1155(uri_) DEWAccessControl(admin) {}

    /// @inheritdoc IVIPPass
    function issue(address holder, uint64 expiresAt_) external onlyRole(ISSUER_ROLE) {
        if (holder == address(0) || expiresAt_ <= block.timestamp) revert VIPPassInvalidIssue(holder, expiresAt_);
        Term storage t = _terms[holder];
        if (expiresAt_ > t.grantedUntil) t.grantedUntil = expiresAt_;
        _issued(holder, t);
    }

    /// @inheritdoc IVIPPass
    function issuePaid(address holder, uint64 until) external onlyRole(SHOP_ROLE) {
        if (holder == address(0) || until <= block.timestamp) revert VIPPassInvalidIssue(holder, until);
        Term storage t = _terms[holder];
        if (until > t.paidUntil) t.paidUntil = until;
        _issued(holder, t);
    }

    /// @inheritdoc IVIPPass
    function revoke(address holder) external onlyRole(ISSUER_ROLE) {
        if (balanceOf(holder, VIP_TIER) == 0) revert VIPPassNotHeld(holder);
        Term storage t = _terms[holder];
        t.grantedUntil = 0;
        _revoked(holder, t);
    }

    /// @inheritdoc IVIPPass
    function revokePaid(address holder) external onlyRole(DEFAULT_ADMIN_ROLE) {
        if (balanceOf(holder, VIP_TIER) == 0) revert VIPPassNotHeld(holder);
        Term storage t = _terms[holder];
        t.paidUntil = 0;
        _revoked(holder, t);
    }

    /// @inheritdoc IVIPPass
    function isValid(address holder) external view returns (bool) {
        return _expiry(_terms[holder]) > block.timestamp && balanceOf(holder, VIP_TIER) != 0;
    }

    /// @inheritdoc IVIPPass
    function expiresAt(address holder) external view returns (uint64) {
        return _expiry(_terms[holder]);
    }

    /// @inheritdoc IVIPPass
    function paidUntil(address holder) external view returns (uint64) {
        return _terms[holder].paidUntil;
    }

    /// @inheritdoc IVIPPass
    function grantedUntil(address holder) external view returns (uint64) {
        return _terms[holder].grantedUntil;
    }

    function supportsInterface(bytes4 interfaceId) public view override(ERC1155, DEWAccessControl) returns (bool) {
        return super.supportsInterface(interfaceId);
    }

    /// @dev A pass belongs to its holder: only minting and burning move it.
    function _update(address from, address to, uint256[] memory ids, uint256[] memory values) internal override {
        if (from != address(0) && to != address(0)) revert VIPPassNonTransferable(from, to);
        super._update(from, to, ids, values);
    }

    function _issued(address holder, Term storage t) private {
        if (balanceOf(holder, VIP_TIER) == 0) _mint(holder, VIP_TIER, 1, "");
        emit PassIssued(holder, _expiry(t));
    }

    /// @dev Burns the pass once neither part runs any more; else reports the new expiry.
    function _revoked(address holder, Term storage t) private {
        uint64 expiry = _expiry(t);
        if (expiry > block.timestamp) {
            emit PassIssued(holder, expiry);
            return;
        }
        delete _terms[holder];
        _burn(holder, VIP_TIER, 1);
        emit PassRevoked(holder);
    }

    function _expiry(Term storage t) private view returns (uint64) {
        (uint64 paid, uint64 granted) = (t.paidUntil, t.grantedUntil);
        return paid > granted ? paid : granted;
    }
}
