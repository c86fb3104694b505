"""`dew moderation` and `dew limits` on a migrated database: a sanction written, listed,
appealed by the wallet and answered; a limit set and its raise waiting; bad input refused
with nothing written."""

from __future__ import annotations

import json

from eth_account import Account

from backend.care import moderation, standing
from backend.care.exceptions import Suspended
from backend.care.standing import Door
from backend.db import create_db_engine, make_session_factory
from backend.economy import stakes, withdrawals
from tests.fixtures.dew_cli import invoke_dew, only_database, run_dew


def test_moderation_and_limits_commands(sqlite_url: str) -> None:
    env = only_database(sqlite_url)
    wallet = Account.create().address
    first = run_dew(
        env, "moderation", "sanction", wallet, "--kind", "suspend", "--reason", "stalling",
        "--hours", "48",
    )  # fmt: skip
    assert first.returncode == 0, first.stderr
    assert "suspend" in first.stdout and "stalling" in first.stdout
    bad = invoke_dew(
        env, "moderation", "sanction", wallet, "--kind", "exile", "--reason", "x", "--hours", "1"
    )
    assert bad.returncode == 2 and "unknown kind" in bad.stderr
    short = invoke_dew(
        env, "moderation", "sanction", wallet, "--kind", "ban", "--reason", "x", "--hours", "2"
    )
    assert short.returncode == 2 and "the ban lasts" in short.stderr
    listed = json.loads(invoke_dew(env, "moderation", "list", "--json").stdout)
    assert [(s["kind"], s["address"]) for s in listed] == [("suspend", wallet)]
    engine = create_db_engine(sqlite_url)
    try:
        sessions = make_session_factory(engine)
        with sessions() as session:
            try:
                standing.require(session, wallet, Door.SEAT)
                raise AssertionError("a suspended wallet passed the seat door")
            except Suspended as refusal:
                assert "stalling" in str(refusal)
            standing.require(session, wallet, Door.WITHDRAWAL)
            moderation.appeal(
                session=session, address=wallet, sanction_id=listed[0]["id"], text="no"
            )
    finally:
        engine.dispose()
    waiting = invoke_dew(env, "moderation", "list", "--appealed")
    assert f"#{listed[0]['id']}" in waiting.stdout, waiting.stdout
    answered = invoke_dew(
        env, "moderation", "answer", str(listed[0]["id"]), "--note", "fair", "--lift"
    )
    assert answered.returncode == 0 and "lifted" in answered.stdout, answered.stderr
    again = invoke_dew(env, "moderation", "answer", str(listed[0]["id"]), "--note", "x", "--lift")
    assert again.returncode == 2 and "no appeal waiting" in again.stderr
    trail = json.loads(invoke_dew(env, "moderation", "audit", str(listed[0]["id"])).stdout)
    assert [a["action"] for a in trail] == ["impose", "appeal", "lift"]
    # Limits: a lower one at once, a higher one waits.
    args = ("limits", "set", wallet, "--kind", "deposit", "--period", "day", "--amount")
    assert invoke_dew(env, *args, "100").returncode == 0
    raised = invoke_dew(env, *args, "500")
    assert raised.returncode == 0 and "deposit per day: 100, 500 from" in raised.stdout
    assert invoke_dew(env, *args, "lots").returncode == 2
    shown = json.loads(invoke_dew(env, "limits", "show", wallet).stdout)
    assert [(x["amount"], x["pending"]) for x in shown["limits"]] == [(100, 500)]
    brief = invoke_dew(env, "limits", "break", wallet, "--kind", "exclusion", "--days", "30")
    assert brief.returncode == 2 and "the exclusion lasts" in brief.stderr, brief.stderr
    assert json.loads(invoke_dew(env, "limits", "show", wallet).stdout)["breaks"] == []
    assert (
        invoke_dew(env, "moderation", "grant", wallet).stdout.strip().endswith("is now a moderator")
    )
    assert invoke_dew(env, "moderation", "moderators").stdout.split() == [wallet]
    # A sanctioned wallet's balance is paid out to itself, once per key.
    engine = create_db_engine(sqlite_url)
    try:
        sessions = make_session_factory(engine)
        with sessions() as session, session.begin():
            stakes.credit_deposit(
                session=session, address=wallet, amount=3 * 10**18, tx_hash="0x" + "ab" * 32,
                log_index=0,
            )  # fmt: skip
        paid = invoke_dew(env, "moderation", "payout", wallet, "--key", "ban-1")
        assert paid.returncode == 0 and f"{3 * 10**18} DEW wei" in paid.stdout, paid.stderr
        again = invoke_dew(env, "moderation", "payout", wallet, "--key", "ban-1")
        assert "nothing to pay" in again.stdout
        with sessions() as session:
            assert stakes.stake_balance(session=session, address=wallet) == 0
            assert stakes.withdrawal_id(wallet, "ban-1") in {
                w["id"] for w in withdrawals.list_withdrawals(session=session, address=wallet)
            }
    finally:
        engine.dispose()


def test_support_commands_read_answer_and_close_a_ticket(sqlite_url: str) -> None:
    from backend.economy.models import AgreementMirror
    from backend.tables.moderation import support

    env = only_database(sqlite_url)
    wallet = Account.create().address
    engine = create_db_engine(sqlite_url)
    try:
        with make_session_factory(engine)() as session:
            session.add(
                AgreementMirror(
                    id=77, avatar_id=1, owner=wallet, terms="fixed_rent", duration_s=60,
                    dust_to="owner", status="offered", offered_block=1, updated_block=1,
                )
            )  # fmt: skip
            session.commit()
            ticket = support.open_ticket(
                session=session, address=wallet, about="rental", ref="77", subject="rent",
                text="my rent was not refunded", per_day=5, messages_per_day=5,
            )  # fmt: skip
    finally:
        engine.dispose()
    listed = json.loads(invoke_dew(env, "support", "list", "--json").stdout)
    assert [(t["id"], t["address"], t["status"]) for t in listed] == [(ticket.id, wallet, "open")]
    shown = invoke_dew(env, "support", "show", str(ticket.id))
    assert "player: my rent was not refunded" in shown.stdout, shown.stderr
    answered = invoke_dew(
        env, "support", "answer", str(ticket.id), "--text", "refunded in block 9", "--close"
    )
    assert answered.returncode == 0, answered.stderr
    assert "closed" in answered.stdout and "staff operator:cli: refunded" in answered.stdout
    again = invoke_dew(env, "support", "answer", str(ticket.id), "--text", "and again")
    assert again.returncode == 2 and "is closed" in again.stderr
    assert invoke_dew(env, "support", "show", "999").returncode == 2
