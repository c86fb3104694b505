"""Settings, one pydantic-settings class per concern.

Nothing else in the project reads ``os.environ``. Every value has an embedded
default so that ``make demo`` runs with no server; production overrides them
through ``DEW_*`` environment variables (see docker-compose.yml).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import model_validator
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
    jwt_secret: str = "dev-only-secret-change-me-outside-development"
    access_token_ttl_s: int = 900
    refresh_token_ttl_s: int = 14 * 24 * 3600
    nonce_ttl_s: int = 300
    statement: str = "Sign in to Domino Earning World."
    # Tolerated clock difference between a wallet and the server for "Issued At".
    clock_skew_s: int = 60


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

    # Platform fee on staked tables' pots, in basis points (docs/economy.md).
    fee_bps: int = 500
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


class CompetitionsSettings(BaseSettings):
    """Tournaments (docs/competitions.md)."""

    model_config = SettingsConfigDict(env_prefix="DEW_COMPETITIONS_")

    # Beat runs advance_tournaments_task this often: it starts due tournaments and rounds,
    # collects results and finishes tournaments.
    advance_every_s: float = 2.0
    # Steps per tournament per task run (a step: start, a round's results, the next round).
    max_steps: int = 8


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


class Settings(BaseSettings):
    """All settings; ``environment`` decides whether development defaults are allowed."""

    model_config = SettingsConfigDict(env_prefix="DEW_")

    environment: str = "development"
    db: DatabaseSettings = DatabaseSettings()
    broker: BrokerSettings = BrokerSettings()
    chain: ChainSettings = ChainSettings()
    auth: AuthSettings = AuthSettings()
    server: ServerSettings = ServerSettings()
    economy: EconomySettings = EconomySettings()
    competitions: CompetitionsSettings = CompetitionsSettings()
    sockets: SocketSettings = SocketSettings()

    @model_validator(mode="after")
    def _refuse_dev_secrets_in_production(self) -> Settings:
        if self.environment != "development":
            if self.auth.jwt_secret == AuthSettings.model_fields["jwt_secret"].default:
                raise ValueError("DEW_AUTH_JWT_SECRET must be set outside development")
            if self.chain.operator_key == ChainSettings.model_fields["operator_key"].default:
                raise ValueError("DEW_CHAIN_OPERATOR_KEY must be set outside development")
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
        sockets=SocketSettings(),
    )
