"""The one fee schedule, and how a fee is split into its treasury, center and creator legs.

Every fee the platform takes (a staked pot's rake, a tournament's fee on its entry fees, a
market sale's fee) is one amount, split here: the Game Center that hosted the match gets
``center_bps`` of it, the creator who brought the player ``creator_bps``, and the treasury
the rest, rounding remainder included. A missing center or creator's share goes to the
treasury. :func:`split_fee` is the Python twin of the contracts' ``FeeSplit.split``
(docs/economy.md, "Fees"): both round each share down and give the remainder to the
treasury, so the legs always sum to the fee, with no dust.

Pure and standard-library only, like ``policy.py``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any, Protocol

from backend.kit.rows import columns

BPS = 10_000


class FeeScheduleError(ValueError):
    """A schedule or a fee that cannot be split; the message quotes the bad value."""


@dataclass(frozen=True)
class FeeSchedule:
    """What the platform takes and how each fee is shared (``FeeSettings``).

    ``rake_bps`` is the staked pot's rake, ``tournament_max_bps`` the highest fee a
    tournament may take from its entry fees, ``market_bps`` the market's fee on a sale;
    ``center_bps`` and ``creator_bps`` are shares *of a fee* (the treasury keeps the rest)."""

    rake_bps: int = 500
    tournament_max_bps: int = 2_000
    market_bps: int = 250
    center_bps: int = 2_000
    creator_bps: int = 1_000
    creator_period_days: int = 180
    creator_cap_per_season: int = 1_000 * 10**18

    def __post_init__(self) -> None:
        for name in ("rake_bps", "tournament_max_bps", "market_bps", "center_bps", "creator_bps"):
            value = getattr(self, name)
            if not isinstance(value, int) or not 0 <= value <= BPS:
                raise FeeScheduleError(f"{name} must be an integer within 0..{BPS}, got {value!r}")
        if self.center_bps + self.creator_bps > BPS:
            raise FeeScheduleError(
                f"center_bps + creator_bps must be <= {BPS}, got "
                f"{self.center_bps!r} + {self.creator_bps!r}"
            )
        if self.creator_period_days < 1 or self.creator_cap_per_season < 0:
            raise FeeScheduleError("creator_period_days must be >= 1 and the cap >= 0")

    @property
    def treasury_bps(self) -> int:
        """The treasury's share of a fee when both a center and a creator take theirs."""
        return BPS - self.center_bps - self.creator_bps

    @classmethod
    def from_settings(cls, fees: Any) -> FeeSchedule:
        """From ``backend.config.FeeSettings`` (any object with its attributes)."""
        return cls(**{f.name: getattr(fees, f.name) for f in fields(cls)})

    def public(self) -> dict[str, int]:
        """The schedule as ``GET /fees`` shows it."""
        return columns(
            self,
            "rake_bps tournament_max_bps market_bps treasury_bps center_bps creator_bps"
            " creator_period_days creator_cap_per_season",
        )


@dataclass(frozen=True)
class FeeLegs:
    """One fee's legs: ``treasury + center + creator == fee`` always."""

    treasury: int
    center: int
    creator: int

    @property
    def total(self) -> int:
        return self.treasury + self.center + self.creator


def split_fee(fee: int, schedule: FeeSchedule, has_center: bool, has_creator: bool) -> FeeLegs:
    """Split ``fee`` as ``FeeSplit.split(fee, centerBps, creatorBps, hasCenter, hasCreator)``:
    each share rounds down, the treasury takes the remainder (and a missing party's share)."""
    if not isinstance(fee, int) or isinstance(fee, bool) or fee < 0:
        raise FeeScheduleError(f"fee must be a non-negative integer, got {fee!r}")
    center = fee * schedule.center_bps // BPS if has_center else 0
    creator = fee * schedule.creator_bps // BPS if has_creator else 0
    return FeeLegs(treasury=fee - center - creator, center=center, creator=creator)


def creator_shares(fee: int, paid_in: dict[int, int], schedule: FeeSchedule) -> dict[int, int]:
    """Each payer's creator share of a fee several payers paid (``paid_in``: payer key -> what
    it put in): the creator share of that payer's part of the fee, rounded down. Their sum
    never exceeds ``split_fee(fee, schedule, has_center, True).creator``, so the treasury's
    remainder is never negative."""
    total = sum(paid_in.values())
    if fee < 0 or total <= 0 or any(v < 0 for v in paid_in.values()):
        return {}
    return {
        key: fee * weight * schedule.creator_bps // (total * BPS) for key, weight in paid_in.items()
    }


# --- who is paid the center and creator legs -----------------------------------------------


class FeeRecipients(Protocol):
    """Who receives the center and creator legs of a fee, as of a time.

    The economy plans settlements but sits below the packages that know centers and
    creators (import-linter's layers), so the process that plans them passes this in
    (``backend.creators.routing.FeeRouting``); without one the treasury takes every fee."""

    def center_payee(
        self, session: Any, *, table_id: str | None, center_id: int | None, at: datetime
    ) -> tuple[int, str] | None:
        """The center (given, or hosting ``table_id``) and the address paid its legs at
        ``at``, or ``None``."""
        ...

    def creator_of(self, session: Any, *, player: str, at: datetime) -> str | None:
        """The creator address earning from ``player``'s fees at ``at``, or ``None``."""
        ...


class NoRecipients:
    """No center, no creator: the treasury takes every fee."""

    def center_payee(
        self, session: Any, *, table_id: str | None, center_id: int | None, at: datetime
    ) -> tuple[int, str] | None:
        return None

    def creator_of(self, session: Any, *, player: str, at: datetime) -> str | None:
        return None
