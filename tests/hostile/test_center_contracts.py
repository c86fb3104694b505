"""Hostile callers of the Game Center and Contributions contracts, on a real anvil deployment.

Each attack is sent as a real signed transaction by the wallet that would try it; the test
checks the named error the node reports (decoded with the engine's error table, which must
know the new contracts' errors) and that nothing changed on chain. docs/contracts-centers.md
lists the callers and their bounds.
"""

from __future__ import annotations

from typing import Any

import pytest
from eth_account import Account
from web3.exceptions import ContractCustomError

from backend.chain.calls import _error_table, decode_revert
from tests.fixtures.anvil import Deployment

DEW = 10**18
DESCRIPTION = ("Club Domino", b"DO", "Santo Domingo", 1847, -6990, 12)


def _send(d: Deployment, key: str, call: Any) -> int:
    """Sign and send ``call`` from ``key`` with a fixed gas limit (no estimate, which would
    refuse first); returns the receipt's status."""
    account = Account.from_key(key)
    tx = call.build_transaction(
        {
            "from": account.address,
            "nonce": d.w3.eth.get_transaction_count(account.address),
            "gas": 1_000_000,
        }
    )
    signed = account.sign_transaction(tx)
    tx_hash = d.w3.eth.send_raw_transaction(signed.raw_transaction)
    return int(d.w3.eth.wait_for_transaction_receipt(tx_hash, timeout=30)["status"])


def refused(d: Deployment, key: str, call: Any) -> str:
    """The error ``call`` from ``key`` reverts with (from eth_call), after checking that the
    real transaction is mined as reverted."""
    sender = Account.from_key(key).address
    with pytest.raises(ContractCustomError) as caught:
        call.call({"from": sender})
    assert _send(d, key, call) == 0
    return decode_revert(caught.value.data, _error_table())


def _mint(d: Deployment, to: str) -> int:
    center = d.contracts.game_center
    center_id = int(center.functions.nextTokenId().call())
    assert _send(d, d.operator_key, center.functions.mintCenter(to, *DESCRIPTION)) == 1
    return center_id


def test_a_stranger_cannot_mint_or_shop_mint_centers(
    deployment: Deployment, chain_snapshot
) -> None:
    d = deployment
    center = d.contracts.game_center
    stranger_key = d.player_keys[0]
    stranger = Account.from_key(stranger_key).address
    error = refused(d, stranger_key, center.functions.mintCenter(stranger, *DESCRIPTION))
    assert error.startswith("AccessControlUnauthorizedAccount(")
    error = refused(d, stranger_key, center.functions.shopMint(stranger, 0, 1, b""))
    assert error.startswith("AccessControlUnauthorizedAccount(")
    assert center.functions.nextTokenId().call() == 1


@pytest.mark.parametrize(
    ("description", "error"),
    [
        (("", b"DO", "Santiago", 0, 0, 1), "GameCenterInvalidName(length=0)"),
        (("x" * 65, b"DO", "Santiago", 0, 0, 1), "GameCenterInvalidName(length=65)"),
        (("Club", b"DO", "y" * 65, 0, 0, 1), "GameCenterInvalidCity(length=65)"),
        (("Club", b"do", "Santiago", 0, 0, 1), "GameCenterInvalidCountry(country=0x646f)"),
        (("Club", b"DO", "Santiago", 9001, 0, 1), "GameCenterInvalidLocation(latE2=9001, lonE2=0)"),
        (
            ("Club", b"DO", "Santiago", 0, -18001, 1),
            "GameCenterInvalidLocation(latE2=0, lonE2=-18001)",
        ),
        (("Club", b"DO", "Santiago", 0, 0, 0), "GameCenterInvalidCapacity(capacity=0)"),
        (("Club", b"DO", "Santiago", 0, 0, 501), "GameCenterInvalidCapacity(capacity=501)"),
    ],
)
def test_the_operator_cannot_mint_an_out_of_bounds_center(
    deployment: Deployment, chain_snapshot, description: tuple[Any, ...], error: str
) -> None:
    d = deployment
    center = d.contracts.game_center
    owner = Account.from_key(d.player_keys[0]).address
    assert refused(d, d.operator_key, center.functions.mintCenter(owner, *description)) == error
    assert center.functions.nextTokenId().call() == 1


def test_a_stranger_cannot_move_place_or_redirect_a_center(
    deployment: Deployment, chain_snapshot
) -> None:
    d = deployment
    center = d.contracts.game_center
    owner_key, stranger_key = d.player_keys[0], d.player_keys[1]
    owner, stranger = (Account.from_key(k).address for k in (owner_key, stranger_key))
    center_id = _mint(d, owner)
    for call in (
        center.functions.transferFrom(owner, stranger, center_id),
        center.functions.setUser(center_id, stranger, 2**63),
        center.functions.place(center_id, "Mine", b"US", "Miami", 2577, -8019),
    ):
        assert refused(d, stranger_key, call).startswith("ERC721InsufficientApproval(")
    # Its owner cannot re-describe an operator-minted center either.
    error = refused(
        d, owner_key, center.functions.place(center_id, "Moved", b"US", "Miami", 2577, -8019)
    )
    assert error == f"GameCenterAlreadyPlaced(centerId={center_id})"
    assert center.functions.ownerOf(center_id).call() == owner
    assert center.functions.payeeOf(center_id).call() == owner
    assert list(center.functions.centerOf(center_id).call()) == list(DESCRIPTION)


def test_a_rented_center_cannot_be_taken_back(deployment: Deployment, chain_snapshot) -> None:
    """The owner rents its center to an operator through the centers' registry (Fixed Rent);
    until the term ends the owner can neither sell it nor redirect its fee legs."""
    d = deployment
    c = d.contracts
    owner_key, renter_key, buyer_key = d.player_keys[0], d.player_keys[1], d.player_keys[2]
    owner, renter, buyer = (Account.from_key(k).address for k in (owner_key, renter_key, buyer_key))
    center_id = _mint(d, owner)
    assert _send(d, d.deployer_key, c.token.functions.transfer(renter, 100 * DEW)) == 1
    assert _send(d, d.operator_key, c.center_registry.functions.setScreened(owner, True)) == 1
    terms = (0, 30 * 86400, 10 * DEW, 0, 0, "0x" + "00" * 20, 2, 2**64 - 1)
    offer = c.center_registry.functions.offer(center_id, renter, terms)
    assert _send(d, owner_key, offer) == 1
    agreement_id = c.center_registry.functions.agreementCount().call()
    approve = c.token.functions.approve(c.center_registry.address, 10 * DEW)
    assert _send(d, renter_key, approve) == 1
    assert _send(d, renter_key, c.center_registry.functions.accept(agreement_id)) == 1
    assert c.game_center.functions.payeeOf(center_id).call() == renter

    for call in (
        c.game_center.functions.transferFrom(owner, buyer, center_id),
        c.game_center.functions.setUser(center_id, owner, 2**63),
    ):
        assert refused(d, owner_key, call).startswith(f"GameCenterRented(centerId={center_id}")
    # Another caller cannot release it: only the registry that set the lock may.
    error = refused(d, buyer_key, c.game_center.functions.endRental(center_id))
    assert error.startswith(f"GameCenterNotLockedBy(centerId={center_id}")
    assert c.game_center.functions.ownerOf(center_id).call() == owner
    assert c.game_center.functions.payeeOf(center_id).call() == renter
    assert c.token.functions.balanceOf(c.center_registry.address).call() == 10 * DEW


def test_a_revoked_rental_role_starts_no_lock_and_the_running_one_runs_out(
    deployment: Deployment, chain_snapshot
) -> None:
    """The admin revokes the centers' registry's RENTAL_ROLE while one of its rentals runs
    (before, the revoke reverted until every lock it had set ran out, so a wrongly granted
    role could never be cut off): the registry starts no new lock, the running rental keeps
    its lock until its end, and its renter still terminates."""
    d = deployment
    c = d.contracts
    owner_key, renter_key = d.player_keys[0], d.player_keys[1]
    owner, renter = (Account.from_key(k).address for k in (owner_key, renter_key))
    rented, other = _mint(d, owner), _mint(d, owner)
    assert _send(d, d.operator_key, c.center_registry.functions.setScreened(owner, True)) == 1
    terms = (0, 30 * 86400, 0, 0, 0, "0x" + "00" * 20, 2, 2**64 - 1)
    assert _send(d, owner_key, c.center_registry.functions.offer(rented, renter, terms)) == 1
    first = c.center_registry.functions.agreementCount().call()
    assert _send(d, renter_key, c.center_registry.functions.accept(first)) == 1
    assert _send(d, owner_key, c.center_registry.functions.offer(other, renter, terms)) == 1
    second = c.center_registry.functions.agreementCount().call()
    role = c.game_center.functions.RENTAL_ROLE().call()
    revoke = c.game_center.functions.revokeRole(role, c.center_registry.address)
    assert _send(d, d.deployer_key, revoke) == 1
    assert c.game_center.functions.hasRole(role, c.center_registry.address).call() is False
    error = refused(d, renter_key, c.center_registry.functions.accept(second))
    assert error.startswith("AccessControlUnauthorizedAccount(")
    assert c.game_center.functions.rentedUntil(other).call() == 0
    error = refused(d, owner_key, c.game_center.functions.transferFrom(owner, renter, rented))
    assert error.startswith(f"GameCenterRented(centerId={rented}")
    assert _send(d, renter_key, c.center_registry.functions.terminate(first)) == 1
    assert c.game_center.functions.rentalLocker(rented).call() == "0x" + "00" * 20
    assert c.game_center.functions.payeeOf(rented).call() == owner


def test_royalty_cannot_be_raised_past_its_cap_or_by_the_operator(
    deployment: Deployment, chain_snapshot
) -> None:
    d = deployment
    center = d.contracts.game_center
    error = refused(d, d.deployer_key, center.functions.setRoyalty(d.operator, 1001))
    assert error == "GameCenterRoyaltyTooHigh(bps=1001, maxBps=1000)"
    error = refused(d, d.operator_key, center.functions.setRoyalty(d.operator, 100))
    assert error.startswith("AccessControlUnauthorizedAccount(")
    receiver, royalty = center.functions.royaltyInfo(1, 10_000).call()
    assert (receiver, royalty) == (d.manifest.extra["treasury"], 500)


@pytest.mark.parametrize(
    ("tournament_id", "amount", "error"),
    [
        (0, DEW, "ContributionInvalidTournament(tournamentId=0)"),
        (2**63, DEW, f"ContributionInvalidTournament(tournamentId={2**63})"),
        (1, 10**16 - 1, f"ContributionInvalidAmount(amount={10**16 - 1}, min={10**16}, "),
        (1, 10**24 + 1, f"ContributionInvalidAmount(amount={10**24 + 1}, min={10**16}, "),
        (1, 50 * DEW, "ERC20InsufficientBalance("),
        (1, 5 * DEW, "ERC20InsufficientAllowance("),
    ],
)
def test_contributions_refuse_bad_calls_and_move_nothing(
    deployment: Deployment, chain_snapshot, tournament_id: int, amount: int, error: str
) -> None:
    d = deployment
    c = d.contracts
    creator_key = d.player_keys[0]
    creator = Account.from_key(creator_key).address
    assert _send(d, d.deployer_key, c.token.functions.transfer(creator, 10 * DEW)) == 1
    if not error.startswith("ERC20InsufficientAllowance"):
        approve = c.token.functions.approve(c.contributions.address, 2**256 - 1)
        assert _send(d, creator_key, approve) == 1
    vault = c.token.functions.balanceOf(c.settlement.address).call()
    call = c.contributions.functions.contribute(tournament_id, amount)
    assert refused(d, creator_key, call).startswith(error)
    assert c.token.functions.balanceOf(creator).call() == 10 * DEW
    assert c.token.functions.balanceOf(c.settlement.address).call() == vault


def test_a_contribution_reaches_the_vault(deployment: Deployment, chain_snapshot) -> None:
    """The honest path the refusals above are measured against."""
    d = deployment
    c = d.contracts
    creator_key = d.player_keys[0]
    creator = Account.from_key(creator_key).address
    assert _send(d, d.deployer_key, c.token.functions.transfer(creator, 10 * DEW)) == 1
    assert _send(d, creator_key, c.token.functions.approve(c.contributions.address, 3 * DEW)) == 1
    vault = c.token.functions.balanceOf(c.settlement.address).call()
    assert _send(d, creator_key, c.contributions.functions.contribute(42, 3 * DEW)) == 1
    assert c.token.functions.balanceOf(c.settlement.address).call() == vault + 3 * DEW
    logs = c.contributions.events.Contributed().get_logs(from_block=0)
    assert [(e["args"]["tournamentId"], e["args"]["from"], e["args"]["amount"]) for e in logs] == [
        (42, creator, 3 * DEW)
    ]
