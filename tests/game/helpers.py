"""Small builders for explicit deals and hand ends, written in tile names."""

from backend.game import Deal, rules_for, start_match
from backend.game.rules import HandEnd
from backend.game.tiles import NAMES, mask_of, parse_tile


def deal(*hands: str, boneyard: str | None = None) -> Deal:
    """``deal("6:6 5:5 ...", "...", boneyard="...")``; with ``boneyard=None`` the tiles nobody
    holds go to the boneyard (or, if there is no room, must all be in hands)."""
    parsed = [[parse_tile(t) for t in hand.split()] for hand in hands]
    if boneyard is None:
        used = {t for hand in parsed for t in hand}
        rest = [t for t in range(28) if t not in used]
    else:
        rest = [parse_tile(t) for t in boneyard.split()]
    return Deal.from_json(
        {
            "hands": [[NAMES[t] for t in hand] for hand in parsed],
            "boneyard": [NAMES[t] for t in rest],
        }
    )


def team_deal(*first_tiles: str) -> Deal:
    """A four-seat deal: each seat gets the given tiles, then the rest in order up to 7 each."""
    parsed = [[parse_tile(t) for t in hand.split()] for hand in first_tiles]
    while len(parsed) < 4:
        parsed.append([])
    used = {t for hand in parsed for t in hand}
    rest = [t for t in range(28) if t not in used]
    for hand in parsed:
        while len(hand) < 7:
            hand.append(rest.pop(0))
    return Deal.from_json({"hands": [[NAMES[t] for t in hand] for hand in parsed], "boneyard": []})


def hand_end(reason: str, last_seat: int, starter: int, *hands: str) -> HandEnd:
    """A finished hand with each seat's remaining tiles given by name."""
    masks = tuple(mask_of(parse_tile(t) for t in hand.split()) for hand in hands)
    return HandEnd(reason, last_seat, starter, masks)  # type: ignore[arg-type]


def match_with(preset: str, *deals: Deal, options=None, names=None, seed: str = "test"):
    """A match whose first hands are dealt explicitly."""
    rules = rules_for(preset, options or {})
    seats = names or len(deals[0].hands)
    return start_match(rules, seats, seed, list(deals))
