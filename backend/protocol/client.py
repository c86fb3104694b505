"""DewClient: a Python client of the match server, for bots and third-party programs.

It speaks the same messages as the web client: both are defined in ``backend.protocol``
(the page's ``protocol.js`` is generated from it). A wallet signs in with its own key
(EIP-4361 over EIP-191), then the client can list, create and join tables, queue, and play
a seat over the WebSocket, checking every server message against the protocol.

    client = DewClient("http://127.0.0.1:8000")
    client.sign_in(private_key)
    table = client.create_table(preset="draw", seats=2, kind="practice")
    final = client.play(table["id"])          # first legal move each turn, by default
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import httpx
from eth_account import Account
from eth_account.messages import encode_defunct
from websockets.sync.client import ClientConnection, connect

from backend.protocol import messages as protocol


class DewClientError(RuntimeError):
    """A request the server refused: ``code`` is the stable error code of docs/protocol.md."""

    def __init__(self, code: str, message: str, status: int | None = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code, self.message, self.status = code, message, status


Chooser = Callable[[dict[str, Any]], str]


def first_legal(view: dict[str, Any]) -> str:
    """The simplest player: the first legal move the server offers."""
    return str(view["legal_moves"][0])


@dataclass
class Seat:
    """One WebSocket connection to a table: the frames received, the latest state."""

    socket: ClientConnection
    received: list[dict[str, Any]] = field(default_factory=list)
    you: int | None = None
    ply: int = 0
    view: dict[str, Any] | None = None
    final: dict[str, Any] | None = None

    def recv(self, timeout_s: float) -> dict[str, Any]:
        message = protocol.parse_server_message(self.socket.recv(timeout=timeout_s))
        self.received.append(message)
        kind = message["type"]
        if kind == "snapshot":
            self.you, self.ply, self.view = message["you"], message["ply"], message["view"]
            self.final = message["final"]
        elif kind == "moved":
            self.ply, self.view = message["ply"], message["view"]
        elif kind == "match_over":
            self.final = message
        return message

    def send(self, kind: str, **fields: Any) -> None:
        self.socket.send(json.dumps(protocol.client_message(kind, **fields)))

    def my_turn(self) -> bool:
        return (
            self.final is None
            and self.view is not None
            and self.you is not None
            and self.view.get("turn") == self.you
            and bool(self.view.get("legal_moves"))
        )


class DewClient:
    def __init__(self, base_url: str, *, timeout_s: float = 15.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.ws_url = "ws" + self.base_url.removeprefix("http")
        self.http = httpx.Client(base_url=self.base_url, timeout=timeout_s)
        self.address: str | None = None
        self.token: str | None = None

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> DewClient:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # -- HTTP ------------------------------------------------------------------------------
    def request(self, route: str, *, json_body: Any = None, params: Any = None, **path: Any) -> Any:
        method, template = protocol.ROUTES[route]
        url = template.format(**{k: quote(str(v), safe="") for k, v in path.items()})
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else {}
        response = self.http.request(method, url, json=json_body, params=params, headers=headers)
        if response.status_code >= 400:
            try:
                error = response.json()["error"]
                code, message = error["code"], error["message"]
            except (ValueError, KeyError, TypeError):
                code, message = "http_error", response.text[:200]
            raise DewClientError(code, message, response.status_code)
        return response.json() if response.content else None

    def sign_in(self, private_key: str) -> str:
        """Sign-In with Ethereum with this key; returns the address."""
        account = Account.from_key(private_key)
        grant = self.request("nonce", json_body={"address": account.address})
        signed = account.sign_message(encode_defunct(text=grant["message"]))
        signature = "0x" + signed.signature.hex().removeprefix("0x")
        tokens = self.request(
            "signin", json_body={"message": grant["message"], "signature": signature}
        )
        self.address, self.token = tokens["address"], tokens["access_token"]
        return str(self.address)

    def lobby(self, status: str = "open") -> list[dict[str, Any]]:
        return list(self.request("lobby", params={"status": status}))

    def create_table(self, **spec: Any) -> dict[str, Any]:
        return dict(self.request("create_table", json_body=spec))

    def join(self, table_id: str, **body: Any) -> dict[str, Any]:
        return dict(self.request("join", json_body=body, table_id=table_id))

    def start(self, table_id: str) -> dict[str, Any]:
        return dict(self.request("start", table_id=table_id))

    def queue(self, preset: str, **body: Any) -> dict[str, Any]:
        return dict(self.request("queue", json_body={"preset": preset, **body}))

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

    # -- WebSocket -------------------------------------------------------------------------
    def connect(self, table_id: str) -> Seat:
        url = f"{self.ws_url}/ws/tables/{quote(table_id, safe='')}"
        if self.token:
            url += f"?token={quote(self.token, safe='')}"
        return Seat(connect(url, open_timeout=10, max_size=2**20))

    def play(
        self, table_id: str, choose: Chooser = first_legal, *, timeout_s: float = 120
    ) -> dict[str, Any]:
        """Play this wallet's seat until the match is over; returns the ``match_over``
        message. Every move carries the ply it was chosen at, so none is applied twice."""
        seat = self.connect(table_id)
        deadline = time.monotonic() + timeout_s
        try:
            sent_at: int | None = None
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"table {table_id} not over in {timeout_s}s")
                message = seat.recv(timeout_s=left)
                if message["type"] == "error":
                    error = message["error"]
                    if error["code"] == "rate_limited":
                        time.sleep(0.1)  # back off, then send the dropped move again
                        sent_at = None
                    elif error["code"] == "stale_ply":
                        sent_at = None
                        seat.send("resync")
                    else:
                        raise DewClientError(error["code"], error["message"])
                if seat.final is not None:
                    return seat.final
                if seat.my_turn() and sent_at != seat.ply:
                    assert seat.view is not None
                    sent_at = seat.ply
                    seat.send("move", move=choose(seat.view), ply=seat.ply, ref=f"p{seat.ply}")
        finally:
            seat.socket.close()
