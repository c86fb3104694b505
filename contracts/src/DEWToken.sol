// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {AccessControl} from "@openzeppelin/contracts/access/AccessControl.sol";
import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";
import {ERC20Capped} from "@openzeppelin/contracts/token/ERC20/extensions/ERC20Capped.sol";
import {ERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/ERC20Permit.sol";
import {IDEWToken} from "./interfaces/IDEWToken.sol";

/// @title DEW, the game's reward token
contract DEWToken is ERC20, ERC20Permit, ERC20Capped, AccessControl, IDEWToken {
    /// @inheritdoc IDEWToken
    bytes32 public constant MINTER_ROLE = keccak256("MINTER_ROLE");

    constructor(address admin, uint256 cap_)
        ERC20("Domino Earning World", "DEW")
        ERC20Permit("Domino Earning World")
        ERC20Capped(cap_)
    {
        _grantRole(DEFAULT_ADMIN_ROLE, admin);
    }

    /// @inheritdoc IDEWToken
    function mint(address to, uint256 amount) external onlyRole(MINTER_ROLE) {
        _mint(to, amount);
    }

    /// @inheritdoc IDEWToken
    function disperse(uint256[] calldata transfers) external returns (uint256 total) {
        uint256 n = transfers.length;
        for (uint256 i; i < n;) {
            uint256 word = transfers[i];
            address to = address(uint160(word));
            uint256 amount = word >> 160;
            if (amount == 0 || to == address(0)) revert DEWInvalidTransfer(i);
            _transfer(msg.sender, to, amount);
            // Safe: each amount is below 2**96 and there are fewer than 2**64 words.
            unchecked {
                total += amount;
                ++i;
            }
        }
    }

    function _update(address from, address to, uint256 value) internal override(ERC20, ERC20Capped) {
        super._update(from, to, value);
    }
}
