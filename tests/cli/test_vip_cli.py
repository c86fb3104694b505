"""``dew vip issue|revoke`` against a real worker, beat and anvil: each queues a VIP pass
request in the outbox, the worker sends it and ``--wait`` waits for it on chain; a retry
under the same key is the same request and sends nothing more. Bad input exits 1 and
queues nothing."""

from __future__ import annotations

import re
from datetime import datetime

from eth_account import Account
from sqlalchemy import func, select

from backend.chain.models import ChainRequest, ChainTx
from tests.cli.conftest import start_worker_and_beat
from tests.fixtures.dew_cli import invoke_dew, run_dew


def _counts(sessions) -> tuple[int, int]:
    """Requests in the outbox, transactions signed."""
    with sessions() as session:
        return (
            session.scalar(select(func.count()).select_from(ChainRequest)) or 0,
            session.scalar(select(func.count()).select_from(ChainTx)) or 0,
        )


def test_vip_issue_then_revoke_through_the_worker_once(
    deployment, interval_mining, workers, cli_flow
):
    sessions, env = cli_flow.sessions, cli_flow.env
    start_worker_and_beat(workers, env)
    vera = Account.create().address
    vip = deployment.contracts.vip.functions

    issued = run_dew(env, "vip", "issue", vera, "--key", "vip-vera-1", "--days", "7", "--wait")
    assert issued.returncode == 0, issued.stderr
    assert "issued in tx 0x" in issued.stdout
    until = re.search(r"until (\S+),", issued.stdout)
    assert until is not None, issued.stdout
    expires_at = int(datetime.fromisoformat(until.group(1)).timestamp())
    assert vip.isValid(vera).call()
    assert vip.expiresAt(vera).call() == expires_at
    assert vip.balanceOf(vera, 1).call() == 1

    # A retry (the shell lost the answer), later, with another --days: the same request.
    sent = _counts(sessions)
    again = invoke_dew(env, "vip", "issue", vera, "--key", "vip-vera-1", "--days", "9", "--wait")
    assert again.returncode == 0, again.stderr
    assert re.findall(r"request #\d+", again.stdout) == re.findall(r"request #\d+", issued.stdout)
    assert _counts(sessions) == sent

    revoked = invoke_dew(env, "vip", "revoke", vera, "--key", "vip-vera-off", "--wait")
    assert revoked.returncode == 0, revoked.stderr
    assert "revoked in tx 0x" in revoked.stdout
    assert not vip.isValid(vera).call()
    assert vip.expiresAt(vera).call() == 0
    assert vip.balanceOf(vera, 1).call() == 0
    sent = _counts(sessions)
    again = invoke_dew(env, "vip", "revoke", vera, "--key", "vip-vera-off", "--wait")
    assert again.returncode == 0, again.stderr
    assert _counts(sessions) == sent

    # Revoking a pass nobody holds is refused by the contract: the request fails, exit 1.
    nobody = Account.create().address
    failed = invoke_dew(env, "vip", "revoke", nobody, "--key", "vip-nobody", "--wait")
    assert failed.returncode == 1 and "VIPPassNotHeld" in failed.stderr, failed

    # The same key for another holder or action, a bad address, key or term: nothing queued.
    sent = _counts(sessions)
    for args in (
        ("issue", nobody, "--key", "vip-vera-1"),
        ("revoke", vera, "--key", "vip-vera-1"),
        ("issue", "0x1234", "--key", "vip-x"),
        ("issue", vera, "--key", "bad key!"),
        ("issue", vera, "--key", "vip-y", "--days", "0"),
        ("issue", vera, "--key", "vip-y", "--days", "-3"),
        ("issue", vera, "--key", "vip-y", "--days", "99999"),
    ):
        refused = invoke_dew(env, "vip", *args)
        assert refused.returncode == 1 and refused.stderr.startswith("error:"), refused
    assert _counts(sessions) == sent
    assert not vip.isValid(nobody).call()
