"""The operator's actions, shared by ``dew`` commands and the operator-only HTTP routes.

Who is an operator is decided at the edge (``backend.api.deps.get_operator`` for HTTP: a
signed-in wallet listed in ``DEW_OPERATOR_ADDRESSES``; the shell for ``dew``). Everything
here is a plain service: keyword-only ``session``, never commits, and on-chain effects only
through the chain outbox (the worker sends them). A refused input raises
:class:`~backend.economy.exceptions.EconomyValueError` before anything is written.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import partial

from eth_utils.address import is_address, to_checksum_address
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from backend.chain import outbox
from backend.chain.models import ChainRequest, RequestKind
from backend.chain.operator_requests import RequestFamily, RequestState
from backend.db.base import aware, utcnow
from backend.economy import season_rewards, seasons
from backend.economy.exceptions import Conflict, EconomyError, EconomyValueError
from backend.economy.models import Season, SeasonReward
from backend.kit import errors as kind

# One operator request mints at most this many avatars (the outbox's own cap is larger:
# this keeps one HTTP body and one transaction small).
MAX_MINT_RECIPIENTS = 100
# A VIP pass's expiry (unix seconds) must be in the future and at most this far ahead.
MAX_VIP_TERM_S = 10 * 366 * 24 * 3600
VIP_ACTIONS = ("issue", "revoke")
# A season's emission budget is DEW wei; 10**30 is a billion billion DEW, far past any plan.
MAX_EMISSION_BUDGET = 10**30


class NotOperator(EconomyError, kind.Forbidden):
    """The caller is signed in but its wallet is not an operator's."""


class MintNotFound(EconomyError, kind.NotFound):
    """No operator mint request has the id asked for."""


def is_operator(address: str, operators: Sequence[str]) -> bool:
    """Whether ``address`` is one of ``operators`` (compared checksummed)."""
    if not is_address(address):
        return False
    wanted = to_checksum_address(address)
    return any(is_address(a) and to_checksum_address(a) == wanted for a in operators)


class VipNotFound(EconomyError, kind.NotFound):
    """No operator VIP request has the id asked for."""


MINTS = RequestFamily(
    "operator-mint:",
    {RequestKind.MINT},
    "operator mint",
    invalid=EconomyValueError,
    conflict=Conflict,
    not_found=MintNotFound,
)
VIPS = RequestFamily(
    "operator-vip:",
    {RequestKind.VIP_ISSUE, RequestKind.VIP_REVOKE},
    "operator VIP request",
    invalid=EconomyValueError,
    conflict=Conflict,
    not_found=VipNotFound,
)


@dataclass(frozen=True)
class MintStatus(RequestState):
    """Where an operator's mint request stands: ``token_ids`` once confirmed."""

    recipients: list[str]
    token_ids: list[int] | None

    @classmethod
    def of(cls, request: ChainRequest) -> MintStatus:
        ids = (request.result or {}).get("token_ids")
        return cls(
            **MINTS.state(request),
            recipients=list(request.payload.get("recipients", [])),
            token_ids=[int(i) for i in ids] if ids is not None else None,
        )


def queue_mint(
    *,
    session: Session,
    recipients: Sequence[str],
    idempotency_key: str,
    chain_id: int | None = None,
) -> MintStatus:
    """Queue one avatar mint per recipient in the chain outbox; the worker sends it.

    The same key with the same recipients returns the first request (a retry never mints
    twice); the same key with other recipients is a :class:`Conflict`."""
    key = MINTS.key(idempotency_key)
    if not 1 <= len(recipients) <= MAX_MINT_RECIPIENTS:
        raise EconomyValueError(
            f"a mint needs 1..{MAX_MINT_RECIPIENTS} recipients, got {len(recipients)}"
        )
    for r in recipients:
        if not isinstance(r, str) or not is_address(r):
            raise EconomyValueError(f"mint recipient is not an address: {r!r}")
    with MINTS.queueing(idempotency_key):
        request = outbox.request_mint(
            session=session, recipients=list(recipients), idempotency_key=key, chain_id=chain_id
        )
    return MintStatus.of(request)


def mint_status(*, session: Session, request_id: int) -> MintStatus:
    """An operator mint by its outbox id; any other kind of request is not found."""
    return MintStatus.of(MINTS.find(session, request_id))


@dataclass(frozen=True)
class VipStatus(RequestState):
    """Where an operator's VIP pass request stands; ``expires_at`` is unix seconds."""

    action: str
    address: str
    expires_at: int | None

    @classmethod
    def of(cls, request: ChainRequest) -> VipStatus:
        expires = request.payload.get("expires_at")
        return cls(
            **VIPS.state(request),
            action="issue" if request.kind == RequestKind.VIP_ISSUE else "revoke",
            address=request.payload["holder"],
            expires_at=int(expires) if expires is not None else None,
        )


def _vip_request(session: Session, key: str) -> ChainRequest | None:
    request = session.scalar(select(ChainRequest).where(ChainRequest.idempotency_key == key))
    if request is not None and request.kind not in (RequestKind.VIP_ISSUE, RequestKind.VIP_REVOKE):
        return None
    return request


def vip_by_key(*, session: Session, idempotency_key: str) -> VipStatus | None:
    """The VIP request already queued under this operator key, if any (``dew vip issue
    --days`` reuses its expiry so that a retry is the same request)."""
    request = _vip_request(session, VIPS.key(idempotency_key))
    return VipStatus.of(request) if request is not None else None


def queue_vip(
    *,
    session: Session,
    action: str,
    address: str,
    idempotency_key: str,
    expires_at: int | None = None,
    chain_id: int | None = None,
    now: datetime | None = None,
) -> VipStatus:
    """Queue ``VIPPass.issue(address, expires_at)`` or ``VIPPass.revoke(address)`` in the
    chain outbox; the worker sends it. ``expires_at`` (unix seconds, issue only) must be in
    the future and at most :data:`MAX_VIP_TERM_S` ahead when the key is first used. The same
    key and body return the first request; the same key with another body is a
    :class:`Conflict`."""
    key = VIPS.key(idempotency_key)
    if action not in VIP_ACTIONS:
        raise EconomyValueError(f"VIP action must be issue or revoke, got {action!r}")
    if not isinstance(address, str) or not is_address(address):
        raise EconomyValueError(f"VIP pass holder is not an address: {address!r}")
    if action == "revoke" and expires_at is not None:
        raise EconomyValueError("a VIP revoke takes no expiry")
    if action == "issue":
        if isinstance(expires_at, bool) or not isinstance(expires_at, int):
            raise EconomyValueError(f"a VIP issue needs its expiry in unix seconds: {expires_at!r}")
        first = session.scalar(select(ChainRequest.id).where(ChainRequest.idempotency_key == key))
        at = int((now or utcnow()).timestamp())
        if first is None and not at < expires_at <= at + MAX_VIP_TERM_S:
            raise EconomyValueError(
                f"a VIP pass must expire after now ({at}) and within {MAX_VIP_TERM_S} s, "
                f"got {expires_at}"
            )
    with VIPS.queueing(idempotency_key):
        if expires_at is not None:  # an issue (checked above: a revoke has no expiry)
            request = outbox.request_vip_issue(
                session=session,
                holder=address,
                expires_at=expires_at,
                idempotency_key=key,
                chain_id=chain_id,
            )
        else:
            request = outbox.request_vip_revoke(
                session=session, holder=address, idempotency_key=key, chain_id=chain_id
            )
    return VipStatus.of(request)


def vip_status(*, session: Session, request_id: int) -> VipStatus:
    """An operator VIP request by its outbox id; any other request is not found."""
    return VipStatus.of(VIPS.find(session, request_id))


def _budget(emission_budget: int) -> int:
    if isinstance(emission_budget, bool) or not isinstance(emission_budget, int):
        raise EconomyValueError(f"emission budget must be an integer, got {emission_budget!r}")
    if not 0 <= emission_budget <= MAX_EMISSION_BUDGET:
        raise EconomyValueError(
            f"emission budget must be 0..{MAX_EMISSION_BUDGET} DEW wei, got {emission_budget}"
        )
    return emission_budget


def create_season(
    *,
    session: Session,
    name: str,
    starts_at: datetime,
    ends_at: datetime,
    emission_budget: int,
    rewards: Sequence[int] = (),
) -> Season:
    """One season (``economy.seasons.create_season``, which refuses overlaps), budget bounded;
    a name already taken is a :class:`Conflict`. ``rewards`` (DEW wei per leaderboard place,
    place 1 first) is its reward table, reserved from the budget
    (``economy.season_rewards.set_rewards``)."""
    budget = _budget(emission_budget)
    if session.scalars(select(Season.id).where(Season.name == name)).first() is not None:
        raise Conflict(f"a season is already named {name!r}")
    try:
        # A savepoint: a concurrent insert of the same name loses here, not at the commit.
        with session.begin_nested():
            season = seasons.create_season(
                session=session,
                name=name,
                starts_at=starts_at,
                ends_at=ends_at,
                emission_budget=budget,
            )
    except IntegrityError as error:
        raise Conflict(f"a season is already named {name!r}") from error
    if rewards:
        season_rewards.set_rewards(session=session, season_id=season.id, places=list(rewards))
    return season


def season_reward_places(*, session: Session, season_id: int) -> list[int]:
    """A season's reward table (DEW wei per place), empty if it has none."""
    reward = session.get(SeasonReward, season_id)
    return [int(a) for a in reward.places] if reward is not None else []


# Back-to-back seasons ``<prefix> 1..count`` (``economy.seasons.schedule_seasons``), each made
# and checked by :func:`create_season`.
schedule_seasons = partial(seasons.schedule_seasons, create=create_season)


def end_season(*, session: Session, season_id: int, now: datetime | None = None) -> Season:
    """End a running season now (its reward table becomes due); matches finishing later
    belong to no season. A season that has not started or has ended is refused."""
    season = seasons.get_season(session=session, season_id=season_id)
    session.refresh(season, with_for_update=True)
    at = now or utcnow()
    if not aware(season.starts_at) <= at < aware(season.ends_at):
        raise EconomyValueError(f"season {season.name!r} is not running")
    season.ends_at = at
    session.flush()
    return season
