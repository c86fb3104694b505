// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC20Permit} from "@openzeppelin/contracts/token/ERC20/extensions/IERC20Permit.sol";
import {ECDSA} from "@openzeppelin/contracts/utils/cryptography/ECDSA.sol";
import {EIP712} from "@openzeppelin/contracts/utils/cryptography/EIP712.sol";
import {Nonces} from "@openzeppelin/contracts/utils/Nonces.sol";
import {DEWAccessControl} from "./access/DEWAccessControl.sol";
import {IDEWToken} from "./interfaces/IDEWToken.sol";

/// @title DEW, the game's reward token
/// @dev The ERC-20 core is written here rather than inherited from OZ's ERC20 because OZ keeps
///      balances private: `disperse` needs to credit many recipients and debit the sender once,
///      which saves the sender's balance read/write and the transfer hook chain per recipient
///      (see scripts/bench_gas.py). Permit uses OZ's EIP712, Nonces and ECDSA unchanged.
contract DEWToken is IDEWToken, EIP712, Nonces, DEWAccessControl {
    /// @inheritdoc IDEWToken
    bytes32 public constant MINTER_ROLE = keccak256("MINTER_ROLE");
    bytes32 private constant PERMIT_TYPEHASH =
        keccak256("Permit(address owner,address spender,uint256 value,uint256 nonce,uint256 deadline)");

    uint256 private immutable _cap;
    uint256 private _totalSupply;
    mapping(address account => uint256) private _balances;
    mapping(address account => mapping(address spender => uint256)) private _allowances;

    constructor(address admin, uint256 cap_) EIP712("Domino Earning World", "1") DEWAccessControl(admin) {
        _cap = cap_;
    }

    /// @inheritdoc IDEWToken
    function mint(address to, uint256 amount) external onlyRole(MINTER_ROLE) {
        if (to == address(0)) revert ERC20InvalidReceiver(address(0));
        uint256 supply = _totalSupply + amount;
        if (supply > _cap) revert DEWCapExceeded(supply, _cap);
        _totalSupply = supply;
        // Safe: a balance never exceeds the total supply, which was just checked.
        unchecked {
            _balances[to] += amount;
        }
        emit Transfer(address(0), to, amount);
    }

    /// @inheritdoc IDEWToken
    function disperse(uint256[] calldata transfers) external returns (uint256 total) {
        // Read first so that a word to the sender (which would credit it before the debit:
        // a Transfer of money it may not hold) shows up as a changed balance after the loop;
        // one warm read per call instead of a comparison per word.
        uint256 balance = _balances[msg.sender];
        uint256 n = transfers.length;
        for (uint256 i; i < n;) {
            uint256 word;
            // Reads transfers[i] without a bounds check: i < transfers.length by the loop.
            assembly ("memory-safe") {
                word := calldataload(add(transfers.offset, shl(5, i)))
            }
            address to = address(uint160(word));
            uint256 amount = word >> 160;
            if (amount == 0 || to == address(0)) revert DEWInvalidTransfer(i);
            // Safe: amounts are below 2**96 and n below 2**64, so `total` cannot overflow; a
            // credit cannot overflow because the sender is debited the total below (or the
            // whole call reverts), so no balance ever exceeds the total supply.
            unchecked {
                _balances[to] += amount;
                total += amount;
                ++i;
            }
            emit Transfer(msg.sender, to, amount);
        }
        if (_balances[msg.sender] != balance) revert DEWInvalidTransfer(_firstToSender(transfers));
        if (balance < total) revert ERC20InsufficientBalance(msg.sender, balance, total);
        // Safe: checked just above.
        unchecked {
            _balances[msg.sender] = balance - total;
        }
    }

    /// @dev The index of the first `disperse` word to the caller (only called when one exists).
    function _firstToSender(uint256[] calldata transfers) private view returns (uint256 i) {
        while (address(uint160(transfers[i])) != msg.sender) ++i;
    }

    /// @inheritdoc IERC20
    function transfer(address to, uint256 value) external returns (bool) {
        _transfer(msg.sender, to, value);
        return true;
    }

    /// @inheritdoc IERC20
    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        _spendAllowance(from, msg.sender, value);
        _transfer(from, to, value);
        return true;
    }

    /// @inheritdoc IERC20
    function approve(address spender, uint256 value) external returns (bool) {
        _approve(msg.sender, spender, value);
        return true;
    }

    /// @inheritdoc IERC20Permit
    function permit(address owner, address spender, uint256 value, uint256 deadline, uint8 v, bytes32 r, bytes32 s)
        external
    {
        if (block.timestamp > deadline) revert ERC2612ExpiredSignature(deadline);
        bytes32 structHash = keccak256(abi.encode(PERMIT_TYPEHASH, owner, spender, value, _useNonce(owner), deadline));
        address signer = ECDSA.recover(_hashTypedDataV4(structHash), v, r, s);
        if (signer != owner) revert ERC2612InvalidSigner(signer, owner);
        _approve(owner, spender, value);
    }

    /// @inheritdoc IERC20Permit
    function nonces(address owner) public view override(IERC20Permit, Nonces) returns (uint256) {
        return super.nonces(owner);
    }

    /// @inheritdoc IERC20Permit
    // solhint-disable-next-line func-name-mixedcase
    function DOMAIN_SEPARATOR() external view returns (bytes32) {
        return _domainSeparatorV4();
    }

    function name() external pure returns (string memory) {
        return "Domino Earning World";
    }

    function symbol() external pure returns (string memory) {
        return "DEW";
    }

    function decimals() external pure returns (uint8) {
        return 18;
    }

    /// @inheritdoc IDEWToken
    function cap() external view returns (uint256) {
        return _cap;
    }

    /// @inheritdoc IERC20
    function totalSupply() external view returns (uint256) {
        return _totalSupply;
    }

    /// @inheritdoc IERC20
    function balanceOf(address account) external view returns (uint256) {
        return _balances[account];
    }

    /// @inheritdoc IERC20
    function allowance(address owner, address spender) external view returns (uint256) {
        return _allowances[owner][spender];
    }

    function _transfer(address from, address to, uint256 value) private {
        if (from == address(0)) revert ERC20InvalidSender(address(0));
        if (to == address(0)) revert ERC20InvalidReceiver(address(0));
        uint256 fromBalance = _balances[from];
        if (fromBalance < value) revert ERC20InsufficientBalance(from, fromBalance, value);
        // Safe: checked just above; the credit is bounded by the total supply.
        unchecked {
            _balances[from] = fromBalance - value;
            _balances[to] += value;
        }
        emit Transfer(from, to, value);
    }

    /// @dev `owner` is never zero: it is msg.sender, or a permit signer that ECDSA recovered.
    function _approve(address owner, address spender, uint256 value) private {
        if (spender == address(0)) revert ERC20InvalidSpender(address(0));
        _allowances[owner][spender] = value;
        emit Approval(owner, spender, value);
    }

    /// @dev An allowance of type(uint256).max is never spent down (as in OZ's ERC20).
    function _spendAllowance(address owner, address spender, uint256 value) private {
        uint256 current = _allowances[owner][spender];
        if (current != type(uint256).max) {
            if (current < value) revert ERC20InsufficientAllowance(spender, current, value);
            // Safe: checked just above.
            unchecked {
                _allowances[owner][spender] = current - value;
            }
        }
    }
}
