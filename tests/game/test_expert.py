"""The expert bot: legal on every preset, deterministic, blind to hidden tiles, and sensible."""

import random

import pytest

from backend.game import IllegalMoveError, apply_move, make_bot, rules_for, start_match, view
from backend.game.bots.expert import ExpertBot, ExpertSettings, _Sampler, read_position
from backend.game.match import Deal
from backend.game.tiles import BIT, HIGH, LOW, NAMES, parse_tile

# A small search budget: legality and determinism do not depend on how hard the bot thinks.
SMALL = ExpertSettings(step_budget=300, min_worlds=2, max_worlds=8)


def small_expert(seed: int) -> ExpertBot:
    return ExpertBot(random.Random(seed), SMALL)


@pytest.mark.parametrize(
    ("preset", "options", "seats"),
    [
        ("dew200", {}, 2),
        ("dew200", {"blocked_scoring": "sum_minus_own"}, 3),
        ("dew200", {}, 4),
        ("doscientos", {"target": 100}, 4),
        ("doscientos", {"pass_bonus": True, "blocked": "last_or_right"}, 4),
        ("partnership", {"first_hand": "random", "collective_bonus": True}, 4),
        ("draw", {}, 2),
        ("draw", {"target": 50}, 2),
    ],
)
def test_expert_only_plays_legal_moves_on_every_preset(preset, options, seats):
    rules = rules_for(preset, options)
    for game in range(2):
        match = start_match(rules, seats, f"expert-legal/{game}")
        bots = [small_expert(game * 10 + seat) for seat in range(seats)]
        decisions = 0
        while not match.over:
            seat = match.turn
            seen = view(match, seat)
            move = bots[seat].choose(seen)
            assert move in seen["legal_moves"], (preset, seen["history"], move)
            decisions += len(seen["legal_moves"]) > 1
            apply_move(match, move)
        assert match.result is not None
        assert decisions > 0


def test_expert_draws_and_passes_when_stuck_in_the_draw_game():
    rules = rules_for("draw")
    kinds: set[str] = set()
    for game in range(6):
        match = start_match(rules, 2, f"expert-draw/{game}")
        bots = [small_expert(game), make_bot("hard", game)]
        while not match.over:
            seat = match.turn
            move = bots[seat].choose(view(match, seat))
            if seat == 0:
                kinds.add(move if move in ("draw", "pass") else "play")
            apply_move(match, move)
    assert kinds == {"draw", "pass", "play"}


def test_registered_expert_plays_a_whole_match_deterministically():
    rules = rules_for("doscientos", {"target": 100})

    def moves(bot_seed: int) -> list[str]:
        match = start_match(rules, 4, "expert-determinism")
        bots = [
            make_bot("expert" if seat % 2 == 0 else "hard", bot_seed + seat) for seat in range(4)
        ]
        played = []
        while not match.over and match.hand_index < 2:
            seat = match.turn
            move = bots[seat].choose(view(match, seat))
            played.append(move)
            apply_move(match, move)
        return played

    first = moves(7)
    assert first == moves(7)
    assert len(first) > 20


def test_same_view_and_seed_give_the_same_move_and_values():
    match = start_match(rules_for("doscientos"), 4, "expert-same-view")
    hard = make_bot("hard", 0)
    while len(match.history) < 9 or len(view(match, match.turn)["legal_moves"]) < 2:
        apply_move(match, hard.choose(view(match, match.turn)))
    seen = view(match, match.turn)
    a, b = make_bot("expert", 42), make_bot("expert", 42)
    assert isinstance(a, ExpertBot) and isinstance(b, ExpertBot)
    assert a.evaluate(seen) == b.evaluate(seen)


def _swap_unplayed(
    deal: Deal, played: set[int], seats: tuple[int, ...], rng: random.Random
) -> Deal:
    """The same deal with the tiles the given seats have not played yet shuffled among them."""
    pool = [t for seat in seats for t in deal.hands[seat] if t not in played]
    pool += [t for t in deal.boneyard if t not in played]
    rng.shuffle(pool)
    hands = [list(hand) for hand in deal.hands]
    for seat in seats:
        keep = [t for t in deal.hands[seat] if t in played]
        need = len(deal.hands[seat]) - len(keep)
        hands[seat] = keep + pool[:need]
        pool = pool[need:]
    boneyard = [t for t in deal.boneyard if t in played] + pool
    return Deal(tuple(tuple(hand) for hand in hands), tuple(boneyard))


@pytest.mark.parametrize(("preset", "seats", "hidden_from"), [("doscientos", 4, 0), ("draw", 2, 0)])
def test_choice_is_a_function_of_the_view_alone(preset, seats, hidden_from):
    """Two matches whose hidden tiles differ but whose view for the seat is identical: the
    expert, seeded alike, makes the same move and sees the same values in both."""
    rules = rules_for(preset)
    checked = 0
    for game in range(12):
        original = start_match(rules, seats, f"expert-blind/{game}")
        deal = original.log[0].deal
        bots = [make_bot("hard", game * 7 + seat) for seat in range(seats)]
        script: list[str] = []
        while not original.over and original.hand_index == 0:
            seat = original.turn
            seen = view(original, seat)
            if seat == hidden_from and len(seen["legal_moves"]) > 1 and len(script) >= 4:
                break
            move = bots[seat].choose(seen)
            script.append(move)
            apply_move(original, move)
        else:
            continue
        # Tiles that became public (played) must stay where they were; so must drawn tiles,
        # whose position in the boneyard decides who got them.
        played = {parse_tile(text[:-1]) for text in script if text not in ("draw", "pass")}
        drawn = deal.boneyard[: original.drawn]
        others = tuple(s for s in range(seats) if s != hidden_from)
        other_deal = _swap_unplayed(deal, played | set(drawn), others, random.Random(game))
        other_deal.check()
        twin = start_match(rules, seats, f"expert-blind/{game}", [other_deal])
        try:
            for move in script:
                apply_move(twin, move)
        except IllegalMoveError:
            continue  # the shuffle gave a seat a tile it showed it lacked: not a twin
        if twin.hands == original.hands:
            continue
        seen, twin_seen = view(original, hidden_from), view(twin, hidden_from)
        if twin_seen != seen:
            continue  # the shuffle changed what the seat can see (e.g. who may play): not a twin
        first = ExpertBot(random.Random(game))
        second = ExpertBot(random.Random(game))
        assert first.evaluate(seen) == second.evaluate(twin_seen)
        assert first.choose(seen) == second.choose(twin_seen)
        checked += 1
    assert checked >= 3


def test_what_passes_reveal_is_respected_by_every_sampled_world():
    """A seat that passed on ends a/b is never dealt a tile showing a or b (until it draws)."""
    match = start_match(rules_for("doscientos"), 4, "expert-passes")
    hard = [make_bot("hard", seat) for seat in range(4)]
    while not any(move.kind == "pass" for _, move in match.history):
        apply_move(match, hard[match.turn].choose(view(match, match.turn)))
    seen = view(match, match.turn)
    position = read_position(seen)
    lacking = {g.seat: g.lacking for g in position.groups if g.lacking}
    assert lacking, "a pass must be remembered"
    sampler = _Sampler(position)
    rng = random.Random(1)
    for _ in range(200):
        hands, _boneyard = sampler.sample(rng)
        for seat, pips in lacking.items():
            for t in range(28):
                if hands[seat] & BIT[t]:
                    assert not pips & (1 << HIGH[t] | 1 << LOW[t]), (seat, NAMES[t])
        # every unseen tile is dealt exactly once, and our hand is our own
        assert hands[seen["seat"]] == position.my_hand
        dealt = 0
        for seat, hand in enumerate(hands):
            if seat != seen["seat"]:
                assert not dealt & hand
                dealt |= hand
        assert dealt == position.unseen


# Positions reached by hard bots on doscientos: the seat to play can block the line and win the
# hand at once (its team holds fewer pips), or play on.
BLOCK_TO_WIN = [
    (
        "find/1",
        "6:6L pass 6:3R 6:0L pass 4:3R 2:0L 4:4R 6:4R 4:2L 6:2R 4:0L 2:2R 0:0L 3:0L 3:3L 2:1R "
        "4:1R 3:2L pass 5:2L 5:3L 3:1L 5:1L pass",
        "5:4L",
    ),
]


@pytest.mark.parametrize(("seed", "script", "winning"), BLOCK_TO_WIN)
def test_expert_takes_the_blocking_move_that_wins_the_hand(seed, script, winning):
    match = start_match(rules_for("doscientos"), 4, seed)
    for move in script.split():
        apply_move(match, move)
    seen = view(match, match.turn)
    assert winning in seen["legal_moves"] and len(seen["legal_moves"]) > 1
    for bot_seed in range(3):
        assert make_bot("expert", bot_seed).choose(seen) == winning
    # and the engine agrees that it wins at once
    apply_move(match, winning)
    hand = match.log[0]
    assert hand.end == "blocked" and hand.winner == seen["side"]
