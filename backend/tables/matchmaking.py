"""Matchmaking: the waiting tickets, and the pass that seats them at new tables (full tables
at once, bots after the wait). The hub runs the pass every second (``backend.tables.live.loops``).
"""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from typing import Any, cast

import orjson
from sqlalchemy import CursorResult, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from backend.care import standing
from backend.care.exceptions import CareError
from backend.care.standing import Door
from backend.config import Settings
from backend.db import dialect
from backend.db.base import aware, utcnow
from backend.economy import stakes
from backend.ops.metrics import MATCHMAKING_WAIT
from backend.tables import exceptions as exc
from backend.tables import play, seating
from backend.tables import service as tables_service
from backend.tables.gating import Gate
from backend.tables.models import MatchmakingTicket


def _matchmade_turn_timeout(settings: Settings, earning: bool) -> float:
    """A matchmade table's timer: the server's, and never under the earning floor."""
    return tables_service.turn_timeout(settings, None, at_stake=earning)


def enqueue(
    *,
    session: Session,
    gate: Gate,
    address: str,
    preset: str,
    earning: bool,
    avatar_id: int | None = None,
    options: dict[str, Any] | None = None,
    stake: int = 0,
    seat_count: int | None = None,
) -> MatchmakingTicket:
    """A waiting ticket for a table of ``preset`` with ``options``, ``stake`` and
    ``seat_count`` seats (None: the preset's usual size): the same checks as creating such a
    table (options, seat count, premium choices, stake only when earning)."""
    rules = play.table_rules(preset, options or {}, seat_count or _default_seats(preset))
    if stake < 0:
        raise exc.InvalidRequest("stake cannot be negative")
    if stake and not earning:
        raise exc.InvalidRequest("a free table has no stake")
    # The gate reads the chain: before the transaction, never inside it.
    if rules.requires_vip and not gate.is_vip(address):
        raise exc.VipRequired(
            f"options {list(rules.premium_options)} are premium: queueing for them needs a "
            "valid VIP pass"
        )
    admission = gate.admit(address, avatar_id) if earning else None
    standing.require(session, address, Door.QUEUE, amount=stake)
    if stake and stakes.stake_balance(session=session, address=address) < stake:
        session.rollback()
        raise exc.InsufficientStake(
            "your vault balance is below the stake; deposit DEW into the vault first"
        )
    waiting = session.scalar(
        select(MatchmakingTicket).where(
            MatchmakingTicket.address == address, MatchmakingTicket.status == "waiting"
        )
    )
    if waiting is not None:
        raise exc.AlreadyQueued("you are already waiting in a matchmaking queue")
    if earning:
        elsewhere = seating.holding_table(session, seating.holders(address, admission))
        if elsewhere is not None:
            raise exc.AlreadyPlaying(
                f"you already sit at earning table {elsewhere!r}: one earning table at a time"
            )
    ticket = MatchmakingTicket(
        id=uuid.uuid4().hex,
        address=address,
        preset=preset,
        options=rules.options,
        stake=str(stake),
        seat_count=seat_count,
        earning=earning,
        avatar_id=admission.avatar_id if admission else None,
        admitted_as=admission.admitted_as if admission else None,
        status="waiting",
        created_at=utcnow(),
    )
    session.add(ticket)
    try:
        session.commit()
    except IntegrityError:
        # The partial unique index: a parallel request queued this wallet first.
        session.rollback()
        raise exc.AlreadyQueued("you are already waiting in a matchmaking queue") from None
    return ticket


def _options_key(options: dict[str, Any] | None) -> str:
    """One text per set of options, whatever the key order (the queue's key)."""
    return orjson.dumps(options or {}, option=orjson.OPT_SORT_KEYS).decode()


def _default_seats(preset: str) -> int:
    counts = (
        next(p["seat_counts"] for p in play.presets() if p["preset"] == preset)
        if any(p["preset"] == preset for p in play.presets())
        else [4]
    )
    return 4 if 4 in counts else counts[-1]


def get_ticket(*, session: Session, ticket_id: str, address: str) -> MatchmakingTicket:
    ticket = session.get(MatchmakingTicket, ticket_id)
    if ticket is None or ticket.address != address:
        raise exc.TicketNotFound(f"no ticket {ticket_id!r}")
    return ticket


def cancel_ticket(*, session: Session, ticket_id: str, address: str) -> MatchmakingTicket:
    ticket = get_ticket(session=session, ticket_id=ticket_id, address=address)
    result = session.execute(
        update(MatchmakingTicket)
        .where(MatchmakingTicket.id == ticket_id, MatchmakingTicket.status == "waiting")
        .values(status="cancelled")
    )
    # An UPDATE's result is a CursorResult (Session.execute is typed for any statement).
    changed = cast("CursorResult[Any]", result).rowcount
    session.commit()
    if not changed:
        raise exc.Conflict(f"ticket is {ticket.status}, not waiting")
    session.refresh(ticket)
    return ticket


def run_matchmaking(
    *, session: Session, settings: Settings, now: datetime | None = None
) -> list[str]:
    """Seat waiting tickets at new tables: full tables at once, bots after the wait."""
    now = now or utcnow()
    wait = timedelta(seconds=settings.server.matchmaking_wait_s)
    query = (
        select(MatchmakingTicket)
        .where(MatchmakingTicket.status == "waiting")
        .order_by(MatchmakingTicket.created_at)
    )
    query = dialect.for_update(session, query, skip_locked=True)
    tickets = list(session.scalars(query))
    # Only compatible tickets meet: one queue per preset, options, earning flag, stake and size.
    queues: dict[tuple[str, str, bool, int, int], list[MatchmakingTicket]] = {}
    queued: set[str] = set()
    claimed: set[str] = set()  # the avatars this pass's earning tickets play
    for ticket in tickets:
        # One seat per wallet: a second waiting ticket (only possible from before the unique
        # index) is cancelled, so no group ever holds an address twice.
        if ticket.address in queued:
            ticket.status = "cancelled"
            continue
        queued.add(ticket.address)
        if ticket.earning:
            holders = seating.holders(ticket.address, ticket)
            if seating.holding_table(session, holders):
                continue  # seated at an earning table since it queued: it waits until that ends
            # One avatar, one earning seat: a wallet that queued with an avatar it then sold
            # or rented out, and the new holder who queued with it too, cannot both be
            # seated. The later ticket is cancelled; seating both would fail the whole pass
            # (every queue's groups) on the avatar's hold, again on every pass.
            avatars = {h for h in holders if h.startswith("avatar:")}
            if avatars & claimed:
                ticket.status = "cancelled"
                continue
            claimed |= avatars
        stake = int(ticket.stake or "0")
        if stake and stakes.stake_balance(session=session, address=ticket.address) < stake:
            # Withdrawn or escrowed elsewhere since it queued: seating it would refuse the
            # whole table's start, so the ticket ends here.
            ticket.status = "cancelled"
            continue
        try:
            # Sanctioned, on a break or past its stake limit since it queued: no seat.
            standing.require(session, ticket.address, Door.SEAT, amount=stake, now=now)
        except CareError:
            ticket.status = "cancelled"
            continue
        size = ticket.seat_count or _default_seats(ticket.preset)
        key = (ticket.preset, _options_key(ticket.options), ticket.earning, stake, size)
        queues.setdefault(key, []).append(ticket)
    formed: list[str] = []
    for (preset, options_key, earning, stake, size), waiting in queues.items():
        options = orjson.loads(options_key)
        while waiting:
            group = waiting[:size]
            oldest = group[0].created_at
            if oldest.tzinfo is None:
                oldest = oldest.replace(tzinfo=now.tzinfo)
            if len(group) < size and now - oldest < wait:
                break
            waiting = waiting[size:]
            table = seating.seated_table(
                session,
                preset=preset,
                options=play.table_rules(preset, options, size).options,
                seat_count=size,
                seats=[
                    seating.SeatSpec(
                        address=t.address, avatar_id=t.avatar_id, admitted_as=t.admitted_as
                    )
                    for t in group
                ],
                earning=earning,
                kind="human",
                visibility="private",
                bot_level=settings.server.matchmaking_bot_level,
                turn_timeout_s=_matchmade_turn_timeout(settings, earning),
                now=now,
                stake=stake,
            )
            for ticket in group:
                ticket.status = "matched"
                ticket.table_id = table.id
                MATCHMAKING_WAIT.observe(max(0.0, (now - aware(ticket.created_at)).total_seconds()))
            seating.fill_with_bots(session, table, settings.server.matchmaking_bot_level)
            seating.start_match(session, table)
            formed.append(table.id)
    session.commit()
    return formed
