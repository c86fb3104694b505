// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";

/// @title Benchmark baseline only: a plain OpenZeppelin ERC-721 minted one token per call
/// @dev Used by scripts/bench_gas.py to price `AvatarNFT.mintBatch`; never deployed for real.
contract PlainERC721 is ERC721 {
    uint256 private _nextTokenId = 1;

    constructor() ERC721("Plain", "PLAIN") {}

    function mint(address to) external returns (uint256 tokenId) {
        tokenId = _nextTokenId++;
        _mint(to, tokenId);
    }
}
