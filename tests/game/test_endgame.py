"""The expert's exact endgame search: equal to brute force over the real engine, the same with
and without its transposition table, and only ever fed the seat's view (issue 22)."""

import random
from copy import deepcopy

import pytest

from backend.game import IllegalMoveError, apply_move, make_bot, rules_for, start_match, view
from backend.game.bots.budget import Budget
from backend.game.bots.endgame import EndgameSolver
from backend.game.bots.expert import DealSampler, ExpertBot, _distinct_moves
from backend.game.bots.position import read_position
from backend.game.bots.settings import ExpertSettings
from backend.game.match import Match
from backend.game.moves import LEFT, parse_move
from backend.game.tiles import EITHER_SUIT, HIGH, LOW, OTHER_HALF, parse_tile

WIN_BONUS = 10.0


def _endgame(preset, options, seats, game, tiles_left):
    """A real position of hand 0 with at most ``tiles_left`` tiles in all hands, nobody able to
    draw, and a choice to make; ``None`` if the hand ended first."""
    match = start_match(rules_for(preset, options), seats, f"endgame/{preset}/{game}")
    bots = [make_bot("hard", game * 4 + seat) for seat in range(seats)]
    while not match.over and match.hand_index == 0:
        seen = view(match, match.turn)
        if (
            sum(seen["tile_counts"]) <= tiles_left
            and not seen["boneyard"]
            and len(seen["legal_moves"]) > 1
        ):
            return match, seen
        apply_move(match, bots[match.turn].choose(seen))
    return None


def _copy(match: Match) -> Match:
    """A deep copy that shares what a move never changes (the rules, finished hands)."""
    memo = {id(match.rules): match.rules, id(match.explicit_deals): match.explicit_deals}
    for finished in match.log[:-1]:
        memo[id(finished)] = finished
    return deepcopy(match, memo)


def _brute_force(match: Match, hand: int, before: list[int], side: int, sides: int) -> float:
    """Minimax over every legal move of the engine itself, to the end of hand ``hand``: the
    side's points since ``before`` minus the mean of the others', plus or minus the win bonus
    (the other sides minimise it)."""

    def value(state: Match) -> float:
        if state.hand_index != hand or state.over:
            gained = [after - was for after, was in zip(state.scores, before, strict=True)]
            ours = gained[side]
            total = ours - (sum(gained) - ours) / (sides - 1)
            winner = state.log[hand].winner
            if winner is not None:
                total += WIN_BONUS if winner == side else -WIN_BONUS
            return total
        results = []
        for move in state.legal_moves():
            child = _copy(state)
            child.apply(move)
            results.append(value(child))
        mine = state.sides[state.turn] == side
        return max(results) if mine else min(results)

    return value(match)


CASES = [
    ("doscientos", {}, 4),
    ("doscientos", {"pass_bonus": True, "blocked": "last_or_right"}, 4),
    ("partnership", {"multiples_of_five": True, "collective_bonus": True}, 4),
    ("partnership", {"scoring": "all", "blocked": "individual"}, 4),
    ("dew200", {}, 4),
]


@pytest.mark.parametrize(("preset", "options", "seats"), CASES)
def test_alpha_beta_equals_brute_force_over_the_engine(preset, options, seats):
    """In small real positions, the solver's value of every candidate (true hidden tiles) is
    the engine's own minimax value, points and bonuses included."""
    checked = 0
    for game in range(30):
        found = _endgame(preset, options, seats, game, 8)
        if found is None:
            continue
        match, seen = found
        position = read_position(seen)
        side = position.sides[position.me]
        sides = max(position.sides) + 1
        solver = EndgameSolver(position, WIN_BONUS)
        for text, move in _distinct_moves(seen, position).items():
            child = _copy(match)
            apply_move(child, text)
            expected = _brute_force(child, match.hand_index, list(match.scores), side, sides)
            assert solver.solve(list(match.hands), move) == pytest.approx(expected), (
                preset,
                game,
                seen["history"],
                text,
            )
            checked += 1
        if checked >= 8:
            break
    assert checked >= 6


@pytest.mark.parametrize(("preset", "options", "seats"), CASES)
def test_transposition_table_changes_no_value(preset, options, seats):
    """Larger positions: the same values with and without the table, and the table saves work."""
    with_table = without = 0
    checked = 0
    for game in range(12):
        found = _endgame(preset, options, seats, game, 12)
        if found is None:
            continue
        match, seen = found
        position = read_position(seen)
        moves = list(_distinct_moves(seen, position).values())
        on, off = EndgameSolver(position, WIN_BONUS), EndgameSolver(position, WIN_BONUS, False)
        assert [on.solve(list(match.hands), m) for m in moves] == [
            off.solve(list(match.hands), m) for m in moves
        ]
        with_table += on.nodes
        without += off.nodes
        checked += 1
    assert checked >= 6
    assert with_table < without


def test_budget_stops_early_on_a_clear_decision_and_goes_on_for_a_close_one():
    settings = ExpertSettings(step_budget=1000, min_worlds=4, min_share=0.25, max_share=2.0)
    clear = Budget(settings, 2)
    rng = random.Random(1)
    spent = 0
    while True:
        noise = rng.gauss(0, 1)
        clear.add([10 + noise, noise])
        spent += 10
        if clear.spend(10):
            break
    assert spent <= 300  # stopped at the first check after a quarter of the budget

    close = Budget(settings, 2)
    spent = 0
    while True:
        close.add([rng.gauss(0, 5), rng.gauss(0, 5)])
        spent += 10
        if close.spend(10):
            break
    assert spent == 2000  # a coin flip: it used the whole extension


def test_identical_candidates_do_not_extend_the_search():
    settings = ExpertSettings(step_budget=1000, min_worlds=4)
    budget = Budget(settings, 2)
    spent = 0
    while not budget.spend(10):
        value = float(spent % 7)
        budget.add([value, value])
        spent += 10
    assert spent <= 300


def _twin_hands(match: Match, script, seats, rng):
    """The hand's deal with the tiles nobody in ``script`` played shuffled among seats 1..n-1."""
    deal = match.log[0].deal
    played = {parse_tile(text[:-1]) for _, text in script if text not in ("draw", "pass")}
    pool = [t for seat in range(1, seats) for t in deal.hands[seat] if t not in played]
    rng.shuffle(pool)
    hands = [list(deal.hands[0])]
    for seat in range(1, seats):
        keep = [t for t in deal.hands[seat] if t in played]
        need = len(deal.hands[seat]) - len(keep)
        hands.append(keep + pool[:need])
        pool = pool[need:]
    return type(deal)(tuple(tuple(h) for h in hands), deal.boneyard)


def test_expert_sees_only_its_view_through_a_whole_hand():
    """The expert at seat 0 plays a whole hand (its endgame search and the deals it carries
    between decisions included). In a twin match whose other hands differ but whose moves and
    so seat 0's views are the same, a fresh expert with the same seed makes the same choices."""
    rules = rules_for("doscientos")
    compared = 0
    for game in range(10):
        original = start_match(rules, 4, f"endgame-blind/{game}")
        expert = ExpertBot(random.Random(game))
        bots = [make_bot("hard", game * 4 + seat) for seat in range(4)]
        script: list[tuple[int, str]] = []
        while not original.over and original.hand_index == 0:
            seat = original.turn
            seen = view(original, seat)
            move = expert.choose(seen) if seat == 0 else bots[seat].choose(seen)
            script.append((seat, move))
            apply_move(original, move)
        twin_deal = _twin_hands(original, script, 4, random.Random(game))
        if twin_deal.hands == original.log[0].deal.hands:
            continue
        twin = start_match(rules, 4, f"endgame-blind/{game}", [twin_deal])
        twin_expert = ExpertBot(random.Random(game))
        replica = start_match(rules, 4, f"endgame-blind/{game}")
        try:
            for seat, move in script:
                if seat == 0:
                    seen = view(twin, 0)
                    assert seen == view(replica, 0)
                    assert twin_expert.choose(seen) == move
                    compared += 1
                apply_move(twin, move)
                apply_move(replica, move)
        except IllegalMoveError:
            continue  # the shuffle gave a seat a tile it showed it lacked: not a twin
    assert compared >= 20


def test_carried_deals_respect_every_fact_of_the_new_position():
    """Deals kept from the seat's previous decision hold each seat's count of the unseen tiles,
    never a tile a seat showed it lacked by passing, and are sometimes really kept."""
    rules = rules_for("doscientos")
    carried = 0
    for game in range(6):
        match = start_match(rules, 4, f"endgame-memory/{game}")
        expert = ExpertBot(random.Random(game), ExpertSettings(step_budget=3000))
        bots = [make_bot("hard", game * 4 + seat) for seat in range(4)]
        while not match.over and match.hand_index == 0:
            seen = view(match, match.turn)
            if match.turn != 0:
                apply_move(match, bots[match.turn].choose(seen))
                continue
            position = read_position(seen)
            kept = expert.memory._carry(seen, position) if len(seen["legal_moves"]) > 1 else []
            carried += len(kept)
            for hands, _ in kept:
                _check_world(seen, position, hands)
            apply_move(match, expert.choose(seen))
    assert carried > 0


def _check_world(seen, position, hands):
    assert hands[0] == position.my_hand
    union = 0
    for seat in range(1, 4):
        assert hands[seat].bit_count() == seen["tile_counts"][seat]
        union |= hands[seat]
    assert union == position.unseen
    left = right = -1
    lacks = [0] * 4
    for seat, text in seen["history"]:
        move = parse_move(text)
        if move.kind == "pass":
            lacks[seat] |= EITHER_SUIT[left][right]
        elif left < 0:
            left, right = HIGH[move.tile], LOW[move.tile]
        elif move.side == LEFT:
            left = OTHER_HALF[move.tile][left]
        else:
            right = OTHER_HALF[move.tile][right]
    for seat in range(1, 4):
        assert not hands[seat] & lacks[seat]


def test_worlds_come_in_doubling_batches_each_resampled_from_its_own_deals(monkeypatch):
    """The world stream yields exactly ``longest`` worlds, in batches of 2, 4, 8, ..., and
    samples ``ratio`` deals per world of a batch only when that batch is reached."""
    found = _endgame("doscientos", {}, 4, 0, 18)
    assert found is not None
    _, seen = found
    position = read_position(seen)
    sampled = []
    real_sample = DealSampler.sample

    def counting(self, rng):
        world = real_sample(self, rng)
        sampled.append(world)
        return world

    monkeypatch.setattr(DealSampler, "sample", counting)
    expert = ExpertBot(random.Random(3), ExpertSettings(reuse=False))
    stream = expert._worlds(seen, position, 12, 2, 2.0)
    first_two = [next(stream), next(stream)]
    assert len(sampled) == 4  # only the first batch so far
    rest = list(stream)
    assert len(first_two) + len(rest) == 12  # batches 2, 4 and the last 6 of 8
    assert len(sampled) == 24
    worlds = [id(w) for w in sampled]
    assert all(id(w) in worlds for w in first_two + rest)
    # A world of a batch comes from that batch's own deals.
    assert all(id(w) in worlds[:4] for w in first_two)
    assert all(id(w) in worlds[4:12] for w in rest[:4])


def test_an_exact_decision_samples_only_the_deals_it_solves(monkeypatch):
    """An exact search of 18 tiles solves a few dozen deals at most: the deals sampled stay
    within a small multiple of those solved, not the pool a playout budget would want."""
    found = _endgame("doscientos", {}, 4, 1, 18)
    assert found is not None
    _, seen = found
    calls = []
    real_sample = DealSampler.sample

    def counting(self, rng):
        calls.append(1)
        return real_sample(self, rng)

    monkeypatch.setattr(DealSampler, "sample", counting)
    solved = []
    real_solve = EndgameSolver.solve

    def solving(self, hands, first):
        solved.append(1)
        return real_solve(self, hands, first)

    monkeypatch.setattr(EndgameSolver, "solve", solving)
    settings = ExpertSettings(solve_below=18, reuse=False)
    ExpertBot(random.Random(5), settings).evaluate(seen)
    candidates = len(_distinct_moves(seen, read_position(seen)))
    deals = len(solved) // candidates
    assert deals >= settings.min_worlds
    assert len(calls) <= 4 * deals + 4 * settings.min_worlds
