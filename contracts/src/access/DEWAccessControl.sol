// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {
    AccessControlDefaultAdminRules
} from "@openzeppelin/contracts/access/extensions/AccessControlDefaultAdminRules.sol";

/// @title The role base of every DEW contract
/// @dev OpenZeppelin's `AccessControlDefaultAdminRules`: exactly one `DEFAULT_ADMIN_ROLE`
///      holder, which is never granted directly: it is handed over in two steps
///      (`beginDefaultAdminTransfer`, then `acceptDefaultAdminTransfer` by the new admin after
///      `ADMIN_TRANSFER_DELAY`), so a stolen admin key cannot silently install another admin at
///      once and a typo cannot hand the contracts to a wrong address. Other roles are granted
///      and revoked by the admin as usual.
abstract contract DEWAccessControl is AccessControlDefaultAdminRules {
    /// @notice The initial wait before a pending admin may accept the role (changeable by the
    ///         admin through `changeDefaultAdminDelay`, itself delayed).
    uint48 public constant ADMIN_TRANSFER_DELAY = 2 days;

    constructor(address admin) AccessControlDefaultAdminRules(ADMIN_TRANSFER_DELAY, admin) {}

    function supportsInterface(bytes4 interfaceId) public view virtual override returns (bool) {
        return super.supportsInterface(interfaceId);
    }
}
