"""A contested earning match of a season, as the economy plans it, for the seasons pages'
tests: only such a match counts for the leaderboard (``backend.economy.counts``), and the
demo's first steps give its wallets no avatar or pass to sit at an earning table with. The
match emits nothing (a zero-emission policy), so nothing is sent on chain."""

from __future__ import annotations

import secrets

from sqlalchemy.orm import Session, sessionmaker

from backend.db.base import utcnow
from backend.economy.policy import FinishedMatch, RewardPolicy, SeatResult, TableEconomy
from backend.economy.settlement import plan_settlement


def contested_match(sessions: sessionmaker[Session], winner: str, loser: str) -> None:
    """``winner`` beats ``loser`` at an earning table of two, finished now."""
    with sessions.begin() as session:
        plan_settlement(
            session=session,
            match=FinishedMatch(
                match_id=secrets.token_hex(16),
                chain_match_id="0x" + secrets.token_hex(32),
                result_hash="0x" + secrets.token_hex(32),
                earning=True,
                stake=0,
                seats=(
                    SeatResult(0, winner, placement=1, won=True, points=50 + secrets.randbelow(50)),
                    SeatResult(1, loser, placement=2, points=secrets.randbelow(50)),
                ),
            ),
            finished_at=utcnow(),
            policies={economy: RewardPolicy() for economy in TableEconomy},
            treasury="0xa0Ee7A142d267C1f36714E4a8F75612F20a79720",
        )
