"""DewClient: a Python client of the match server, for bots and third-party programs.

It speaks the same messages as the web client: both are defined in ``backend.protocol``
(the page's ``protocol.js`` is generated from it). A wallet signs in with its own key
(EIP-4361 over EIP-191), then the client can list, create and join tables, queue, and play
a seat over the WebSocket, checking every server message against the protocol.

    client = DewClient("http://127.0.0.1:8000")
    client.sign_in(private_key)                # accept_terms=True for earning/staked play
    table = client.create_table(preset="draw", seats=2, kind="practice",
                                options={"target": 50}, bot_levels=["medium", "expert"])
    final = client.play(table["id"])          # first legal move each turn, by default

A ``same_device`` table seats this wallet twice: ``play`` then plays whichever of its seats
is to move (the server re-files the socket under that seat and sends its snapshot after
each move). On a seat, ``talk``/``mute`` speak the table talk and ``wait_for`` reads on to
a message of a kind; ``report`` files a complaint about a table mate.

It is the one client of the house: the demo, the benchmarks and the tests sign in and play
through it. The pieces underneath are open for programs with their own transport (the
benchmark's lean load generator, tests that send malformed frames): ``Wallet`` signs as a
wallet does and yields the sign-in as requests (``sign_in_steps``), ``SeatState`` keeps a
seat's state from the server's messages and builds its ``move``, ``Seat`` and ``AsyncSeat``
carry it over a blocking or an asyncio WebSocket.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, cast
from urllib.parse import quote

import httpx
from websockets.asyncio.client import ClientConnection as AsyncClientConnection
from websockets.asyncio.client import connect as async_connect
from websockets.sync.client import ClientConnection, connect

from backend.protocol import messages as protocol

# Sign-in lives in backend/protocol/signin.py; its names are imported from here too.
from backend.protocol.signin import SignInStep as SignInStep
from backend.protocol.signin import Wallet as Wallet
from backend.protocol.signin import sign_in_with as sign_in_with
from backend.protocol.signin import sign_in_with_async as sign_in_with_async


class DewClientError(RuntimeError):
    """A request the server refused: ``code`` is the stable error code of docs/protocol.md."""

    def __init__(
        self, code: str, message: str, status: int | None = None, detail: Any = None
    ) -> None:
        super().__init__(f"{code}: {message}")
        self.code, self.message, self.status, self.detail = code, message, status, detail


Chooser = Callable[[dict[str, Any]], str]

# A signed-in client refreshes its access token this long before the token's expiry.
REFRESH_AHEAD = timedelta(minutes=1)
EXPIRED = "token_expired"  # the code of a refused, expired access token


def _code(response: httpx.Response) -> str | None:
    """The error code of a refused request's JSON body, if it has one."""
    try:
        return str(response.json()["error"]["code"])
    except (ValueError, KeyError, TypeError):
        return None


def first_legal(view: dict[str, Any]) -> str:
    """The simplest player: the first legal move the server offers."""
    return str(view["legal_moves"][0])


# -- A seat: the state a player keeps and the move it answers with ----------------------------


@dataclass
class SeatState:
    """What one seat (or a spectator) knows from the server's messages, whatever carries them:
    its seat number, the ply, its view and, once over, the ``match_over`` message."""

    you: int | None = None
    ply: int = 0
    view: dict[str, Any] | None = None
    final: dict[str, Any] | None = None

    def apply(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind == "snapshot":
            self.you, self.ply, self.view = message["you"], message["ply"], message["view"]
            if message.get("final"):
                self.final = message["final"]
        elif kind == "moved":
            self.ply, self.view = message["ply"], message["view"]
        elif kind == "match_over":
            self.final = message

    def my_turn(self) -> bool:
        return (
            self.final is None
            and self.view is not None
            and self.you is not None
            and self.view.get("turn") == self.you
            and bool(self.view.get("legal_moves"))
            and not self.view.get("match_over")
        )

    def move(self, choose: Chooser = first_legal, ref: str | None = None) -> dict[str, Any]:
        """The ``move`` message for this turn, carrying the ply it was chosen at (so the
        server never applies it twice)."""
        assert self.view is not None, "no view yet"
        message: dict[str, Any] = {"v": protocol.PROTOCOL_VERSION, "type": "move"}
        message.update(move=choose(self.view), ply=self.ply)
        if ref is not None:
            message["ref"] = ref
        return message


@dataclass
class Seat(SeatState):
    """One blocking WebSocket connection to a table: the frames received, the latest state."""

    socket: ClientConnection | None = None
    received: list[dict[str, Any]] = field(default_factory=list)

    def recv(self, timeout_s: float) -> dict[str, Any]:
        assert self.socket is not None
        message = protocol.parse_server_message(self.socket.recv(timeout=timeout_s))
        self.received.append(message)
        self.apply(message)
        return message

    def send(self, kind: str, **fields: Any) -> None:
        assert self.socket is not None
        self.socket.send(json.dumps(protocol.client_message(kind, **fields)))

    def close(self) -> None:
        if self.socket is not None:
            self.socket.close()

    def wait_for(self, kind: str, timeout_s: float = 20.0) -> dict[str, Any]:
        """Read on until a message of ``kind`` (``talk``, ``muted``, ``moved``...) and return
        it; an ``error`` on the way is raised as DewClientError with the server's code."""
        deadline = time.monotonic() + timeout_s
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no {kind!r} message in {timeout_s}s")
            message = self.recv(timeout_s=left)
            if message["type"] == kind:
                return message
            if message["type"] == "error":
                error = message["error"]
                raise DewClientError(error["code"], error["message"], detail=error.get("detail"))

    def talk(
        self,
        *,
        phrase: str | None = None,
        emote: str | None = None,
        text: str | None = None,
        ref: str | None = None,
    ) -> None:
        """Say one thing at the table: a ``TALK_PHRASES`` id, a ``TALK_EMOTES`` id, or free
        text where the server allows it. The server relays it to every socket of the table
        that has not muted this seat, this one included (``wait_for("talk")``)."""
        given = {k: v for k, v in (("phrase", phrase), ("emote", emote), ("text", text)) if v}
        if len(given) != 1:
            raise DewClientError("invalid_talk", "say exactly one of phrase, emote or text")
        self.send("talk", **given, **({"ref": ref} if ref is not None else {}))

    def mute(self, seat: int, muted: bool = True) -> None:
        """Stop (``muted=False``: resume) receiving ``seat``'s talk on this socket; the server
        answers with a ``muted`` message listing this socket's muted seats."""
        self.send("mute", seat=seat, muted=muted)

    def play(
        self,
        choose: Chooser = first_legal,
        *,
        timeout_s: float = 120,
        recv_timeout_s: float | None = None,
        think_s: float = 0.0,
        ref: Callable[[SeatState], str] = lambda seat: f"p{seat.ply}",
        on_message: Callable[[dict[str, Any]], None] | None = None,
        on_send: Callable[[dict[str, Any]], None] | None = None,
        on_error: Callable[[dict[str, Any]], bool] | None = None,
    ) -> dict[str, Any]:
        """Play this seat on this connection until the match is over; returns the
        ``match_over`` message. Every move carries the ply it was chosen at, so none is
        applied twice, and is sent once per ply (again after a snapshot or an error).

        A ``rate_limited`` move is sent again after a pause; ``stale_ply`` asks for a resync.
        Any other error is raised as DewClientError, unless ``on_error(error)`` says it is
        handled (then a resync). ``on_message`` sees every message first, ``on_send`` every
        move; a silent socket raises TimeoutError after ``recv_timeout_s``."""
        deadline = time.monotonic() + timeout_s
        sent_at: int | None = None
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"match not over in {timeout_s}s")
            message = self.recv(timeout_s=min(left, recv_timeout_s or left))
            if on_message is not None:
                on_message(message)
            if message["type"] == "snapshot":
                sent_at = None  # a resync: look again
            elif message["type"] == "error":
                error = message["error"]
                sent_at = None
                if error["code"] == "rate_limited":
                    time.sleep(0.1)  # back off, then send the dropped move again
                elif error["code"] == "stale_ply" or (on_error is not None and on_error(error)):
                    self.send("resync")
                else:
                    raise DewClientError(error["code"], error["message"])
            if self.final is not None:
                return self.final
            if self.my_turn() and sent_at != self.ply:
                sent_at = self.ply
                if think_s:
                    time.sleep(think_s)
                move = self.move(choose, ref=ref(self))
                if on_send is not None:
                    on_send(move)
                self.send("move", move=move["move"], ply=move["ply"], ref=move["ref"])


class AsyncSeat(SeatState):
    """One asyncio WebSocket connection to a table (or a spectator's), keeping every message
    as received (``raw``) and decoded (``received``). ``send_raw`` sends anything at all, for
    tests of what the server does with malformed input."""

    def __init__(self, url: str, *, check: bool = False) -> None:
        super().__init__()
        self.url, self.check = url, check
        self.ws: AsyncClientConnection | None = None
        self.received: list[dict[str, Any]] = []
        self.raw: list[str] = []
        self.acked: list[int] = []

    async def open(self, *, max_size: int = 2**22) -> AsyncSeat:
        """Connect and read the first message, which must be the snapshot."""
        self.ws = await async_connect(self.url, max_size=max_size)
        first = await self.recv()
        if first["type"] != "snapshot":
            raise DewClientError("no_snapshot", f"first message was {first!r}")
        return self

    async def recv(self, timeout_s: float = 20.0) -> dict[str, Any]:
        assert self.ws is not None
        raw = await asyncio.wait_for(self.ws.recv(), timeout_s)
        if not isinstance(raw, str):
            raise DewClientError("binary_frame", f"the server sent {len(raw)} bytes in binary")
        self.raw.append(raw)
        message = protocol.parse_server_message(raw) if self.check else json.loads(raw)
        self.received.append(message)
        self.apply(message)
        return cast(dict[str, Any], message)

    async def send_message(self, message: dict[str, Any]) -> None:
        """Send a message as given (``v`` added when missing); unchecked, on purpose."""
        await self.send_raw(json.dumps({"v": protocol.PROTOCOL_VERSION, **message}))

    async def send(self, kind: str, **fields: Any) -> None:
        await self.send_raw(json.dumps(protocol.client_message(kind, **fields)))

    async def send_raw(self, data: str | bytes) -> None:
        assert self.ws is not None
        await self.ws.send(data)

    async def play_until_over(
        self, choose: Chooser = first_legal, *, stop_after_ply: int | None = None
    ) -> None:
        """Answer every turn until the match ends (or reaches ``stop_after_ply``), waiting for
        each move's acknowledgement (kept in ``acked``) and for the view it leads to."""
        while self.final is None:
            if stop_after_ply is not None and self.ply >= stop_after_ply:
                return
            if not self.my_turn():
                await self.recv()
                continue
            await self.send_message(self.move(choose))
            reply = await self.recv()
            while reply["type"] not in ("ack", "error"):
                reply = await self.recv()
            if reply["type"] == "ack":
                self.acked.append(reply["ply"])
                # Our own move comes back as "moved" with the new view: wait for it.
                while self.ply < reply["ply"] and self.final is None:
                    await self.recv()
            elif reply["error"]["code"] == "stale_ply":
                await self.send_message({"type": "resync"})
            else:
                tail = [
                    (m["type"], m.get("ply"), (m.get("view") or {}).get("turn"))
                    for m in self.received[-6:]
                ]
                error = reply["error"]
                raise DewClientError(error["code"], f"move refused: {reply} after {tail}")

    async def close(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()


class DewClient:
    def __init__(
        self, base_url: str, *, timeout_s: float = 15.0, http: httpx.Client | None = None
    ) -> None:
        """``http``: an HTTP client of the caller's own (its transport, its source address)
        to send the requests with, closed with this one; by default a new one."""
        self.base_url = base_url.rstrip("/")
        self.ws_url = "ws" + self.base_url.removeprefix("http")
        self.http = http or httpx.Client(base_url=self.base_url, timeout=timeout_s)
        self.address: str | None = None
        self.token: str | None = None
        self._refresh_token: str | None = None
        self._access_expires_at: datetime | None = None

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> DewClient:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # -- HTTP ------------------------------------------------------------------------------
    @property
    def headers(self) -> dict[str, str]:
        """The ``Authorization`` header of this client's wallet, once signed in; an access token
        within a minute of its expiry is refreshed first (``refresh``), so a client that plays
        for longer than a token lives (15 min by default) stays signed in."""
        expires = self._access_expires_at
        if self._refresh_token and expires and datetime.now(UTC) >= expires - REFRESH_AHEAD:
            self.refresh()
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    def url_of(self, route: str, **path: Any) -> tuple[str, str]:
        """``(method, path)`` of a route of ``protocol.ROUTES`` with its path parameters."""
        method, template = protocol.ROUTES[route]
        return method, template.format(**{k: quote(str(v), safe="") for k, v in path.items()})

    def request(self, route: str, *, json_body: Any = None, params: Any = None, **path: Any) -> Any:
        method, url = self.url_of(route, **path)
        response = self.http.request(
            method, url, json=json_body, params=params, headers=self.headers
        )
        if response.status_code == 401 and self._refresh_token and _code(response) == EXPIRED:
            # Expired sooner than this machine's clock said: refresh once and send it again.
            self.refresh()
            response = self.http.request(
                method, url, json=json_body, params=params, headers=self.headers
            )
        if response.status_code >= 400:
            detail: Any = None
            try:
                error = response.json()["error"]
                code, message, detail = error["code"], error["message"], error.get("detail")
            except (ValueError, KeyError, TypeError, AttributeError):
                code, message = "http_error", response.text[:200]
            raise DewClientError(code, message, response.status_code, detail)
        return response.json() if response.content else None

    def sign_in(self, private_key: bytes | str | Wallet, *, accept_terms: bool = False) -> str:
        """Sign-In with Ethereum with this key; returns the address. ``accept_terms``: the
        signed message also accepts the server's current terms and confirms legal age (what
        earning and staked play need where the server has terms; see ``terms()``)."""
        tokens = self.sign_in_tokens(private_key, accept_terms=accept_terms)
        return str(tokens["address"])

    def sign_in_tokens(
        self, private_key: bytes | str | Wallet, *, accept_terms: bool = False
    ) -> dict[str, Any]:
        """Sign in as ``sign_in`` does; returns the whole token response (access and refresh
        tokens, expiry, address, ``terms_version`` accepted or None)."""
        if isinstance(private_key, Wallet):
            wallet = private_key
            if accept_terms and not wallet.accept_terms:
                wallet = Wallet(wallet.private_key, wallet.address, accept_terms=True)
        else:
            wallet = Wallet(private_key, accept_terms=accept_terms)
        tokens = sign_in_with(wallet, lambda route, body: self.request(route, json_body=body))
        self._keep(tokens)
        return tokens

    def refresh(self) -> dict[str, Any]:
        """Rotate this client's refresh token (``POST /auth/refresh``) for a new access token;
        the old refresh token stops working. Returns the token response."""
        refresh_token, self._refresh_token = self._refresh_token, None  # no refresh inside
        if refresh_token is None:
            raise DewClientError("token_missing", "this client has not signed in", 401, None)
        tokens = self.request("refresh", json_body={"refresh_token": refresh_token})
        self._keep(tokens)
        return dict(tokens)

    def _keep(self, tokens: dict[str, Any]) -> None:
        self.address, self.token = tokens["address"], tokens["access_token"]
        self._refresh_token = tokens.get("refresh_token")
        expires = tokens.get("access_expires_at")
        self._access_expires_at = datetime.fromisoformat(expires) if expires else None

    def terms(self) -> dict[str, Any]:
        """The server's current terms and whether this wallet accepted them (``accepted``)."""
        return dict(self.request("terms"))

    def presets(self) -> list[dict[str, Any]]:
        """The rule presets: each one's options, which values are premium, and what each
        option ``requires`` of the others (``option_specs[].requires``)."""
        return list(self.request("presets"))

    def table_limits(self) -> dict[str, Any]:
        """What a table may be created with here: kinds, bot levels, the turn timer's bounds."""
        return dict(self.request("table_limits"))

    def lobby(self, status: str = "open") -> list[dict[str, Any]]:
        return list(self.request("lobby", params={"status": status}))

    def create_table(self, **spec: Any) -> dict[str, Any]:
        """Create a table (docs/protocol.md, ``POST /tables``): ``preset``, ``options``,
        ``seats``, ``kind`` (``human``, ``practice``, ``ai``, ``same_device``), ``bot_level``
        or ``bot_levels`` (one per seat, seat 0 first), ``stake``, ``earning``, ..."""
        return dict(self.request("create_table", json_body=spec))

    def table(self, table_id: str) -> dict[str, Any]:
        return dict(self.request("table", table_id=table_id))

    def join(self, table_id: str, **body: Any) -> dict[str, Any]:
        return dict(self.request("join", json_body=body, table_id=table_id))

    def start(self, table_id: str) -> dict[str, Any]:
        return dict(self.request("start", table_id=table_id))

    def queue(
        self,
        preset: str,
        *,
        options: dict[str, Any] | None = None,
        stake: int = 0,
        earning: bool = False,
        **body: Any,
    ) -> dict[str, Any]:
        """A matchmaking ticket: only tickets with the same preset, ``options``, ``earning``
        and ``stake`` meet. A stake (DEW base units) is for earning tickets and needs that
        much in the wallet's vault."""
        body = {"preset": preset, "options": options or {}, "earning": earning, **body}
        if stake:
            body["stake"] = stake
        return dict(self.request("queue", json_body=body))

    def ticket(self, ticket_id: str) -> dict[str, Any]:
        return dict(self.request("ticket", ticket_id=ticket_id))

    def cancel_ticket(self, ticket_id: str) -> dict[str, Any]:
        return dict(self.request("cancel_ticket", ticket_id=ticket_id))

    def wait_for_table(self, ticket_id: str, timeout_s: float = 60) -> str:
        """Poll a matchmaking ticket until it has a table; returns the table id."""
        deadline = time.monotonic() + timeout_s
        while True:
            ticket = self.request("ticket", ticket_id=ticket_id)
            if ticket["table_id"]:
                return str(ticket["table_id"])
            if time.monotonic() > deadline:
                raise TimeoutError(f"ticket {ticket_id} got no table in {timeout_s}s")
            time.sleep(0.2)

    def match(self, match_id: str) -> dict[str, Any]:
        return dict(self.request("match", match_id=match_id))

    def report(
        self, table_id: str, address: str, reason: str, note: str | None = None
    ) -> dict[str, Any]:
        """Report a table mate (``POST /complaints``): ``reason`` one of
        ``protocol.REPORT_REASONS``, an optional ``note``; returns the complaint filed."""
        body: dict[str, Any] = {"table_id": table_id, "address": address, "reason": reason}
        if note is not None:
            body["note"] = note
        return dict(self.request("report", json_body=body))

    # -- friends and private messages (``/friends``) -------------------------------------
    def friends(self) -> dict[str, Any]:
        """This wallet's ``friends``, requests ``incoming`` and ``outgoing``, and the wallets
        it ``blocked``: each a list of ``{address, name, since}``."""
        return dict(self.request("friends"))

    def befriend(self, who: str) -> dict[str, Any]:
        """Ask a player, by display name or address, to be friends (accepts their own
        request to this wallet instead)."""
        return dict(self.request("friend_request", json_body={"who": who}))

    def accept_friend(self, address: str) -> dict[str, Any]:
        return dict(self.request("friend_accept", address=address))

    def refuse_friend(self, address: str) -> None:
        self.request("friend_refuse", address=address)

    def unfriend(self, address: str) -> None:
        """End a friendship, or withdraw this wallet's request."""
        self.request("friend_remove", address=address)

    def block(self, address: str) -> None:
        """Block a wallet: nothing passes between the two, either way."""
        self.request("friend_block", address=address)

    def unblock(self, address: str) -> None:
        self.request("friend_unblock", address=address)

    def messages(
        self, address: str, *, limit: int = 50, before: int | None = None
    ) -> dict[str, Any]:
        """A page of the conversation with ``address``, newest first: ``messages`` and
        ``next_before`` (pass it as ``before`` for the older page; None: no more)."""
        params: dict[str, Any] = {"limit": limit}
        if before is not None:
            params["before"] = before
        return dict(self.request("friend_messages", params=params, address=address))

    def write(self, address: str, text: str) -> dict[str, Any]:
        """Send a private message to a friend; returns the message stored."""
        return dict(self.request("friend_write", json_body={"text": text}, address=address))

    def report_message(
        self, message_id: int, reason: str, note: str | None = None
    ) -> dict[str, Any]:
        """Report a message sent to this wallet (``reason`` of ``protocol.REPORT_REASONS``)."""
        body: dict[str, Any] = {"reason": reason}
        if note is not None:
            body["note"] = note
        return dict(self.request("friend_report", json_body=body, message_id=message_id))

    def invite_friend(self, address: str, table_id: str) -> dict[str, Any]:
        """Invite a friend to a table this wallet created."""
        body = {"table_id": table_id}
        return dict(self.request("friend_invite", json_body=body, address=address))

    def invitations(self, limit: int = 50) -> list[dict[str, Any]]:
        """The open tables this wallet is invited to, newest first."""
        return list(self.request("invitations", params={"limit": limit}))

    # -- WebSocket -------------------------------------------------------------------------
    def seat_url(self, table_id: str) -> str:
        """The table's WebSocket address, with this wallet's token when signed in."""
        url = f"{self.ws_url}/ws/tables/{quote(table_id, safe='')}"
        if self.token:
            url += f"?token={quote(self.token, safe='')}"
        return url

    def connect(self, table_id: str) -> Seat:
        return Seat(socket=connect(self.seat_url(table_id), open_timeout=10, max_size=2**20))

    def play(
        self, table_id: str, choose: Chooser = first_legal, *, timeout_s: float = 120
    ) -> dict[str, Any]:
        """Play this wallet's seat until the match is over; returns the ``match_over``
        message. Every move carries the ply it was chosen at, so none is applied twice.
        At a ``same_device`` table, where the wallet holds both seats, it plays whichever is
        to move: after each move the server sends that seat's snapshot on this socket."""
        seat = self.connect(table_id)
        try:
            try:
                return seat.play(choose, timeout_s=timeout_s)
            except TimeoutError:
                raise TimeoutError(f"table {table_id} not over in {timeout_s}s") from None
        finally:
            seat.close()
