"""Screening of owners, on SQLite and PostgreSQL: bounded statements, one open application per
wallet (a race included), a few a day, off-chain rejections decided once, the screener role
read from the chain and cached, and approvals believed only from the chain (a real anvil
``setScreened``: its receipt at depth, or the indexer), replays refused."""

from __future__ import annotations

import threading

import pytest
from eth_account import Account
from sqlalchemy import func, select

from backend.economy import exceptions as exc
from backend.economy.chain_reader import ChainReader
from backend.economy.models import ScreenedOwner, ScreeningApplication
from backend.economy.scholarships import screening
from backend.economy.scholarships.indexer import index_registry
from backend.economy.scholarships.transactions import ScholarshipTxBuilder
from tests.economy.chain_helpers import address, send


def _owner() -> str:
    return str(Account.create().address)


def _rows(sessions, applicant: str) -> list[tuple[str, str | None]]:
    with sessions() as session:
        return [
            (a.status, a.reason)
            for a in session.scalars(
                select(ScreeningApplication)
                .where(ScreeningApplication.applicant == applicant)
                .order_by(ScreeningApplication.id)
            )
        ]


# --- applying -----------------------------------------------------------------------------


def test_apply_then_read_it_back_and_see_it_queued(session_factory):
    owner = _owner()
    with session_factory() as session:
        app = screening.apply(session=session, applicant=owner.lower(), statement="  I own 3.  ")
    assert (app["applicant"], app["statement"], app["status"]) == (owner, "I own 3.", "pending")
    with session_factory() as session:
        assert screening.mine(session=session, applicant=owner)["id"] == app["id"]
        assert app["id"] in [a["id"] for a in screening.queue(session=session, limit=200)]


@pytest.mark.parametrize(
    "statement",
    ["", "   ", "x" * 2_001, "hidden\x00text", "right-to-left \u202e override", "bell\x07"],
)
def test_bad_statements_are_refused_and_change_nothing(session_factory, statement):
    owner = _owner()
    with session_factory() as session, pytest.raises(exc.EconomyValueError):
        screening.apply(session=session, applicant=owner, statement=statement)
    assert _rows(session_factory, owner) == []


def test_a_bad_applicant_is_refused(session_factory):
    with session_factory() as session, pytest.raises(exc.EconomyValueError):
        screening.apply(session=session, applicant="0x1234", statement="hello")


def test_the_longest_statement_allowed_fits_and_multiline_is_kept(session_factory):
    owner = _owner()
    text = ("line\n\t" * 400)[:2_000].strip()
    with session_factory() as session:
        app = screening.apply(session=session, applicant=owner, statement=text)
    assert app["statement"] == text


def test_one_open_application_per_wallet(session_factory):
    owner = _owner()
    with session_factory() as session:
        screening.apply(session=session, applicant=owner, statement="first")
    with session_factory() as session, pytest.raises(exc.ApplicationOpen):
        screening.apply(session=session, applicant=owner, statement="second")
    assert _rows(session_factory, owner) == [("pending", None)]


def test_racing_applications_of_one_wallet_open_one(session_factory):
    owner = _owner()
    barrier = threading.Barrier(8)
    outcomes: list[str] = []

    def apply() -> None:
        barrier.wait()
        with session_factory() as session:
            try:
                screening.apply(session=session, applicant=owner, statement="race")
                outcomes.append("opened")
            except (exc.ApplicationOpen, exc.TooManyApplications) as error:
                outcomes.append(error.code)

    threads = [threading.Thread(target=apply) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert outcomes.count("opened") == 1
    assert _rows(session_factory, owner) == [("pending", None)]


def test_a_wallet_applies_a_few_times_a_day_at_most(session_factory):
    owner, screener = _owner(), _owner()
    limits = screening.Limits(per_wallet_per_day=2)
    for n in range(2):
        with session_factory() as session:
            app = screening.apply(
                session=session, applicant=owner, statement=f"try {n}", limits=limits
            )
        with session_factory() as session:
            screening.reject(
                session=session, application_id=app["id"], screener=screener, reason="no"
            )
    with session_factory() as session, pytest.raises(exc.TooManyApplications):
        screening.apply(session=session, applicant=owner, statement="third", limits=limits)
    assert [s for s, _ in _rows(session_factory, owner)] == ["rejected", "rejected"]


def test_an_owner_already_screened_cannot_apply(session_factory):
    owner = _owner()
    with session_factory.begin() as session:
        session.add(ScreenedOwner(address=owner, approved=True, screener=_owner(), block_number=1))
    with session_factory() as session, pytest.raises(exc.AlreadyScreened):
        screening.apply(session=session, applicant=owner, statement="again")
    assert _rows(session_factory, owner) == []


def test_no_application_is_not_found(session_factory):
    with session_factory() as session, pytest.raises(exc.ApplicationNotFound):
        screening.mine(session=session, applicant=_owner())


# --- rejections ---------------------------------------------------------------------------


def test_a_rejection_is_decided_once_with_its_reason(session_factory):
    owner, screener, other = _owner(), _owner(), _owner()
    with session_factory() as session:
        app = screening.apply(session=session, applicant=owner, statement="please")
    with session_factory() as session:
        done = screening.reject(
            session=session, application_id=app["id"], screener=screener, reason="no avatars"
        )
    assert (done["status"], done["reason"], done["decided_by"]) == (
        "rejected",
        "no avatars",
        screener,
    )
    with session_factory() as session, pytest.raises(exc.ApplicationClosed):
        screening.reject(session=session, application_id=app["id"], screener=other, reason="x")
    with session_factory() as session:
        assert screening.mine(session=session, applicant=owner)["decided_by"] == screener
        assert app["id"] not in [a["id"] for a in screening.queue(session=session, limit=200)]
    # Rejected, the owner may apply again.
    with session_factory() as session:
        assert (
            screening.apply(session=session, applicant=owner, statement="2")["status"] == "pending"
        )


@pytest.mark.parametrize("reason", ["", "r" * 501, "a\x1bb"])
def test_bad_reasons_are_refused_and_change_nothing(session_factory, reason):
    owner = _owner()
    with session_factory() as session:
        app = screening.apply(session=session, applicant=owner, statement="s")
    with session_factory() as session, pytest.raises(exc.EconomyValueError):
        screening.reject(
            session=session, application_id=app["id"], screener=_owner(), reason=reason
        )
    assert _rows(session_factory, owner) == [("pending", None)]


def test_racing_rejections_decide_once(session_factory):
    owner = _owner()
    with session_factory() as session:
        app = screening.apply(session=session, applicant=owner, statement="s")
    barrier = threading.Barrier(6)
    outcomes: list[str] = []

    def reject(n: int) -> None:
        barrier.wait()
        with session_factory() as session:
            try:
                screening.reject(
                    session=session, application_id=app["id"], screener=_owner(), reason=f"r{n}"
                )
                outcomes.append("rejected")
            except exc.ApplicationClosed:
                outcomes.append("closed")

    threads = [threading.Thread(target=reject, args=(n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert outcomes.count("rejected") == 1
    assert len(_rows(session_factory, owner)) == 1


def test_unknown_application_and_bad_limit(session_factory):
    with session_factory() as session:
        with pytest.raises(exc.ApplicationNotFound):
            screening.reject(
                session=session, application_id=2**31 - 1, screener=_owner(), reason="r"
            )
        with pytest.raises(exc.EconomyValueError):
            screening.queue(session=session, limit=0)


# --- the screener role --------------------------------------------------------------------


def test_the_role_is_read_once_per_ttl_and_both_answers_are_kept():
    screener, stranger = _owner(), _owner()
    reads: list[str] = []
    now = [0.0]

    def has_role(address: str) -> bool:
        reads.append(address)
        return address == screener

    roles = screening.ScreenerRoles(has_role, ttl_s=30, clock=lambda: now[0])
    assert roles.require(screener.lower()) == screener
    with pytest.raises(exc.NotScreener):
        roles.require(stranger)
    for _ in range(5):
        roles.is_screener(screener)
        roles.is_screener(stranger)
    assert reads == [screener, stranger]
    now[0] = 31.0
    roles.is_screener(stranger)
    assert reads == [screener, stranger, stranger]
    with pytest.raises(exc.EconomyValueError):
        roles.require("not an address")


def test_an_unreachable_node_is_not_cached():
    calls = [0]

    def has_role(_address: str) -> bool:
        calls[0] += 1
        if calls[0] == 1:
            raise exc.Unavailable("down")
        return True

    roles = screening.ScreenerRoles(has_role)
    owner = _owner()
    with pytest.raises(exc.Unavailable):
        roles.is_screener(owner)
    assert roles.is_screener(owner) is True


# --- the chain's word ---------------------------------------------------------------------


def _mine(deployment, blocks: int) -> None:
    for _ in range(blocks):
        deployment.w3.provider.make_request("evm_mine", [])


def test_an_approval_follows_the_receipt_at_depth_and_cannot_be_replayed(
    deployment, chain_snapshot, session_factory
):
    contracts = deployment.contracts
    builder = ScholarshipTxBuilder(contracts)
    assert builder.has_screener_role(deployment.operator)
    owner_key = deployment.player_keys[0]
    owner = address(owner_key)
    assert not builder.has_screener_role(owner)
    with session_factory() as session:
        app = screening.apply(session=session, applicant=owner, statement="screen me")
    with session_factory() as session:
        assert screening.pending_applicant(session=session, application_id=app["id"]) == owner
    receipt = send(
        deployment.w3,
        deployment.operator_key,
        builder.screen_owner(screener=deployment.operator, owner=owner),
    )
    tx_hash = "0x" + bytes(receipt["transactionHash"]).hex()

    def confirm(application_id: int, tx: str = tx_hash) -> dict:
        with session_factory() as session:
            return screening.confirm_approval(
                session=session,
                contracts=contracts,
                application_id=application_id,
                tx_hash=tx,
                confirmations=3,
            )

    with pytest.raises(exc.NotOnChain, match="deep"):
        confirm(app["id"])
    assert _rows(session_factory, owner) == [("pending", None)]
    _mine(deployment, 2)
    done = confirm(app["id"])
    assert (done["status"], done["decided_by"], done["tx_hash"]) == (
        "approved",
        deployment.operator,
        tx_hash,
    )
    assert confirm(app["id"])["status"] == "approved"  # the same report again: no change

    # Another owner's application cannot borrow this transaction.
    other_key = deployment.player_keys[1]
    with session_factory() as session:
        other = screening.apply(session=session, applicant=address(other_key), statement="me too")
    with pytest.raises(exc.NotOnChain, match="does not approve"):
        confirm(other["id"])
    # A transaction that is no screening at all, and a hash that was never mined.
    unrelated = send(deployment.w3, other_key, _self_transfer(deployment, other_key))
    _mine(deployment, 2)
    with pytest.raises(exc.NotOnChain):
        confirm(other["id"], "0x" + bytes(unrelated["transactionHash"]).hex())
    with pytest.raises(exc.NotOnChain, match="not mined"):
        confirm(other["id"], "0x" + "ab" * 32)
    with pytest.raises(exc.EconomyValueError):
        confirm(other["id"], "0x1234")
    assert [s for s, _ in _rows(session_factory, address(other_key))] == ["pending"]

    # The screener withdraws the owner; the indexer marks the approval withdrawn; the owner
    # applies again, and replaying the old approval's transaction proves nothing.
    reader = ChainReader(contracts, confirmations=1)
    send(
        deployment.w3,
        deployment.operator_key,
        builder.screen_owner(screener=deployment.operator, owner=owner, approved=False),
    )
    index_registry(session_factory=session_factory, reader=reader)
    assert _rows(session_factory, owner) == [("withdrawn", None)]
    with session_factory() as session:
        again = screening.apply(session=session, applicant=owner, statement="second time")
    _mine(deployment, 2)
    with pytest.raises(exc.NotOnChain):
        confirm(again["id"])
    assert [s for s, _ in _rows(session_factory, owner)] == ["withdrawn", "pending"]

    # Approved again on chain: the indexer, not a receipt, moves it.
    send(
        deployment.w3,
        deployment.operator_key,
        builder.screen_owner(screener=deployment.operator, owner=owner),
    )
    index_registry(session_factory=session_factory, reader=reader)
    assert [s for s, _ in _rows(session_factory, owner)] == ["withdrawn", "approved"]
    with session_factory() as session:
        assert (
            session.scalar(
                select(func.count()).where(
                    ScreeningApplication.applicant == owner,
                    ScreeningApplication.tx_hash.is_not(None),
                )
            )
            == 2
        )


def _self_transfer(deployment, key: str):
    """A DEW approval of zero: a mined transaction of the player's that screens nobody."""
    return deployment.contracts.token.functions.approve(address(key), 0)
