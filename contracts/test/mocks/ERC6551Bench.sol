// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC721} from "@openzeppelin/contracts/token/ERC721/IERC721.sol";
import {IERC1155Receiver} from "@openzeppelin/contracts/token/ERC1155/IERC1155Receiver.sol";
import {IERC165} from "@openzeppelin/contracts/utils/introspection/IERC165.sol";
import {IAvatarNFT} from "../../src/interfaces/IAvatarNFT.sol";

/// @title Benchmark only: a minimal ERC-6551 registry (token-bound accounts)
/// @dev Written from the ERC-6551 text to price the alternative to Accessories' own equip
///      (docs/contracts.md, "Accessories"); never deployed for real. An account is an ERC-1167
///      proxy whose code carries (salt, chainId, tokenContract, tokenId) after the proxy, at a
///      CREATE2 address the registry can compute before it exists.
contract ERC6551BenchRegistry {
    event ERC6551AccountCreated(
        address account,
        address indexed implementation,
        bytes32 salt,
        uint256 chainId,
        address indexed tokenContract,
        uint256 indexed tokenId
    );

    error AccountCreationFailed();

    function createAccount(
        address implementation,
        bytes32 salt,
        uint256 chainId,
        address tokenContract,
        uint256 tokenId
    ) external returns (address created) {
        bytes memory code = _creationCode(implementation, salt, chainId, tokenContract, tokenId);
        created = _predict(code, salt);
        if (created.code.length != 0) return created;
        assembly ("memory-safe") {
            created := create2(0, add(code, 0x20), mload(code), salt)
        }
        if (created == address(0)) revert AccountCreationFailed();
        emit ERC6551AccountCreated(created, implementation, salt, chainId, tokenContract, tokenId);
    }

    function account(address implementation, bytes32 salt, uint256 chainId, address tokenContract, uint256 tokenId)
        external
        view
        returns (address)
    {
        return _predict(_creationCode(implementation, salt, chainId, tokenContract, tokenId), salt);
    }

    function _creationCode(
        address implementation,
        bytes32 salt,
        uint256 chainId,
        address tokenContract,
        uint256 tokenId
    ) private pure returns (bytes memory) {
        // ERC-1167 creation header (copies 0xad bytes of runtime), the proxy, then the footer.
        return abi.encodePacked(
            hex"3d60ad80600a3d3981f3363d3d373d3d3d363d73",
            implementation,
            hex"5af43d82803e903d91602b57fd5bf3",
            abi.encode(salt, chainId, tokenContract, tokenId)
        );
    }

    function _predict(bytes memory code, bytes32 salt) private view returns (address) {
        return
            address(uint160(uint256(keccak256(abi.encodePacked(bytes1(0xff), address(this), salt, keccak256(code))))));
    }
}

/// @title Benchmark only: a minimal ERC-6551 account for an avatar
/// @dev The account's owner is the avatar's owner; while the avatar is rented the account
///      refuses to execute, the same rule Accessories enforces. It accepts ERC-1155 tokens
///      (that is how an item is "equipped": sent to the avatar's account).
contract ERC6551BenchAccount is IERC1155Receiver {
    uint256 public state;

    error NotAuthorized();
    error AvatarRented();

    receive() external payable {}

    /// @notice Calls `to` with `data` as the account (operation 0, CALL only).
    function execute(address to, uint256 value, bytes calldata data, uint8 operation)
        external
        payable
        returns (bytes memory result)
    {
        (, address tokenContract, uint256 tokenId) = token();
        if (operation != 0 || msg.sender != IERC721(tokenContract).ownerOf(tokenId)) revert NotAuthorized();
        if (IAvatarNFT(tokenContract).rentedUntil(tokenId) > block.timestamp) revert AvatarRented();
        ++state;
        bool ok;
        (ok, result) = to.call{value: value}(data);
        if (!ok) {
            assembly ("memory-safe") {
                revert(add(result, 0x20), mload(result))
            }
        }
    }

    /// @notice The token that owns this account, read from the proxy's footer.
    function token() public view returns (uint256 chainId, address tokenContract, uint256 tokenId) {
        bytes memory footer = new bytes(0x60);
        assembly ("memory-safe") {
            extcodecopy(address(), add(footer, 0x20), 0x4d, 0x60)
        }
        return abi.decode(footer, (uint256, address, uint256));
    }

    function owner() external view returns (address) {
        (uint256 chainId, address tokenContract, uint256 tokenId) = token();
        if (chainId != block.chainid) return address(0);
        return IERC721(tokenContract).ownerOf(tokenId);
    }

    function onERC1155Received(address, address, uint256, uint256, bytes calldata) external pure returns (bytes4) {
        return this.onERC1155Received.selector;
    }

    function onERC1155BatchReceived(address, address, uint256[] calldata, uint256[] calldata, bytes calldata)
        external
        pure
        returns (bytes4)
    {
        return this.onERC1155BatchReceived.selector;
    }

    function supportsInterface(bytes4 interfaceId) external pure returns (bool) {
        return interfaceId == type(IERC1155Receiver).interfaceId || interfaceId == type(IERC165).interfaceId;
    }
}
