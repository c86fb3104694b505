"""FastAPI dependencies of every router, named with ``Annotated`` so routes read as plain
parameters: the settings, the request's database session, the signed-in wallet, the gate
and the match hub. They live at the API layer: the services never import FastAPI."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Annotated, Any, Protocol, TypeVar, cast

from fastapi import Depends, Request
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel
from sqlalchemy.orm import Session, sessionmaker

from backend.accounts import exceptions as accounts_exc
from backend.accounts import service as accounts
from backend.accounts import terms as accounts_terms
from backend.accounts.service import Principal
from backend.api.params import out_of
from backend.care import standing
from backend.care.standing import Door
from backend.chain.operator_requests import RequestFamily
from backend.chain.outbox import inserted_here
from backend.chain.unsigned import TxBuilder
from backend.competitions.contributions import ContributionTxBuilder
from backend.config import Settings
from backend.db.session import make_session_factory
from backend.economy.chain_reader import ChainReader
from backend.economy.scholarships.screening import ScreenerRoles
from backend.economy.scholarships.transactions import ScholarshipTxBuilder
from backend.markets import exceptions as markets_exc
from backend.markets.jobs import MarketsChain
from backend.tables.gating import Gate
from backend.tables.live.hub import MatchHub

__all__ = [
    "BuilderDep",
    "ChainReaderDep",
    "CurrentModerator",
    "CurrentOperator",
    "CurrentPlayer",
    "CurrentScreener",
    "GateDep",
    "HubDep",
    "MarketDoor",
    "MarketsDep",
    "ScreenersDep",
    "SessionDep",
    "SettingsDep",
    "ShopDoor",
    "get_current_player",
    "get_operator",
    "get_session",
    "get_tx_builder",
    "read_sessions",
]

# --- settings -----------------------------------------------------------------------------


# Trivial dependencies are ``async def`` so that FastAPI calls them inline instead of in a
# worker thread (a thread hop costs more than a sign-in's own work). ``app.state`` is
# untyped: create_app() sets each attribute read here, hence the casts.
async def get_settings(request: Request) -> Settings:
    return cast(Settings, request.app.state.settings)


SettingsDep = Annotated[Settings, Depends(get_settings)]

# --- the database session -----------------------------------------------------------------

# Safe methods only read (HTTP's contract, and ours): their sessions are read-only, which on
# SQLite means they never take the write lock, so a reader never waits for a writer.
_READING = frozenset({"GET", "HEAD", "OPTIONS"})


def read_sessions(state: Any) -> sessionmaker[Session]:
    """The app's read-only session factory (made from its writer factory if the app was
    assembled without one, as some tests' bare apps are)."""
    factory = getattr(state, "read_session_factory", None)
    if factory is None:
        factory = make_session_factory(state.session_factory.kw["bind"], read_only=True)
        state.read_session_factory = factory
    return cast("sessionmaker[Session]", factory)


def get_session(request: Request) -> Iterator[Session]:
    """A session per request; services commit their own unit of work. It connects (and on
    SQLite a writer takes the write lock) only at its first statement, so whatever a route
    does before its unit of work (authentication, chain reads) holds no lock."""
    state = request.app.state
    factory = read_sessions(state) if request.method in _READING else state.session_factory
    session: Session = factory()
    try:
        yield session
    finally:
        session.close()


SessionDep = Annotated[Session, Depends(get_session)]

# --- the signed-in wallet -----------------------------------------------------------------

_bearer = HTTPBearer(auto_error=False, description="Access token from /auth/signin")


def get_current_player(
    request: Request,
    settings: SettingsDep,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> Principal:
    if credentials is None or credentials.scheme.lower() != "bearer":
        raise accounts_exc.NotAuthenticated("send 'Authorization: Bearer <access token>'")
    # Its own read-only session, closed before the route runs: the route's session (and on
    # SQLite the write lock) is not opened by authentication and not held across the
    # route's slow work (the chain gate).
    with read_sessions(request.app.state)() as session:
        return accounts.authenticate(
            session=session, settings=settings, token=credentials.credentials
        )


CurrentPlayer = Annotated[Principal, Depends(get_current_player)]


def get_operator(settings: SettingsDep, player: CurrentPlayer) -> Principal:
    """The signed-in wallet, if it is listed in ``DEW_OPERATOR_ADDRESSES``; else 403."""
    from backend.economy.operator import NotOperator, is_operator

    if not is_operator(player.address, settings.operator.addresses):
        raise NotOperator("this route is for the operator's wallets only")
    return player


CurrentOperator = Annotated[Principal, Depends(get_operator)]


def get_moderator(request: Request, settings: SettingsDep, player: CurrentPlayer) -> Principal:
    """The signed-in wallet, if it is the operator's or one the operator made a moderator;
    else 403."""
    from backend.care import moderation
    from backend.care.exceptions import NotModerator
    from backend.economy.operator import is_operator

    if is_operator(player.address, settings.operator.addresses):
        return player
    with read_sessions(request.app.state)() as session:
        if moderation.is_moderator(session=session, address=player.address):
            return player
    raise NotModerator("this route is for the operator and the moderators it named")


CurrentModerator = Annotated[Principal, Depends(get_moderator)]


def at_door(door: Door) -> Callable[..., Principal]:
    """A dependency: the signed-in wallet, once the one gate lets it through ``door``
    (``backend.care.standing``). Declared before a route's chain dependencies, it refuses
    a wallet before the chain is asked."""

    def through(request: Request, player: CurrentPlayer) -> Principal:
        with read_sessions(request.app.state)() as session:
            standing.require(session, player.address, door)
        return player

    return through


ShopDoor = Annotated[Principal, Depends(at_door(Door.SHOP))]
MarketDoor = Annotated[Principal, Depends(at_door(Door.MARKET))]
DepositDoor = Annotated[Principal, Depends(at_door(Door.DEPOSIT))]

# --- live play ----------------------------------------------------------------------------


class Play(Protocol):
    """What a seat is asked for: a table, a table to be, or a matchmaking ticket."""

    @property
    def stake(self) -> int | str: ...
    @property
    def earning(self) -> bool: ...


def terms_for_play(session: Session, settings: Settings, address: str, play: Play) -> None:
    """The terms and legal age that ``play`` needs of ``address`` (by its stake, and whether
    it earns), checked before a table is created, joined or queued for."""
    accounts_terms.require_for_play(
        session=session, settings=settings, address=address, stake=play.stake, earning=play.earning
    )


async def get_gate(request: Request) -> Gate:
    return cast(Gate, request.app.state.gate)


async def get_hub(request: Request) -> MatchHub:
    return cast(MatchHub, request.app.state.hub)


GateDep = Annotated[Gate, Depends(get_gate)]
HubDep = Annotated[MatchHub, Depends(get_hub)]

# --- the chain reader ---------------------------------------------------------------------


def get_chain_reader(request: Request) -> Callable[[], ChainReader]:
    """The deployment's reader, one per app, built on the first call (a route that needs the
    chain only sometimes calls it only then; the build raises ``ChainError`` or ``OSError``
    when the node or the manifest is missing, for the route to put in its own words)."""

    def reader() -> ChainReader:
        built = getattr(request.app.state, "chain_reader", None)
        if built is None:
            from backend.economy.jobs import chain_reader

            built = request.app.state.chain_reader = chain_reader(request.app.state.settings)
        return cast(ChainReader, built)

    return reader


ChainReaderDep = Annotated[Callable[[], ChainReader], Depends(get_chain_reader)]


def get_chain_now(reader: ChainReaderDep) -> int:
    """Chain time (unix seconds), which agreements run out by; this machine's clock when the
    node cannot be read (a report must not fail because the node is slow)."""
    from web3.exceptions import Web3Exception

    from backend.chain.exceptions import ChainError

    now = int(time.time())
    try:
        return now + reader().clock_offset_s()
    except (ChainError, Web3Exception, OSError, ValueError):
        return now


ChainNowDep = Annotated[int, Depends(get_chain_now)]

# --- unsigned transactions ----------------------------------------------------------------


def get_contributions(request: Request) -> ContributionTxBuilder:
    """The contributions' builder, one per app, bound to the deployment in settings."""
    return _builder(request, "contribution_tx_builder", ContributionTxBuilder)


ContributionsDep = Annotated[ContributionTxBuilder, Depends(get_contributions)]


B = TypeVar("B", bound=TxBuilder)


def _builder(request: Request, name: str, kind: type[B]) -> B:
    """The app's builder of ``kind`` (``app.state.<name>``), made on the first call from the
    deployment's reader; no deployment is the builder's own ``unavailable`` error."""
    builder = getattr(request.app.state, name, None)
    if builder is None:
        from backend.chain.exceptions import ChainError

        try:
            reader = get_chain_reader(request)()
        except (ChainError, OSError) as error:
            raise kind.unavailable(f"no deployment to build transactions for: {error}") from error
        builder = kind(reader.contracts)
        setattr(request.app.state, name, builder)
    return cast(B, builder)


def get_tx_builder(request: Request) -> ScholarshipTxBuilder:
    """One builder per app, bound to the deployment in settings (or set by the app/tests)."""
    return _builder(request, "economy_tx_builder", ScholarshipTxBuilder)


BuilderDep = Annotated[ScholarshipTxBuilder, Depends(get_tx_builder)]


def get_screeners(request: Request, builder: BuilderDep, settings: SettingsDep) -> ScreenerRoles:
    """Who holds SCREENER_ROLE: one cache per app, read through the deployment's builder."""
    roles = getattr(request.app.state, "screener_roles", None)
    if roles is None:
        roles = ScreenerRoles(
            builder.has_screener_role, ttl_s=settings.economy.screening_role_cache_s
        )
        request.app.state.screener_roles = roles
    return cast(ScreenerRoles, roles)


ScreenersDep = Annotated[ScreenerRoles, Depends(get_screeners)]


def get_screener(player: CurrentPlayer, screeners: ScreenersDep) -> str:
    """The signed-in wallet's address, if it holds SCREENER_ROLE; else 403 (``NotScreener``)."""
    return screeners.require(player.address)


CurrentScreener = Annotated[str, Depends(get_screener)]


# --- markets ------------------------------------------------------------------------------


def get_markets(request: Request) -> MarketsChain:
    """The deployment's markets reader and builder: one per app (or set by the app/tests)."""
    markets = getattr(request.app.state, "markets_chain", None)
    if markets is None:
        from backend.chain.exceptions import ChainError
        from backend.markets.jobs import markets_chain

        try:
            markets = markets_chain(request.app.state.settings)
        except (ChainError, OSError, KeyError) as error:
            raise markets_exc.Unavailable(f"no markets deployment: {error}") from error
        request.app.state.markets_chain = markets
    return cast(MarketsChain, markets)


MarketsDep = Annotated[MarketsChain, Depends(get_markets)]


def queued_once(
    request: Request,
    session: Session,
    family: RequestFamily,
    model: type[BaseModel],
    queue: Callable[..., object],
    *,
    idempotency_key: str,
    **fields: object,
) -> Any:
    """An operator's chain request of ``family`` queued under its idempotency key, committed:
    ``queue(session=, idempotency_key=, chain_id=, **fields)`` (the service) answered as
    ``model`` with the route's 202, or, for a repeat of the same key and body, the first one
    with 200 (another body under the key is the service's 409). One place for the five
    operator routes that queue a mint, a VIP pass, a shop listing or update, a center."""
    key = family.key(idempotency_key)  # a bad key is refused before anything is read
    chain_id = request.app.state.settings.chain.chain_id
    queued = queue(session=session, idempotency_key=idempotency_key, chain_id=chain_id, **fields)
    out = out_of(model, queued)
    first = inserted_here(session, key)
    session.commit()
    if not first:
        return JSONResponse(out.model_dump(mode="json"), status_code=200)
    return out
