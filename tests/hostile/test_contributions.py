"""A script against a tournament's DEW Contribution pool, on SQLite and PostgreSQL through a
real server process: a thousand contributions of the contract's smallest amount (0.01 DEW)
to one tournament never make an unbounded answer. ``GET /competitions/{id}/contributions``
and ``dew contributions`` list at most their limit, newest first, and the total is still the
whole pool, from the books; a limit past the bound is refused (422)."""

from __future__ import annotations

import secrets
from datetime import timedelta
from typing import Any

import pytest
from eth_account import Account

from backend.competitions import service as competitions
from backend.competitions.contributions import MIN_CONTRIBUTION, POOLED, Contribution
from backend.db.base import utcnow
from tests.fixtures.dew_cli import invoke_dew, only_database
from tests.fixtures.harness import api

pytestmark = pytest.mark.timeout(120)

DEW = 10**18
SCRIPTED = 1_000  # the script's contributions, each the contract's smallest


def test_a_scripts_thousand_tiny_contributions_never_make_an_unbounded_answer(
    start_server: Any, books: Any, db_url: str
) -> None:
    server = start_server()
    creator, script = Account.create().address, Account.create().address
    with books() as session:
        tournament = competitions.create_tournament(
            session=session,
            spec=competitions.TournamentSpec(
                name=f"Cup {secrets.token_hex(4)}",
                preset="draw",
                starts_at=utcnow() + timedelta(hours=1),
            ),
        ).id
    # As the indexer books them (one row per Contributed event): a creator's 5 DEW, three of
    # 1 DEW, then the script's thousand of 0.01 DEW, each in a block of its own.
    amounts = [(creator, 5 * DEW)] + [(creator, DEW)] * 3 + [(script, MIN_CONTRIBUTION)] * SCRIPTED
    with books() as session, session.begin():
        session.add_all(
            Contribution(
                tx_hash="0x" + secrets.token_hex(32), log_index=0, tournament_id=tournament,
                contributor=who, amount=str(amount), status=POOLED, block_number=10**9 + i,
            )
            for i, (who, amount) in enumerate(amounts)
        )  # fmt: skip
    total = 8 * DEW + SCRIPTED * MIN_CONTRIBUTION
    path = f"/competitions/{tournament}/contributions"
    with api(server.url) as client:  # public, like the tournament itself
        capped = client.get(path, params={"limit": 2}).json()
        assert len(capped["contributions"]) == 2 and capped["total"] == str(total)
        assert [r["contributor"] for r in capped["contributions"]] == [script, script]  # newest
        default = client.get(path).json()
        assert len(default["contributions"]) == 100 and default["total"] == str(total)
        widest = client.get(path, params={"limit": 500}).json()
        assert len(widest["contributions"]) == 500 and widest["total"] == str(total)
        for limit in (501, 0, 10**6):
            assert client.get(path, params={"limit": limit}).status_code == 422, limit
        assert client.get(f"/competitions/{tournament}").json()["contributed"] == total

    listed = invoke_dew(only_database(db_url), "contributions", str(tournament))
    assert listed.returncode == 0, listed.stderr
    rows = [line for line in listed.stdout.splitlines() if "0.01 DEW" in line]
    assert len(rows) == 500 and all(script in row for row in rows)
    assert listed.stdout.rstrip().endswith(f"{total / DEW:g} DEW contributed in all")
