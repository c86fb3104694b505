"""Tables: creation, invitations, the public lobby, joining and leaving, match queries.

Matchmaking is ``backend.tables.matchmaking``; taking seats and starting matches, which
both share, is ``backend.tables.seating``.

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
from typing import Any

from sqlalchemy import ColumnElement, func, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from backend.care import standing
from backend.care.standing import Door
from backend.centers import service as centers
from backend.config import Settings
from backend.db import dialect
from backend.db.base import utcnow
from backend.economy import stakes
from backend.friends import exceptions as friends_exc
from backend.friends import service as friends
from backend.tables import exceptions as exc
from backend.tables import play, seating
from backend.tables.gating import Gate
from backend.tables.models import (
    Match,
    MatchResult,
    Table,
    TableInvitation,
    TableSeat,
)

# Part of this module's API: the routers list a table's seats, and competitions seat their
# rounds (``create_seated_match``), through here.
from backend.tables.seating import SeatSpec as SeatSpec
from backend.tables.seating import seats_of as seats_of

log = logging.getLogger(__name__)

# same_device: seed 004's two players taking turns on one device, the signed-in wallet in
# both seats (a practice table: nothing earned, nothing staked).
KINDS = ("human", "practice", "ai", "same_device")
SAME_DEVICE_SEATS = 2
# Tables that still hold their seats: they count against their creator's cap.
LIVE_STATUSES = ("open", "playing")


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
    # One level per seat (seat 0 first); a human's seat ignores its entry.
    bot_levels: list[str] | None = None
    invite: list[str] = field(default_factory=list)
    avatar_id: int | None = None
    turn_timeout_s: float | None = None
    spectators_allowed: bool = True
    spectator_delay_s: float = 0.0
    # A table opened by a Game Center's host under the center (``backend.centers``): a
    # human table its host does not sit at, counted against the center's capacity instead
    # of the host's own cap.
    center_id: int | None = None


def get_table(*, session: Session, table_id: str, lock: bool = False) -> Table:
    """The table, or TableNotFound. ``lock`` takes its row lock (PostgreSQL) so that joins
    and starts at one table are serialized: the join that fills the last seat starts it."""
    table = session.get(Table, table_id, with_for_update=lock or None)
    if table is None:
        raise exc.TableNotFound(f"no table {table_id!r}")
    return table


def create_table(
    *, session: Session, settings: Settings, gate: Gate, creator: str, spec: TableSpec
) -> Table:
    """Create a table; practice and AI tables are seated with bots and start at once."""
    if spec.kind not in KINDS:
        raise exc.InvalidRequest(f"kind must be one of {list(KINDS)}, not {spec.kind!r}")
    _check_bot_levels(spec)
    if spec.stake < 0:
        raise exc.InvalidRequest("stake cannot be negative")
    if spec.stake and not spec.earning:
        raise exc.InvalidRequest("a free table has no stake")
    if spec.stake and spec.kind != "human":
        raise exc.InvalidRequest(
            f"a {spec.kind} table has no stake: only tables of human players are staked"
        )
    if spec.kind == "ai" and spec.earning:
        raise exc.InvalidRequest("AI-vs-AI tables cannot be earning tables")
    if spec.kind == "same_device":
        _check_same_device(spec)
    turn_timeout_s = _turn_timeout(settings, spec)
    rules = play.table_rules(spec.preset, spec.options, spec.seats)
    if rules.requires_vip and not gate.is_vip(creator):
        raise exc.VipRequired(
            f"options {list(rules.premium_options)} are premium: creating this table needs a "
            "valid VIP pass (anyone may join it once invited)"
        )
    # The gate reads the chain: before the first statement of the write transaction (on
    # SQLite that statement takes the one write lock).
    hosted = spec.center_id is not None
    if hosted and spec.kind != "human":
        raise exc.InvalidRequest(f"a center hosts tables of human players, not {spec.kind!r}")
    seated = spec.earning and spec.kind != "ai" and not hosted
    admission = gate.admit(creator, spec.avatar_id) if seated else None
    # The one gate: a sanction, a break or a stake limit of the creator's keeps it out.
    standing.require(session, creator, Door.SEAT, amount=0 if hosted else spec.stake)
    if spec.center_id is not None:
        _check_center_capacity(session, creator, spec.center_id)
    else:
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
        bot_levels=list(spec.bot_levels) if spec.bot_levels else None,
        turn_timeout_s=turn_timeout_s,
        spectators_allowed=spec.spectators_allowed,
        spectator_delay_s=spec.spectator_delay_s,
        status="open",
        center_id=spec.center_id,
        created_at=utcnow(),
    )
    _check_reachable(session, creator, spec.invite)
    session.add(table)
    session.flush()
    for address in dict.fromkeys(spec.invite):
        session.add(TableInvitation(table_id=table.id, address=address, created_at=utcnow()))
    try:
        if spec.kind in ("practice", "ai"):
            if spec.kind == "practice":
                seating.take_seat(session, table, 0, creator, admission)
            seating.fill_with_bots(session, table, spec.bot_level)
            seating.start_match(session, table)
        elif spec.kind == "same_device":
            # The one-seat-per-wallet rule (join_table) holds for every other kind of table.
            for seat in range(SAME_DEVICE_SEATS):
                seating.take_seat(session, table, seat, creator)
            seating.start_match(session, table)
        elif spec.kind == "human" and not hosted:
            seating.take_seat(session, table, 0, creator, admission)
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


def _check_bot_levels(spec: TableSpec) -> None:
    levels = [spec.bot_level, *(spec.bot_levels or [])]
    bad = [level for level in levels if level not in play.BOT_LEVELS]
    if bad:
        raise exc.InvalidRequest(f"bot level {bad[0]!r} is not one of {list(play.BOT_LEVELS)}")
    if spec.bot_levels is not None and len(spec.bot_levels) != spec.seats:
        raise exc.InvalidRequest(
            f"bot_levels names one level per seat: {spec.seats} seats, "
            f"got {len(spec.bot_levels)} levels"
        )


def _check_same_device(spec: TableSpec) -> None:
    """Seed 004's same-device mode: two players, one device, nothing at stake."""
    if spec.seats != SAME_DEVICE_SEATS:
        raise exc.InvalidRequest(
            f"a same-device table has {SAME_DEVICE_SEATS} seats, not {spec.seats}"
        )
    if spec.earning:
        raise exc.InvalidRequest("a same-device table cannot be an earning table")


def _turn_timeout(settings: Settings, spec: TableSpec) -> float:
    """The table's turn timer: an earning or staked table's is at least the floor."""
    return turn_timeout(settings, spec.turn_timeout_s, at_stake=spec.earning)


def turn_timeout(settings: Settings, requested: float | None, *, at_stake: bool) -> float:
    """The turn timer of a match, for every path that makes one (tables, matchmaking,
    tournaments): ``requested`` (None: the server's default) within the server's bounds
    (DEW_TABLES_MIN/MAX_TURN_TIMEOUT_S). Where money or rank is at stake (``at_stake``: an
    earning or staked table, any tournament) it is at least the floor
    DEW_TABLES_MIN_EARNING_TURN_TIMEOUT_S, since the timeout bot plays for (and finally
    forfeits) a human seat that runs out of it; a lower request is refused."""
    low, high = settings.tables.min_turn_timeout_s, settings.tables.max_turn_timeout_s
    if requested is not None and not low <= requested <= high:
        raise exc.InvalidRequest(
            f"the turn timer must be between {low:g} s and {high:g} s, got {requested!r}"
        )
    default = settings.server.turn_timeout_s
    floor = settings.tables.min_earning_turn_timeout_s
    if not at_stake:
        return requested or default
    if requested is None:
        return max(default, floor)
    if requested < floor:
        raise exc.InvalidRequest(
            f"where DEW or rank is at stake (an earning or staked table, a tournament) the "
            f"turn timer must be at least {floor:g} s, got {requested!r}"
        )
    return requested


def _lock_wallet(session: Session, address: str) -> None:
    """Serialize one wallet's table creations until the transaction ends (PostgreSQL; SQLite
    already runs one writer at a time)."""
    dialect.lock_key(session, address)


def _live_tables(session: Session, which: ColumnElement[bool]) -> int:
    """How many open or playing tables meet ``which``."""
    return (
        session.scalar(
            select(func.count()).select_from(Table).where(which, Table.status.in_(LIVE_STATUSES))
        )
        or 0
    )


def _check_table_cap(session: Session, settings: Settings, creator: str) -> None:
    cap = settings.tables.max_live_tables_per_wallet
    _lock_wallet(session, creator)
    live = _live_tables(session, Table.creator == creator)
    if live >= cap:
        raise exc.TooManyTables(
            f"you already have {live} open or playing tables (at most {cap}); "
            "finish or leave one first"
        )


def _check_center_capacity(session: Session, host: str, center_id: int) -> None:
    """The caller must host the center now, and the center must have a free table slot.
    ``require_host`` locks the center's row first, so two openings cannot both see the
    last free slot."""
    center = centers.require_host(session=session, center_id=center_id, wallet=host, at=utcnow())
    live = _live_tables(session, Table.center_id == center_id)
    if live >= center.capacity:
        raise exc.CenterFull(
            f"center {center_id} already hosts {live} open or playing tables "
            f"(its capacity is {center.capacity}); wait until one finishes"
        )


def open_at_center(*, session: Session, center_id: int, limit: int = 100) -> list[Table]:
    """A center's tables still waiting for players, oldest first."""
    query = select(Table).where(
        Table.center_id == center_id, Table.status == "open", Table.visibility == "public"
    )
    return list(session.scalars(query.order_by(Table.created_at).limit(limit)))


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


def _check_reachable(session: Session, by: str, addresses: list[str]) -> None:
    """Refuse to invite a wallet that blocked ``by`` or that ``by`` blocked."""
    if friends.blocked_with(session, by).intersection(addresses):
        raise friends_exc.NotReachable("you cannot reach this player")


def invite(*, session: Session, table_id: str, by: str, addresses: list[str]) -> Table:
    table = get_table(session=session, table_id=table_id)
    if table.creator != by:
        raise exc.Forbidden("only the table's creator can invite")
    _check_reachable(session, by, addresses)
    existing = set(
        session.scalars(select(TableInvitation.address).where(TableInvitation.table_id == table_id))
    )
    for address in addresses:
        if address not in existing:
            session.add(TableInvitation(table_id=table_id, address=address, created_at=utcnow()))
    session.commit()
    return table


def visible_table(
    *, session: Session, table_id: str, viewer: str, invite_code: str | None = None
) -> Table:
    """The table as ``viewer`` may see it: a private table is shown to its creator, its
    seated and invited wallets and the holder of its invite link; anyone else is answered
    as if it did not exist (TableNotFound), so its seats, creator and options stay private."""
    table = get_table(session=session, table_id=table_id)
    if table.visibility != "private" or viewer == table.creator:
        return table
    if invite_code is not None and secrets.compare_digest(
        invite_code.encode(), table.invite_code.encode()
    ):
        return table
    if session.get(TableInvitation, (table_id, viewer)) is not None:
        return table
    seated = session.scalar(
        select(TableSeat.seat).where(TableSeat.table_id == table_id, TableSeat.address == viewer)
    )
    if seated is not None:
        return table
    raise exc.TableNotFound(f"no table {table_id!r}")


def join_table(
    *,
    session: Session,
    settings: Settings,
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
    # Under the table's lock, then the wallet's: the stake limit counts this seat's hold.
    standing.require(session, address, Door.SEAT, amount=int(table.stake))
    if table.visibility == "private" and invite_code != table.invite_code:
        invited = session.get(TableInvitation, (table_id, address))
        if invited is None:
            raise exc.NotInvited("this table is private: you need an invitation link or address")
    if table.center_id is not None:
        _check_not_host(session, table, address)
    seats = seats_of(session=session, table_id=table_id)
    if any(s.address == address for s in seats):
        raise exc.AlreadySeated("you already have a seat at this table")
    if table.creator != address:
        _check_seat_cap(session, settings, address)
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
        seating.take_seat(session, table, seat, address, admission)
        session.flush()
    except IntegrityError:
        session.rollback()
        if (
            table.earning
            and seating.holding_table(session, seating.holders(address, admission)) is not None
        ):
            raise exc.AlreadyPlaying(
                "you were just seated at another earning table: one at a time"
            ) from None
        raise exc.SeatTaken(f"seat {seat} was just taken") from None
    if len(taken) + 1 == table.seat_count:
        seating.start_match(session, table)
    session.commit()
    return table


def _check_not_host(session: Session, table: Table, address: str) -> None:
    """A center table is one its host does not sit at: the host is paid the center's share
    of it, and would otherwise play at (and fill) the tables it opens for visitors."""
    assert table.center_id is not None
    center = centers.get_center(session=session, center_id=table.center_id)
    hosts = {table.creator or "", centers.host_of(center, utcnow())}
    if address.lower() in {host.lower() for host in hosts}:
        raise exc.Forbidden(
            f"the host of center {table.center_id} does not sit at the center's tables"
        )


def _check_seat_cap(session: Session, settings: Settings, address: str) -> None:
    """At most ``max_seats_at_others_tables_per_wallet`` seats at open or playing tables the
    wallet did not create, counted under the wallet's lock (the one table creations take)."""
    cap = settings.tables.max_seats_at_others_tables_per_wallet
    _lock_wallet(session, address)
    seated = (
        session.scalar(
            select(func.count())
            .select_from(TableSeat)
            .join(Table, Table.id == TableSeat.table_id)
            .where(
                TableSeat.address == address,
                Table.status.in_(LIVE_STATUSES),
                or_(Table.creator.is_(None), Table.creator != address),
            )
        )
        or 0
    )
    if seated >= cap:
        raise exc.TooManyTables(
            f"you already sit at {seated} open or playing tables of other players (at most "
            f"{cap}); finish or leave one first"
        )


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
    seating.fill_with_bots(session, table, table.bot_level)
    seating.start_match(session, table)
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
    seating.release_holds(session, table_id, address)
    session.flush()
    humans = [s for s in seats_of(session=session, table_id=table_id) if s.address is not None]
    if not humans:
        table.status = "cancelled"
        seating.release_holds(session, table_id)
    elif table.creator == address:
        # The creator's rights (invite, start with bots) end with their seat: the table
        # passes to the player seated longest, who chose its rules by joining it.
        heir = min(humans, key=lambda s: (s.joined_at, s.seat))
        table.creator = heir.address
        log.info("table %s passes from %s to %s", table_id, address, heir.address)
    session.commit()


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


def move_results(*, session: Session, from_address: str, to_address: str) -> int:
    """Give ``to_address`` the results kept under ``from_address`` (a guest's history, taken
    over by the wallet that signs in from its browser). Not committed; returns the rows moved."""
    moved = session.execute(
        update(MatchResult)
        .where(MatchResult.address == from_address)
        .values(address=to_address)
        .execution_options(synchronize_session=False)
    )
    return int(getattr(moved, "rowcount", 0) or 0)


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
    seating.release_holds(session, match.table_id)
    released = stakes.release_stakes(session=session, match_id=match_id)
    session.commit()
    log.warning(
        "match %s abandoned (%s); %d DEW wei of stakes released", match_id, reason, released
    )
    return released


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
    table = seating.seated_table(
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
    seating.start_match(session, table)
    session.flush()
    return table
