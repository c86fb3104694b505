"""The server's cheap per-move views equal the engine's own ``view`` for every seat."""

from __future__ import annotations

import random

import pytest

from backend.tables import play


@pytest.mark.parametrize(
    ("preset", "seats"),
    [
        ("dew200", 2),
        ("dew200", 3),
        ("dew200", 4),
        ("doscientos", 4),
        ("partnership", 4),
        ("draw", 2),
    ],
)
def test_seat_views_equal_the_engine_view_of_every_seat_over_whole_matches(
    preset: str, seats: int
) -> None:
    for seed in range(3):
        match = play.start(preset, {}, [f"p{i}" for i in range(seats)], f"{seed + 1:064x}")
        rng = random.Random(seed)
        plies = 0
        while True:
            views = play.seat_views(match, range(seats))
            for seat in range(seats):
                assert views[seat] == play.view(match, seat), (preset, seed, plies, seat)
            # Spectators: no hand, no choices, no tile to open with, whoever's view it comes from.
            for seat in range(seats):
                assert play.public_of(views[seat]) == play.public_view(match)
            if match.over:
                break
            play.apply(match, rng.choice(play.legal(match)))
            plies += 1
        assert plies > 0


def test_only_the_listed_seats_are_built() -> None:
    match = play.start("dew200", {}, ["a", "b", "c", "d"], "ab" * 32)
    views = play.seat_views(match, [2])
    assert list(views) == [2] and views[2] == play.view(match, 2)
