"""The play WebSocket, protocol version 1 (docs/protocol.md).

One socket per table: ``/ws/tables/{table_id}?token=<access token>``. A signed-in wallet
with a seat plays it; anyone else (a token is optional) watches as a spectator. Spectators'
sockets are capped per client address and per table, a seat's per seat
(``backend.tables.live.connections.SocketCaps``); talk is limited per seat
(``backend.tables.live.talk.TalkBudget``).
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from typing import Any

import orjson
from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from fastapi.concurrency import run_in_threadpool
from structlog.contextvars import bind_contextvars

from backend.accounts import exceptions as accounts_exc
from backend.accounts import service as accounts
from backend.api.deps import read_sessions
from backend.api.ratelimit import client_key, make_storage
from backend.care.exceptions import CareError
from backend.kit.errors import NotFound
from backend.ops.metrics import MOVE_SECONDS, WS_MESSAGE_SECONDS, WS_MESSAGE_TYPES, bounded
from backend.protocol import messages as protocol
from backend.protocol.messages import (
    CLOSE_FORBIDDEN,
    CLOSE_NOT_FOUND,
    CLOSE_SLOW_CONSUMER,
    CLOSE_TOO_MANY,
    CLOSE_UNAUTHORIZED,
    PROTOCOL_VERSION,
)
from backend.tables import exceptions as tables_exc
from backend.tables.live import talk
from backend.tables.live.connections import Conn, SocketCaps, TokenBucket, encode
from backend.tables.live.hub import MatchHub

log = logging.getLogger(__name__)

router = APIRouter()

# Every table id is a uuid4's hex (backend/tables/service.py).
TABLE_ID = re.compile(r"[0-9a-f]{32}")


def _talk_budget(app: Any) -> talk.TalkBudget:
    """The process's talk budgets per seat (made at the first socket): in the HTTP edge's
    shared store when the processes share one (``DEW_SERVER_REDIS_URL``), else in memory."""
    budget: talk.TalkBudget | None = getattr(app.state, "talk_budget", None)
    if budget is None:
        settings = app.state.settings
        shared = settings.server.redis_url or settings.http.rate_limit_storage_url
        storage = make_storage(settings) if shared else None
        budget = app.state.talk_budget = talk.TalkBudget(settings.talk, storage)
    return budget


def _socket_caps(app: Any) -> SocketCaps:
    """The process's caps on table sockets (made at the first socket)."""
    caps: SocketCaps | None = getattr(app.state, "table_socket_caps", None)
    if caps is None:
        sockets = app.state.settings.sockets
        caps = app.state.table_socket_caps = SocketCaps(
            sockets.table_per_address, sockets.table_spectators_per_table, sockets.table_per_seat
        )
    return caps


def error_message(code: str, message: str, ref: Any = None) -> str:
    return encode(protocol.error(code, message, ref))


async def _writer(websocket: WebSocket, conn: Conn) -> None:
    # The ASGI send itself (not WebSocket.send_text's checks and wrappers): five messages
    # go out per move, and the state checks only guard against sending after a close,
    # which this loop never does.
    send = websocket._send
    try:
        while True:
            for text in await conn.drain():
                if text is None:
                    code = CLOSE_SLOW_CONSUMER if conn.overflowed else conn.close_code
                    await websocket.close(code)
                    return
                await send({"type": "websocket.send", "text": text})
    except (WebSocketDisconnect, RuntimeError, ConnectionError, OSError):
        return


@router.websocket("/ws/tables/{table_id}")
async def table_socket(websocket: WebSocket, table_id: str, token: str | None = None) -> None:
    app = websocket.app
    settings = app.state.settings
    hub: MatchHub = app.state.hub
    await websocket.accept()
    if not TABLE_ID.fullmatch(table_id):
        # Checked before the token or the hub: a refused id allocates nothing anywhere.
        shown = table_id[:40] + ("..." if len(table_id) > 40 else "")
        await websocket.send_text(
            error_message(
                tables_exc.TableNotFound.code,
                f"no table {shown!r}: table ids are 32 lowercase hexadecimal characters",
            )
        )
        await websocket.close(CLOSE_NOT_FOUND)
        return
    address: str | None = None
    if token:
        try:

            def check() -> str:
                with read_sessions(app.state)() as session:
                    return accounts.authenticate(
                        session=session, settings=settings, token=token
                    ).address

            address = await run_in_threadpool(check)
        except accounts_exc.AccountsError as error:
            await websocket.send_text(error_message(error.code, error.message))
            await websocket.close(CLOSE_UNAUTHORIZED)
            return
    caps = _socket_caps(app)
    client = client_key(websocket.client.host) if websocket.client else "unknown"
    cached = hub.tables.get(table_id)
    if address is None or (cached is not None and cached.seat_of(address) is None):
        # A spectator over a cap is refused before the hub builds it a snapshot.
        refusal = caps.spectators_full(client, cached.watchers if cached else None)
        if refusal is not None:
            await websocket.send_text(error_message("too_many_sockets", refusal))
            await websocket.close(CLOSE_TOO_MANY)
            return
    conn = Conn(address)
    try:
        hosted = await hub.attach(table_id, conn)
    except tables_exc.TablesError as error:
        await websocket.send_text(error_message(error.code, error.message))
        close = CLOSE_NOT_FOUND if isinstance(error, NotFound) else CLOSE_FORBIDDEN
        await websocket.close(close)
        return
    # Seats are known now: a seat's sockets pass (up to the cap per seat), spectators count.
    refusal = caps.admit(client, conn, hosted.watchers)
    if refusal is not None:
        hub.detach(conn)
        conn.close()
        await websocket.send_text(error_message("too_many_sockets", refusal))
        await websocket.close(CLOSE_TOO_MANY)
        return
    counted = conn.seat is None
    # Every line logged for this socket from now on names its table (and match, if any):
    # ids of a table that exists, not whatever the path said.
    bind_contextvars(table_id=hosted.table_id, match_id=hosted.match_id)
    writer = asyncio.create_task(_writer(websocket, conn))
    budget = _talk_budget(app)
    bucket = TokenBucket(settings.server.ws_rate_per_s, settings.server.ws_rate_burst)
    limit = settings.server.ws_max_message_bytes
    try:
        while True:
            received = await websocket.receive()
            if received["type"] == "websocket.disconnect":
                break
            raw = received.get("text")
            if raw is None:
                raw_bytes = received.get("bytes") or b""
                size = len(raw_bytes)
            else:
                size = len(raw.encode()) if len(raw) * 4 > limit else len(raw)
            if size > limit:
                conn.push(
                    error_message("message_too_large", f"messages are limited to {limit} bytes")
                )
                continue
            if not bucket.take():
                conn.push(
                    error_message(
                        "rate_limited",
                        f"at most {settings.server.ws_rate_per_s:g} messages/s; message dropped",
                    )
                )
                continue
            if raw is None:
                try:
                    raw = raw_bytes.decode()
                except UnicodeDecodeError:
                    conn.push(error_message("malformed_message", "messages are UTF-8 JSON text"))
                    continue
            await _handle(hub, conn, raw, budget)
    except WebSocketDisconnect:
        pass
    finally:
        hub.detach(conn)
        if counted:
            caps.release(client)
        conn.close()
        try:
            await asyncio.wait_for(writer, timeout=1.0)
        except (TimeoutError, asyncio.CancelledError):
            writer.cancel()


async def _handle(hub: MatchHub, conn: Conn, raw: str, budget: talk.TalkBudget) -> None:
    started = time.perf_counter()
    kind = await _dispatch(hub, conn, raw, budget)
    elapsed = time.perf_counter() - started
    WS_MESSAGE_SECONDS.labels(bounded(kind, WS_MESSAGE_TYPES)).observe(elapsed)
    if kind == "move":
        MOVE_SECONDS.observe(elapsed)


async def _dispatch(hub: MatchHub, conn: Conn, raw: str, budget: talk.TalkBudget) -> str:
    """Handle one message; returns its type for the metrics (``invalid`` if it has none)."""
    try:
        message = orjson.loads(raw)
    except orjson.JSONDecodeError:
        conn.push(error_message("malformed_json", "the message is not valid JSON"))
        return "invalid"
    if not isinstance(message, dict):
        conn.push(error_message("malformed_message", "a message is a JSON object"))
        return "invalid"
    ref = message.get("ref")
    if not isinstance(ref, str | int | type(None)) or (isinstance(ref, str) and len(ref) > 64):
        ref = None
    if message.get("v") != PROTOCOL_VERSION:
        conn.push(
            error_message(
                "unsupported_version", f"protocol version {PROTOCOL_VERSION} is spoken here", ref
            )
        )
        return "invalid"
    kind = message.get("type")
    try:
        if kind == "move":
            ply = message.get("ply")
            if ply is not None and (not isinstance(ply, int) or isinstance(ply, bool)):
                raise tables_exc.InvalidRequest("ply must be an integer")
            await hub.play_move(conn, message.get("move"), ply, ref)
        elif kind == "resync":
            await hub.resync(conn)
        elif kind == "ping":
            conn.push(encode(protocol.pong(ref=ref)))
        elif kind in ("talk", "mute"):
            lt = await hub.get(conn.table_id or "")
            if kind == "talk":
                relay = hub.bus.publish_talk if hub.bus else None
                await talk.say(
                    lt, conn, message, hub.settings.talk, budget, relay, hub.read_sessions
                )
            else:
                talk.mute(lt, conn, message)
        else:
            conn.push(error_message("unknown_type", f"unknown message type {kind!r}", ref))
    except (tables_exc.TablesError, CareError) as error:
        conn.push(error_message(error.code, error.message, ref))
    return kind if isinstance(kind, str) else "invalid"
