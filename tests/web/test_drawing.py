"""The fixed deal of the board's empty-boneyard test (tests/web/drawing.py), on the engine
alone: if the dealing or the draw game's rules change, this says so before a browser runs."""

from tests.web.drawing import SEED, first_hand, towards_drawing


def test_the_fixed_deal_empties_the_boneyard_with_both_arms_long_and_doubles():
    outcome = first_hand(SEED)
    assert outcome is not None, "the first hand under SEED no longer empties the boneyard"
    assert min(outcome.arms.values()) >= 11, outcome
    assert outcome.doubles >= 1 and outcome.line == 1 + sum(outcome.arms.values()), outcome


def test_towards_drawing_keeps_fewest_fitting_tiles_then_the_shorter_arm():
    hand = ["6:4", "4:1", "3:3", "5:2"]
    # Ends 6|4: 6:4 on the 6 leaves 4|4 (4:1 fits), 4:1 on the 4 leaves 6|1 (6:4 fits), and
    # 6:4 on the 4 leaves 6|6, which nothing left in the hand fits.
    assert towards_drawing(hand, ["6:4", "4:1"], (6, 4), {"L": 0, "R": 0}) == ("6:4", "R")
    # 3:3 fits both ends of (3, 3): the shorter arm takes it.
    assert towards_drawing(["3:3", "0:0"], ["3:3"], (3, 3), {"L": 2, "R": 1}) == ("3:3", "R")
    assert towards_drawing(["3:3", "0:0"], ["3:3"], (3, 3), {"L": 1, "R": 2}) == ("3:3", "L")
