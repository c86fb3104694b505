"""Pairing properties for any entrant count and any results (hypothesis), plus worked cases."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backend.competitions.pairing import (
    BPS,
    Game,
    Pairing,
    PairingError,
    bracket_order,
    decide,
    elimination_standings,
    first_elimination_round,
    next_elimination_round,
    pair_swiss,
    prize_shares,
    rounds_needed,
    seed,
    swiss_standings,
)


def play(pairings: list[Pairing], rng: random.Random, draws: bool = True) -> list[Game]:
    games = []
    for p in pairings:
        if p.b is None:
            games.append(Game(p.a, None, p.a))
        else:
            games.append(Game(p.a, p.b, rng.choice([p.a, p.b, None] if draws else [p.a, p.b])))
    return games


def entrants(n: int, shuffle_seed: int) -> list[int]:
    ids = list(range(100, 100 + n))
    random.Random(shuffle_seed).shuffle(ids)
    return ids


def test_bracket_order_keeps_top_seeds_apart():
    assert bracket_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    order = bracket_order(16)
    # seeds 1 and 2 are in different halves, 1..4 in different quarters
    assert {order.index(1) // 8, order.index(2) // 8} == {0, 1}
    assert sorted(order.index(s) // 4 for s in (1, 2, 3, 4)) == [0, 1, 2, 3]


def test_bad_input_is_refused():
    with pytest.raises(PairingError, match="duplicate"):
        pair_swiss([1, 2, 2], [])
    with pytest.raises(PairingError, match="at least 2"):
        first_elimination_round([1])
    with pytest.raises(PairingError, match="did not play"):
        Game(1, 2, 3)
    with pytest.raises(PairingError, match="sum to"):
        prize_shares(100, [5000, 4000], 8)
    with pytest.raises(PairingError, match="format"):
        rounds_needed("league", 8)


@settings(max_examples=150, deadline=None)
@given(n=st.integers(2, 70), shuffle_seed=st.integers(0, 10**6), draws=st.booleans())
def test_swiss_every_round_pairs_everyone_once_and_avoids_rematches(n, shuffle_seed, draws):
    by_seed = entrants(n, shuffle_seed)
    rng = random.Random(shuffle_seed)
    history: list[Game] = []
    byes: list[int] = []
    for _ in range(rounds_needed("swiss", n)):
        pairings = pair_swiss(by_seed, history)
        assert pairings == pair_swiss(by_seed, history)  # deterministic
        seen = [e for p in pairings for e in (p.a, p.b) if e is not None]
        assert sorted(seen) == sorted(by_seed)  # everyone exactly once
        assert sum(p.b is None for p in pairings) == n % 2
        met = {frozenset((g.a, g.b)) for g in history if g.b is not None}
        for p in pairings:
            if p.b is None:
                byes.append(p.a)
            elif n >= 8:
                # ceil(log2 n) rounds leave plenty of fresh opponents from 8 entrants up
                assert frozenset((p.a, p.b)) not in met
        history += play(pairings, rng, draws)
    # nobody gets a second bye while someone has none
    assert len(byes) == len(set(byes)) or len(set(byes)) == n
    standings = swiss_standings(by_seed, history)
    assert [s.place for s in standings] == list(range(1, n + 1))
    assert sorted(s.entrant for s in standings) == sorted(by_seed)
    scores = [s.score for s in standings]
    assert scores == sorted(scores, reverse=True)
    # conservation: 2 half points per game or bye
    assert sum(scores) == 2 * len(history)


def test_swiss_pairs_within_score_groups():
    by_seed = list(range(8))
    r1 = pair_swiss(by_seed, [])
    assert r1 == [Pairing(0, 1), Pairing(2, 3), Pairing(4, 5), Pairing(6, 7)]
    history = [Game(p.a, p.b, p.a) for p in r1]
    r2 = pair_swiss(by_seed, history)
    # winners meet winners, losers meet losers
    assert r2 == [Pairing(0, 2), Pairing(4, 6), Pairing(1, 3), Pairing(5, 7)]


@settings(max_examples=150, deadline=None)
@given(n=st.integers(2, 130), shuffle_seed=st.integers(0, 10**6))
def test_elimination_bracket_finds_one_champion(n, shuffle_seed):
    by_seed = entrants(n, shuffle_seed)
    rng = random.Random(shuffle_seed)
    rounds: list[list[Game]] = []
    pairings = first_elimination_round(by_seed)
    # byes go to the top seeds only, and never meet each other
    bye_takers = [p.a for p in pairings if p.b is None]
    assert sorted(bye_takers, key=by_seed.index) == by_seed[: len(bye_takers)]
    assert len(bye_takers) == (1 << rounds_needed("elimination", n)) - n
    while True:
        seen = [e for p in pairings for e in (p.a, p.b) if e is not None]
        assert len(seen) == len(set(seen))
        games = [decide(g, by_seed) for g in play(pairings, rng)]
        rounds.append(games)
        if len(games) == 1:
            break
        pairings = next_elimination_round(games)
    assert len(rounds) == rounds_needed("elimination", n)
    champion = rounds[-1][0].winner
    standings = elimination_standings(by_seed, rounds)
    assert standings[0].entrant == champion
    assert standings[1].entrant in (rounds[-1][0].a, rounds[-1][0].b)
    assert sorted(s.entrant for s in standings) == sorted(by_seed)
    # an entrant knocked out later always ranks above one knocked out earlier
    survived = [s.tiebreak for s in standings]
    assert survived == sorted(survived, reverse=True)


def test_elimination_chalk_bracket_is_won_by_the_top_seed():
    by_seed = [10, 20, 30, 40, 50]
    pairings = first_elimination_round(by_seed)
    assert pairings == [Pairing(10, None), Pairing(40, 50), Pairing(20, None), Pairing(30, None)]
    rounds = []
    while True:
        games = [decide(Game(p.a, p.b, None), by_seed) for p in pairings]  # draws: seed wins
        rounds.append(games)
        if len(games) == 1:
            break
        pairings = next_elimination_round(games)
    places = [s.entrant for s in elimination_standings(by_seed, rounds)]
    assert places == [10, 20, 30, 40, 50]


def test_seeding_from_the_leaderboard():
    assert seed([5, 6, 7, 8], {7: 1, 5: 3}) == [7, 5, 6, 8]


@given(
    pool=st.integers(0, 2**88),
    bps=st.lists(st.integers(0, BPS), min_size=1, max_size=8).map(
        lambda xs: [*xs[:-1], BPS - sum(xs[:-1])] if sum(xs[:-1]) <= BPS else [BPS]
    ),
    n=st.integers(1, 10),
)
def test_prize_shares_conserve_the_pool(pool, bps, n):
    shares = prize_shares(pool, bps, n)
    assert sum(shares) == pool
    assert len(shares) == min(n, len(bps))
    assert all(s >= 0 for s in shares)
