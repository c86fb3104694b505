// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {DEWAccessControl} from "./access/DEWAccessControl.sol";
import {ERC1155} from "@openzeppelin/contracts/token/ERC1155/ERC1155.sol";
import {IVIPPass} from "./interfaces/IVIPPass.sol";

/// @title VIP pass: one soulbound ERC-1155 tier with an expiry per holder
contract VIPPass is ERC1155, DEWAccessControl, IVIPPass {
    /// @inheritdoc IVIPPass
    bytes32 public constant ISSUER_ROLE = keccak256("ISSUER_ROLE");
    /// @inheritdoc IVIPPass
    uint256 public constant VIP_TIER = 1;

    mapping(address holder => uint64) private _expiresAt;

    constructor(address admin, string memory uri_) ERC1155(uri_) DEWAccessControl(admin) {}

    /// @inheritdoc IVIPPass
    function issue(address holder, uint64 expiresAt_) external onlyRole(ISSUER_ROLE) {
        if (holder == address(0) || expiresAt_ <= block.timestamp) revert VIPPassInvalidIssue(holder, expiresAt_);
        _expiresAt[holder] = expiresAt_;
        if (balanceOf(holder, VIP_TIER) == 0) _mint(holder, VIP_TIER, 1, "");
        emit PassIssued(holder, expiresAt_);
    }

    /// @inheritdoc IVIPPass
    function revoke(address holder) external onlyRole(ISSUER_ROLE) {
        if (balanceOf(holder, VIP_TIER) == 0) revert VIPPassNotHeld(holder);
        delete _expiresAt[holder];
        _burn(holder, VIP_TIER, 1);
        emit PassRevoked(holder);
    }

    /// @inheritdoc IVIPPass
    function isValid(address holder) external view returns (bool) {
        return _expiresAt[holder] > block.timestamp && balanceOf(holder, VIP_TIER) != 0;
    }

    /// @inheritdoc IVIPPass
    function expiresAt(address holder) external view returns (uint64) {
        return _expiresAt[holder];
    }

    function supportsInterface(bytes4 interfaceId) public view override(ERC1155, DEWAccessControl) returns (bool) {
        return super.supportsInterface(interfaceId);
    }

    /// @dev A pass belongs to its holder: only minting and burning move it.
    function _update(address from, address to, uint256[] memory ids, uint256[] memory values) internal override {
        if (from != address(0) && to != address(0)) revert VIPPassNonTransferable(from, to);
        super._update(from, to, ids, values);
    }
}
