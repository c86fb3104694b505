"""Every metric DEW exports, named by the Prometheus conventions (docs/operations.md).

Label values come only from our own code (route templates, message types from a fixed
list, error codes, task names): nothing a caller sends becomes a label value.
Database-derived gauges (requests by state, the matchmaking queue, live matches, the
heartbeat, the vault and the indexer) are computed at scrape time by
``backend.api.ops.state``; this module defines the ones processes count into.
"""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

# Request and move latencies: sub-millisecond to seconds.
LATENCY_BUCKETS = (
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
)  # fmt: skip
# Slow things: matchmaking waits and settlement confirmations, seconds to an hour.
SLOW_BUCKETS = (1.0, 2.0, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0, 3600.0)

HTTP_REQUEST_SECONDS = Histogram(
    "dew_http_request_duration_seconds",
    "HTTP request latency by route template, method and status code.",
    ["route", "method", "status"],
    buckets=LATENCY_BUCKETS,
)
WS_OPEN = Gauge(
    "dew_ws_connections",
    "Open play WebSockets.",
    multiprocess_mode="livesum",
)
WS_CONNECTIONS = Counter("dew_ws_accepted_total", "Play WebSockets accepted.")
WS_MESSAGE_SECONDS = Histogram(
    "dew_ws_message_duration_seconds",
    "Time to handle one WebSocket message, by message type.",
    ["type"],
    buckets=LATENCY_BUCKETS,
)
WS_MESSAGE_TYPES = frozenset({"move", "resync", "ping"})
MOVES = Counter("dew_moves_total", "Moves committed, by who made them.", ["actor"])
MOVE_ACTORS = frozenset({"player", "bot", "timeout"})
MOVE_SECONDS = Histogram(
    "dew_move_latency_seconds",
    "A player's move from its message to its acknowledgement (checked and committed).",
    buckets=LATENCY_BUCKETS,
)
MATCHMAKING_WAIT = Histogram(
    "dew_matchmaking_wait_seconds",
    "How long a matchmaking ticket waited before it was seated.",
    buckets=SLOW_BUCKETS,
)
SIGNINS = Counter("dew_signins_total", "Successful sign-ins.")
SIGNIN_REFUSALS = Counter(
    "dew_signin_refusals_total", "Refused sign-ins, by the error code answered.", ["reason"]
)

# Transaction engine (backend/chain/engine.py).
CHAIN_CONFIRM_SECONDS = Histogram(
    "dew_chain_request_confirm_seconds",
    "A chain request's time from enqueue (outbox) to confirmed.",
    ["kind"],
    buckets=SLOW_BUCKETS,
)
CHAIN_GAS_USED = Counter(
    "dew_chain_gas_used_total", "Gas used by our confirmed transactions, by kind.", ["kind"]
)
CHAIN_TXS = Counter(
    "dew_chain_transactions_total", "Our transactions final at the confirmation depth.", ["kind"]
)
CHAIN_NONCE_GAPS = Counter("dew_chain_nonce_gaps_total", "Nonce gaps filled with a filler tx.")
CHAIN_BUMPS = Counter(
    "dew_chain_fee_bumps_total",
    "Transactions replaced at the same nonce with higher fees, by why.",
    ["reason"],
)
BUMP_REASONS = frozenset({"stuck", "fee too low", "nonce gap", "cancelled by operator"})
RPC_ERRORS = Counter(
    "dew_rpc_errors_total",
    "JSON-RPC calls that failed: node unreachable (unavailable) or refused (error).",
    ["kind"],
)

# Celery.
TASKS = Counter("dew_celery_tasks_total", "Celery task outcomes by task name.", ["task", "outcome"])


def bounded(value: str, allowed: frozenset[str], other: str = "other") -> str:
    """``value`` if it is one of ``allowed``, else ``other``: label values stay few."""
    return value if value in allowed else other


# Live tables (backend/tables/live/loops.py): a table's background work that failed, and the
# matches given up on after it kept failing (abandoned, stakes returned).
TABLE_TASK_FAILURES = Counter(
    "dew_table_task_failures_total",
    "A live table's background work that raised, by what it was doing.",
    ["task"],
)
TABLE_TASKS = frozenset({"bot_turn", "timeout_turn", "abandon"})
MATCHES_ABANDONED = Counter(
    "dew_matches_abandoned_total",
    "Matches abandoned by the server (stakes returned) after their turn kept failing.",
)
