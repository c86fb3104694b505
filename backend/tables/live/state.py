"""One hosted table's cached state (``LiveTable``) and what each of its sockets may see of it.

The cache is rebuilt from the move log by ``backend.tables.live.hub``; this module only reads it
to build the server's messages (with the builders of ``backend.protocol.messages``) and
fans them out to the table's watchers: a seat sees its own hand, a spectator the public view
after the table's spectator delay.
"""

from __future__ import annotations

import asyncio
import bisect
import time
from dataclasses import dataclass, field
from typing import Any

import orjson

from backend.game import Match as EngineMatch
from backend.protocol import messages as protocol
from backend.tables import exceptions as exc
from backend.tables import play
from backend.tables.live.connections import Conn, Watchers, encode


@dataclass
class LiveTable:
    table_id: str
    table: dict[str, Any]
    seats: list[dict[str, Any]]
    match_id: str | None = None
    match: EngineMatch | None = None
    match_status: str = "none"  # none|live|finished|abandoned
    seed_commitment: str | None = None
    ply: int = 0
    moves: list[tuple[int, str, str]] = field(default_factory=list)  # (seat, move|"forfeit", actor)
    move_times: list[float] = field(default_factory=list)  # commit time of each move (Unix s)
    private: bool = False
    invited: frozenset[str] = frozenset()
    # Spectators' ``moved`` texts by ply, while a spectator delay may still hold them back:
    # every spectator shares one copy (the window of a long delay holds many moves).
    spectator_moved: dict[int, str] = field(default_factory=dict)
    forfeited_seat: int | None = None
    timeouts: dict[int, int] = field(default_factory=dict)
    turn_started: float = 0.0
    final: str | None = None  # the match_over message's text, once the match is over
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    watchers: Watchers = field(default_factory=Watchers)
    timer: asyncio.TimerHandle | None = None
    # What the armed timer will do: (match id, ply, work, failures so far); None once it fired.
    timer_for: tuple[str | None, int, str, int] | None = None

    def seat_of(self, address: str | None) -> int | None:
        """The seat ``address`` sits in (its first, at a same-device table), or None."""
        if address is None:
            return None
        for s in self.seats:
            if s.get("address") == address:
                return int(s["seat"])
        return None

    def seat_for(self, address: str | None) -> int | None:
        """The seat a wallet's socket plays: its seat, or, where the wallet holds two (a
        same-device table), the one whose turn it is."""
        mine = [int(s["seat"]) for s in self.seats if address and s.get("address") == address]
        if not mine:
            return None
        turn = self.to_move()
        return turn if turn in mine else mine[0]

    def bot_level(self, seat: int) -> str | None:
        for s in self.seats:
            if s["seat"] == seat:
                level = s.get("bot_level")
                return None if level is None else str(level)
        return None

    @property
    def live(self) -> bool:
        return self.match is not None and self.match_status == "live"

    def deadline(self) -> float | None:
        if not self.live:
            return None
        return self.turn_started + float(self.table["turn_timeout_s"])

    def to_move(self) -> int | None:
        return play.to_move(self.match) if self.live and self.match is not None else None

    @property
    def spectator_delay(self) -> float:
        return float(self.table["spectator_delay_s"])


def player_names(seats: list[dict[str, Any]]) -> list[str]:
    """The engine's name of each seat: its wallet, or ``bot:<level>``."""
    return [s.get("address") or f"bot:{s.get('bot_level')}" for s in seats]


def seat_list(lt: LiveTable) -> list[dict[str, Any]]:
    """The seats as the protocol and the match record show them."""
    return [
        {
            "seat": s["seat"],
            "address": s.get("address"),
            "bot": s.get("bot_level"),
            "avatar_id": s.get("avatar_id"),
        }
        for s in lt.seats
    ]


def deadline_ms(lt: LiveTable) -> int | None:
    deadline = lt.deadline()
    return None if deadline is None else int(deadline * 1000)


def watch_refusal(lt: LiveTable, conn: Conn) -> exc.TablesError | None:
    """Why ``conn`` may not watch ``lt`` (None: it may). Seats always may; a private table
    is watched only by its invited wallets."""
    if conn.seat is not None:
        return None
    if not lt.table["spectators_allowed"]:
        return exc.Forbidden("this table does not allow spectators")
    if lt.private and conn.address not in lt.invited:
        how = "" if conn.address else "sign in with an invited wallet: "
        return exc.NotInvited(f"{how}this private table is watched by invitation only")
    return None


# -- messages ------------------------------------------------------------------------------
def snapshot(lt: LiveTable, seat: int | None) -> str:
    """The current snapshot for ``seat`` (None: the public view, without delay)."""
    view = None
    if lt.match is not None:
        view = play.view(lt.match, seat) if seat is not None else play.public_view(lt.match)
    return encode(
        protocol.snapshot(
            table=lt.table,
            seats=seat_list(lt),
            you=seat,
            match_id=lt.match_id,
            match_status=lt.match_status,
            seed_commitment=lt.seed_commitment,
            ply=lt.ply,
            moves=[[s, m, a] for s, m, a in lt.moves],
            view=view,
            deadline_ms=deadline_ms(lt),
            final=orjson.loads(lt.final) if lt.final else None,
        )
    )


def snapshot_for(lt: LiveTable, conn: Conn) -> str:
    """The snapshot ``conn`` may see now: its seat's, or a spectator's (delayed)."""
    if conn.seat is not None:
        return snapshot(lt, conn.seat)
    return spectator_snapshot(lt)[0]


def spectator_snapshot(lt: LiveTable) -> tuple[str, list[tuple[float, str]]]:
    """A spectator's snapshot at the position of ``spectator_delay_s`` ago, and the messages
    after it (each ``moved``, then ``match_over``) with the seconds until each is due.
    Without a delay, or with every move old enough: the current snapshot."""
    delay = lt.spectator_delay
    if delay <= 0 or lt.match is None:
        return snapshot(lt, None), []
    now = time.time()
    shown = spectators_shown(lt, delay, now)
    if shown >= len(lt.moves):
        return snapshot(lt, None), []
    rules = lt.match.rules
    match = play.start(rules.preset, rules.options, player_names(lt.seats), lt.match.server_seed)
    for _, text, _ in lt.moves[:shown]:
        play.apply(match, text)  # a forfeit ends the match: it is never before ``shown``
    first = encode(
        protocol.snapshot(
            table=lt.table,
            seats=seat_list(lt),
            you=None,
            match_id=lt.match_id,
            match_status="live",
            seed_commitment=lt.seed_commitment,
            ply=shown,
            moves=[[s, m, a] for s, m, a in lt.moves[:shown]],
            view=play.public_view(match),
            deadline_ms=None,
            final=None,
        )
    )
    timeout = float(lt.table["turn_timeout_s"])
    later: list[tuple[float, str]] = []
    for ply in range(shown, len(lt.moves)):
        seat, text, actor = lt.moves[ply]
        moved_at = lt.move_times[ply]
        if text == "forfeit":
            break  # the match_over that follows says it
        play.apply(match, text)
        moved = lt.spectator_moved.get(ply + 1)
        if moved is None:
            moved = lt.spectator_moved[ply + 1] = encode(
                protocol.moved(
                    match_id=lt.match_id,
                    ply=ply + 1,
                    seat=seat,
                    move=text,
                    actor=actor,
                    deadline_ms=int((moved_at + timeout) * 1000),
                    view=play.public_view(match),
                )
            )
        later.append((max(moved_at + delay - now, 0.0), moved))
    if lt.final is not None:
        later.append((max(lt.move_times[-1] + delay - now, 0.0), lt.final))
    return first, later


def spectators_shown(lt: LiveTable, delay: float, now: float) -> int:
    """How many moves are old enough for spectators; forgets the shared ``moved`` texts that
    no spectator can be sent any more."""
    shown = bisect.bisect_right(lt.move_times, now - delay)
    cached = lt.spectator_moved
    while cached and (first := next(iter(cached))) <= shown:
        del cached[first]
    return shown


def final_message(
    lt: LiveTable,
    result: dict[str, Any],
    seed: str,
    result_hash: str | None,
    ply: int | None = None,
) -> str:
    return encode(
        protocol.match_over(
            match_id=lt.match_id,
            ply=lt.ply if ply is None else ply,
            result=result,
            server_seed=seed,
            result_hash=result_hash,
        )
    )


# -- fan-out -------------------------------------------------------------------------------
def push_final(lt: LiveTable) -> None:
    """``match_over`` to every socket: spectators after the table's delay."""
    assert lt.final is not None
    lt.watchers.push_everyone(lt.final, lt.spectator_delay)


def broadcast_move(lt: LiveTable, seat: int, text: str, actor: str) -> None:
    """``moved`` to every socket: each seat with its own view, spectators the public view
    (after the table's delay)."""
    _broadcast_move(lt, seat, text, actor)
    hand_over(lt)


def hand_over(lt: LiveTable) -> None:
    """At a same-device table the wallet's sockets follow the seat to move: each is filed
    under that seat and sent its snapshot (the client hides the hand until the next player
    takes the device)."""
    if lt.table.get("kind") != "same_device":
        return
    for conn in lt.watchers.all():
        seat = lt.seat_for(conn.address)
        if seat is not None and seat != conn.seat:
            lt.watchers.reseat(conn, seat)
            conn.push(snapshot(lt, seat))


def _broadcast_move(lt: LiveTable, seat: int, text: str, actor: str) -> None:
    assert lt.match is not None
    watchers = lt.watchers
    watched = watchers.watched_seats()
    if not watched and not watchers.spectators:
        return
    message = protocol.moved(
        match_id=lt.match_id,
        ply=lt.ply,
        seat=seat,
        move=text,
        actor=actor,
        deadline_ms=deadline_ms(lt),
    )
    views = play.seat_views(lt.match, watched or [0])
    for s in watched:
        message["view"] = views[s]
        watchers.push_seat(s, encode(message))
    if watchers.spectators:
        message["view"] = play.public_of(next(iter(views.values())))
        public = encode(message)
        delay = lt.spectator_delay
        if delay > 0:
            spectators_shown(lt, delay, time.time())
            lt.spectator_moved[lt.ply] = public
        watchers.push_spectators(public, delay)
