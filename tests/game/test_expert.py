"""The expert bot: legal on every preset, deterministic, blind to hidden tiles, and sensible."""

import itertools
import random
from collections import Counter

import pytest

from backend.game import IllegalMoveError, apply_move, make_bot, rules_for, start_match, view
from backend.game.bots.expert import DealSampler, ExpertBot, _Playout
from backend.game.bots.position import read_position
from backend.game.bots.settings import ExpertSettings
from backend.game.match import Deal
from backend.game.moves import parse_move
from backend.game.tiles import BIT, HIGH, IS_DOUBLE, LOW, NAMES, PIPS, parse_tile

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
        # issue 25's options
        ("dew200", {"next_hand": "previous_winner"}, 4),
        ("doscientos", {"target": 500, "collective_bonus": True}, 4),
        ("partnership", {"multiples_of_five": True, "collective_bonus": True, "target": 500}, 4),
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
    sampler = DealSampler(position)
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


def _position_with_passes(preset: str, seats: int, max_unseen: int, first_game: int = 0):
    """A view (from hard bots' play) where two seats have shown suits they lack and few tiles
    are unseen."""
    for game in range(first_game, first_game + 200):
        match = start_match(rules_for(preset), seats, f"expert-infer/{game}")
        bots = [make_bot("hard", game * 5 + seat) for seat in range(seats)]
        while not match.over and match.hand_index == 0:
            seen = view(match, match.turn)
            position = read_position(seen)
            constrained = sum(1 for g in position.groups if g.lacking) >= 2
            if (
                constrained
                and len(position.groups) == 3
                and position.unseen.bit_count() <= max_unseen
            ):
                return seen, position
            apply_move(match, bots[match.turn].choose(seen))
    raise AssertionError("no such position")


def _consistent_deals(position) -> list[tuple[int, ...]]:
    """Every deal of the unseen tiles to the other seats that respects each group's facts,
    by brute force (no boneyard: each seat's groups in turn)."""
    tiles = list(range(28))
    unseen = [t for t in tiles if position.unseen & BIT[t]]
    deals: list[tuple[int, ...]] = []

    def fill(index: int, left: frozenset[int], hands: list[int]) -> None:
        if index == len(position.groups):
            deals.append(tuple(hands))
            return
        group = position.groups[index]
        fits = [t for t in left if not group.lacking & (1 << HIGH[t] | 1 << LOW[t])]
        for chosen in itertools.combinations(sorted(fits), group.count):
            mask = sum(BIT[t] for t in chosen)
            hands[group.seat] |= mask
            fill(index + 1, left - set(chosen), hands)
            hands[group.seat] ^= mask

    fill(0, frozenset(unseen), [0] * position.seats)
    return deals


def test_deal_sampler_is_uniform_over_the_deals_the_passes_allow():
    """Every deal that passes allow is sampled, none that they forbid, and all equally often.
    (In this position the greedy dealer it replaced favoured some deals many times over.)"""
    seen, position = _position_with_passes("doscientos", 4, 11, first_game=10)
    assert all(g.seat >= 0 for g in position.groups)  # no boneyard in doscientos
    deals = _consistent_deals(position)
    sampler = DealSampler(position)
    assert sampler.count() == len(deals)
    assert 30 <= len(deals) <= 1000
    me = seen["seat"]
    rng = random.Random(5)
    draws = 100 * len(deals)
    counts = Counter(
        tuple(h if s != me else 0 for s, h in enumerate(sampler.sample(rng)[0]))
        for _ in range(draws)
    )
    allowed = {tuple(h if s != me else 0 for s, h in enumerate(deal)) for deal in deals}
    assert set(counts) == allowed
    expected = draws / len(deals)
    chi2 = sum((n - expected) ** 2 / expected for n in counts.values())
    # Chi-square with k = deals - 1 degrees of freedom has mean k and sd sqrt(2k): a uniform
    # sampler stays within 6 sd; the greedy one was over 100 sd away here.
    k = len(deals) - 1
    assert abs(chi2 - k) < 6 * (2 * k) ** 0.5, (chi2, k)


def test_sampled_deals_respect_draws_in_the_draw_game():
    """A seat that drew with ends a/b showing held no a or b then: any a or b it holds in a
    sampled world must be among the tiles it drew since."""
    checked = 0
    for game in range(40):
        match = start_match(rules_for("draw"), 2, f"expert-draws/{game}")
        bots = [make_bot("hard", game), make_bot("hard", game + 1)]
        while not match.over and checked < 12:
            seen = view(match, match.turn)
            me, other = seen["seat"], 1 - seen["seat"]
            facts = _draw_facts(seen["history"], other)
            if facts and len(seen["legal_moves"]) > 1:
                sampler = DealSampler(read_position(seen))
                rng = random.Random(game)
                for _ in range(100):
                    hands, boneyard = sampler.sample(rng)
                    assert len(boneyard) == seen["boneyard"]
                    assert hands[me] == read_position(seen).my_hand
                    assert hands[other].bit_count() == seen["tile_counts"][other]
                    for lacking, drawn_since in facts:
                        showing = [
                            t
                            for t in range(28)
                            if hands[other] & BIT[t] and lacking & (1 << HIGH[t] | 1 << LOW[t])
                        ]
                        assert len(showing) <= drawn_since, (seen["history"], NAMES)
                checked += 1
            apply_move(match, bots[match.turn].choose(seen))
    assert checked >= 12


def _draw_facts(history, seat: int) -> list[tuple[int, int]]:
    """For each draw or pass of ``seat`` with tiles on the line: the pips it lacked then, and
    how many tiles it has drawn since (that draw included)."""
    left = right = -1
    facts: list[list[int]] = []
    for who, text in history:
        if text in ("draw", "pass"):
            if who == seat and left >= 0:
                drew = text == "draw"
                for fact in facts:
                    fact[1] += drew
                facts.append([1 << left | 1 << right, int(drew)])  # the drawn tile may show them
            continue
        t = parse_tile(text[:-1])
        if left < 0:
            left, right = HIGH[t], LOW[t]
        elif text.endswith("L"):
            left = LOW[t] if HIGH[t] == left else HIGH[t]
        else:
            right = LOW[t] if HIGH[t] == right else HIGH[t]
    return [(lacking, drawn) for lacking, drawn in facts]


def test_deal_sampler_is_deterministic_for_a_seed():
    _seen, position = _position_with_passes("doscientos", 4, 12)
    first = [DealSampler(position).sample(random.Random(9)) for _ in range(3)]
    again = [DealSampler(position).sample(random.Random(9)) for _ in range(3)]
    assert first == again
    rng_a, rng_b = random.Random(3), random.Random(3)
    a, b = DealSampler(position), DealSampler(position)
    assert [a.sample(rng_a) for _ in range(50)] == [b.sample(rng_b) for _ in range(50)]
    assert len({str(a.sample(rng_a)) for _ in range(50)}) > 1  # and it does vary


def _heaviest_first(legal: list[str]) -> str:
    """The playout policy with no exploration: the heaviest play (doubles weigh 8 more; the
    lowest tile among equals), on the left end when it fits both; else draw or pass."""
    plays = [parse_move(text) for text in legal if text not in ("draw", "pass")]
    if not plays:
        return legal[0]
    best = max(plays, key=lambda m: (PIPS[m.tile] + 8 * IS_DOUBLE[m.tile], -m.tile))
    return next(str(m) for m in plays if m.tile == best.tile and m.side == best.side)


def _heaviest_first_of(match, seen) -> str:
    return _heaviest_first(seen["legal_moves"])


def _model_first(match, seen) -> str:
    """The model playout policy with no exploration, from the engine's legal moves."""
    from backend.game.bots.expert import _model_choice

    legal = seen["legal_moves"]
    plays = [parse_move(text) for text in legal if text not in ("draw", "pass")]
    if not plays:
        return legal[0]
    playable = 0
    for move in plays:
        playable |= BIT[move.tile]
    left, right = seen["ends"] if seen["ends"] is not None else (-1, -1)
    tile, side = _model_choice(match.hands[match.turn], playable, left, right)
    return next(str(m) for m in plays if m.tile == tile and (m.side == side or left < 0))


@pytest.mark.parametrize(
    ("preset", "options", "seats"),
    [
        ("doscientos", {"pass_bonus": True, "collective_bonus": True}, 4),
        ("partnership", {"collective_bonus": True, "scoring": "all"}, 4),
        ("partnership", {"multiples_of_five": True, "collective_bonus": True}, 4),
        ("draw", {}, 2),
    ],
)
@pytest.mark.parametrize("policy", ["model", "heavy"])
def test_playouts_score_hands_and_bonuses_exactly_as_the_engine(preset, options, seats, policy):
    """From real positions, with the true hidden tiles and no exploration, a playout ends the
    hand with the same winner and the same points (bonuses included) as the engine playing the
    same moves (the playout policy's, chosen here from the engine's legal moves)."""
    choose = _model_first if policy == "model" else _heaviest_first_of
    rules = rules_for(preset, options)
    checked = with_bonus = 0
    for game in range(12):
        match = start_match(rules, seats, f"expert-playout/{game}")
        bots = [make_bot("medium", game * 4 + seat) for seat in range(seats)]
        while not match.over and match.hand_index == 0:
            seen = view(match, match.turn)
            if len(seen["history"]) % 3 == 1 and len(seen["legal_moves"]) > 1:
                break
            apply_move(match, bots[match.turn].choose(seen))
        else:
            continue
        position = read_position(seen)
        first = choose(match, seen)
        boneyard = list(match.boneyard[match.drawn :])
        points, winner = _Playout(position, policy == "model").run(
            list(match.hands), boneyard, parse_move(first), [0.0] * 200, 0.0
        )
        before = list(match.scores)
        hand = match.hand_index
        apply_move(match, first)
        while match.hand_index == hand and not match.over:
            apply_move(match, choose(match, view(match, match.turn)))
        gained = [after - was for after, was in zip(match.scores, before, strict=True)]
        assert points == gained, (preset, game, seen["history"], first)
        assert winner == match.log[hand].winner
        checked += 1
        with_bonus += bool(match.log[hand].bonuses)
    assert checked >= 8
    if options:
        assert with_bonus >= 2  # the bonuses were really exercised


def _model_value_by_definition(hand: set[int], t: int, left: int, right: int) -> float:
    """Seed 004's sensible player, spelled out: pips, doubles, numbers kept, tiles that follow."""
    rest = hand - {t}
    numbers = {HIGH[x] for x in rest} | {LOW[x] for x in rest}

    def follow(a: int, b: int) -> int:
        return sum(1 for x in rest if {HIGH[x], LOW[x]} & {a, b})

    if left < 0:
        best = follow(HIGH[t], LOW[t])
    else:
        ends = []
        for end, other in ((left, right), (right, left)):
            if end in (HIGH[t], LOW[t]):
                new = LOW[t] if HIGH[t] == end else HIGH[t]
                ends.append(follow(new, other))
        best = max(ends)
    return PIPS[t] + 6.0 * IS_DOUBLE[t] + 2.0 * len(numbers) + 2.5 * best


def test_model_scores_follow_the_models_definition():
    # The scores use packed pip counts; they must equal the model spelled out, on random hands.
    from backend.game.bots.expert import _model_scores
    from backend.game.tiles import EITHER_SUIT

    rng = random.Random("model-scores")
    checked = 0
    for _ in range(400):
        hand = set(rng.sample(range(28), rng.randint(1, 9)))
        mask = sum(BIT[t] for t in hand)
        left, right = (-1, -1) if rng.random() < 0.2 else (rng.randint(0, 6), rng.randint(0, 6))
        legal = mask if left < 0 else mask & EITHER_SUIT[left][right]
        for value, tile, _side in _model_scores(mask, legal, left, right):
            assert value == _model_value_by_definition(hand, tile, left, right)
            checked += 1
    assert checked > 500
