"""Process-level wiring of competitions: what the worker task, the CLI and the demo call."""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import lru_cache

from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from backend.competitions import rounds
from backend.competitions.contributions import index_contributions
from backend.competitions.exceptions import CompetitionsError
from backend.config import Settings, get_settings
from backend.db import create_db_engine, make_session_factory
from backend.economy import jobs as economy_jobs
from backend.economy.chain_reader import ChainReader
from backend.economy.fees.schedule import FeeRecipients

log = logging.getLogger(__name__)

# Steps after which a tournament has nothing more to do right now.
RESTING = {"idle", "registering", "playing", "waiting", "finished", "cancelled"}


def advance_tournaments(
    *,
    session_factory: sessionmaker[Session],
    settings: Settings,
    chain_clock_offset_s: Callable[[], int] | None = None,
    recipients: FeeRecipients | None = None,
) -> dict[str, int]:
    """Advance every registering or running tournament as far as it can go now.

    Each step is its own transaction (see ``rounds.advance``): a crash between steps
    loses nothing, and the next run starts from what the database says.
    ``chain_clock_offset_s`` (chain time minus this machine's) is asked only when a
    tournament finishes: its avatar prizes are dated in chain time, as match rewards are."""
    with session_factory() as session:
        due = rounds.due_tournaments(session=session)
    steps = 0
    failed = 0
    for tournament_id in due:
        for _ in range(settings.competitions.max_steps):
            with session_factory() as session:
                try:
                    step = rounds.advance(
                        session=session,
                        settings=settings,
                        tournament_id=tournament_id,
                        chain_clock_offset_s=chain_clock_offset_s,
                        recipients=recipients,
                    )
                except Exception as error:
                    # This tournament's step is rolled back and the others still advance
                    # (``due`` is ordered by id: stopping here would stall every later one).
                    # A CompetitionsError is a refusal; a SQLAlchemyError most often another
                    # worker that took the same step first (SQLite has no row locks: a
                    # duplicate round hits the games' primary key); anything else is a bug,
                    # logged with its traceback.
                    session.rollback()
                    failed += 1
                    if isinstance(error, CompetitionsError | SQLAlchemyError):
                        log.warning("tournament %s step rolled back: %s", tournament_id, error)
                    else:
                        log.exception("tournament %s step failed", tournament_id)
                    break
            if step in RESTING:
                steps += step in ("finished", "cancelled")
                break
            steps += 1
    return {"tournaments": len(due), "steps": steps, "failed": failed}


@lru_cache
def _process_wiring() -> tuple[Settings, sessionmaker[Session]]:
    settings = get_settings()
    return settings, make_session_factory(create_db_engine(settings.db.url))


@lru_cache
def _chain_reader() -> ChainReader:
    return economy_jobs.chain_reader(get_settings())


def advance_cycle(recipients: FeeRecipients | None = None) -> dict[str, int]:
    """One pass for the worker task, wired from settings alone. The chain is asked for its
    clock only when a tournament finishes (a node that is down then fails that step alone,
    retried on the next pass)."""
    settings, sessions = _process_wiring()
    try:
        index_contributions(
            session_factory=sessions,
            reader=_chain_reader(),
            max_blocks=settings.economy.indexer_max_blocks,
        )
    except Exception as error:  # a node that is down: the next pass reads the same range
        log.warning("contributions not indexed this pass: %s", error)
    return advance_tournaments(
        session_factory=sessions,
        settings=settings,
        chain_clock_offset_s=lambda: _chain_reader().clock_offset_s(),
        recipients=recipients,
    )
