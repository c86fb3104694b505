"""A chain node that stops answering must not stop play (found by scripts/chaos.py: with the
RPC cut, the last move of every earning match was refused with "unavailable" for as long as
the node was away, and earning tables could not be created: a 500).

The gate re-checks eligibility before the final commit; the chain's clock was read outside
the gate's error mapping, so a transport error escaped as a raw exception and failed the
commit. Now it is ``chain_unavailable``: the re-check records "could not read" (the
admission stands) and the match ends; a new earning table gets a clean 503."""

from __future__ import annotations

import asyncio

import pytest
from eth_account import Account
from sqlalchemy import select

from backend.devstack.stack import RpcGate
from backend.tables.models import Match, MatchResult
from tests.fixtures.harness import Player, ServerProcess, api, sign_in, wait_for

pytestmark = pytest.mark.timeout(240)

FAST = {"turn_timeout_s": 60, "bot_move_delay_s": 0.0, "ws_rate_per_s": 1000, "ws_rate_burst": 1000}


def test_earning_match_ends_and_tables_refuse_cleanly_while_the_node_is_away(  # type: ignore[no-untyped-def]
    deployment, pg_url: str, db
) -> None:
    w3 = deployment.w3
    vip_key, other_key = deployment.player_keys[-2:]
    vip = Account.from_key(vip_key)
    operator = Account.from_key(deployment.operator_key)
    expires = w3.eth.get_block("latest")["timestamp"] + 10**6
    tx = deployment.contracts.vip.functions.issue(vip.address, expires).build_transaction(
        {"from": operator.address, "nonce": w3.eth.get_transaction_count(operator.address)}
    )
    receipt = w3.eth.wait_for_transaction_receipt(
        w3.eth.send_raw_transaction(operator.sign_transaction(tx).raw_transaction), timeout=30
    )
    assert receipt["status"] == 1

    gate = RpcGate(deployment.anvil.rpc_url).start()
    server = ServerProcess(
        pg_url,
        **FAST,
        extra_env={
            "DEW_CHAIN_RPC_URL": gate.url,
            "DEW_CHAIN_MANIFEST_PATH": str(deployment.manifest_path),
            "DEW_CHAIN_RPC_TIMEOUT_S": "2",
        },
    )
    try:
        server.start()
        _, token = sign_in(server.url, vip)
        with api(server.url, token) as http:
            created = http.post(
                "/tables", json={"preset": "draw", "seats": 2, "earning": True, "kind": "human"}
            )
            assert created.status_code == 201, created.text
            table_id = created.json()["id"]
            assert http.post(f"/tables/{table_id}/start").status_code == 200

            gate.cut()  # the node goes away for the whole match

            async def play() -> Player:
                player = await Player(server.ws_url, table_id, token).connect()
                await player.play_until_over(stop_after_ply=2)
                # Time passes mid-match, as between a person's moves: the gate's chain clock
                # (re-read after 1 s) must now come from the node that is away.
                await asyncio.sleep(1.5)
                await player.play_until_over()
                await player.close()
                return player

            player = asyncio.run(play())
            assert player.over and player.acked

            # A new earning table needs the chain: a clean 503, not an unhandled 500.
            _, other_token = sign_in(server.url, Account.from_key(other_key))
            with api(server.url, other_token) as other:
                refused = other.post(
                    "/tables", json={"preset": "draw", "seats": 2, "earning": True}
                )
            assert refused.status_code == 503, refused.text
            assert refused.json()["error"]["code"] == "chain_unavailable"
    finally:
        gate.restore()
        server.stop()
        gate.stop()

    def finished() -> Match | None:
        with db.connect() as conn:
            row = conn.execute(select(Match).where(Match.table_id == table_id)).first()
        return row if row is not None and row.status == "finished" else None

    match = wait_for(finished, timeout=10, what="the match finished in the database")
    with db.connect() as conn:
        results = conn.execute(select(MatchResult).where(MatchResult.match_id == match.id)).all()
    assert len(results) == 2
