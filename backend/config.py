"""Settings, one pydantic-settings class per concern.

Nothing else in the project reads ``os.environ``. Every value has an embedded
default so that ``make demo`` runs with no server; production overrides them
through ``DEW_*`` environment variables (see docker-compose.yml).
"""

from __future__ import annotations

import contextlib
import os
import secrets
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, PrivateAttr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

REPO_ROOT = Path(__file__).resolve().parent.parent
VAR_DIR = REPO_ROOT / "var"


class DatabaseSettings(BaseSettings):
    """Where the relational state lives: SQLite file by default, PostgreSQL in production."""

    model_config = SettingsConfigDict(env_prefix="DEW_DB_")

    url: str = f"sqlite:///{VAR_DIR / 'dew.sqlite3'}"
    echo: bool = False


class BrokerSettings(BaseSettings):
    """Celery broker: kombu's SQLAlchemy transport on SQLite by default, Redis in production."""

    model_config = SettingsConfigDict(env_prefix="DEW_BROKER_")

    url: str = f"sqla+sqlite:///{VAR_DIR / 'broker.sqlite3'}"
    result_backend: str | None = None
    payouts_queue: str = "payouts"
    default_queue: str = "dew"
    prefetch_multiplier: int = 1
    # Periodic jobs (celery beat): pump every wallet, and reconcile requests with chain events.
    pump_every_s: float = 5.0
    reconcile_every_s: float = 300.0


class ChainSettings(BaseSettings):
    """EVM node, deployment manifest and the operator's hot wallet."""

    model_config = SettingsConfigDict(env_prefix="DEW_CHAIN_")

    rpc_url: str = "http://127.0.0.1:8545"
    chain_id: int = 31337
    # Names this deployment's sequence of earning-match ids (backend/chain/match_ids.py):
    # a database started afresh against contracts that already settled matches needs a new one.
    deployment_name: str = "dev"
    manifest_path: Path = VAR_DIR / "deployment.json"
    # anvil's first default account; refused outside development by Settings below.
    operator_key: str = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
    confirmations: int = 2
    rpc_timeout_s: float = 10.0
    # Transaction engine (docs/transactions.md). Gas packed into one settle/mintBatch call.
    max_gas_per_tx: int = 15_000_000
    # Signed-but-unconfirmed transactions per wallet; beyond this the sender waits.
    max_in_flight: int = 64
    poll_interval_s: float = 0.2
    # Re-send the stored raw bytes of a pending tx this long after its last broadcast.
    rebroadcast_after_s: float = 3.0
    # A pending tx older than this is replaced at the same nonce with higher fees.
    stuck_after_s: float = 30.0
    fee_bump_percent: int = 15
    max_fee_cap_wei: int = 500 * 10**9
    priority_fee_wei: int = 10**9
    # Gas price multiple of the current base fee offered as max fee on first signing.
    base_fee_multiplier: float = 2.0
    # A packed batch that reverts is retried with its requests sent one by one, this often.
    max_attempts: int = 3
    # A settlement held back by the vault's limits or pause ("waiting") is tried again this often.
    limit_retry_s: float = 30.0
    # One pump run (a task) lasts at most this long, then hands over to a fresh task.
    pump_run_s: float = 20.0
    pump_lease_s: float = 5.0
    # Test-only crash hook: SIGKILL this process at the named step (see backend/chain/crash.py).
    crash_at: str | None = None


class AuthSettings(BaseSettings):
    """Sign-In with Ethereum and token lifetimes."""

    model_config = SettingsConfigDict(env_prefix="DEW_AUTH_")

    domain: str = "localhost:8000"
    uri: str = "http://localhost:8000"
    # The HS256 key of access tokens and of sign-in nonces' MAC. Production must set it (at
    # least MIN_SECRET_CHARS). Unset in development, a random one is generated once and kept
    # in ``jwt_secret_file`` (mode 0600): every process of the installation shares it (the
    # workers of ``dew serve --workers N``, the demo's server, test servers) and it survives
    # restarts, yet no two installations share one and it is published nowhere.
    jwt_secret: str = ""
    jwt_secret_file: Path = VAR_DIR / "jwt-secret"
    # An access token lives this long, and one whose exp - iat is longer is refused.
    access_token_ttl_s: int = Field(900, ge=30, le=24 * 3600)
    refresh_token_ttl_s: int = 14 * 24 * 3600
    # A nonce (and so a sign-in message) is good for this long; a message's Issued At must be
    # within it of now and its Expiration Time at most this far after Issued At.
    nonce_ttl_s: int = Field(300, ge=30, le=3600)
    statement: str = "Sign in to Domino Earning World."
    # Tolerated clock difference between a wallet (or a token) and the server.
    clock_skew_s: int = Field(60, ge=0, le=600)
    # A display name, once set, changes at most once in this long (0: whenever asked).
    name_change_interval_s: int = Field(24 * 3600, ge=0, le=365 * 24 * 3600)
    _generated: bool = PrivateAttr(default=False)

    @model_validator(mode="after")
    def _secret_of_this_installation(self) -> AuthSettings:
        if not self.jwt_secret:
            try:
                self.jwt_secret = _installation_secret(self.jwt_secret_file)
                self._generated = True
            except OSError:
                pass  # Settings refuses an empty secret with a clear message
        return self

    @property
    def secret_generated(self) -> bool:
        """True when the secret is the installation's own (not configured)."""
        return self._generated


MIN_SECRET_CHARS = 32
# Secrets that were once the published default: refused outside development.
PUBLISHED_SECRETS = ("dev-only-secret-change-me-outside-development",)


def _installation_secret(path: Path) -> str:
    """The secret kept at ``path``, made (256 random bits, mode 0600) if there is none yet.

    Two processes starting at once both end up with the first one written: each writes its
    own candidate to a private temporary file and links it into place, which fails if the
    other got there first."""
    try:
        text = path.read_text().strip()
    except FileNotFoundError:
        text = ""
    if len(text) >= MIN_SECRET_CHARS:
        return text
    path.parent.mkdir(parents=True, exist_ok=True)
    candidate = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
    fd = os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "w") as out:
            out.write(secrets.token_urlsafe(32) + "\n")
        with contextlib.suppress(FileExistsError):  # another process was first: use its
            os.link(candidate, path)
    finally:
        candidate.unlink(missing_ok=True)
    text = path.read_text().strip()
    if len(text) < MIN_SECRET_CHARS:
        raise OSError(f"{path} holds no usable secret; delete it to have a new one made")
    return text


class ServerSettings(BaseSettings):
    """The match server process."""

    model_config = SettingsConfigDict(env_prefix="DEW_SERVER_")

    host: str = "127.0.0.1"
    port: int = 8000
    redis_url: str | None = None  # pub/sub between server processes; None = single process
    redis_channel_prefix: str = "dew"
    ws_max_message_bytes: int = 4096
    # Token bucket per connection: sustained messages per second and burst size.
    ws_rate_per_s: float = 20.0
    ws_rate_burst: int = 40
    # Turn timer: when it runs out the seat's bot plays for the absent player; after
    # ``forfeit_after_timeouts`` timed-out turns in a row the seat forfeits the match.
    turn_timeout_s: float = 30.0
    forfeit_after_timeouts: int = 3
    # Matchmaking: bots (at ``matchmaking_bot_level``) fill empty seats after this wait.
    matchmaking_wait_s: float = 20.0
    matchmaking_bot_level: str = "medium"
    # Pause before a bot seat moves, so that humans and spectators can follow the play.
    bot_move_delay_s: float = 0.5
    # Group commit: accepted moves are written in batches gathered for at most this long.
    commit_batch_window_s: float = 0.002
    db_pool_size: int = 10
    # A live match with no move for its turn timeout plus this long has lost its host
    # process; any server process adopts it and runs its timer.
    orphan_grace_s: float = 10.0
    # How often a server looks for matches started without it (tournament rounds); 0: never.
    adopt_started_every_s: float = 1.0
    # On-chain gating cache: entries live at most this long (and never past a rental's or
    # a pass's expiry); the event poller checks for Transfer/UpdateUser logs this often.
    gate_cache_ttl_s: float = 60.0
    gate_poll_s: float = 2.0
    # Garbage collection: every this many seconds the heap is collected and frozen, so that
    # the collector's full passes scan only what is newer (a full pass over thousands of
    # sockets' objects stopped the server for up to 0.5 s). 0 turns it off.
    gc_freeze_every_s: float = 5.0
    # ... and every this many seconds everything is unfrozen and collected once.
    gc_full_every_s: float = 3600.0


class EconomySettings(BaseSettings):
    """Rewards policy, the treasury, and how the ledger and indexer follow the chain."""

    model_config = SettingsConfigDict(env_prefix="DEW_ECONOMY_")

    # DEW wei emitted per seat of an earning match, from the running season's budget.
    emission_per_seat: int = 10 * 10**18
    # Receives the platform fee; anvil's tenth dev account by default.
    treasury: str = "0xa0Ee7A142d267C1f36714E4a8F75612F20a79720"
    # Blocks on top of an event before the ledger and the scholarship mirror believe it.
    confirmations: int = 2
    indexer_max_blocks: int = 5_000
    # Periodic jobs: plan finished matches and book confirmed ones; follow the registry.
    settle_every_s: float = 5.0
    index_every_s: float = 5.0
    # Emission one wallet may earn per UTC day, over all its seats (its avatars' shares
    # included); the excess is returned to the season budget (docs/economy.md, "Emission bounds").
    emission_per_wallet_per_day: int = 100 * 10**18
    # Withdrawals of the stake balance (docs/economy.md, "Deposits and withdrawals"): each is
    # one of the vault's matches per window, so dust is refused and a wallet has at most a
    # few in flight; the largest is the deployed vault's per-match limit (10,000 DEW).
    withdrawal_min: int = 10**18
    withdrawal_max: int = 10_000 * 10**18
    withdrawals_open_per_wallet: int = 3
    withdrawals_per_wallet_per_day: int = 10
    # Screening of owners (docs/economy.md, "Screening"): the statement and the reason are
    # bounded, a wallet applies a few times a day at most, and a screener's role read from
    # the chain is believed this long.
    screening_statement_max_chars: int = 2_000
    screening_reason_max_chars: int = 500
    screening_applications_per_wallet_per_day: int = 3
    screening_role_cache_s: float = 30.0


class FeeSettings(BaseSettings):
    """The one fee schedule (docs/economy.md, "Fees"): every fee the platform takes (the
    staked pot's rake, tournament entry fees, market sales) is read from here and split by
    ``backend.economy.fees.schedule.split_fee`` into treasury, center and creator legs."""

    model_config = SettingsConfigDict(env_prefix="DEW_FEES_")

    # The rake on a staked table's pot (bps of the stakes in play).
    rake_bps: int = Field(500, ge=0, le=2_000)
    # The highest fee a tournament may take from its entry fees (bps of the fees).
    tournament_max_bps: int = Field(2_000, ge=0, le=5_000)
    # The market's fee on a sale (bps of the price): what ``deploy_all`` gives Market.sol.
    market_bps: int = Field(250, ge=0, le=1_000)
    # Shares of every fee (bps of the fee): the center that hosted the match, the creator
    # who brought the player; the treasury takes the rest and the rounding remainder.
    center_bps: int = Field(2_000, ge=0, le=10_000)
    creator_bps: int = Field(1_000, ge=0, le=10_000)
    # A creator earns from a player's matches for this long after the player bound to it.
    creator_period_days: int = Field(180, ge=1, le=3_650)
    # The most one creator earns per season; the excess goes to the treasury.
    creator_cap_per_season: int = Field(1_000 * 10**18, ge=0)

    @model_validator(mode="after")
    def _shares_fit(self) -> FeeSettings:
        if self.center_bps + self.creator_bps > 10_000:
            raise ValueError("DEW_FEES_CENTER_BPS + DEW_FEES_CREATOR_BPS must be <= 10000")
        return self


class TablesSettings(BaseSettings):
    """Bounds on what one wallet can do with tables (docs/security.md)."""

    model_config = SettingsConfigDict(env_prefix="DEW_TABLES_")

    # The shortest turn timer wherever DEW or rank is at stake (earning and staked tables,
    # matchmaking, every tournament, the operator's and a center host's): a human seat must
    # have time to answer before the timeout bot plays (and, after three, forfeits) for it.
    min_earning_turn_timeout_s: float = 15.0
    # Open or playing tables one wallet may have created at once (AI-vs-AI ones included).
    max_live_tables_per_wallet: int = 5
    # Seats one wallet may hold at once at open or playing tables it did not create (joined
    # through POST /tables/{id}/join): without it one wallet could sit at every table listed.
    max_seats_at_others_tables_per_wallet: int = 5
    # Where players open the web client; invite links point at its page for the table.
    # None: the origin wallets sign in at (DEW_AUTH_URI: the embedded server's own base,
    # http://localhost:8000, or the proxy's in docker-compose), never the request's Host.
    public_url: str | None = None
    # False turns staked tables off for this deployment (where wagers are forbidden):
    # creating, joining or queueing for one is refused with staked_play_disabled
    # (docs/economy.md, "Terms, legal age and staked play").
    staked_play: bool = True

    # Bounds on any table's turn timer (the earning floor above is stricter for earning and
    # staked tables): the create-table form offers only timers inside them.
    min_turn_timeout_s: float = 1.0
    max_turn_timeout_s: float = 600.0


class TermsSettings(BaseSettings):
    """The terms of service wallets accept in their sign-in message (docs/economy.md, "Terms,
    legal age and staked play"). Unset (development): no terms, nothing gated; set both to
    require accepted current terms and a confirmed legal age for earning and staked play."""

    model_config = SettingsConfigDict(env_prefix="DEW_TERMS_")

    version: str | None = Field(None, pattern=r"^[A-Za-z0-9._-]{1,32}$")
    # The terms document (http or https, no fragment): the resource signed is
    # "<uri>#version=<version>".
    uri: str | None = Field(None, max_length=200, pattern=r"^https?://[^\s#]+$")

    @model_validator(mode="after")
    def _both_or_neither(self) -> TermsSettings:
        if (self.version is None) != (self.uri is None):
            raise ValueError("set both DEW_TERMS_VERSION and DEW_TERMS_URI, or neither")
        return self


class CompetitionsSettings(BaseSettings):
    """Tournaments (docs/competitions.md)."""

    model_config = SettingsConfigDict(env_prefix="DEW_COMPETITIONS_")

    # Beat runs advance_tournaments_task this often: it starts due tournaments and rounds,
    # collects results and finishes tournaments.
    advance_every_s: float = 2.0
    # Steps per tournament per task run (a step: start, a round's results, the next round).
    max_steps: int = 8
    # A Game Center's host may schedule its tournament to start at most this many days
    # ahead: its entrants' fees are held in escrow until it starts (they may leave before).
    host_max_lead_days: int = Field(30, ge=1, le=366)


class HttpSettings(BaseSettings):
    """The HTTP edge: rate limits, the request body limit and the security headers.

    Limits are in the ``limits`` notation ("60/minute", several joined by ";"), counted per
    client address and, for requests with a valid access token, per wallet too. A real
    player stays far below them (docs/security.md); a script flooding meets a 429.
    """

    model_config = SettingsConfigDict(env_prefix="DEW_HTTP_")

    rate_limits: bool = True
    # Where the counters live. None: Redis at DEW_SERVER_REDIS_URL when it is set (several
    # processes then share one budget), else this process's memory.
    rate_limit_storage_url: str | None = None
    rate_limit_key_prefix: str = "dew-limits"
    # Nonce, sign-in and refresh (anonymous: per address only).
    signin_per_ip: str = "60/minute;600/hour"
    # The economy's transaction builders (anonymous; each asks the node for a gas estimate).
    transactions_per_ip: str = "30/minute;300/hour"
    # Creating tables, matchmaking tickets and tournament registrations.
    create_per_ip: str = "60/minute"
    create_per_wallet: str = "12/minute;120/hour"
    # Everything else: reads, joins, the web client's files and WebSocket handshakes.
    general_per_ip: str = "1200/minute"
    general_per_wallet: str = "600/minute"
    # Request bodies above this many bytes are refused with 413 (the largest legitimate
    # one, a sign-in, is under 5 KiB).
    max_body_bytes: int = 64 * 1024
    # Content-Security-Policy, X-Frame-Options, nosniff and Referrer-Policy on every response.
    security_headers: bool = True
    # Proxies whose X-Forwarded-For names the client (uvicorn's forwarded_allow_ips, for
    # ``dew serve``): behind nginx, its address (docker-compose.yml).
    forwarded_allow_ips: str = "127.0.0.1"

    @model_validator(mode="after")
    def _parse_limits(self) -> HttpSettings:
        from limits import parse_many

        for name in (
            "signin_per_ip",
            "transactions_per_ip",
            "create_per_ip",
            "create_per_wallet",
            "general_per_ip",
            "general_per_wallet",
        ):
            try:
                parse_many(getattr(self, name))
            except ValueError as error:
                raise ValueError(f"DEW_HTTP_{name.upper()}: {error}") from None
        return self


class SocketSettings(BaseSettings):
    """Bounds on WebSockets that anyone may open (docs/security.md)."""

    model_config = SettingsConfigDict(env_prefix="DEW_SOCKETS_")

    # Tournament event sockets (anonymous): open at once from one client address, and on
    # one tournament; beyond either the socket is refused with close code 4429.
    tournament_per_address: int = 16
    tournament_per_tournament: int = 2000
    # One database poll per watched tournament (never one per socket), this often.
    tournament_poll_s: float = 0.5
    # Messages queued for one tournament socket that does not read; beyond it is closed.
    tournament_max_queue: int = 64
    # Sockets of one signed-in entrant of a tournament: beyond the two caps above, so an
    # entrant always gets in to watch its own tournament, however full it is.
    tournament_per_entrant: int = Field(4, ge=1, le=64)
    # Table sockets (/ws/tables/{id}) of spectators: open at once from one client address
    # (an IPv6 address by its /64) over this process's tables, and on one table; beyond
    # either the socket is refused with close code 4429. A seated wallet's sockets are not
    # counted (its seat is reserved): at most ``table_per_seat`` of them per seat.
    table_per_address: int = Field(32, ge=1, le=100_000)
    table_spectators_per_table: int = Field(1000, ge=1, le=1_000_000)
    table_per_seat: int = Field(8, ge=1, le=64)


class LogSettings(BaseSettings):
    """Log lines (docs/operations.md): human-readable on a terminal, one JSON object per line
    in production (``DEW_LOG_FORMAT=json``)."""

    model_config = SettingsConfigDict(env_prefix="DEW_LOG_")

    format: Literal["console", "json"] = "console"
    level: str = "INFO"


class MetricsSettings(BaseSettings):
    """Prometheus metrics (docs/operations.md)."""

    model_config = SettingsConfigDict(env_prefix="DEW_METRICS_")

    enabled: bool = True
    # prometheus-client's multiprocess directory. None: ``dew serve`` and ``dew worker`` each
    # use a fresh one under var/metrics/ per run (wiped at start, removed at exit).
    multiproc_dir: Path | None = None
    # Who may read /metrics: peers (the socket's address, never a header) in these networks,
    # or any caller presenting ``Authorization: Bearer <token>`` when a token is set.
    allow_from: list[str] = Field(default_factory=lambda: ["127.0.0.1/32", "::1/128"])
    token: str = ""
    # The Celery worker serves its own metrics here; port 0: none.
    worker_host: str = "127.0.0.1"
    worker_port: int = Field(9500, ge=0, le=65535)
    # Database-derived gauges (requests by state, queue, live matches) are cached this long,
    # so scrapes (however frequent) cost at most one set of queries per interval.
    state_cache_s: float = Field(5.0, ge=0.0, le=300.0)


class ReadinessSettings(BaseSettings):
    """``/ready`` and the worker heartbeat (docs/operations.md)."""

    model_config = SettingsConfigDict(env_prefix="DEW_READY_")

    # Each check (database, Redis, node, contracts, heartbeat) answers within this or fails.
    check_timeout_s: float = Field(2.0, gt=0.0, le=4.5)
    # A result is shared by every caller for this long (a flood of /ready costs nothing more).
    cache_s: float = Field(1.0, ge=0.0, le=10.0)
    # The worker writes its heartbeat this often; older than ``heartbeat_stale_s`` is lost.
    heartbeat_every_s: float = Field(2.0, gt=0.0, le=60.0)
    heartbeat_stale_s: float = Field(10.0, gt=0.0, le=600.0)
    # Whether /ready needs a live worker (off for a server run without workers).
    require_worker: bool = True


class TalkSettings(BaseSettings):
    """Table talk, reports of players, support tickets and private messages
    (docs/security.md, "Table talk")."""

    model_config = SettingsConfigDict(env_prefix="DEW_TALK_")

    # Quick-chat phrases and emotes only, unless a deployment allows short free text.
    free_text: bool = False
    free_text_max_chars: int = Field(80, ge=1, le=280)
    # Per seat of a table, however many sockets it opens, on top of each socket's own message
    # limit: a burst of ``rate_burst``, then ``rate_per_s`` (shared through Redis if set).
    rate_per_s: float = Field(0.5, gt=0.0, le=10.0)
    rate_burst: int = Field(4, ge=1, le=50)
    # Reports one wallet may file in 24 hours (one per player and table in any case).
    reports_per_day: int = Field(10, ge=1, le=1000)
    # Support tickets one wallet may open, and messages it may write in them, in 24 hours.
    tickets_per_day: int = Field(5, ge=1, le=100)
    ticket_messages_per_day: int = Field(30, ge=1, le=1000)
    # Friends: requests one wallet may send in 24 hours, and private messages it may write
    # in a minute and in 24 hours (backend/friends).
    friend_requests_per_day: int = Field(30, ge=1, le=1000)
    friend_messages_per_minute: int = Field(20, ge=1, le=600)
    friend_messages_per_day: int = Field(500, ge=1, le=10_000)


class OperatorSettings(BaseSettings):
    """Who may use the operator-only HTTP routes (``/operator``, docs/operations.md)."""

    model_config = SettingsConfigDict(env_prefix="DEW_OPERATOR_")

    # Wallets whose signed-in sessions are operators', a JSON list in the environment:
    # DEW_OPERATOR_ADDRESSES='["0xAbc..."]'. Empty (the default): nobody, every route is 403.
    addresses: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _addresses_are_addresses(self) -> OperatorSettings:
        from eth_utils.address import is_address

        bad = [a for a in self.addresses if not is_address(a)]
        if bad:
            raise ValueError(f"DEW_OPERATOR_ADDRESSES holds non-addresses: {bad!r}")
        return self


class Settings(BaseSettings):
    """All settings; ``environment`` decides whether development defaults are allowed."""

    model_config = SettingsConfigDict(env_prefix="DEW_")

    environment: str = "development"
    db: DatabaseSettings = DatabaseSettings()
    broker: BrokerSettings = BrokerSettings()
    chain: ChainSettings = ChainSettings()
    # A factory, not an instance: building AuthSettings may create the installation's secret.
    auth: AuthSettings = Field(default_factory=AuthSettings)
    server: ServerSettings = ServerSettings()
    economy: EconomySettings = EconomySettings()
    fees: FeeSettings = FeeSettings()
    competitions: CompetitionsSettings = CompetitionsSettings()
    tables: TablesSettings = TablesSettings()
    http: HttpSettings = HttpSettings()
    sockets: SocketSettings = SocketSettings()
    log: LogSettings = LogSettings()
    metrics: MetricsSettings = MetricsSettings()
    ready: ReadinessSettings = ReadinessSettings()
    terms: TermsSettings = TermsSettings()
    talk: TalkSettings = TalkSettings()
    operator: OperatorSettings = Field(default_factory=OperatorSettings)

    @model_validator(mode="after")
    def _refuse_dev_secrets_in_production(self) -> Settings:
        if not self.auth.jwt_secret:
            raise ValueError(
                "DEW_AUTH_JWT_SECRET is not set and no secret could be kept in "
                f"{self.auth.jwt_secret_file} (DEW_AUTH_JWT_SECRET_FILE)"
            )
        if self.environment != "development":
            secret = self.auth.jwt_secret
            if (
                self.auth.secret_generated
                or len(secret) < MIN_SECRET_CHARS
                or secret in PUBLISHED_SECRETS
            ):
                raise ValueError(
                    f"DEW_AUTH_JWT_SECRET must be set outside development, at least "
                    f"{MIN_SECRET_CHARS} characters (e.g. `openssl rand -hex 32`)"
                )
            if self.chain.operator_key == ChainSettings.model_fields["operator_key"].default:
                raise ValueError("DEW_CHAIN_OPERATOR_KEY must be set outside development")
            # Without terms nothing is gated (backend/accounts/terms.py). Tournament entry
            # fees (which any center host may charge) cannot be turned off, so this holds
            # even with DEW_TABLES_STAKED_PLAY=false.
            if self.terms.version is None or self.terms.uri is None:
                raise ValueError(
                    "DEW_TERMS_VERSION and DEW_TERMS_URI must be set outside development: "
                    "staked tables and tournament entry fees take DEW only from wallets that "
                    "accepted the terms and confirmed their legal age, and with no terms "
                    "configured nothing would be asked"
                )
        return self


@lru_cache
def get_settings() -> Settings:
    return Settings(
        db=DatabaseSettings(),
        broker=BrokerSettings(),
        chain=ChainSettings(),
        auth=AuthSettings(),
        server=ServerSettings(),
        economy=EconomySettings(),
        fees=FeeSettings(),
        tables=TablesSettings(),
        http=HttpSettings(),
        sockets=SocketSettings(),
        log=LogSettings(),
        metrics=MetricsSettings(),
        ready=ReadinessSettings(),
        terms=TermsSettings(),
        talk=TalkSettings(),
    )
