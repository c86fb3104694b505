"""Gauges computed at scrape time from the database (a custom collector).

One set of small queries (counts by an indexed status, a minimum, the heartbeat rows)
per ``DEW_METRICS_STATE_CACHE_S`` however often /metrics is scraped; nothing per request."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector
from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session

from backend.chain.follower import cursor_positions
from backend.chain.models import ChainRequest, RequestStatus
from backend.db.base import aware, utcnow
from backend.ops.models import WorkerHeartbeat
from backend.tables.models import Match, MatchmakingTicket

log = logging.getLogger(__name__)

# The engine's request states as operators name them (docs/transactions.md).
STATES: dict[str, str] = {
    RequestStatus.QUEUED: "queued",
    RequestStatus.SUBMITTED: "sent",
    RequestStatus.WAITING: "waiting",
    RequestStatus.CONFIRMED: "confirmed",
    RequestStatus.FAILED: "failed",
}
OPEN_STATES = (RequestStatus.QUEUED, RequestStatus.SUBMITTED, RequestStatus.WAITING)


def _age(now: datetime, then: datetime | None) -> float:
    return max(0.0, (now - aware(then)).total_seconds()) if then is not None else 0.0


def read_state(session: Session) -> dict[str, Any]:
    """What the gauges (and ``dew status``) show, read in one session."""
    now = utcnow()
    by_state = {name: 0 for name in STATES.values()}
    for status, count in session.execute(
        select(ChainRequest.status, func.count()).group_by(ChainRequest.status)
    ):
        name = STATES.get(status)
        if name:
            by_state[name] = int(count)
    oldest = {
        STATES[status]: _age(
            now,
            session.scalar(
                select(func.min(ChainRequest.created_at)).where(ChainRequest.status == status)
            ),
        )
        for status in OPEN_STATES
    }
    waiting_settlements = session.scalar(
        select(func.count())
        .select_from(ChainRequest)
        .where(ChainRequest.status == RequestStatus.WAITING, ChainRequest.kind == "settle")
    )
    live = session.scalar(select(func.count()).select_from(Match).where(Match.status == "live"))
    queue = session.execute(
        select(func.count(), func.min(MatchmakingTicket.created_at)).where(
            MatchmakingTicket.status == "waiting"
        )
    ).one()
    beats = list(session.scalars(select(WorkerHeartbeat).order_by(WorkerHeartbeat.beat_at.desc())))
    latest = beats[0] if beats else None
    cursors = cursor_positions(session)
    heads = [b.chain_head for b in beats if b.chain_head is not None]
    head = heads[0] if heads else None
    read = [
        (aware(b.chain_read_at), b)
        for b in beats
        if b.vault_limit is not None and b.chain_read_at is not None
    ]
    vault = max(read, key=lambda pair: pair[0])[1] if read else None
    return {
        "requests": by_state,
        "oldest": oldest,
        "waiting_settlements": int(waiting_settlements or 0),
        "live_matches": int(live or 0),
        "queue_length": int(queue[0] or 0),
        "queue_oldest_s": _age(now, queue[1]),
        "heartbeat_age_s": _age(now, latest.beat_at) if latest else None,
        "workers": len(beats),
        "chain_head": head,
        "indexer_lag": {
            name: max(0, head - (next_block - 1)) for name, next_block in cursors.items()
        }
        if head is not None
        else {},
        "vault_available": int(vault.vault_available or 0) if vault else None,
        "vault_limit": int(vault.vault_limit) if vault and vault.vault_limit else None,
    }


def _by_label(
    name: str, documentation: str, label: str, values: dict[str, float]
) -> GaugeMetricFamily:
    """A gauge with one sample per ``label`` value."""
    gauge = GaugeMetricFamily(name, documentation, labels=[label])
    for value, sample in values.items():
        gauge.add_metric([value], sample)
    return gauge


class StateCollector(Collector):
    """The database-derived gauges, cached ``cache_s``; a failed read yields none of them
    (and ``dew_state_scrape_ok 0``) rather than failing the scrape."""

    def __init__(self, engine: Engine, cache_s: float) -> None:
        self.engine = engine
        self.cache_s = cache_s
        self._lock = threading.Lock()
        self._at = -1e9
        self._state: dict[str, Any] | None = None

    def _read(self) -> dict[str, Any] | None:
        with self._lock:
            if time.monotonic() - self._at >= self.cache_s:
                try:
                    with Session(self.engine) as session:
                        self._state = read_state(session)
                except Exception as error:
                    log.warning("metrics could not read the database: %r", error)
                    self._state = None
                self._at = time.monotonic()
            return self._state

    def collect(self) -> Iterator[GaugeMetricFamily]:
        state = self._read()
        yield GaugeMetricFamily(
            "dew_state_scrape_ok", "1 if the database-derived gauges were read.", 1 if state else 0
        )
        if state is None:
            return
        yield _by_label(
            "dew_chain_requests", "Transaction engine requests by state.", "state",
            state["requests"],
        )  # fmt: skip
        yield _by_label(
            "dew_chain_request_oldest_seconds",
            "Age of the oldest request in an open state (0: none).",
            "state",
            state["oldest"],
        )
        yield GaugeMetricFamily(
            "dew_settlements_waiting",
            "Settlements held back by the vault (limit or pause).",
            state["waiting_settlements"],
        )
        yield GaugeMetricFamily("dew_live_matches", "Matches in play.", state["live_matches"])
        yield GaugeMetricFamily(
            "dew_matchmaking_queue_length", "Tickets waiting for a seat.", state["queue_length"]
        )
        yield GaugeMetricFamily(
            "dew_matchmaking_oldest_wait_seconds",
            "How long the oldest waiting ticket has waited (0: none).",
            state["queue_oldest_s"],
        )
        yield GaugeMetricFamily(
            "dew_worker_heartbeats", "Workers that ever wrote a heartbeat.", state["workers"]
        )
        if state["heartbeat_age_s"] is not None:
            yield GaugeMetricFamily(
                "dew_worker_heartbeat_age_seconds",
                "Seconds since the newest worker heartbeat.",
                state["heartbeat_age_s"],
            )
        if state["chain_head"] is not None:
            yield GaugeMetricFamily(
                "dew_chain_head_block", "The node's head as the worker last read it.",
                state["chain_head"],
            )  # fmt: skip
        yield _by_label(
            "dew_indexer_block_lag",
            "Blocks between the chain head and an indexer's cursor.",
            "cursor",
            state["indexer_lag"],
        )
        if state["vault_limit"]:
            available = state["vault_available"] or 0
            yield GaugeMetricFamily(
                "dew_vault_window_available_wei",
                "DEW wei the vault may still pay out in its current window.",
                available,
            )
            yield GaugeMetricFamily(
                "dew_vault_window_limit_wei", "The vault's window limit (DEW wei).",
                state["vault_limit"],
            )  # fmt: skip
            yield GaugeMetricFamily(
                "dew_vault_window_available_ratio",
                "The share of the vault's window limit still available (0..1).",
                available / state["vault_limit"],
            )
