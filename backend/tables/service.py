"""Tables: creation, invitations, the public lobby, joining, matchmaking, match queries.

Services take a keyword-only ``session`` and commit their own unit of work. Starting a
match (all seats filled) happens in the same transaction as the join that filled it, and so
does escrowing a staked table's entry stakes (``backend.economy.stakes``): a seat short of
its stake refuses the start (``InsufficientStake``) and nothing is written.
"""

from __future__ import annotations

import logging
import secrets
import uuid
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import delete, func, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from backend.config import Settings
from backend.db import dialect
from backend.db.base import aware, utcnow
from backend.economy import stakes
from backend.ops.metrics import MATCHMAKING_WAIT
from backend.tables import exceptions as exc
from backend.tables import play
from backend.tables.gating import Gate
from backend.tables.models import (
    EarningHold,
    Match,
    MatchmakingTicket,
    MatchResult,
    Table,
    TableInvitation,
    TableSeat,
)

log = logging.getLogger(__name__)

KINDS = ("human", "practice", "ai")
# Tables that still hold their seats: they count against their creator's cap.
LIVE_STATUSES = ("open", "playing")
AVATAR_ADMISSIONS = ("avatar_user", "avatar_owner")


@dataclass
class TableSpec:
    preset: str
    options: dict[str, Any] = field(default_factory=dict)
    seats: int = 4
    stake: int = 0
    earning: bool = False
    kind: str = "human"
    visibility: str = "public"
    bot_level: str = "medium"
    invite: list[str] = field(default_factory=list)
    avatar_id: int | None = None
    turn_timeout_s: float | None = None
    spectators_allowed: bool = True
    spectator_delay_s: float = 0.0


def get_table(*, session: Session, table_id: str, lock: bool = False) -> Table:
    """The table, or TableNotFound. ``lock`` takes its row lock (PostgreSQL) so that joins
    and starts at one table are serialized: the join that fills the last seat starts it."""
    table = session.get(Table, table_id, with_for_update=lock or None)
    if table is None:
        raise exc.TableNotFound(f"no table {table_id!r}")
    return table


def seats_of(*, session: Session, table_id: str) -> list[TableSeat]:
    return list(
        session.scalars(
            select(TableSeat).where(TableSeat.table_id == table_id).order_by(TableSeat.seat)
        )
    )


def create_table(
    *, session: Session, settings: Settings, gate: Gate, creator: str, spec: TableSpec
) -> Table:
    """Create a table; practice and AI tables are seated with bots and start at once."""
    if spec.kind not in KINDS:
        raise exc.InvalidRequest(f"kind must be one of {list(KINDS)}, not {spec.kind!r}")
    if spec.bot_level not in play.BOT_LEVELS:
        raise exc.InvalidRequest(f"bot_level must be one of {list(play.BOT_LEVELS)}")
    if spec.stake < 0:
        raise exc.InvalidRequest("stake cannot be negative")
    if spec.stake and not spec.earning:
        raise exc.InvalidRequest("a free table has no stake")
    if spec.kind == "ai" and spec.earning:
        raise exc.InvalidRequest("AI-vs-AI tables cannot be earning tables")
    turn_timeout_s = _turn_timeout(settings, spec)
    rules = play.table_rules(spec.preset, spec.options, spec.seats)
    if rules.requires_vip and not gate.is_vip(creator):
        raise exc.VipRequired(
            f"options {list(rules.premium_options)} are premium: creating this table needs a "
            "valid VIP pass (anyone may join it once invited)"
        )
    # The gate reads the chain: before the first statement of the write transaction (on
    # SQLite that statement takes the one write lock).
    admission = gate.admit(creator, spec.avatar_id) if spec.earning and spec.kind != "ai" else None
    _check_table_cap(session, settings, creator)
    table = Table(
        id=uuid.uuid4().hex,
        preset=spec.preset,
        options=rules.options,
        seat_count=spec.seats,
        stake=str(spec.stake),
        earning=spec.earning,
        kind=spec.kind,
        visibility=spec.visibility,
        invite_code=secrets.token_urlsafe(12),
        creator=creator,
        bot_level=spec.bot_level,
        turn_timeout_s=turn_timeout_s,
        spectators_allowed=spec.spectators_allowed,
        spectator_delay_s=spec.spectator_delay_s,
        status="open",
        created_at=utcnow(),
    )
    session.add(table)
    session.flush()
    for address in dict.fromkeys(spec.invite):
        session.add(TableInvitation(table_id=table.id, address=address, created_at=utcnow()))
    try:
        if spec.kind in ("practice", "ai"):
            if spec.kind == "practice":
                _seat(session, table, 0, creator, admission)
            _fill_with_bots(session, table, spec.bot_level)
            _start_match(session, table)
        elif spec.kind == "human":
            _seat(session, table, 0, creator, admission)
        session.commit()
    except IntegrityError:
        session.rollback()
        if not spec.earning:
            raise
        # A parallel request seated this wallet or avatar at another earning table first.
        raise exc.AlreadyPlaying(
            "you were just seated at another earning table: one at a time"
        ) from None
    return table


def _turn_timeout(settings: Settings, spec: TableSpec) -> float:
    """The table's turn timer: an earning or staked table's is at least the configured floor,
    since the timeout bot plays for (and finally forfeits) a human seat that runs out of it."""
    floor = settings.tables.min_earning_turn_timeout_s
    if not spec.earning:
        return spec.turn_timeout_s or settings.server.turn_timeout_s
    if spec.turn_timeout_s is None:
        return max(settings.server.turn_timeout_s, floor)
    if spec.turn_timeout_s < floor:
        raise exc.InvalidRequest(
            f"an earning or staked table's turn timer must be at least {floor:g} s, "
            f"got {spec.turn_timeout_s!r}"
        )
    return spec.turn_timeout_s


def _matchmade_turn_timeout(settings: Settings, earning: bool) -> float:
    """A matchmade table's timer: the server's, and never under the earning floor."""
    timeout = settings.server.turn_timeout_s
    return max(timeout, settings.tables.min_earning_turn_timeout_s) if earning else timeout


def _lock_wallet(session: Session, address: str) -> None:
    """Serialize one wallet's table creations until the transaction ends (PostgreSQL; SQLite
    already runs one writer at a time)."""
    dialect.lock_key(session, address)


def _check_table_cap(session: Session, settings: Settings, creator: str) -> None:
    cap = settings.tables.max_live_tables_per_wallet
    _lock_wallet(session, creator)
    live = session.scalar(
        select(func.count())
        .select_from(Table)
        .where(Table.creator == creator, Table.status.in_(LIVE_STATUSES))
    )
    if live >= cap:
        raise exc.TooManyTables(
            f"you already have {live} open or playing tables (at most {cap}); "
            "finish or leave one first"
        )


def _holders(address: str, admission: Any) -> list[str]:
    """What a seat at an earning table holds: its wallet, and the avatar it plays."""
    holders = [f"wallet:{address}"]
    avatar = getattr(admission, "avatar_id", None)
    if avatar is not None and getattr(admission, "admitted_as", None) in AVATAR_ADMISSIONS:
        holders.append(f"avatar:{avatar}")
    return holders


def _holding_table(session: Session, holders: list[str]) -> str | None:
    return session.scalar(select(EarningHold.table_id).where(EarningHold.holder.in_(holders)))


def _release_holds(session: Session, table_id: str, address: str | None = None) -> None:
    """The table's earning holds (all, or one wallet's) end: they may sit elsewhere."""
    statement = delete(EarningHold).where(EarningHold.table_id == table_id)
    if address is not None:
        statement = statement.where(EarningHold.address == address)
    session.execute(statement)


@dataclass(frozen=True)
class SeatSpec:
    """Who sits in one seat of a table seated when it is made (matchmaking, matches other
    packages start): a wallet or a bot."""

    address: str | None = None
    bot_level: str | None = None
    avatar_id: int | None = None
    admitted_as: str | None = None


def _seat(
    session: Session,
    table: Table,
    seat: int,
    address: str | None,
    admission: Any = None,
    *,
    bot_level: str | None = None,
    joined_at: datetime | None = None,
) -> None:
    """Take ``seat`` for a wallet (``admission``: anything with ``avatar_id`` and
    ``admitted_as``, a gate's Admission or a SeatSpec) or a bot (``bot_level``).

    At an earning table the wallet and its avatar are held there until the seat is left or
    the match ends: each sits at one earning table at a time (``AlreadyPlaying``)."""
    if table.earning and address is not None:
        holders = _holders(address, admission)
        elsewhere = _holding_table(session, holders)
        if elsewhere is not None:
            raise exc.AlreadyPlaying(
                f"this wallet or its avatar already sits at earning table {elsewhere!r}: "
                "one earning table at a time"
            )
        for holder in holders:
            session.add(
                EarningHold(holder=holder, table_id=table.id, address=address, created_at=utcnow())
            )
    session.add(
        TableSeat(
            table_id=table.id,
            seat=seat,
            address=address,
            bot_level=bot_level,
            avatar_id=admission.avatar_id if admission else None,
            admitted_as=admission.admitted_as if admission else None,
            joined_at=joined_at or utcnow(),
        )
    )


def _fill_with_bots(session: Session, table: Table, level: str) -> None:
    session.flush()
    taken = {s.seat for s in seats_of(session=session, table_id=table.id)}
    for seat in range(table.seat_count):
        if seat not in taken:
            _seat(session, table, seat, None, bot_level=level)


def _seated_table(
    session: Session,
    *,
    preset: str,
    options: dict[str, Any],
    seat_count: int,
    seats: list[SeatSpec],
    earning: bool,
    kind: str,
    visibility: str,
    bot_level: str,
    turn_timeout_s: float,
    now: datetime,
) -> Table:
    """An open table nobody created, free of stakes, with ``seats`` taken from seat 0 on
    (matchmaking and matches other packages start; the caller fills or starts it)."""
    table = Table(
        id=uuid.uuid4().hex,
        preset=preset,
        options=options,
        seat_count=seat_count,
        stake="0",
        earning=earning,
        kind=kind,
        visibility=visibility,
        invite_code=secrets.token_urlsafe(12),
        creator=None,
        bot_level=bot_level,
        turn_timeout_s=turn_timeout_s,
        spectators_allowed=True,
        spectator_delay_s=0.0,
        status="open",
        created_at=now,
    )
    session.add(table)
    session.flush()
    for number, spec in enumerate(seats):
        _seat(session, table, number, spec.address, spec, bot_level=spec.bot_level, joined_at=now)
    return table


def _start_match(session: Session, table: Table) -> Match:
    session.flush()
    seats = seats_of(session=session, table_id=table.id)
    seed, commitment = play.new_seed()
    match = Match(
        id=uuid.uuid4().hex,
        table_id=table.id,
        preset=table.preset,
        options=table.options,
        seats=[
            {
                "seat": s.seat,
                "address": s.address,
                "bot_level": s.bot_level,
                "avatar_id": s.avatar_id,
                "admitted_as": s.admitted_as,
            }
            for s in seats
        ],
        seed=seed,
        seed_commitment=commitment,
        status="live",
        created_at=utcnow(),
    )
    session.add(match)
    table.status = "playing"
    table.match_id = match.id
    stake = int(table.stake)
    humans = [(s.seat, s.address) for s in seats if s.address is not None]
    if table.earning and stake > 0 and humans:
        session.flush()
        try:
            stakes.escrow_stakes(session=session, match_id=match.id, seats=humans, stake=stake)
        except stakes.InsufficientStake as error:
            # Nothing of the start (nor of the join that triggered it) may remain.
            session.rollback()
            raise exc.InsufficientStake(
                f"the match cannot start: {error}; deposit DEW into the vault first"
            ) from None
    log.info("match %s started at table %s", match.id, table.id)
    return match


def lobby(*, session: Session, preset: str | None = None, limit: int = 100) -> list[Table]:
    """Public tables waiting for players, oldest first."""
    query = select(Table).where(
        Table.visibility == "public", Table.status == "open", Table.kind == "human"
    )
    if preset:
        query = query.where(Table.preset == preset)
    return list(session.scalars(query.order_by(Table.created_at).limit(limit)))


def live_tables(*, session: Session, limit: int = 100) -> list[Table]:
    """Public matches in play, for spectators."""
    query = select(Table).where(
        Table.visibility == "public", Table.status == "playing", Table.spectators_allowed
    )
    return list(session.scalars(query.order_by(Table.created_at.desc()).limit(limit)))


def invite(*, session: Session, table_id: str, by: str, addresses: list[str]) -> Table:
    table = get_table(session=session, table_id=table_id)
    if table.creator != by:
        raise exc.Forbidden("only the table's creator can invite")
    existing = set(
        session.scalars(select(TableInvitation.address).where(TableInvitation.table_id == table_id))
    )
    for address in addresses:
        if address not in existing:
            session.add(TableInvitation(table_id=table_id, address=address, created_at=utcnow()))
    session.commit()
    return table


def join_table(
    *,
    session: Session,
    gate: Gate,
    table_id: str,
    address: str,
    seat: int | None = None,
    avatar_id: int | None = None,
    invite_code: str | None = None,
) -> Table:
    """Sit ``address`` at a table; the join that fills the last seat starts the match."""
    admission = _admission_before_writing(session, gate, table_id, address, avatar_id)
    table = get_table(session=session, table_id=table_id, lock=True)
    if table.status != "open":
        raise exc.TableNotOpen(f"table {table_id!r} is {table.status}, not open")
    if table.visibility == "private" and invite_code != table.invite_code:
        invited = session.get(TableInvitation, (table_id, address))
        if invited is None:
            raise exc.NotInvited("this table is private: you need an invitation link or address")
    seats = seats_of(session=session, table_id=table_id)
    if any(s.address == address for s in seats):
        raise exc.AlreadySeated("you already have a seat at this table")
    taken = {s.seat for s in seats}
    if len(taken) >= table.seat_count:
        raise exc.TableFull("every seat is taken")
    if seat is None:
        seat = min(set(range(table.seat_count)) - taken)
    elif not 0 <= seat < table.seat_count:
        raise exc.InvalidRequest(f"seat must be 0..{table.seat_count - 1}")
    elif seat in taken:
        raise exc.SeatTaken(f"seat {seat} is taken")
    try:
        _seat(session, table, seat, address, admission)
        session.flush()
    except IntegrityError:
        session.rollback()
        if table.earning and _holding_table(session, _holders(address, admission)) is not None:
            raise exc.AlreadyPlaying(
                "you were just seated at another earning table: one at a time"
            ) from None
        raise exc.SeatTaken(f"seat {seat} was just taken") from None
    if len(taken) + 1 == table.seat_count:
        _start_match(session, table)
    session.commit()
    return table


def _admission_before_writing(
    session: Session, gate: Gate, table_id: str, address: str, avatar_id: int | None
) -> Any:
    """The gate's admission to an earning table, asked before the join's transaction: the
    gate reads the chain, and no chain call may happen while a write transaction (on SQLite
    the one write lock) is open. A table's ``earning`` never changes, so this short read
    decides it; everything else is checked again under the lock."""
    earning = session.scalar(select(Table.earning).where(Table.id == table_id))
    session.rollback()
    if earning is None:
        raise exc.TableNotFound(f"no table {table_id!r}")
    return gate.admit(address, avatar_id) if earning else None


def start_with_bots(*, session: Session, table_id: str, by: str) -> Table:
    """The creator fills the empty seats with bots and starts now."""
    table = get_table(session=session, table_id=table_id, lock=True)
    if table.creator != by:
        raise exc.Forbidden("only the table's creator can start it")
    if table.status != "open":
        raise exc.TableNotOpen(f"table {table_id!r} is {table.status}, not open")
    _fill_with_bots(session, table, table.bot_level)
    _start_match(session, table)
    session.commit()
    return table


def leave_table(*, session: Session, table_id: str, address: str) -> None:
    table = get_table(session=session, table_id=table_id, lock=True)
    if table.status != "open":
        raise exc.TableNotOpen("a match in play cannot be left; the turn timer plays for you")
    seat = session.scalar(
        select(TableSeat).where(TableSeat.table_id == table_id, TableSeat.address == address)
    )
    if seat is None:
        raise exc.NotFound("you have no seat at this table")
    session.delete(seat)
    _release_holds(session, table_id, address)
    session.flush()
    humans = [s for s in seats_of(session=session, table_id=table_id) if s.address is not None]
    if not humans:
        table.status = "cancelled"
        _release_holds(session, table_id)
    elif table.creator == address:
        # The creator's rights (invite, start with bots) end with their seat: the table
        # passes to the player seated longest, who chose its rules by joining it.
        heir = min(humans, key=lambda s: (s.joined_at, s.seat))
        table.creator = heir.address
        log.info("table %s passes from %s to %s", table_id, address, heir.address)
    session.commit()


# -- matchmaking --------------------------------------------------------------------------


def enqueue(
    *,
    session: Session,
    gate: Gate,
    address: str,
    preset: str,
    earning: bool,
    avatar_id: int | None = None,
) -> MatchmakingTicket:
    play.table_rules(preset, {}, _default_seats(preset))
    # The gate reads the chain: before the transaction, never inside it.
    admission = gate.admit(address, avatar_id) if earning else None
    waiting = session.scalar(
        select(MatchmakingTicket).where(
            MatchmakingTicket.address == address, MatchmakingTicket.status == "waiting"
        )
    )
    if waiting is not None:
        raise exc.AlreadyQueued("you are already waiting in a matchmaking queue")
    if earning:
        elsewhere = _holding_table(session, _holders(address, admission))
        if elsewhere is not None:
            raise exc.AlreadyPlaying(
                f"you already sit at earning table {elsewhere!r}: one earning table at a time"
            )
    ticket = MatchmakingTicket(
        id=uuid.uuid4().hex,
        address=address,
        preset=preset,
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
    changed = session.execute(
        update(MatchmakingTicket)
        .where(MatchmakingTicket.id == ticket_id, MatchmakingTicket.status == "waiting")
        .values(status="cancelled")
    ).rowcount
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
    queues: dict[tuple[str, bool], list[MatchmakingTicket]] = {}
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
            holders = _holders(ticket.address, ticket)
            if _holding_table(session, holders):
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
        queues.setdefault((ticket.preset, ticket.earning), []).append(ticket)
    formed: list[str] = []
    for (preset, earning), waiting in queues.items():
        size = _default_seats(preset)
        while waiting:
            group = waiting[:size]
            oldest = group[0].created_at
            if oldest.tzinfo is None:
                oldest = oldest.replace(tzinfo=now.tzinfo)
            if len(group) < size and now - oldest < wait:
                break
            waiting = waiting[size:]
            table = _seated_table(
                session,
                preset=preset,
                options=play.table_rules(preset, {}, size).options,
                seat_count=size,
                seats=[
                    SeatSpec(address=t.address, avatar_id=t.avatar_id, admitted_as=t.admitted_as)
                    for t in group
                ],
                earning=earning,
                kind="human",
                visibility="private",
                bot_level=settings.server.matchmaking_bot_level,
                turn_timeout_s=_matchmade_turn_timeout(settings, earning),
                now=now,
            )
            for ticket in group:
                ticket.status = "matched"
                ticket.table_id = table.id
                MATCHMAKING_WAIT.observe(max(0.0, (now - aware(ticket.created_at)).total_seconds()))
            _fill_with_bots(session, table, settings.server.matchmaking_bot_level)
            _start_match(session, table)
            formed.append(table.id)
    session.commit()
    return formed


# -- matches and results ------------------------------------------------------------------


def get_match(*, session: Session, match_id: str) -> Match:
    match = session.get(Match, match_id)
    if match is None:
        raise exc.MatchNotFound(f"no match {match_id!r}")
    return match


def results_for(
    *, session: Session, address: str | None = None, avatar_id: int | None = None, limit: int = 50
) -> list[MatchResult]:
    if address is None and avatar_id is None:
        raise exc.InvalidRequest("give an address or an avatar id")
    query = select(MatchResult)
    conditions = []
    if address is not None:
        conditions.append(MatchResult.address == address)
    if avatar_id is not None:
        conditions.append(MatchResult.avatar_id == avatar_id)
    query = query.where(or_(*conditions)).order_by(MatchResult.finished_at.desc()).limit(limit)
    return list(session.scalars(query))


def abandon_match(*, session: Session, match_id: str, reason: str) -> int:
    """End a live match without a result (an operator's decision, e.g. a corrupt position):
    no record, no results, no settlement request, and every escrowed stake goes back to its
    wallet in the same transaction. Returns the stake released (DEW wei)."""
    match = session.get(Match, match_id, with_for_update=True)
    if match is None:
        raise exc.MatchNotFound(f"no match {match_id!r}")
    if match.status != "live":
        raise exc.MatchNotLive(f"match {match_id!r} is {match.status}, not live")
    match.status = "abandoned"
    match.finished_at = utcnow()
    match.result = {"abandoned": reason}
    table = session.get(Table, match.table_id, with_for_update=True)
    if table is not None and table.match_id == match_id:
        table.status = "abandoned"
    _release_holds(session, match.table_id)
    released = stakes.release_stakes(session=session, match_id=match_id)
    session.commit()
    log.warning(
        "match %s abandoned (%s); %d DEW wei of stakes released", match_id, reason, released
    )
    return released


def count_live_matches(*, session: Session) -> int:
    return session.scalar(select(func.count()).select_from(Match).where(Match.status == "live"))


# -- matches started by others (competitions) ---------------------------------------------


def create_seated_match(
    *,
    session: Session,
    preset: str,
    options: dict[str, Any],
    seats: list[SeatSpec],
    turn_timeout_s: float,
    bot_level: str = "medium",
    kind: str = "tournament",
) -> Table:
    """A table with every seat already taken and its match started: a normal server match
    (same records, replay and settlement outbox), free of stakes and emission. It does not
    commit: the caller's transaction (a tournament round) decides, all or nothing."""
    rules = play.table_rules(preset, options, len(seats))
    for spec in seats:
        if (spec.address is None) == (spec.bot_level is None):
            raise exc.InvalidRequest(f"a seat is a wallet or a bot, not both or neither: {spec}")
        if spec.bot_level is not None and spec.bot_level not in play.BOT_LEVELS:
            raise exc.InvalidRequest(f"bot_level must be one of {list(play.BOT_LEVELS)}")
    table = _seated_table(
        session,
        preset=preset,
        options=rules.options,
        seat_count=len(seats),
        seats=seats,
        earning=False,
        kind=kind,
        visibility="public",
        bot_level=bot_level,
        turn_timeout_s=turn_timeout_s,
        now=utcnow(),
    )
    _start_match(session, table)
    session.flush()
    return table
