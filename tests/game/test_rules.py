"""Each rule on explicit deals, including the seed documents' own examples."""

import pytest

from backend.game import IllegalMoveError, RulesError, fairness, parse_move, rules_for, view
from backend.game.match import seeded_deal
from backend.game.rules import HandScore, Opening, round_to_five
from backend.game.tiles import DOUBLES_MASK, mask_of, parse_tile
from tests.game.helpers import deal, hand_end, match_with, team_deal


def masks(*hands: str) -> list[int]:
    return [mask_of(parse_tile(t) for t in hand.split()) for hand in hands]


# -- dew200 (seeds 000/001) -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pips", "points"),
    [(0, 0), (1, 0), (2, 0), (3, 5), (4, 5), (5, 5), (6, 5), (7, 5), (8, 10), (12, 10), (13, 15)],
)
def test_dew_rounding_table_from_seed_000(pips, points):
    # "Only 1 or 2 pints are worth nothing; 3, 4, 5, 6 and 7 are worth 5 points; 8 ... 12 ... 10"
    assert round_to_five(pips) == points


def test_dew_domino_scores_opponents_pips_rounded():
    rules = rules_for("dew200")
    score = rules.score_hand(hand_end("domino", 1, 0, "6:4 1:0", "", "0:0"), 3)
    assert score.winner == 1
    assert score.points == (0, 10, 0)  # 11 pips left with the opponents round to 10


DEW_DEAL = deal(
    "5:5 4:1 3:1 2:1 1:1 0:0 6:1",
    "5:0 6:4 6:3 6:2 3:2 4:2 4:3",
    boneyard="6:6 5:1 6:5 6:0 5:4 5:3 5:2 4:4 4:0 3:3 3:0 2:2 2:0 1:0",
)


def test_dew_highest_double_leads_when_double_six_is_in_the_boneyard():
    match = match_with("dew200", DEW_DEAL)
    assert match.turn == 0
    assert [str(m) for m in match.legal_moves()] == ["5:5L"]
    with pytest.raises(IllegalMoveError, match=r"'4:1L'.*must open with 5:5"):
        match.apply(parse_move("4:1L"))


def test_dew_open_ends_score_multiples_of_five_with_doubles_counting_both_halves():
    match = match_with("dew200", DEW_DEAL)
    match.apply(parse_move("5:5L"))  # a lone 5:5 shows 10
    assert match.scores == [10, 0]
    match.apply(parse_move("5:0R"))  # 5:5 still an end (10) + 0
    assert match.scores == [10, 10]
    match.apply(parse_move("0:0R"))  # 10 + double blank 0
    assert match.scores == [20, 10]
    assert view(match, 1)["ends"] == [5, 0]


def test_dew_stuck_seat_draws_until_a_tile_fits_and_cannot_pass_meanwhile():
    match = match_with("dew200", DEW_DEAL)
    for text in ("5:5L", "5:0R", "0:0R"):
        match.apply(parse_move(text))
    assert [str(m) for m in match.legal_moves()] == ["draw"]
    with pytest.raises(IllegalMoveError, match="must draw"):
        match.apply(parse_move("pass"))
    match.apply(parse_move("draw"))  # 6:6 does not fit 5|0
    assert [str(m) for m in match.legal_moves()] == ["draw"]
    match.apply(parse_move("draw"))  # 5:1 fits the left end
    assert [str(m) for m in match.legal_moves()] == ["5:1L"]
    assert view(match, 0)["tile_counts"] == [5, 8]
    assert view(match, 0)["history"][-2:] == [(1, "draw"), (1, "draw")]
    assert view(match, 0)["draws"] == [0, 2] and view(match, 0)["passes"] == [0, 0]


def test_dew_reaching_200_mid_hand_ends_the_game_at_once():
    match = match_with("dew200", DEW_DEAL)
    match.scores[0] = 190
    match.apply(parse_move("5:5L"))
    assert match.over
    assert match.result is not None
    assert match.result.winner == 0 and match.result.scores == (200, 0)
    assert match.result.hands[-1].end == "target"
    with pytest.raises(IllegalMoveError, match="over"):
        match.apply(parse_move("5:0R"))


def test_dew_redeals_when_a_player_is_dealt_five_doubles():
    rules = rules_for("dew200")
    assert rules.needs_redeal(masks("0:0 1:1 2:2 3:3 4:4 6:5 6:4", "5:5"))
    assert not rules.needs_redeal(masks("0:0 1:1 2:2 3:3 6:4 6:5 6:3", "5:5 4:4"))
    redealt = [i for i in range(3000) if seeded_deal(rules, 2, "redeal", i)[1] > 0]
    assert redealt, "some deal in 3000 should need a redeal"
    _, attempts, hands = seeded_deal(rules, 2, "redeal", redealt[0])
    assert attempts >= 1
    assert all((mask & DOUBLES_MASK).bit_count() < 5 for mask in hands)
    # The thrown-in deal really had a hand with five doubles.
    order = fairness.shuffled_tiles("redeal", f"hand/{redealt[0]}/deal/0")
    thrown = [mask_of(order[:7]), mask_of(order[7:14])]
    assert max((mask & DOUBLES_MASK).bit_count() for mask in thrown) >= 5


@pytest.mark.parametrize(
    ("hands", "opening"),
    [
        (("6:5 1:0", "6:6 2:0"), Opening(1, parse_tile("6:6"))),
        (("6:5 4:4", "3:3 2:0", "1:1"), Opening(0, parse_tile("4:4"))),
        (("5:4 2:0", "6:3 1:0"), Opening(1, parse_tile("6:3"))),  # 9 pips each: 6 beats 5
        (("6:5 2:0", "6:4 1:0"), Opening(0, parse_tile("6:5"))),
    ],
)
def test_dew_first_hand_starter(hands, opening):
    assert rules_for("dew200").first_opening(masks(*hands), "seed") == opening


def test_dew_blocked_scoring_seed_000_pairwise_is_the_default():
    end = hand_end("blocked", 2, 0, "5:0", "6:4", "6:6 4:4")  # 5, 10, 20 pips
    score = rules_for("dew200").score_hand(end, 3)
    # Each player scores the difference to every opponent holding more pips.
    assert score.points == (20, 10, 0)
    assert score.winner == 0


def test_dew_blocked_scoring_seed_001_is_an_option():
    end = hand_end("blocked", 2, 0, "5:0", "6:4", "6:6 4:4")
    score = rules_for("dew200", {"blocked_scoring": "sum_minus_own"}).score_hand(end, 3)
    # Opponents' pips minus one's own; a negative total scores nothing.
    assert score.points == (25, 15, 0)


def test_dew_two_player_block_texts_agree():
    end = hand_end("blocked", 1, 0, "3:1", "6:4 2:1")  # 4 and 13 pips: difference 9 -> 10
    for option in ("pairwise", "sum_minus_own"):
        assert rules_for("dew200", {"blocked_scoring": option}).score_hand(end, 2).points == (10, 0)


def test_dew_deadlock_with_a_tie_scores_nothing_and_the_same_seat_leads_next():
    rules = rules_for("dew200")
    score = rules.score_hand(hand_end("blocked", 0, 1, "3:1", "4:0", "6:6"), 3)
    assert score.winner is None and score.points == (0, 0, 0)
    assert score.next_lead == "repeat"
    assert rules.next_opening(score, 1, masks("1:0", "2:0", "3:0"), "s", 1) == Opening(1, None)


def test_dew_tie_break_draws_tiles_and_fewest_pips_wins():
    rules = rules_for("dew200")
    winner, drawn = rules.tie_break([0, 2], "tie-seed")
    assert winner in (0, 2)
    assert rules.tie_break([0, 2], "tie-seed") == (winner, drawn)  # from the seed, replayable
    last_round = drawn[-2:]
    pips = {side: parse_tile_pips(t) for side, t in last_round}
    assert pips[winner] < pips[2 - winner]


def parse_tile_pips(t: int) -> int:
    from backend.game.tiles import PIPS

    return PIPS[t]


def test_dew_four_players_have_no_boneyard_and_cannot_draw():
    match = match_with("dew200", team_deal("6:6"))
    match.apply(parse_move("6:6L"))
    assert view(match, 1)["boneyard"] == 0
    with pytest.raises(IllegalMoveError, match="no drawing"):
        match.apply(parse_move("draw"))


# -- doscientos (seed 002) --------------------------------------------------------------------

PASS_DEAL = deal(
    "6:6 6:5 6:3 6:2 6:1 6:0 0:0",
    "1:0 1:1 2:0 2:1 2:2 3:0 3:1",
    "6:4 4:4 4:3 4:2 4:1 4:0 5:4",
    "5:5 5:0 5:1 5:2 5:3 3:3 3:2",
    boneyard="",
)


def test_doscientos_double_six_opens_and_the_winning_team_scores_all_pips():
    rules = rules_for("doscientos")
    match = match_with("doscientos", PASS_DEAL)
    assert match.turn == 0 and [str(m) for m in match.legal_moves()] == ["6:6L"]
    score = rules.score_hand(hand_end("domino", 3, 0, "6:6", "1:0", "2:0", ""), 4)
    assert score.winner == 1 and score.points == (0, 15)


def test_doscientos_later_hands_rotate_to_the_right_and_any_tile_may_lead():
    rules = rules_for("doscientos")
    previous = HandScore(0, (10, 0), "rotate", 0)
    assert rules.next_opening(previous, 3, masks("6:6", "1:0", "2:0", "3:0"), "s", 1) == Opening(
        0, None
    )


@pytest.mark.parametrize(
    ("blocked", "winner", "points", "lead"),
    [
        ("team_pips", None, (0, 0), "double_six"),
        ("tie_to_first_player", 1, (0, 10), 3),
        ("tie_to_last_player", 0, (10, 0), 2),
        ("last_or_right", 1, (0, 10), 3),
    ],
)
def test_doscientos_blocked_tie_and_its_variants(blocked, winner, points, lead):
    # Team 0 (seats 0, 2) holds 3 + 2 pips, team 1 (seats 1, 3) 5 + 0: level at 5.
    end = hand_end("blocked", 2, 1, "3:0", "4:1", "2:0", "0:0")
    score = rules_for("doscientos", {"blocked": blocked}).score_hand(end, 4)
    assert (score.winner, score.points, score.next_lead) == (winner, points, lead)


def test_doscientos_blocked_fewer_team_pips_wins_and_its_lighter_player_leads_next():
    end = hand_end("blocked", 0, 0, "6:6", "1:0", "2:0", "3:0")  # team 0: 14, team 1: 4
    score = rules_for("doscientos").score_hand(end, 4)
    assert (score.winner, score.points, score.next_lead) == (1, (0, 18), 1)


def test_doscientos_tied_block_gives_the_next_lead_to_the_double_six_holder():
    rules = rules_for("doscientos")
    tied = HandScore(None, (0, 0), "double_six")
    hands = masks("1:0", "2:0", "6:6", "3:0")
    assert rules.next_opening(tied, 0, hands, "s", 1) == Opening(2, parse_tile("6:6"))


def test_doscientos_pass_bonus_is_20_then_10_for_the_players_team():
    match = match_with("doscientos", PASS_DEAL, options={"pass_bonus": True})
    match.apply(parse_move("6:6L"))
    match.apply(parse_move("pass"))  # seat 1 has no six
    assert match.scores == [20, 0]
    match.apply(parse_move("6:4R"))
    match.apply(parse_move("pass"))  # seat 3 has no six or four
    assert match.scores == [30, 0]
    assert match.hand.bonuses == [(0, 20, "pass bonus"), (0, 10, "pass bonus")]


def test_doscientos_without_the_pass_bonus_passes_score_nothing():
    match = match_with("doscientos", PASS_DEAL)
    for text in ("6:6L", "pass", "6:4R", "pass"):
        match.apply(parse_move(text))
    assert match.scores == [0, 0]


def test_doscientos_targets_are_200_or_100():
    assert rules_for("doscientos").target == 200
    assert rules_for("doscientos", {"target": 100}).target == 100
    with pytest.raises(RulesError, match=r"'target'.*150"):
        rules_for("doscientos", {"target": 150})


# -- partnership (seed 003) -------------------------------------------------------------------


def test_seed_003_example_opponents_holding_1_2_4_4_5_3_score_19():
    end = hand_end("domino", 0, 0, "", "2:1 4:4", "6:6", "5:3")
    assert rules_for("partnership").score_hand(end, 4).points == (19, 0)
    assert rules_for("partnership", {"scoring": "all"}).score_hand(end, 4).points == (31, 0)


def test_partnership_premium_options_need_a_vip_pass_to_create():
    assert not rules_for("partnership").requires_vip
    assert rules_for("partnership", {"target": 100}).premium_options == ()
    for name, value in [
        ("target", 50),
        ("target", 150),
        ("target", 200),
        ("scoring", "all"),
        ("first_hand", "random"),
        ("next_hand", "previous_winner"),
        ("blocked", "individual"),
    ]:
        rules = rules_for("partnership", {name: value})
        assert rules.requires_vip and rules.premium_options == (name,)
    assert not rules_for("doscientos", {"target": 100, "collective_bonus": True}).requires_vip
    specs = {s["name"]: s for s in rules_for("partnership").describe()["option_specs"]}
    assert specs["target"]["premium"] == [50, 150, 200]


def test_partnership_blocked_team_and_individual():
    end = hand_end("blocked", 1, 0, "2:1", "4:0", "6:6", "1:0")  # seats 3, 4, 12, 1 pips
    team = rules_for("partnership").score_hand(end, 4)
    assert (team.winner, team.points) == (1, (0, 15))  # team 1 holds 5 against 15
    individual = rules_for("partnership", {"blocked": "individual"}).score_hand(end, 4)
    assert (individual.winner, individual.winner_seat, individual.points) == (1, 3, (0, 15))
    tie = hand_end("blocked", 1, 0, "1:0", "1:0", "6:6", "6:5")
    tied = rules_for("partnership", {"blocked": "individual"}).score_hand(tie, 4)
    assert tied.winner is None and tied.points == (0, 0)


def test_partnership_next_hand_previous_winner_and_random_first_hand():
    rules = rules_for("partnership", {"next_hand": "previous_winner", "first_hand": "random"})
    score = rules.score_hand(hand_end("domino", 2, 0, "1:0", "2:0", "", "3:0"), 4)
    assert score.next_lead == 2
    hands = masks("1:0", "2:0", "6:6", "3:0")
    assert rules.next_opening(score, 0, hands, "s", 1) == Opening(2, None)
    firsts = {rules.first_opening(hands, f"seed{i}") for i in range(40)}
    assert {o.tile for o in firsts} == {None} and len({o.seat for o in firsts}) > 1


def test_unknown_options_and_presets_are_refused_by_name():
    with pytest.raises(RulesError, match="'bogus'"):
        rules_for("partnership", {"bogus": 1})
    with pytest.raises(RulesError, match="'chess'"):
        rules_for("chess")
    with pytest.raises(RulesError, match="True"):
        rules_for("partnership", {"target": True})


# -- collective bonus (seed 003 comments) ------------------------------------------------------


class FakeAward:
    def __init__(self, scores=(0, 0), target=100):
        self.seats, self.sides, self.target = 4, (0, 1, 0, 1), target
        self.scores = list(scores)
        self.given = []

    def score_of(self, side):
        return self.scores[side]

    def __call__(self, side, points, reason):
        self.given.append((side, points, reason))


def collective():
    from backend.game.rules import CollectiveBonus

    return CollectiveBonus()


T = parse_tile


@pytest.mark.parametrize(("first", "points"), [("6:6", 25), ("6:5", 50)])
def test_first_throw_pass_pays_25_after_a_double_and_50_otherwise(first, points):
    bonus, award = collective(), FakeAward()
    bonus.on_play(award, 0, T(first), -1, -1, False)
    bonus.on_pass(award, 1)
    bonus.on_play(award, 2, T("6:4"), 6, 6, False)
    assert award.given == [(0, points, "first-throw pass")]


def test_first_throw_pass_is_void_when_the_partner_passes_too():
    bonus, award = collective(), FakeAward()
    bonus.on_play(award, 0, T("6:6"), -1, -1, False)
    bonus.on_pass(award, 1)
    bonus.on_pass(award, 2)
    bonus.on_play(award, 3, T("6:1"), 6, 6, False)
    assert award.given == []


def test_round_pass_pays_25_each_time_everyone_else_passes():
    bonus, award = collective(), FakeAward()
    bonus.on_play(award, 0, T("6:6"), -1, -1, False)
    bonus.on_play(award, 1, T("6:1"), 6, 6, False)
    for _ in range(2):
        bonus.on_pass(award, 2)
        bonus.on_pass(award, 3)
        bonus.on_pass(award, 0)
        bonus.on_play(award, 1, T("1:1"), 6, 1, False)
    assert award.given == [(1, 25, "round pass"), (1, 25, "round pass")]


@pytest.mark.parametrize(
    ("tile", "ends", "paid"),
    [("3:2", (3, 2), True), ("3:2", (2, 3), True), ("3:3", (3, 3), False), ("3:5", (3, 3), False)],
)
def test_capicua_pays_25_for_a_last_tile_that_fits_either_end_unless_a_double(tile, ends, paid):
    bonus, award = collective(), FakeAward()
    bonus.on_play(award, 0, T("6:6"), -1, -1, False)
    bonus.on_play(award, 1, T(tile), ends[0], ends[1], True)
    assert award.given == ([(1, 25, "capicua")] if paid else [])


def test_dead_double_blank_pays_15_to_the_winners_when_the_losers_hold_it():
    end = hand_end("domino", 0, 0, "", "0:0", "6:6", "5:5")  # every other blank is on the line
    bonus, award = collective(), FakeAward()
    bonus.on_hand_end(award, end, HandScore(0, (0, 0)), 4, 4)
    assert award.given == [(0, 15, "dead double blank")]
    bonus2, award2 = collective(), FakeAward()
    bonus2.on_hand_end(award2, end, HandScore(1, (0, 0)), 4, 4)  # the holder's team won
    assert award2.given == []
    bonus3, award3 = collective(), FakeAward()
    bonus3.on_hand_end(
        award3, hand_end("domino", 0, 0, "", "0:0 1:0", "", ""), HandScore(0, (0, 0)), 4, 4
    )
    assert award3.given == []  # 1:0 still out: the double blank was not dead


def test_collective_points_do_not_apply_to_a_team_needing_25_or_fewer():
    bonus, award = collective(), FakeAward(scores=(75, 0), target=100)
    bonus.on_play(award, 0, T("6:5"), -1, -1, False)
    bonus.on_pass(award, 1)
    bonus.on_play(award, 2, T("6:4"), 6, 5, False)
    assert award.given == []
    bonus, award = collective(), FakeAward(scores=(74, 0), target=100)
    bonus.on_play(award, 0, T("6:5"), -1, -1, False)
    bonus.on_pass(award, 1)
    bonus.on_play(award, 2, T("6:4"), 6, 5, False)
    assert award.given == [(0, 50, "first-throw pass")]


def test_collective_bonus_in_a_real_hand():
    match = match_with("partnership", PASS_DEAL, options={"collective_bonus": True})
    for text in ("6:6L", "pass", "6:4R"):
        match.apply(parse_move(text))
    assert match.scores == [25, 0]
    assert match.hand.bonuses == [(0, 25, "first-throw pass")]


# -- draw (seed 004) --------------------------------------------------------------------------

DRAW_DEAL = deal(
    "6:6 1:0 1:1 2:0 2:1 2:2 3:0",
    "3:1 3:2 3:3 4:0 4:1 4:2 4:3",
    boneyard="5:0 5:1 6:0 6:1 6:2 6:3 6:4 6:5 5:5 5:4 5:3 5:2 4:4 0:0",
)


def test_draw_game_stuck_seat_draws_one_then_passes_and_all_passing_blocks():
    match = match_with("draw", DRAW_DEAL)
    match.apply(parse_move("6:6L"))
    assert [str(m) for m in match.legal_moves()] == ["draw"]
    match.apply(parse_move("draw"))  # 5:0 does not fit 6|6
    assert [str(m) for m in match.legal_moves()] == ["pass"]
    with pytest.raises(IllegalMoveError, match="one tile"):
        match.apply(parse_move("draw"))
    match.apply(parse_move("pass"))
    match.apply(parse_move("draw"))  # seat 0 draws 5:1: no six either
    match.apply(parse_move("pass"))  # every seat has passed in a row: blocked
    assert match.over and match.result is not None
    hand = match.result.hands[0]
    assert hand.end == "blocked"
    # Seat 0 holds 21 pips, seat 1 holds 42: fewest pips wins, scoring the loser's pips.
    assert (hand.winner, hand.points) == (0, [42, 0])
    assert match.result.winner == 0


def test_draw_game_drawn_tile_that_fits_must_be_played_at_once():
    d = deal(
        "6:6 1:0 1:1 2:0 2:1 2:2 3:0",
        "3:1 3:2 3:3 4:0 4:1 4:2 4:3",
        boneyard="6:1 5:1 6:0 5:0 6:2 6:3 6:4 6:5 5:5 5:4 5:3 5:2 4:4 0:0",
    )
    match = match_with("draw", d)
    match.apply(parse_move("6:6L"))
    match.apply(parse_move("draw"))  # 6:1 fits
    assert [str(m) for m in match.legal_moves()] == ["6:1L", "6:1R"]
    with pytest.raises(IllegalMoveError, match="holds a tile that fits"):
        match.apply(parse_move("pass"))


def test_draw_game_equal_pips_on_a_block_is_a_draw():
    rules = rules_for("draw")
    score = rules.score_hand(hand_end("blocked", 0, 0, "3:0", "2:1"), 2)
    assert score.winner is None and score.points == (0, 0)


def test_draw_game_highest_tile_ties_are_settled_by_the_seed():
    rules = rules_for("draw")
    hands = masks("6:3 1:0", "5:4 2:0")  # no doubles; 9 pips each
    picks = {rules.first_opening(hands, f"s{i}").seat for i in range(30)}
    assert picks == {0, 1}
    assert rules.first_opening(hands, "s1") == rules.first_opening(hands, "s1")


def test_dew_tied_winners_are_separated_by_the_tile_draw_in_a_real_match():
    import json
    import random

    from backend.game import dumps_record, match_record, replay, start_match
    from backend.game.tiles import PIPS

    match = start_match(rules_for("dew200"), 3, "tb178")
    rng = random.Random(178)
    while not match.over:
        match.apply(rng.choice(match.legal_moves()))
    result = match.result
    assert result is not None and result.tie_break
    best = max(result.scores)
    tied = {side for side, score in enumerate(result.scores) if score == best}
    assert len(tied) > 1 and result.winner in tied
    final_draws = {side: PIPS[t] for side, t in result.tie_break[-len(tied) :]}
    assert final_draws[result.winner] == min(final_draws.values())
    assert replay(json.loads(dumps_record(match_record(match)))) == result
