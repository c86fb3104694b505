"""The PostgreSQL pool: no round trip per checkout, and closed connections are replaced."""

from __future__ import annotations

import select
import socket
import threading
from collections.abc import Iterator

import psycopg
import pytest
from sqlalchemy import Engine, text
from sqlalchemy.engine import make_url

from backend.db import create_db_engine


class CountingProxy:
    """A TCP relay in front of PostgreSQL that counts the bytes clients send to it."""

    def __init__(self, host: str, port: int) -> None:
        self.target = (host, port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.sent = 0
        self.lock = threading.Lock()
        self.sockets: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection(self.target)
            self.sockets += [client, server]
            threading.Thread(target=self._pump, args=(client, server, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client, False), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket, counted: bool) -> None:
        while True:
            try:
                data = source.recv(65536)
            except OSError:
                return
            if not data:
                return
            if counted:
                with self.lock:
                    self.sent += len(data)
            sink.sendall(data)

    def close(self) -> None:
        self.listener.close()
        for sock in self.sockets:
            sock.close()


@pytest.fixture
def proxy(pg_url: str) -> Iterator[CountingProxy]:
    url = make_url(pg_url)
    relay = CountingProxy(url.host or "127.0.0.1", url.port or 5432)
    yield relay
    relay.close()


def _query_bytes(engine: Engine, proxy: CountingProxy) -> int:
    """Bytes sent for one checkout + SELECT + commit + checkin. The relay counts a request
    before it forwards it, so once the answer is back its bytes have been counted."""
    before = proxy.sent
    with engine.connect() as conn:
        assert conn.execute(text("SELECT 2")).scalar_one() == 2
        conn.commit()
    return proxy.sent - before


def test_checkout_and_checkin_send_nothing_to_the_server(pg_url: str, proxy: CountingProxy) -> None:
    engine = create_db_engine(
        make_url(pg_url).set(host="127.0.0.1", port=proxy.port).render_as_string(False),
        pool_size=1,
    )
    try:
        with engine.connect() as conn:  # opens the pooled connection
            assert conn.execute(text("SELECT 1")).scalar_one() == 1
            conn.commit()
        one_query = _query_bytes(engine, proxy)
        assert one_query > 0
        before = proxy.sent
        for _ in range(20):
            with engine.connect():
                pass
            engine.raw_connection().close()
        # One more query: anything the 40 checkouts had sent on the connection (a ping, a
        # reset) reached the relay before it, so it is counted by the time it is answered.
        assert _query_bytes(engine, proxy) == one_query
        assert proxy.sent - before == one_query
    finally:
        engine.dispose()


def test_a_connection_the_server_closed_is_replaced_at_checkout(pg_url: str) -> None:
    engine = create_db_engine(pg_url, pool_size=1)
    try:
        with engine.connect() as conn:
            pid = conn.execute(text("SELECT pg_backend_pid()")).scalar_one()
            fileno = conn.connection.dbapi_connection.fileno()  # type: ignore[union-attr]
            conn.commit()
        admin_url = make_url(pg_url).set(drivername="postgresql").render_as_string(False)
        with psycopg.connect(admin_url, autocommit=True) as admin:
            assert admin.execute("SELECT pg_terminate_backend(%s)", (pid,)).fetchone() == (True,)
        # Wait for the server's goodbye to reach the pooled socket (a condition, not a sleep).
        poller = select.poll()
        poller.register(fileno, select.POLLIN | select.POLLHUP)
        assert poller.poll(10_000), "the terminated backend never closed its socket"
        with engine.connect() as conn:
            assert conn.execute(text("SELECT pg_backend_pid()")).scalar_one() != pid
    finally:
        engine.dispose()
