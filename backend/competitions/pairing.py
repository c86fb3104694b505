"""Tournament pairing, standings and prize shares: pure and deterministic (standard library only).

Entrants are small integers (their registration numbers); ``by_seed`` lists them best seed
first. A round is a list of :class:`Pairing`; a finished game is a :class:`Game`. The same
inputs always give the same pairings, so a worker that crashes mid-round and runs again
recomputes exactly the round it had started (see docs/competitions.md).

Scores are in half points: a win is 2, a draw 1, a loss 0, a bye 2 (the FIDE convention).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

WIN, DRAW, BYE = 2, 1, 2
BPS = 10_000
# Backtracking steps before Swiss pairing accepts a rematch (never hit in practice below a
# few thousand entrants; it bounds the worst case).
SWISS_SEARCH_BUDGET = 200_000


class PairingError(ValueError):
    """Bad tournament input: duplicate entrants, unknown winners, an impossible round."""


@dataclass(frozen=True)
class Pairing:
    """One game of a round: ``a`` is the better-placed entrant; ``b`` None is a bye."""

    a: int
    b: int | None


@dataclass(frozen=True)
class Game:
    """A finished game: ``winner`` is ``a``, ``b``, or None for a draw (a bye: ``b`` None)."""

    a: int
    b: int | None
    winner: int | None

    def __post_init__(self) -> None:
        if self.b is None and self.winner not in (None, self.a):
            raise PairingError(f"a bye can only be won by its entrant: {self!r}")
        if self.b is not None and self.winner not in (None, self.a, self.b):
            raise PairingError(f"winner {self.winner!r} did not play in {self!r}")


@dataclass(frozen=True)
class Standing:
    entrant: int
    place: int  # 1-based, strict (ties broken as documented)
    score: int  # half points
    wins: int
    tiebreak: int  # Swiss: Buchholz (sum of opponents' scores); elimination: rounds survived


def _check_entrants(by_seed: Sequence[int]) -> None:
    if len(set(by_seed)) != len(by_seed):
        raise PairingError(f"duplicate entrants in {list(by_seed)!r}")
    if len(by_seed) < 2:
        raise PairingError(f"a tournament needs at least 2 entrants, got {len(by_seed)}")


def rounds_needed(fmt: str, entrants: int) -> int:
    """Rounds of a tournament: ceil(log2(n)) for both formats (Swiss: enough to separate a
    single undefeated winner; elimination: the bracket's depth)."""
    if entrants < 2:
        raise PairingError(f"a tournament needs at least 2 entrants, got {entrants}")
    if fmt not in ("swiss", "elimination"):
        raise PairingError(f"format must be 'swiss' or 'elimination', not {fmt!r}")
    return (entrants - 1).bit_length()


# --- single elimination ---------------------------------------------------------------------


def bracket_order(size: int) -> list[int]:
    """Seed numbers (1-based) in bracket slot order for a power-of-two ``size``: seeds 1 and 2
    can meet only in the final, 1..4 only in the semi-finals, and so on."""
    if size < 1 or size & (size - 1):
        raise PairingError(f"bracket size must be a power of two, got {size}")
    order = [1]
    while len(order) < size:
        n = len(order) * 2
        order = [x for s in order for x in (s, n + 1 - s)]
    return order


def first_elimination_round(by_seed: Sequence[int]) -> list[Pairing]:
    """Round 1 of the bracket; the missing seeds of the power of two are byes, which go to the
    top seeds (a bye never meets a bye)."""
    _check_entrants(by_seed)
    size = 1 << (len(by_seed) - 1).bit_length()
    slots = [by_seed[s - 1] if s <= len(by_seed) else None for s in bracket_order(size)]
    pairings = []
    for i in range(0, size, 2):
        a, b = slots[i], slots[i + 1]
        assert a is not None  # the better seed of a slot pair always exists
        pairings.append(Pairing(a, b))
    return pairings


def next_elimination_round(previous: Sequence[Game]) -> list[Pairing]:
    """The winners of games 0 and 1 meet, then of 2 and 3, ...; ``previous`` in bracket order.

    Every game of the previous round must have a winner (a draw is decided before this,
    see :func:`decide`)."""
    if len(previous) < 2 or len(previous) % 2:
        raise PairingError(f"a bracket round has an even number of games, got {len(previous)}")
    winners = []
    for game in previous:
        if game.winner is None:
            raise PairingError(f"elimination game without a winner: {game!r}")
        winners.append(game.winner)
    return [Pairing(winners[i], winners[i + 1]) for i in range(0, len(winners), 2)]


def decide(game: Game, by_seed: Sequence[int]) -> Game:
    """Elimination needs a winner: a bye is won by its entrant, a draw by the better seed."""
    if game.winner is not None:
        return game
    if game.b is None:
        return Game(game.a, None, game.a)
    rank = {e: i for i, e in enumerate(by_seed)}
    return Game(game.a, game.b, min(game.a, game.b, key=rank.__getitem__))


def elimination_standings(
    by_seed: Sequence[int], rounds: Sequence[Sequence[Game]]
) -> list[Standing]:
    """Champion first, then by the round each entrant was knocked out in (later is better),
    ties (the losers of one round) by seed."""
    _check_entrants(by_seed)
    survived = {e: 0 for e in by_seed}
    wins = {e: 0 for e in by_seed}
    for number, games in enumerate(rounds, start=1):
        for game in games:
            game = decide(game, by_seed)
            assert game.winner is not None
            survived[game.winner] = number
            if game.b is not None:
                wins[game.winner] += 1
    rank = {e: i for i, e in enumerate(by_seed)}
    ordered = sorted(by_seed, key=lambda e: (-survived[e], rank[e]))
    return [
        Standing(e, place, WIN * wins[e], wins[e], survived[e])
        for place, e in enumerate(ordered, start=1)
    ]


# --- Swiss ----------------------------------------------------------------------------------


@dataclass
class _Tally:
    score: int = 0
    wins: int = 0
    byes: int = 0


def _tally(
    by_seed: Sequence[int], history: Iterable[Game]
) -> tuple[dict[int, _Tally], dict[int, set[int]], dict[int, list[int]]]:
    tallies = {e: _Tally() for e in by_seed}
    played: dict[int, set[int]] = {e: set() for e in by_seed}
    opponents: dict[int, list[int]] = {e: [] for e in by_seed}
    for game in history:
        for e in (game.a, game.b):
            if e is not None and e not in tallies:
                raise PairingError(f"game {game!r} has an entrant not in the tournament")
        if game.b is None:
            tallies[game.a].score += BYE
            tallies[game.a].byes += 1
            continue
        played[game.a].add(game.b)
        played[game.b].add(game.a)
        opponents[game.a].append(game.b)
        opponents[game.b].append(game.a)
        if game.winner is None:
            tallies[game.a].score += DRAW
            tallies[game.b].score += DRAW
        else:
            tallies[game.winner].score += WIN
            tallies[game.winner].wins += 1
    return tallies, played, opponents


def pair_swiss(by_seed: Sequence[int], history: Sequence[Game]) -> list[Pairing]:
    """The next Swiss round: entrants ordered by score then seed; with an odd count, the
    lowest-placed entrant who has had no bye (else fewest byes) sits out with a bye; the rest
    are paired top-down, each with the nearest entrant below it not yet met (backtracking),
    so players meet players on their score. Rematches only if no rematch-free pairing exists
    within the search budget."""
    _check_entrants(by_seed)
    tallies, played, _ = _tally(by_seed, history)
    rank = {e: i for i, e in enumerate(by_seed)}
    order = sorted(by_seed, key=lambda e: (-tallies[e].score, rank[e]))
    pairings: list[Pairing] = []
    if len(order) % 2:
        bye = min(reversed(order), key=lambda e: tallies[e].byes)
        order.remove(bye)
        pairings.append(Pairing(bye, None))
    games = _pair_no_rematch(order, played)
    if games is None:
        games = [(order[i], order[i + 1]) for i in range(0, len(order), 2)]
    return [Pairing(a, b) for a, b in games] + pairings


def _pair_no_rematch(
    order: list[int], played: Mapping[int, set[int]]
) -> list[tuple[int, int]] | None:
    """Depth-first: pair the first unpaired entrant with the nearest one it has not met."""
    budget = [SWISS_SEARCH_BUDGET]
    unpaired = list(order)

    def solve() -> list[tuple[int, int]] | None:
        if not unpaired:
            return []
        a = unpaired.pop(0)
        for i, b in enumerate(unpaired):
            budget[0] -= 1
            if budget[0] < 0:
                break
            if b in played[a]:
                continue
            del unpaired[i]
            rest = solve()
            if rest is not None:
                return [(a, b), *rest]
            unpaired.insert(i, b)
        unpaired.insert(0, a)
        return None

    return solve()


def swiss_standings(by_seed: Sequence[int], history: Sequence[Game]) -> list[Standing]:
    """By score, then Buchholz (the sum of one's opponents' scores), then wins, then seed."""
    _check_entrants(by_seed)
    tallies, _, opponents = _tally(by_seed, history)
    buchholz = {e: sum(tallies[o].score for o in opponents[e]) for e in by_seed}
    rank = {e: i for i, e in enumerate(by_seed)}
    ordered = sorted(
        by_seed, key=lambda e: (-tallies[e].score, -buchholz[e], -tallies[e].wins, rank[e])
    )
    return [
        Standing(e, place, tallies[e].score, tallies[e].wins, buchholz[e])
        for place, e in enumerate(ordered, start=1)
    ]


# --- seeding and prizes ---------------------------------------------------------------------


def seed(registered: Sequence[int], leaderboard_rank: Mapping[int, int]) -> list[int]:
    """Best seed first: entrants ranked on the season leaderboard by their rank, then the
    unranked in registration order."""
    if len(set(registered)) != len(registered):
        raise PairingError(f"duplicate entrants in {list(registered)!r}")
    position = {e: i for i, e in enumerate(registered)}
    return sorted(
        registered,
        key=lambda e: (
            (0, leaderboard_rank[e], position[e]) if e in leaderboard_rank else (1, 0, position[e])
        ),
    )


def prize_shares(pool: int, prize_bps: Sequence[int], entrants: int) -> list[int]:
    """What each place wins: ``pool * bps / 10000`` rounded down; places beyond the entrants
    are not paid and their share, like the rounding dust, goes to first place. Sums to
    ``pool`` exactly."""
    if pool < 0:
        raise PairingError(f"prize pool must be >= 0, got {pool}")
    if not prize_bps or sum(prize_bps) != BPS or any(b < 0 for b in prize_bps):
        raise PairingError(f"prize shares must be >= 0 and sum to {BPS} bps: {list(prize_bps)}")
    paid = [pool * b // BPS for b in prize_bps[:entrants]]
    paid[0] += pool - sum(paid)
    return paid
