"""What a finished match counts for: the one rule (docs/economy.md, "What a match counts for").

Every finished match is in its players' own history (their seat records, the replay). What
else it counts for is decided here and nowhere else:

- ``EMISSION``: the season budget pays its human seats' emission shares (``plan_rewards``);
- ``LEADERBOARD``: its seats' wins and points rank the season's leaderboard, and so the
  season's rewards, a tournament's season-rank entry rule and a tournament's seeding;
- ``CREATOR_EARNINGS`` and ``CENTER_EARNINGS``: its fee pays the referring creators' and the
  hosting Game Center's legs.

A free table (practice against bots, same-device, AI-vs-AI, a tournament round, any table
that is not earning) and an abandoned match count for nothing beyond the history. An earning
match pays emission (bots' seats bring none, ``policy.plan_rewards``), and a staked one pays
its fee's legs. The leaderboard needs more: a *contested* match, where two different wallets
sat on different sides, so a wallet alone against bots, or one wallet in every human seat,
never gains a rank. A seat counts for what its match counts for if it is a human's seat
whose wallet still held what admitted it at the end; a bot's seat counts for nothing.

The economy writes :func:`seat_counts` on each seat record when it plans the match
(``SeatRecord.counts``), and the SQL readers (the leaderboard, the creators' dashboard)
filter on that column (``SeatRecord.counted_for``): one definition, read in Python and SQL.

Standard library only (and ``backend.kit``): ``policy`` imports it.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntFlag, StrEnum
from typing import Protocol

from backend.kit.guests import is_guest_address


class TableEconomy(StrEnum):
    """How a table pays: nothing, emission from the season budget, or entry stakes."""

    FREE = "free"
    EMISSION = "emission"
    STAKED = "staked"


class Count(IntFlag):
    """What a match (or one of its seats) counts for, besides its players' history. Stored
    as an integer on each seat record; the values are fixed (rows keep them)."""

    EMISSION = 1
    LEADERBOARD = 2
    CREATOR_EARNINGS = 4
    CENTER_EARNINGS = 8


# A match counted for nothing but its players' history.
HISTORY_ONLY = Count(0)


class SeatLike(Protocol):
    """A seat as the rule reads it (``policy.SeatResult``)."""

    @property
    def address(self) -> str | None: ...

    @property
    def side(self) -> int: ...

    @property
    def eligible(self) -> bool: ...


class MatchLike(Protocol):
    """A finished match as the rule reads it (``policy.FinishedMatch``)."""

    @property
    def economy(self) -> TableEconomy: ...

    @property
    def aborted(self) -> bool: ...

    @property
    def seats(self) -> Sequence[SeatLike]: ...


def contested(match: MatchLike) -> bool:
    """Two different wallets sat on different sides: someone could beat someone (a guest,
    who has no wallet, is no one to beat)."""
    humans = [
        (s.side, s.address.lower())
        for s in match.seats
        if s.address and not is_guest_address(s.address)
    ]
    return any(a[0] != b[0] and a[1] != b[1] for a in humans for b in humans)


def match_counts(match: MatchLike) -> Count:
    """What a finished match counts for (the one rule; see the module's docstring)."""
    if match.aborted or match.economy is TableEconomy.FREE:
        return HISTORY_ONLY
    counts = Count.EMISSION
    if match.economy is TableEconomy.STAKED:
        counts |= Count.CREATOR_EARNINGS | Count.CENTER_EARNINGS
    if contested(match):
        counts |= Count.LEADERBOARD
    return counts


def seat_counts(match: MatchLike, seat: SeatLike) -> Count:
    """What one seat of ``match`` counts for: its match's counts for a human's seat still
    eligible at the end, nothing for a bot's or for one no longer eligible (it took no part
    in the pots, ``policy.plan_rewards``), nor for a guest's, who plays free only."""
    if seat.address is None or not seat.eligible or is_guest_address(seat.address):
        return HISTORY_ONLY
    return match_counts(match)
