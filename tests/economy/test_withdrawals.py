"""Withdrawals of stake balances, on SQLite and PostgreSQL: bad input refused with nothing
changed, repeats and races paid once, escrow never withdrawn, a failed withdrawal credited back
once, the states a player sees, and the operator's ``dew withdraw`` command."""

from __future__ import annotations

import json
import secrets
import subprocess
import threading

import pytest
from eth_account import Account
from sqlalchemy import func, select

from backend.chain.models import ChainRequest, RequestStatus
from backend.economy import stakes, withdrawals
from backend.economy.exceptions import EconomyValueError
from backend.economy.ledger import sync_settlements
from backend.economy.models import LedgerLeg, PlannedSettlement, StakeEntry, StakeWallet
from tests.fixtures.dew_cli import invoke_dew, only_database, run_dew

DEW = 10**18


def _fund(sessions, amount: int) -> str:
    address = Account.create().address
    with sessions.begin() as session:
        stakes.credit_deposit(
            session=session,
            address=address,
            amount=amount,
            tx_hash="0x" + secrets.token_hex(32),
            log_index=0,
        )
    return address


def _counts(sessions, address: str) -> tuple[int, int, int, int]:
    """Balance, withdrawal entries, settlements and chain requests: what a refusal must keep."""
    with sessions() as session:
        return (
            stakes.stake_balance(session=session, address=address),
            session.scalar(
                select(func.count()).where(
                    StakeEntry.address == address, StakeEntry.kind == "withdrawal"
                )
            )
            or 0,
            session.scalar(select(func.count()).select_from(PlannedSettlement)) or 0,
            session.scalar(select(func.count()).select_from(ChainRequest)) or 0,
        )


@pytest.mark.parametrize(
    ("amount", "error"),
    [
        (0, EconomyValueError),
        (-1, EconomyValueError),
        (2**88, EconomyValueError),
        (1.5, EconomyValueError),
        ("5", EconomyValueError),
        (True, EconomyValueError),
        (10 * DEW + 1, stakes.InsufficientStake),
    ],
)
def test_a_bad_amount_is_refused_and_changes_nothing(session_factory, amount, error):
    address = _fund(session_factory, 10 * DEW)
    before = _counts(session_factory, address)
    with session_factory() as session, pytest.raises(error):
        stakes.request_withdrawal(session=session, address=address, amount=amount, key="k")
    assert _counts(session_factory, address) == before


@pytest.mark.parametrize("key", ["", "x" * 65, None, 7])
def test_a_bad_key_or_address_is_refused(session_factory, key):
    address = _fund(session_factory, DEW)
    with session_factory() as session, pytest.raises(EconomyValueError):
        stakes.request_withdrawal(session=session, address=address, amount=1, key=key)
    with session_factory() as session, pytest.raises(EconomyValueError):
        stakes.request_withdrawal(session=session, address="0x1234", amount=1, key="k")
    assert _counts(session_factory, address)[0] == DEW


def test_a_wallet_that_never_deposited_cannot_withdraw(session_factory):
    address = Account.create().address
    with session_factory() as session, pytest.raises(stakes.InsufficientStake):
        stakes.request_withdrawal(session=session, address=address, amount=1, key="k")
    with session_factory() as session:
        assert session.get(StakeWallet, address) is None


def test_a_repeated_key_returns_the_same_withdrawal_and_another_amount_is_refused(
    session_factory,
):
    address = _fund(session_factory, 10 * DEW)
    with session_factory.begin() as session:
        first = stakes.request_withdrawal(session=session, address=address, amount=DEW, key="a")
        first_id = first.match_id
    with session_factory.begin() as session:
        again = stakes.request_withdrawal(session=session, address=address, amount=DEW, key="a")
        assert again.match_id == first_id
    before = _counts(session_factory, address)
    with session_factory() as session, pytest.raises(stakes.WithdrawalConflict):
        stakes.request_withdrawal(session=session, address=address, amount=2 * DEW, key="a")
    assert _counts(session_factory, address) == before == (9 * DEW, 1, before[2], before[3])
    # The same key of another wallet is another withdrawal.
    other = _fund(session_factory, DEW)
    with session_factory.begin() as session:
        theirs = stakes.request_withdrawal(session=session, address=other, amount=DEW, key="a")
        assert theirs.match_id != first_id


def test_escrowed_stake_cannot_be_withdrawn(session_factory):
    address = _fund(session_factory, 10 * DEW)
    with session_factory.begin() as session:
        stakes.escrow_stakes(
            session=session,
            match_id="m-escrow-" + secrets.token_hex(4),
            seats=[(0, address)],
            stake=7 * DEW,
        )
    with session_factory() as session, pytest.raises(stakes.InsufficientStake):
        stakes.request_withdrawal(session=session, address=address, amount=3 * DEW + 1, key="e")
    with session_factory.begin() as session:
        stakes.request_withdrawal(session=session, address=address, amount=3 * DEW, key="e")
    with session_factory() as session:
        assert stakes.stake_balance(session=session, address=address) == 0
        [held] = withdrawals.held_in_escrow(session=session, address=address)
        assert held["amount"] == 7 * DEW and held["key"].startswith("m-escrow-")


def test_twenty_parallel_withdrawals_of_one_balance_pay_once(session_factory):
    address = _fund(session_factory, 5 * DEW)
    barrier = threading.Barrier(20)
    outcomes: list[str] = []

    def attempt(i: int) -> None:
        barrier.wait()
        with session_factory() as session:
            try:
                stakes.request_withdrawal(
                    session=session, address=address, amount=5 * DEW, key=f"race-{i}"
                )
                session.commit()
                outcomes.append("paid")
            except stakes.InsufficientStake:
                session.rollback()
                outcomes.append("refused")

    threads = [threading.Thread(target=attempt, args=(i,)) for i in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(outcomes) == ["paid"] + ["refused"] * 19
    balance, entries, _, _ = _counts(session_factory, address)
    assert (balance, entries) == (0, 1)
    with session_factory() as session:
        legs = session.scalars(select(LedgerLeg).where(LedgerLeg.address == address)).all()
        assert [int(x.amount) for x in legs] == [5 * DEW]


def test_twenty_parallel_repeats_of_one_key_make_one_withdrawal(session_factory):
    address = _fund(session_factory, 5 * DEW)
    barrier = threading.Barrier(20)
    ids: list[str] = []

    def attempt() -> None:
        barrier.wait()
        with session_factory() as session:
            settlement = stakes.request_withdrawal(
                session=session, address=address, amount=2 * DEW, key="same"
            )
            ids.append(settlement.match_id)
            session.commit()

    threads = [threading.Thread(target=attempt) for _ in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert len(ids) == 20 and len(set(ids)) == 1
    assert _counts(session_factory, address)[:2] == (3 * DEW, 1)


def test_states_follow_the_chain_request_and_a_failure_is_credited_back_once(session_factory):
    address = _fund(session_factory, 4 * DEW)
    with session_factory.begin() as session:
        w = stakes.request_withdrawal(session=session, address=address, amount=3 * DEW, key="s")
        wid, request_id = w.match_id, w.chain_request_id

    def state() -> str:
        with session_factory() as session:
            return withdrawals.get_withdrawal(session=session, withdrawal_id=wid)["state"]

    def set_request(status: str, reason: str | None = None) -> None:
        with session_factory.begin() as session:
            request = session.get(ChainRequest, request_id)
            request.status, request.failure_reason = status, reason

    assert state() == "requested"
    set_request(RequestStatus.SUBMITTED)
    assert state() == "sent"
    set_request(RequestStatus.WAITING, "waiting: SettlementOutflowLimit(spent=1, ...)")
    assert state() == "waiting"
    with session_factory() as session:
        row = withdrawals.get_withdrawal(session=session, withdrawal_id=wid, address=address)
        assert row["reason"].startswith("waiting: SettlementOutflowLimit(")
    set_request(RequestStatus.FAILED, "reverted: SettlementInvalidMatch()")

    class NoChain:  # the request failed: the sync reads no event for it
        def settled_match(self, *_a, **_k):
            return None

    for _ in range(2):  # a second pass credits nothing more
        with session_factory.begin() as session:
            sync_settlements(session=session, reader=NoChain())  # type: ignore[arg-type]
    assert state() == "failed"
    with session_factory() as session:
        assert stakes.stake_balance(session=session, address=address) == 4 * DEW
        kinds = [h["kind"] for h in withdrawals.stake_history(session=session, address=address)]
        assert kinds == ["reversal", "withdrawal", "deposit"]
        assert stakes.reverse_withdrawal(session=session, match_id=wid) == 0


def test_someone_elses_withdrawal_is_not_found_and_bad_ids_are_refused(session_factory):
    owner = _fund(session_factory, DEW)
    with session_factory.begin() as session:
        wid = stakes.request_withdrawal(
            session=session, address=owner, amount=DEW, key="o"
        ).match_id
    with session_factory() as session:
        with pytest.raises(withdrawals.WithdrawalNotFound):
            withdrawals.get_withdrawal(
                session=session, withdrawal_id=wid, address=Account.create().address
            )
        for bad in ("", "w" + "0" * 40, "W" + "a" * 31, "x; drop table", None):
            with pytest.raises(EconomyValueError):
                withdrawals.get_withdrawal(session=session, withdrawal_id=bad)  # type: ignore[arg-type]
        with pytest.raises(EconomyValueError):
            withdrawals.list_withdrawals(session=session, state="stolen")
        with pytest.raises(EconomyValueError):
            withdrawals.list_withdrawals(session=session, limit=0)


# --- dew withdraw ---------------------------------------------------------------------------


def _dew(db_url: str, *args: str, process: bool = False) -> subprocess.CompletedProcess[str]:
    """``dew withdraw <args>`` on ``db_url`` and no other ``DEW_*`` setting of the tests': in
    its own process, or in this one (``tests/fixtures/dew_cli.py``)."""
    run = run_dew if process else invoke_dew
    return run(only_database(db_url), "withdraw", *args)


@pytest.mark.parametrize(
    "amount", ["0", "-1", "abc", "1e3", "0.0000000000000000001", "1" * 31, "", "nan", "2.5.1"]
)
def test_dew_withdraw_request_refuses_bad_amounts_and_changes_nothing(
    db_url, session_factory, amount
):
    address = _fund(session_factory, DEW)
    before = _counts(session_factory, address)
    result = _dew(db_url, "request", address, amount, "--key", "cli")
    assert result.returncode != 0, result.stdout
    assert _counts(session_factory, address) == before


def test_dew_withdraw_request_list_and_show(db_url, session_factory):
    address = _fund(session_factory, 3 * DEW)
    over = _dew(db_url, "request", address, "3.000000000000000001", "--key", "t1")
    assert over.returncode == 2 and "to withdraw, asked for 3000000000000000001" in over.stderr
    made = _dew(db_url, "request", address, "2.5", "--key", "t1", process=True)
    assert made.returncode == 0, made.stderr
    again = _dew(db_url, "request", address, "2.5", "--key", "t1")
    assert again.stdout == made.stdout  # the same key: the same withdrawal
    conflict = _dew(db_url, "request", address, "1", "--key", "t1")
    assert conflict.returncode == 2 and "was used for" in conflict.stderr
    assert _counts(session_factory, address)[:2] == (DEW // 2, 1)
    listed = json.loads(_dew(db_url, "list", "--address", address, "--json").stdout)
    assert [(w["amount"], w["state"]) for w in listed] == [(5 * DEW // 2, "requested")]
    shown = _dew(db_url, "show", listed[0]["id"])
    assert json.loads(shown.stdout)["address"] == address
    assert _dew(db_url, "show", "w" + "0" * 31).returncode == 1
    assert _dew(db_url, "show", "nope").returncode == 2
    assert _dew(db_url, "list", "--state", "stolen").returncode == 2
    assert _dew(db_url, "list", "--address", "0xnope").returncode == 2
