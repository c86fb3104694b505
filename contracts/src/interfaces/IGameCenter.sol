// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC721} from "@openzeppelin/contracts/token/ERC721/IERC721.sol";
import {IERC4907} from "./IERC4907.sol";

/// @title DEW Game Centers: places that host tables and earn a share of their matches' fees
/// @notice ERC-721 + ERC-4907 + ERC-2981. A center has a name, a country (ISO 3166-1 alpha-2),
///         a city, coordinates in hundredths of a degree (about 1 km) and a capacity in tables.
///         The operator mints centers (`mintCenter`); the shop sells them (`shopMint`), either
///         described in its `data` or blank, in which case the buyer places it once (`place`).
///         Renting a center to an operator goes through a ScholarshipRegistry deployed over
///         this contract (Fixed Rent, rent escrowed and vested; docs/contracts.md): while the
///         rental runs, the center cannot move and its user cannot change. `payeeOf` names who
///         is paid the center's fee legs now: its user (the renter), else its owner.
interface IGameCenter is IERC721, IERC4907 {
    /// @notice A center's public description.
    struct Center {
        string name;
        string city;
        bytes2 country;
        int32 latE2;
        int32 lonE2;
        uint16 capacity;
    }

    /// @notice The name is empty or longer than `MAX_NAME_BYTES`.
    error GameCenterInvalidName(uint256 length);
    /// @notice The city is empty or longer than `MAX_CITY_BYTES`.
    error GameCenterInvalidCity(uint256 length);
    /// @notice The country is not two upper-case ASCII letters.
    error GameCenterInvalidCountry(bytes2 country);
    /// @notice Latitude outside [-9000, 9000] or longitude outside [-18000, 18000] (hundredths of a degree).
    error GameCenterInvalidLocation(int32 latE2, int32 lonE2);
    /// @notice Capacity outside [`MIN_CAPACITY`, `MAX_CAPACITY`] tables.
    error GameCenterInvalidCapacity(uint16 capacity);
    /// @notice The shop mints one center per call.
    error GameCenterShopAmount(uint256 amount);
    /// @notice The shop's description data does not decode (it must be empty or abi-encoded).
    error GameCenterInvalidDescription(uint256 length);
    /// @notice The center is already placed: its description never changes after that.
    error GameCenterAlreadyPlaced(uint256 centerId);
    /// @notice A royalty above the hard cap (`MAX_ROYALTY_BPS`, 10%).
    error GameCenterRoyaltyTooHigh(uint96 bps, uint96 maxBps);
    /// @notice The center is rented out until `until`; it cannot move or change user before then.
    error GameCenterRented(uint256 centerId, uint64 until);
    /// @notice A rental must end in the future.
    error GameCenterRentalExpired(uint64 expires, uint256 nowTimestamp);
    /// @notice A rental may last at most `MAX_RENTAL` (365 days): it must end by `maxExpires`.
    error GameCenterRentalTooLong(uint64 expires, uint256 maxExpires);
    /// @notice Only the registry that set a rental lock may clear it (`locker`; zero: no lock).
    error GameCenterNotLockedBy(uint256 centerId, address caller, address locker);

    /// @notice A center was minted (by the operator, or by the shop: then it may be blank,
    ///         name and city empty, country 0, until its owner places it).
    event CenterMinted(
        uint256 indexed centerId,
        address indexed to,
        string name,
        bytes2 country,
        string city,
        int32 latE2,
        int32 lonE2,
        uint16 capacity
    );
    /// @notice A blank center was described by its owner (once).
    event CenterPlaced(
        uint256 indexed centerId, address indexed by, string name, bytes2 country, string city, int32 latE2, int32 lonE2
    );
    /// @notice The ERC-2981 royalty on resales changed.
    event RoyaltySet(address indexed receiver, uint96 bps);
    /// @notice A center was locked to `user` by the rental role until `expires`.
    event CenterRentalStarted(uint256 indexed centerId, address indexed user, uint64 expires);
    /// @notice The rental role released a center early.
    event CenterRentalEnded(uint256 indexed centerId);

    /// @notice Mints a described center to `to`. Only `MINTER_ROLE` (the operator).
    function mintCenter(
        address to,
        string calldata name,
        bytes2 country,
        string calldata city,
        int32 latE2,
        int32 lonE2,
        uint16 capacity
    ) external returns (uint256 centerId);

    /// @notice Describes a blank (shop-sold) center, once. Owner or approved only; not while
    ///         rented. Capacity stays what the shop sold.
    function place(
        uint256 centerId,
        string calldata name,
        bytes2 country,
        string calldata city,
        int32 latE2,
        int32 lonE2
    ) external;

    /// @notice The center's description (reverts for a center that does not exist).
    function centerOf(uint256 centerId)
        external
        view
        returns (string memory name, bytes2 country, string memory city, int32 latE2, int32 lonE2, uint16 capacity);

    /// @notice Whether the center has its description (operator-minted ones always do).
    function isPlaced(uint256 centerId) external view returns (bool);

    /// @notice Who is paid the center's fee legs now: its ERC-4907 user while one is set and
    ///         not expired (the renter), else its owner. Reverts for a center that does not exist.
    function payeeOf(uint256 centerId) external view returns (address);

    /// @notice Sets the ERC-2981 royalty every resale pays. At most `MAX_ROYALTY_BPS`. Admin only.
    function setRoyalty(address receiver, uint96 bps) external;

    /// @notice Locks `centerId` to `user` until `expires` (at most `MAX_RENTAL` from now).
    ///         Only `RENTAL_ROLE` (the centers' ScholarshipRegistry), which holds the lock.
    function startRental(uint256 centerId, address user, uint64 expires) external;

    /// @notice Ends a rental early. Only the holder of a lock still in force (no role needed:
    ///         a registry whose `RENTAL_ROLE` was revoked still lets its renters terminate).
    function endRental(uint256 centerId) external;

    /// @notice The time until which `centerId` is locked by a rental (0 or past when free).
    function rentedUntil(uint256 centerId) external view returns (uint64);

    /// @notice The registry that set `centerId`'s rental lock (zero when there is none).
    function rentalLocker(uint256 centerId) external view returns (address);

    /// @notice How many times the center has been transferred (24 bits, wraps); the registry's
    ///         offers record it, so any transfer voids them.
    function transferCount(uint256 centerId) external view returns (uint256);

    /// @notice The id the next mint will assign (ids start at 1).
    function nextTokenId() external view returns (uint256);
}
