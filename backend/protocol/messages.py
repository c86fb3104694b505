"""The play protocol's messages (version 1), defined once for every client.

The web client's ``backend/web/protocol.js`` is generated from this module
(``uv run python scripts/gen_protocol_js.py``; a test checks it is fresh), and the Python
client (``backend.protocol.client.DewClient``) builds and checks its messages with it. The server
builds every message it sends with the builders at the end (``snapshot``, ``moved``, ...), and
encodes them itself (``backend.tables.live.connections.encode``); tests check that what it sends
satisfies these definitions. Stdlib only, so any client can import it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

PROTOCOL_VERSION = 1

# A move as the engine writes it: a tile played on the left or right end, a draw, a pass.
MOVE_PATTERN = r"^([0-6]:[0-6][LR]|draw|pass)$"

JSON_TYPES = ("string", "integer", "number", "boolean", "object", "array")


@dataclass(frozen=True)
class Field:
    name: str
    type: str  # one of JSON_TYPES
    required: bool = True
    nullable: bool = False
    doc: str = ""


@dataclass(frozen=True)
class Message:
    type: str
    fields: tuple[Field, ...]
    doc: str


def _f(name: str, type_: str, doc: str = "", *, required: bool = True, null: bool = False) -> Field:
    return Field(name, type_, required, null, doc)


CLIENT_MESSAGES: tuple[Message, ...] = (
    Message(
        "move",
        (
            _f("move", "string", '"6:4L", "6:4R", "draw" or "pass"'),
            _f(
                "ply",
                "integer",
                "the ply you saw: refused with stale_ply if moved on",
                required=False,
                null=True,
            ),
            _f("ref", "string", "echoed in the ack or error", required=False, null=True),
        ),
        "play a move",
    ),
    Message("resync", (), "ask for a full snapshot"),
    Message("ping", (_f("ref", "string", "echoed", required=False, null=True),), "keep-alive"),
    Message(
        "talk",
        (
            _f("phrase", "string", "a TALK_PHRASES id", required=False, null=True),
            _f("emote", "string", "a TALK_EMOTES id", required=False, null=True),
            _f("text", "string", "free text, if the server allows it", required=False, null=True),
            _f("ref", "string", "echoed in an error", required=False, null=True),
        ),
        "say something at the table: exactly one of phrase, emote or text (seated players only)",
    ),
    Message(
        "mute",
        (
            _f("seat", "integer", "the seat to mute or unmute"),
            _f("muted", "boolean", "true mutes, false unmutes"),
            _f("ref", "string", "echoed in an error", required=False, null=True),
        ),
        "stop (or resume) receiving a seat's talk on this socket",
    ),
)

SERVER_MESSAGES: tuple[Message, ...] = (
    Message(
        "snapshot",
        (
            _f("table", "object", "the table (TableOut fields)"),
            _f("seats", "array", "seat, address, bot, avatar_id per seat"),
            _f("you", "integer", "your seat; null for a spectator", null=True),
            _f("match_id", "string", null=True),
            _f("match_status", "string", "none, live, finished or abandoned"),
            _f("seed_commitment", "string", "sha256 of the server seed", null=True),
            _f("ply", "integer"),
            _f("moves", "array", "[seat, move, actor] public move log"),
            _f("view", "object", "the engine's view for your seat", null=True),
            _f("deadline_ms", "integer", "turn deadline, Unix ms", null=True),
            _f("final", "object", "the match_over message if over", null=True),
        ),
        "the full state: on connect and on resync",
    ),
    Message(
        "ack",
        (_f("ref", "string", null=True), _f("ply", "integer")),
        "your move is committed",
    ),
    Message(
        "moved",
        (
            _f("match_id", "string"),
            _f("ply", "integer", "the ply after the move"),
            _f("seat", "integer"),
            _f("move", "string", "public: a draw hides the tile"),
            _f("actor", "string", "player, bot or timeout"),
            _f("view", "object"),
            _f("deadline_ms", "integer", null=True),
        ),
        "a move was committed",
    ),
    Message(
        "match_over",
        (
            _f("match_id", "string"),
            _f("ply", "integer"),
            _f("result", "object", "seats, winner_seats, forfeited_seat, scores"),
            _f("server_seed", "string", "the revealed seed"),
            _f("result_hash", "string", "0x + sha256 of the record", null=True),
        ),
        "the match ended",
    ),
    Message("pong", (_f("ref", "string", null=True),), "answer to ping"),
    Message(
        "error",
        (_f("ref", "string", null=True), _f("error", "object", "code, message, detail")),
        "a refused message; nothing changed",
    ),
    Message(
        "talk",
        (
            _f("seat", "integer", "who said it"),
            _f("phrase", "string", "a TALK_PHRASES id", null=True),
            _f("emote", "string", "a TALK_EMOTES id", null=True),
            _f("text", "string", "free text (control characters stripped)", null=True),
            _f("at_ms", "integer", "when the server relayed it, Unix ms"),
        ),
        "a seat said something (not sent to sockets that muted that seat)",
    ),
    Message(
        "muted",
        (_f("seats", "array", "the seats this socket has muted"),),
        "answer to mute",
    ),
)

# Table talk is a fixed catalogue by default: ids here, words in each client's language
# (backend/web/i18n.js). A deployment may also allow short free text (DEW_TALK_FREE_TEXT).
TALK_PHRASES: tuple[str, ...] = (
    "hello",
    "good_luck",
    "nice_move",
    "well_played",
    "thanks",
    "sorry",
    "oops",
    "thinking",
    "hurry_up",
    "good_game",
    "rematch",
    "bye",
)
TALK_EMOTES: tuple[str, ...] = (
    "smile",
    "laugh",
    "wow",
    "thumbs_up",
    "clap",
    "sad",
    "angry",
    "think",
)
# Why a player may be reported (POST /complaints); the operator reads them with
# `dew complaints`.
REPORT_REASONS: tuple[str, ...] = (
    "abusive_language",
    "cheating",
    "collusion",
    "stalling",
    "spam",
    "impersonation",
    "other",
)

# Fields the server may send beyond the list above are allowed (the protocol grows by
# adding fields); a missing or mistyped listed field is a protocol error.

WS_ERROR_CODES: tuple[str, ...] = (
    "malformed_json",
    "malformed_message",
    "message_too_large",
    "rate_limited",
    "unsupported_version",
    "unknown_type",
    "illegal_move",
    "not_your_turn",
    "stale_ply",
    "match_not_live",
    "unavailable",
    "forbidden",
    "invalid_request",
    "invalid_talk",
    "free_text_off",
)

# Close codes (4000-4999 are ours): the error message sent before the close says why.
CLOSE_NORMAL = 1000
CLOSE_UNAUTHORIZED = 4401
CLOSE_FORBIDDEN = 4403
CLOSE_NOT_FOUND = 4404
CLOSE_SLOW_CONSUMER = 4408
CLOSE_TOO_MANY = 4429

CLOSE_CODES: dict[int, str] = {
    CLOSE_NORMAL: "normal",
    CLOSE_UNAUTHORIZED: "bad token",
    CLOSE_FORBIDDEN: "not allowed",
    CLOSE_NOT_FOUND: "unknown table",
    CLOSE_SLOW_CONSUMER: "too slow",
    CLOSE_TOO_MANY: "too many sockets",
}

# The HTTP routes a client uses (method, path template); docs/protocol.md describes them.
ROUTES: dict[str, tuple[str, str]] = {
    "nonce": ("POST", "/auth/nonce"),
    "signin": ("POST", "/auth/signin"),
    "refresh": ("POST", "/auth/refresh"),
    "guest": ("POST", "/auth/guest"),
    "logout": ("POST", "/auth/logout"),
    "me": ("GET", "/auth/me"),
    "terms": ("GET", "/auth/terms"),
    "names": ("GET", "/names"),
    "my_name": ("GET", "/names/me"),
    "set_name": ("PUT", "/names/me"),
    "presets": ("GET", "/presets"),
    "lobby": ("GET", "/tables"),
    "create_table": ("POST", "/tables"),
    "table_limits": ("GET", "/tables/limits"),
    "table": ("GET", "/tables/{table_id}"),
    "join": ("POST", "/tables/{table_id}/join"),
    "leave": ("POST", "/tables/{table_id}/leave"),
    "invite": ("POST", "/tables/{table_id}/invite"),
    "start": ("POST", "/tables/{table_id}/start"),
    "queue": ("POST", "/matchmaking"),
    "ticket": ("GET", "/matchmaking/{ticket_id}"),
    "cancel_ticket": ("DELETE", "/matchmaking/{ticket_id}"),
    "match": ("GET", "/matches/{match_id}"),
    "results": ("GET", "/results"),
    "offers": ("POST", "/economy/offers"),
    "accept": ("POST", "/economy/agreements/{agreement_id}/accept"),
    "cancel_offer": ("POST", "/economy/agreements/{agreement_id}/cancel"),
    "cancel_offers": ("POST", "/economy/avatars/{avatar_id}/offers/cancel"),
    "reclaim": ("POST", "/economy/agreements/{agreement_id}/reclaim"),
    "close_agreement": ("POST", "/economy/agreements/{agreement_id}/close"),
    "terminate": ("POST", "/economy/agreements/{agreement_id}/terminate"),
    "agreements": ("GET", "/economy/agreements"),
    "owner_avatars": ("GET", "/economy/owners/{address}/avatars"),
    "scholar_earnings": ("GET", "/economy/scholars/{address}/earnings"),
    "wallet": ("GET", "/economy/wallets/{address}"),
    "money": ("GET", "/wallet"),
    "deposit": ("POST", "/wallet/deposit"),
    "withdraw": ("POST", "/wallet/withdrawals"),
    "withdrawals": ("GET", "/wallet/withdrawals"),
    "withdrawal": ("GET", "/wallet/withdrawals/{withdrawal_id}"),
    "screening_apply": ("POST", "/economy/screening/applications"),
    "screening_mine": ("GET", "/economy/screening/applications/mine"),
    "screening_queue": ("GET", "/economy/screening/queue"),
    "screening_approve": ("POST", "/economy/screening/applications/{application_id}/approve"),
    "screening_reject": ("POST", "/economy/screening/applications/{application_id}/reject"),
    "screening_receipt": ("POST", "/economy/screening/applications/{application_id}/receipt"),
    "report": ("POST", "/complaints"),
    "friends": ("GET", "/friends"),
    "friend_request": ("POST", "/friends/requests"),
    "friend_accept": ("POST", "/friends/requests/{address}/accept"),
    "friend_refuse": ("POST", "/friends/requests/{address}/refuse"),
    "friend_remove": ("DELETE", "/friends/{address}"),
    "friend_block": ("PUT", "/friends/blocks/{address}"),
    "friend_unblock": ("DELETE", "/friends/blocks/{address}"),
    "friend_messages": ("GET", "/friends/{address}/messages"),
    "friend_write": ("POST", "/friends/{address}/messages"),
    "friend_report": ("POST", "/friends/messages/{message_id}/report"),
    "friend_invite": ("POST", "/friends/{address}/invitations"),
    "invitations": ("GET", "/friends/invitations"),
    "table_socket": ("WS", "/ws/tables/{table_id}"),
}

_BY_TYPE_CLIENT = {m.type: m for m in CLIENT_MESSAGES}
_BY_TYPE_SERVER = {m.type: m for m in SERVER_MESSAGES}
_MOVE = re.compile(MOVE_PATTERN)


class ProtocolError(ValueError):
    """A message that does not follow these definitions."""


def _type_ok(value: Any, type_: str) -> bool:
    if type_ == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if type_ == "number":
        return isinstance(value, int | float) and not isinstance(value, bool)
    return isinstance(
        value,
        {"string": str, "boolean": bool, "object": dict, "array": list}[type_],
    )


def _check(message: Any, catalogue: dict[str, Message]) -> dict[str, Any]:
    if not isinstance(message, dict):
        raise ProtocolError(f"a message is a JSON object, not {type(message).__name__}")
    if message.get("v") != PROTOCOL_VERSION:
        raise ProtocolError(f"protocol version {message.get('v')!r}, not {PROTOCOL_VERSION}")
    kind = message.get("type")
    spec = catalogue.get(kind)  # type: ignore[arg-type]
    if spec is None:
        raise ProtocolError(f"unknown message type {kind!r}")
    for field in spec.fields:
        if field.name not in message:
            if field.required:
                raise ProtocolError(f"{kind} message without {field.name!r}")
            continue
        value = message[field.name]
        if value is None:
            if not field.nullable:
                raise ProtocolError(f"{kind}.{field.name} must not be null")
            continue
        if field.name == "ref" and isinstance(value, int) and not isinstance(value, bool):
            continue  # refs are echoed as sent: strings or integers
        if not _type_ok(value, field.type):
            raise ProtocolError(f"{kind}.{field.name} must be a {field.type}, not {value!r:.60}")
    if kind == "move" and not _MOVE.match(message["move"]):
        raise ProtocolError(f"not a move: {message['move']!r}")
    return message


def client_message(kind: str, **fields: Any) -> dict[str, Any]:
    """A checked client → server message: ``client_message("move", move="6:4L", ply=3)``."""
    spec = _BY_TYPE_CLIENT.get(kind)
    if spec is None:
        raise ProtocolError(f"unknown message type {kind!r}")
    known = {f.name for f in spec.fields}
    extra = set(fields) - known
    if extra:
        raise ProtocolError(f"{kind} has no field(s) {sorted(extra)}")
    return _check({"v": PROTOCOL_VERSION, "type": kind, **fields}, _BY_TYPE_CLIENT)


def check_server_message(message: Any) -> dict[str, Any]:
    """Check a decoded server → client message; returns it, or raises ``ProtocolError``."""
    return _check(message, _BY_TYPE_SERVER)


def parse_server_message(text: str | bytes) -> dict[str, Any]:
    try:
        message = json.loads(text)
    except ValueError as error:
        raise ProtocolError(f"not JSON: {error}") from None
    return check_server_message(message)


# --- the server's messages -------------------------------------------------------------------
# Unchecked (they run several times per move); their keys come in the order they are sent.
# tests/web/test_protocol.py checks that each satisfies SERVER_MESSAGES.


def _sent(kind: str, fields: dict[str, Any]) -> dict[str, Any]:
    """A server message: the version, its type, then ``fields``. Each builder passes its keyword
    arguments as ``locals()`` (its first statement), so its signature is the order of the keys."""
    return {"v": PROTOCOL_VERSION, "type": kind, **fields}


def snapshot(
    *,
    table: dict[str, Any],
    seats: list[dict[str, Any]],
    you: int | None,
    match_id: str | None,
    match_status: str,
    seed_commitment: str | None,
    ply: int,
    moves: list[list[Any]],
    view: dict[str, Any] | None,
    deadline_ms: int | None,
    final: dict[str, Any] | None,
) -> dict[str, Any]:
    """The full state a socket may see: on connect and on resync."""
    return _sent("snapshot", locals())


def moved(
    *,
    match_id: str | None,
    ply: int,
    seat: int,
    move: str,
    actor: str,
    deadline_ms: int | None,
    view: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """A committed move; ``view`` last, so one message can be re-sent with each seat's view."""
    return _sent("moved", locals())


def match_over(
    *,
    match_id: str | None,
    ply: int,
    result: dict[str, Any],
    server_seed: str,
    result_hash: str | None,
) -> dict[str, Any]:
    return _sent("match_over", locals())


def ack(*, ref: Any, ply: int) -> dict[str, Any]:
    return _sent("ack", locals())


def pong(*, ref: Any) -> dict[str, Any]:
    return _sent("pong", locals())


def talk(
    *, seat: int, phrase: str | None, emote: str | None, text: str | None, at_ms: int
) -> dict[str, Any]:
    return _sent("talk", locals())


def muted(*, seats: list[int]) -> dict[str, Any]:
    return _sent("muted", locals())


def error(code: str, message: str, ref: Any = None) -> dict[str, Any]:
    """A refused message (``code`` is one of WS_ERROR_CODES or a service error's code)."""
    return {
        "v": PROTOCOL_VERSION,
        "type": "error",
        "ref": ref,
        "error": {"code": code, "message": message, "detail": None},
    }


# --- the generated JavaScript module ----------------------------------------------------------


def _spec_json(messages: tuple[Message, ...]) -> dict[str, Any]:
    """The messages as protocol.js holds them: a field lists only what differs from ``Field``'s
    defaults (``required`` true, ``nullable`` false, no ``doc``), as ``_f`` is written above."""
    spec: dict[str, Any] = {}
    for m in messages:
        fields = []
        for f in m.fields:
            field: dict[str, Any] = {"name": f.name, "type": f.type}
            if not f.required:
                field["required"] = False
            if f.nullable:
                field["nullable"] = True
            if f.doc:
                field["doc"] = f.doc
            fields.append(field)
        spec[m.type] = {"doc": m.doc, "fields": fields}
    return spec


_JS_WIDTH = 120


def _js(value: Any, indent: int = 0, lead: int = 0) -> str:
    """``value`` as JSON for protocol.js: what fits in ``_JS_WIDTH`` (after ``indent`` spaces and
    ``lead`` characters on its first line) stays on one line; else an object or array holds an
    item a line, or, when its items are plain values, as many as fit on each line."""
    flat = json.dumps(value)
    if indent + lead + len(flat) <= _JS_WIDTH or not isinstance(value, dict | list):
        return flat
    pad = " " * (indent + 2)
    if isinstance(value, dict):
        keys = [json.dumps(str(key)) + ": " for key in value]
        items = [k + _js(v, indent + 2, len(k)) for k, v in zip(keys, value.values(), strict=True)]
        brackets, plain = "{}", not any(isinstance(v, dict | list) for v in value.values())
    else:
        items = [_js(v, indent + 2) for v in value]
        brackets, plain = "[]", not any(isinstance(v, dict | list) for v in value)
    lines: list[str] = []
    for item in items:
        if plain and lines and len(pad) + len(lines[-1]) + len(item) + 2 <= _JS_WIDTH:
            lines[-1] += f" {item},"
        else:
            lines.append(f"{item},")
    lines[-1] = lines[-1].removesuffix(",")
    body = "\n".join(pad + line for line in lines)
    return f"{brackets[0]}\n{body}\n{' ' * indent}{brackets[1]}"


def render_js() -> str:
    """The text of ``backend/web/protocol.js``: these definitions; ``api.js`` checks with them."""
    return f"""// GENERATED from backend/protocol/messages.py by gen_protocol_js.py: do not edit.
// The DEW play protocol (version {PROTOCOL_VERSION}): messages, routes, codes (api.js checks).

export const PROTOCOL_VERSION = {PROTOCOL_VERSION};
export const MOVE_PATTERN = new RegExp({json.dumps(MOVE_PATTERN)});
export const CLIENT_MESSAGES = {_js(_spec_json(CLIENT_MESSAGES))};
export const SERVER_MESSAGES = {_js(_spec_json(SERVER_MESSAGES))};
export const WS_ERROR_CODES = {_js(list(WS_ERROR_CODES))};
export const CLOSE_CODES = {_js(CLOSE_CODES)};
export const ROUTES = {_js({k: list(v) for k, v in ROUTES.items()})};
export const TALK_PHRASES = {_js(list(TALK_PHRASES))};
export const TALK_EMOTES = {_js(list(TALK_EMOTES))};
export const REPORT_REASONS = {_js(list(REPORT_REASONS))};
"""
