"""Tournaments: creation, queries, entry rules and fees, cancellation, standings and the
views the API and the watchers show. Rounds, prizes and qualification are
``backend.competitions.rounds``.

Services take keyword-only ``session`` and commit their own unit of work (as ``tables``
does).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from eth_utils.address import is_address, to_checksum_address
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from backend.care import standing
from backend.care.standing import Door
from backend.chain import outbox
from backend.competitions import exceptions as exc
from backend.competitions import pairing
from backend.competitions.models import (
    FORMATS,
    TIERS,
    Entrant,
    Game,
    GameStatus,
    Tournament,
    TournamentStatus,
    escrow_key,
)
from backend.config import Settings, get_settings
from backend.db.base import aware, utcnow
from backend.economy import reports, stakes
from backend.economy.exceptions import EconomyError
from backend.economy.fees.schedule import FeeSchedule
from backend.economy.models import Season, StakeEntry
from backend.economy.policy import MAX_PAYOUT_AMOUNT
from backend.kit.rows import columns
from backend.kit.text import clean_text
from backend.tables import play
from backend.tables import service as tables
from backend.tables.exceptions import TablesError
from backend.tables.gating import Gate

log = logging.getLogger(__name__)

# One settle entry holds the prizes (one payout each) and the fee: a payout short of the
# outbox's limit per match.
MAX_PRIZE_PLACES = outbox.MAX_PAYOUTS_PER_MATCH - 1
# The tier a tournament's qualifiers come from.
FEEDER = {"campeonato": None, "campeonisimo": "campeonato", "supercampeones": "campeonisimo"}


@dataclass
class TournamentSpec:
    name: str
    preset: str
    tier: str = "campeonato"
    format: str = "swiss"
    options: dict[str, Any] = field(default_factory=dict)
    season_id: int | None = None
    entry_fee: int = 0
    added_prize: int = 0
    fee_bps: int = 0
    prize_bps: list[int] = field(default_factory=lambda: [5000, 3000, 2000])
    qualify_top: int = 0
    qualifier_of: int | None = None
    max_rank: int | None = None
    requires_vip: bool = False
    requires_avatar: bool = False
    min_entrants: int = 4
    max_entrants: int = 64
    starts_at: datetime | None = None
    round_every_s: float = 0.0
    turn_timeout_s: float = 30.0
    bot_level: str = "medium"
    # The Game Center it is run at (``backend.competitions.hosting`` checks its host).
    center_id: int | None = None


def match_seats(preset: str, options: dict[str, Any]) -> int:
    """Tournament games are one entrant against one: 2 seats where the preset allows it,
    else 4 (a team game), each entrant partnered by a bot."""
    last: TablesError | None = None
    for seats in (2, 4):
        try:
            play.table_rules(preset, options, seats)
            return seats
        except TablesError as error:
            last = error
    raise exc.InvalidTournament(f"preset {preset!r} with these options: {last}")


def settlement_limit(contracts: Any) -> int:
    """The most one match's settlement may pay out of the vault, read from the chain:
    ``MatchSettlement.limits()``'s per-match limit, or its per-window limit if lower."""
    period_limit, max_per_match, _period, _matches = contracts.settlement.functions.limits().call()
    return min(int(period_limit), int(max_per_match))


def create_tournament(
    *,
    session: Session,
    spec: TournamentSpec,
    created_by: str | None = None,
    settlement_limit: int | None = None,
    max_fee_bps: int | None = None,
    settings: Settings | None = None,
) -> Tournament:
    """Create a tournament open for registration; its added prize is charged to the season's
    emission budget now (given back if it is cancelled).

    Its turn timer is held to the floor of every match where DEW or rank is at stake
    (``backend.tables.service.turn_timeout``; ``settings``: the deployment's when None).

    ``settlement_limit`` (``settlement_limit(contracts)``, read from the chain) refuses a
    tournament whose full prize pool the vault would never let one settlement pay;
    ``max_fee_bps`` is the fee schedule's bound on its fee (``DEW_FEES_TOURNAMENT_MAX_BPS``)."""
    if isinstance(spec.name, str):  # a center's host names its Campeonatos: free text
        spec = replace(spec, name=clean_text(spec.name))
    if not spec.name or len(spec.name) > 64:
        raise exc.InvalidTournament(f"name must be 1..64 characters, got {spec.name!r}")
    if spec.tier not in TIERS:
        raise exc.InvalidTournament(f"tier must be one of {list(TIERS)}, not {spec.tier!r}")
    if spec.format not in FORMATS:
        raise exc.InvalidTournament(f"format must be one of {list(FORMATS)}, not {spec.format!r}")
    known = [p["preset"] for p in play.presets()]
    if spec.preset not in known:
        raise exc.InvalidTournament(f"no preset {spec.preset!r}; presets: {sorted(known)}")
    seats = match_seats(spec.preset, spec.options)
    options = play.table_rules(spec.preset, spec.options, seats).options
    if spec.bot_level not in play.BOT_LEVELS:
        raise exc.InvalidTournament(f"bot_level must be one of {list(play.BOT_LEVELS)}")
    for name in ("entry_fee", "added_prize"):
        value = getattr(spec, name)
        if not isinstance(value, int) or not 0 <= value <= MAX_PAYOUT_AMOUNT:
            raise exc.InvalidTournament(f"{name} must be an integer 0..2**88-1, got {value!r}")
    # The fee schedule's bound (DEW_FEES_TOURNAMENT_MAX_BPS; the schedule's default without one).
    bound = FeeSchedule().tournament_max_bps if max_fee_bps is None else max_fee_bps
    if not isinstance(spec.fee_bps, int) or not 0 <= spec.fee_bps <= bound:
        raise exc.InvalidTournament(f"fee_bps must be 0..{bound}, got {spec.fee_bps!r}")
    if len(spec.prize_bps) > MAX_PRIZE_PLACES:
        raise exc.InvalidTournament(
            f"at most {MAX_PRIZE_PLACES} prize places (one settle entry holds "
            f"{outbox.MAX_PAYOUTS_PER_MATCH} payouts, one is the fee), got {len(spec.prize_bps)}"
        )
    try:
        pairing.prize_shares(0, spec.prize_bps, len(spec.prize_bps))
    except pairing.PairingError as error:
        raise exc.InvalidTournament(str(error)) from None
    if not 2 <= spec.min_entrants <= spec.max_entrants <= 4096:
        raise exc.InvalidTournament(
            f"need 2 <= min_entrants <= max_entrants <= 4096, got "
            f"{spec.min_entrants}..{spec.max_entrants}"
        )
    pool = spec.max_entrants * spec.entry_fee + spec.added_prize
    if pool > MAX_PAYOUT_AMOUNT:
        # A full tournament's pool may all go to one prize: the contract pays at most
        # 2**88-1 per payout, so a bigger pool would only fail when the tournament finishes.
        raise exc.InvalidTournament(
            f"the prize pool of a full tournament (max_entrants * entry_fee + added_prize = "
            f"{pool}) exceeds the largest payout the contract makes ({MAX_PAYOUT_AMOUNT})"
        )
    if settlement_limit is not None and pool > settlement_limit:
        # The prizes are paid in one settlement entry: above the vault's limit it would wait
        # forever (only raising the limit on chain frees it), so refuse it now.
        raise exc.InvalidTournament(
            f"the prize pool of a full tournament (max_entrants * entry_fee + added_prize = "
            f"{pool} DEW wei) exceeds what the vault pays per match ({settlement_limit}): "
            "lower max_entrants or the fees, or raise MatchSettlement's limits"
        )
    if not 0 <= spec.qualify_top <= spec.min_entrants:
        raise exc.InvalidTournament(f"qualify_top must be 0..min_entrants, got {spec.qualify_top}")
    if not 0 <= spec.round_every_s <= 7 * 86400:
        raise exc.InvalidTournament("round_every_s must be 0..604800")
    try:
        # A tournament's places are rank (and its prizes money): never a timer a human
        # seat cannot answer in before the timeout bot plays, then forfeits, for it.
        turn_timeout_s = tables.turn_timeout(
            settings or get_settings(), spec.turn_timeout_s, at_stake=True
        )
    except TablesError as error:
        raise exc.InvalidTournament(str(error)) from None
    feeder_tier = FEEDER[spec.tier]
    if feeder_tier is None and spec.qualifier_of is not None:
        raise exc.InvalidTournament("a Campeonato is open: it has no qualifying tournament")
    if feeder_tier is not None:
        feeder = session.get(Tournament, spec.qualifier_of) if spec.qualifier_of else None
        if feeder is None or feeder.tier != feeder_tier:
            raise exc.InvalidTournament(
                f"a {spec.tier} takes the qualifiers of a {feeder_tier}: give its id "
                f"as qualifier_of (got {spec.qualifier_of!r})"
            )
    if spec.max_rank is not None and (spec.season_id is None or spec.max_rank < 1):
        raise exc.InvalidTournament("max_rank needs a season_id and must be >= 1")
    season = None
    if spec.season_id is not None:
        season = session.get(Season, spec.season_id, with_for_update=True)
        if season is None:
            raise exc.InvalidTournament(f"no season with id {spec.season_id!r}")
    if spec.added_prize:
        if season is None:
            raise exc.InvalidTournament("an added prize is paid from a season's emission budget")
        left = int(season.emission_budget) - int(season.emitted)
        if left < spec.added_prize:
            raise exc.InvalidTournament(
                f"season {season.name!r} has {left} DEW wei of budget left, "
                f"the added prize is {spec.added_prize}"
            )
        season.emitted = str(int(season.emitted) + spec.added_prize)
    if session.scalar(select(Tournament.id).where(Tournament.name == spec.name)) is not None:
        raise exc.InvalidTournament(f"a tournament is already named {spec.name!r}")
    starts_at = spec.starts_at or utcnow() + timedelta(hours=1)
    if starts_at.tzinfo is None:
        raise exc.InvalidTournament("starts_at must be timezone-aware")
    tournament = Tournament(
        **columns(
            spec,
            "name tier format preset season_id fee_bps qualify_top qualifier_of max_rank"
            " requires_vip requires_avatar min_entrants max_entrants round_every_s bot_level"
            " center_id",
            options=options,
            entry_fee=str(spec.entry_fee),
            added_prize=str(spec.added_prize),
            prize_bps=list(spec.prize_bps),
            starts_at=starts_at,
            turn_timeout_s=turn_timeout_s,
        ),
        status=TournamentStatus.REGISTERING,
        created_by=created_by,
        created_at=utcnow(),
    )
    session.add(tournament)
    session.commit()
    return tournament


def get_tournament(*, session: Session, tournament_id: int, lock: bool = False) -> Tournament:
    tournament = session.get(Tournament, tournament_id, with_for_update=lock or None)
    if tournament is None:
        raise exc.TournamentNotFound(f"no tournament {tournament_id!r}")
    return tournament


def list_tournaments(
    *, session: Session, status: str | None = None, limit: int = 100
) -> list[Tournament]:
    query = select(Tournament)
    if status:
        query = query.where(Tournament.status == status)
    return list(session.scalars(query.order_by(Tournament.id.desc()).limit(limit)))


def entrants_of(*, session: Session, tournament_id: int) -> list[Entrant]:
    return list(
        session.scalars(
            select(Entrant).where(Entrant.tournament_id == tournament_id).order_by(Entrant.number)
        )
    )


def games_of(*, session: Session, tournament_id: int) -> list[Game]:
    return list(
        session.scalars(
            select(Game).where(Game.tournament_id == tournament_id).order_by(Game.round, Game.board)
        )
    )


# --- registration ---------------------------------------------------------------------------


def _open_for_entry(session: Session, tournament_id: int) -> tuple[Tournament, int]:
    t = get_tournament(session=session, tournament_id=tournament_id, lock=True)
    if t.status != TournamentStatus.REGISTERING or utcnow() >= aware(t.starts_at):
        raise exc.RegistrationClosed(f"tournament {t.name!r} is not taking entries ({t.status})")
    count = (
        session.scalar(
            select(func.count()).select_from(Entrant).where(Entrant.tournament_id == t.id)
        )
        or 0
    )
    if count >= t.max_entrants:
        raise exc.TournamentFull(f"tournament {t.name!r} is full ({t.max_entrants} entrants)")
    return t, count


def _gate_rules(
    gate: Gate | None,
    requires_vip: bool,
    requires_avatar: bool,
    address: str,
    avatar_id: int | None,
) -> tuple[int | None, str | None]:
    """The entry rules read on chain; returns the avatar and how its player was admitted.
    Asked before registration's transaction: no chain call while a write transaction (on
    SQLite the one write lock) is open."""
    admitted_as: str | None = None
    if avatar_id is not None or requires_avatar or requires_vip:
        if gate is None:
            raise exc.NotEligible("entry rules need the chain, which is not configured")
        if requires_vip and not gate.is_vip(address):
            raise exc.NotEligible("this tournament needs a valid VIP pass")
        if avatar_id is not None or requires_avatar:
            admission = gate.admit(address, avatar_id)  # raises the tables' NotEligible
            if requires_avatar and admission.avatar_id is None:
                raise exc.NotEligible("this tournament is played with an avatar you own or rent")
            avatar_id, admitted_as = admission.avatar_id, admission.admitted_as
    return avatar_id, admitted_as


def _check_rules(session: Session, t: Tournament, address: str) -> None:
    """Apply the entry rules kept in the database (qualification, season rank)."""
    if t.qualifier_of is not None:
        qualified = session.scalar(
            select(Entrant.number).where(
                Entrant.tournament_id == t.qualifier_of,
                Entrant.address == address,
                Entrant.qualified.is_(True),
            )
        )
        if qualified is None:
            raise exc.NotEligible(
                f"{address} did not qualify in tournament {t.qualifier_of} for this {t.tier}"
            )
    if t.max_rank is not None:
        assert t.season_id is not None
        board = reports.season_leaderboard(session=session, season_id=t.season_id, limit=t.max_rank)
        if all(row["address"] != address for row in board):
            raise exc.NotEligible(f"{address} is not in the top {t.max_rank} of the season")


def register(
    *,
    session: Session,
    gate: Gate | None,
    tournament_id: int,
    address: str,
    avatar_id: int | None = None,
) -> Entrant:
    """Enter a wallet: the entry rules, then its entry fee taken from its stake balance into
    the tournament's escrow, in one transaction (short of DEW: nothing is written)."""
    if not isinstance(address, str) or not is_address(address):
        raise exc.InvalidTournament(f"not an address: {address!r}")
    address = to_checksum_address(address)
    # Whether the chain must be asked is fixed at creation: read it, end that read, ask.
    peek = get_tournament(session=session, tournament_id=tournament_id)
    requires_vip, requires_avatar = peek.requires_vip, peek.requires_avatar
    session.rollback()
    avatar, admitted_as = _gate_rules(gate, requires_vip, requires_avatar, address, avatar_id)
    t, count = _open_for_entry(session, tournament_id)
    existing = session.scalar(
        select(Entrant).where(Entrant.tournament_id == t.id, Entrant.address == address)
    )
    if existing is not None:
        raise exc.AlreadyRegistered(f"{address} is already entered in {t.name!r}")
    _check_rules(session, t, address)
    fee = int(t.entry_fee)
    # Under the tournament's lock, then the wallet's: the stake limit counts this fee.
    standing.require(session, address, Door.ENTRY, amount=fee)
    number = _next_number(session, t)
    entrant = Entrant(
        tournament_id=t.id,
        number=number,
        address=address,
        avatar_id=avatar,
        admitted_as=admitted_as,
        fee_paid=str(fee),
        registered_at=utcnow(),
    )
    session.add(entrant)
    session.flush()
    if fee:
        try:
            stakes.escrow_stakes(
                session=session, match_id=escrow_key(t.id), seats=[(number, address)], stake=fee
            )
        except stakes.InsufficientStake as error:
            session.rollback()
            raise exc.InsufficientFunds(
                f"{error}; deposit DEW into the vault to pay the entry fee"
            ) from None
    t.version += 1
    session.commit()
    log.info("%s entered tournament %s as #%d (count %d)", address, t.id, number, count + 1)
    return entrant


def _next_number(session: Session, t: Tournament) -> int:
    """The next entrant number: past every entrant's and every entry fee's ever escrowed, so
    the number of an entrant who left (its escrow and refund entries stay, one per number)
    is never given again."""
    key = escrow_key(t.id)
    entrants = session.scalar(select(func.max(Entrant.number)).where(Entrant.tournament_id == t.id))
    fees = session.scalar(select(func.max(StakeEntry.seat)).where(StakeEntry.match_id == key))
    return max(entrants or 0, fees or 0) + 1


def leave(*, session: Session, tournament_id: int, address: str) -> int:
    """Withdraw a wallet's entry while registration is open: its entrant is removed and its
    entry fee goes back to its stake balance, to the unit, in one transaction under the
    tournament's row lock (a repeat finds no entry). Returns the refund in DEW wei."""
    if not isinstance(address, str) or not is_address(address):
        raise exc.InvalidTournament(f"not an address: {address!r}")
    address = to_checksum_address(address)
    t = get_tournament(session=session, tournament_id=tournament_id, lock=True)
    if t.status != TournamentStatus.REGISTERING or utcnow() >= aware(t.starts_at):
        session.rollback()
        raise exc.RegistrationClosed(
            f"tournament {t.name!r} is no longer taking entries ({t.status}): "
            "an entry may be withdrawn only before registration closes"
        )
    entrant = session.scalar(
        select(Entrant).where(Entrant.tournament_id == t.id, Entrant.address == address)
    )
    if entrant is None:
        session.rollback()
        raise exc.NotRegistered(f"{address} has no entry in {t.name!r}")
    number = entrant.number
    try:
        refunded = stakes.release_stakes(session=session, match_id=escrow_key(t.id), seats=[number])
    except EconomyError as error:
        session.rollback()
        raise exc.NotCancellable(str(error)) from None
    session.delete(entrant)
    t.version += 1
    session.commit()
    log.info(
        "%s left tournament %s (#%d): %d DEW wei refunded", address, tournament_id, number, refunded
    )
    return refunded


def add_bots(
    *, session: Session, tournament_id: int, count: int, level: str | None = None
) -> list[Entrant]:
    """Fill places with bots (no fee, no prize, no qualification: see docs)."""
    if not 1 <= count <= 4096:
        raise exc.InvalidTournament(f"count must be 1..4096, got {count!r}")
    t, have = _open_for_entry(session, tournament_id)
    level = level or t.bot_level
    if level not in play.BOT_LEVELS:
        raise exc.InvalidTournament(f"bot level must be one of {list(play.BOT_LEVELS)}")
    if have + count > t.max_entrants:
        raise exc.TournamentFull(f"only {t.max_entrants - have} places are left")
    first = _next_number(session, t)
    bots = [
        Entrant(
            tournament_id=t.id,
            number=first + i,
            bot_level=level,
            fee_paid="0",
            registered_at=utcnow(),
        )
        for i in range(count)
    ]
    session.add_all(bots)
    t.version += 1
    session.commit()
    return bots


# --- cancellation ---------------------------------------------------------------------------


@dataclass
class Cancelled:
    refunded: int
    abandoned_matches: list[str]


def cancel(*, session: Session, tournament_id: int, reason: str) -> Cancelled:
    """Cancel a tournament not yet finished: every entry fee goes back to its wallet's stake
    balance, to the unit, and the added prize back to the season's budget, in one
    transaction; then its matches still in play are abandoned (they no longer count)."""
    if not reason or len(reason) > 500:
        raise exc.InvalidTournament("give a reason of 1..500 characters")
    t = get_tournament(session=session, tournament_id=tournament_id, lock=True)
    if t.status not in (TournamentStatus.REGISTERING, TournamentStatus.RUNNING):
        raise exc.NotCancellable(f"tournament {t.name!r} is {t.status}")
    refunded = cancel_locked(session, t, reason)
    live = [
        match_id
        for match_id in session.scalars(
            select(Game.match_id).where(Game.tournament_id == t.id, Game.status == GameStatus.LIVE)
        )
        if match_id is not None  # a live game always has its match
    ]
    session.commit()
    abandoned = []
    for match_id in live:
        try:
            tables.abandon_match(
                session=session, match_id=match_id, reason=f"tournament cancelled: {reason}"
            )
            abandoned.append(match_id)
        except TablesError as error:  # it ended meanwhile: nothing of it counts any more
            session.rollback()
            log.info("match %s of cancelled tournament %s: %s", match_id, t.id, error)
    return Cancelled(refunded, [m for m in abandoned if m])


def cancel_locked(session: Session, t: Tournament, reason: str) -> int:
    """Cancel ``t``, whose row the caller has locked, in the caller's transaction: entry fees
    back to the stake balances, the added prize back to the season. Returns the refund."""
    try:
        refunded = stakes.release_stakes(session=session, match_id=escrow_key(t.id))
    except EconomyError as error:
        raise exc.NotCancellable(str(error)) from None
    added = int(t.added_prize)
    if added and t.season_id is not None:
        season = session.get(Season, t.season_id, with_for_update=True)
        assert season is not None
        season.emitted = str(int(season.emitted) - added)
    t.status = TournamentStatus.CANCELLED
    t.cancel_reason = reason
    t.finished_at = utcnow()
    t.version += 1
    log.warning("tournament %s cancelled (%s): %d DEW wei refunded", t.id, reason, refunded)
    return refunded
