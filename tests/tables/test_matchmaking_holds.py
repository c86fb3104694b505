"""Matchmaking keeps one avatar in one earning seat, without stalling the other queues.

Tickets hold no earning seat until they are matched, so two wallets can wait with the same
avatar: its owner queues, then sells or rents it out, and the new holder queues with it too.
"""

from __future__ import annotations

import uuid
from datetime import timedelta

from eth_account import Account
from sqlalchemy import select

from backend.config import get_settings
from backend.db.base import utcnow
from backend.tables import matchmaking
from backend.tables.models import EarningHold, MatchmakingTicket, TableSeat


def _ticket(address: str, *, preset: str, earning: bool, avatar_id: int | None, as_: str | None):
    return MatchmakingTicket(
        id=uuid.uuid4().hex,
        address=address,
        preset=preset,
        earning=earning,
        avatar_id=avatar_id,
        admitted_as=as_,
        status="waiting",
        created_at=utcnow() - timedelta(minutes=5),
    )


def test_two_tickets_with_one_avatar_seat_one_and_the_other_queues_still_match(
    session_factory,
) -> None:
    settings = get_settings()
    seller, buyer = Account.create().address, Account.create().address
    free = [Account.create().address for _ in range(2)]
    with session_factory() as session:
        session.add(_ticket(seller, preset="draw", earning=True, avatar_id=7, as_="avatar_owner"))
        session.add(_ticket(buyer, preset="draw", earning=True, avatar_id=7, as_="avatar_user"))
        for address in free:  # another queue, formed in the same pass
            session.add(_ticket(address, preset="draw", earning=False, avatar_id=None, as_=None))
        session.commit()

    with session_factory() as session:
        formed = matchmaking.run_matchmaking(session=session, settings=settings)

    with session_factory() as session:
        status = dict(
            session.execute(select(MatchmakingTicket.address, MatchmakingTicket.status)).all()
        )
        seated = set(session.scalars(select(TableSeat.address)))
        holds = list(session.scalars(select(EarningHold.holder)))
    assert status[seller] == "matched" and status[buyer] == "cancelled", status
    assert all(status[a] == "matched" for a in free), status
    assert len(formed) == 2
    assert seller in seated and buyer not in seated
    assert holds.count("avatar:7") == 1
