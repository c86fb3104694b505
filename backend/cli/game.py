"""`dew` commands for the game area: play a bot match, simulate many, replay a record."""

from __future__ import annotations

import json
import math
import sys
import time
from pathlib import Path
from typing import Annotated, Any

import typer

from backend.cli.app import app
from backend.game import (
    ReplayError,
    RulesError,
    UnknownBotError,
    apply_move,
    bot_names,
    commitment,
    dumps_record,
    make_bot,
    match_record,
    play_match,
    replay,
    rules_for,
    start_match,
    view,
)
from backend.game.rules import OptionValue, Rules
from backend.game.tiles import NAMES

PresetOpt = Annotated[
    str, typer.Option("--preset", "-p", help="dew200, doscientos, partnership, draw")
]
OptionsOpt = Annotated[
    list[str] | None,
    typer.Option("--option", "-o", help="Preset option NAME=VALUE (repeatable), e.g. target=100"),
]


def _parse_options(pairs: list[str] | None) -> dict[str, OptionValue]:
    options: dict[str, OptionValue] = {}
    for pair in pairs or []:
        name, sep, raw = pair.partition("=")
        if not sep:
            raise typer.BadParameter(f"expected NAME=VALUE, got {pair!r}")
        value: OptionValue = raw
        if raw.lower() in ("true", "false"):
            value = raw.lower() == "true"
        elif raw.lstrip("-").isdigit():
            value = int(raw)
        options[name.strip()] = value
    return options


def _rules(preset: str, options: list[str] | None) -> Rules:
    try:
        return rules_for(preset, _parse_options(options))
    except RulesError as error:
        raise typer.BadParameter(str(error)) from None


def _bots(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    known = bot_names()
    for name in names:
        if name not in known:
            raise typer.BadParameter(f"no bot {name!r}; bots: {', '.join(known)}")
    return names


# -- dew play ----------------------------------------------------------------------------------


@app.command("play")
def play(
    preset: PresetOpt = "dew200",
    bots: Annotated[str, typer.Option(help="Comma-separated bots, one per seat")] = "hard,medium",
    seed: Annotated[str, typer.Option(help="Server seed that deals every hand")] = "dew-demo",
    option: OptionsOpt = None,
    record: Annotated[Path | None, typer.Option(help="Write the match record here")] = None,
) -> None:
    """Play one bot match and print it move by move, with the final scores."""
    rules = _rules(preset, option)
    names = _bots(bots)
    try:
        rules.check_seats(len(names))
    except RulesError as error:
        raise typer.BadParameter(str(error)) from None
    players = [make_bot(name, f"{seed}/bot/{seat}") for seat, name in enumerate(names)]
    match = start_match(rules, names, seed)
    labels = [f"{name}#{seat}" for seat, name in enumerate(names)]
    sides = match.sides
    side_names = (
        [" + ".join(labels[s] for s in range(len(names)) if sides[s] == side) for side in range(2)]
        if rules.team_game
        else labels
    )
    typer.echo(f"{rules.title} ({rules.preset}, seeds {', '.join(rules.seed_files)})")
    typer.echo(f"Options: {json.dumps(rules.options)}")
    typer.echo(
        "Seats: "
        + ", ".join(labels)
        + (f"; teams: {side_names[0]} vs {side_names[1]}" if rules.team_game else "")
    )
    typer.echo(f"Server seed commitment (published before play): {commitment(seed)}")
    hand_shown = -1
    while not match.over:
        if match.hand_index != hand_shown:
            hand_shown = match.hand_index
            typer.echo(
                f"\n-- Hand {hand_shown + 1}: {labels[match.turn]} leads; "
                f"boneyard {match.boneyard_size}; scores {_scores(match.scores, side_names)}"
            )
            for other, label in enumerate(labels):  # a bot match has no secrets from spectators
                typer.echo(f"   {label:<10} holds {' '.join(view(match, other)['hand'])}")
        seat = match.turn
        hand_before = match.hand
        scores_before = list(match.scores)
        bonuses_before = len(hand_before.bonuses)
        move = players[seat].choose(view(match, seat))
        apply_move(match, move)
        gained = [after - before for after, before in zip(match.scores, scores_before, strict=True)]
        text = {"draw": "draws", "pass": "passes"}.get(
            move, f"plays {move[:-1]} on the {'left' if move.endswith('L') else 'right'}"
        )
        line = ""
        if match.hand is hand_before and not match.over:
            ends = f"{match.left}|{match.right}" if match.left >= 0 else "-"
            line = f"ends {ends}"
        bonus = "".join(f"  +{pts} {side_names[side]}" for side, pts in enumerate(gained) if pts)
        reasons = [why for _, _, why in hand_before.bonuses[bonuses_before:]]
        if reasons:
            bonus += f" ({', '.join(reasons)})"
        typer.echo(f"   {labels[seat]:<10} {text:<22} {line:<9}{bonus}")
        if match.hand is not hand_before or match.over:
            finished = hand_before
            who = "nobody (tie)" if finished.winner is None else side_names[finished.winner]
            typer.echo(
                f"   Hand {finished.index + 1} ends: {finished.end}; winner {who}; "
                f"points {finished.points}; scores {_scores(match.scores, side_names)}"
            )
    result = match.result
    assert result is not None
    typer.echo("")
    if result.tie_break:
        drawn = ", ".join(f"{side_names[side]} drew {NAMES[t]}" for side, t in result.tie_break)
        typer.echo(f"Tied scores: broken by drawing tiles, fewest pips wins: {drawn}")
    winner = "a draw" if result.winner is None else f"{side_names[result.winner]} wins"
    typer.echo(
        f"Final scores: {_scores(list(result.scores), side_names)} -> {winner} "
        f"after {len(result.hands)} hands."
    )
    typer.echo(f"Server seed revealed: {seed!r} (sha256 matches the commitment above)")
    if record is not None:
        record.write_text(dumps_record(match_record(match)) + "\n")
        typer.echo(f"Match record written to {record} (check it with: dew replay {record})")


def _scores(scores: list[int], side_names: list[str]) -> str:
    return ", ".join(f"{name} {score}" for name, score in zip(side_names, scores, strict=True))


# -- dew simulate ------------------------------------------------------------------------------


def _wilson(successes: float, n: int) -> tuple[float, float]:
    """95% Wilson interval of a proportion."""
    if n == 0:
        return (0.0, 1.0)
    z = 1.959963984540054
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def _mean_ci(values: list[float]) -> tuple[float, float, float]:
    """Mean and its 95% normal-approximation interval."""
    n = len(values)
    if n == 0:
        return (0.0, 0.0, 0.0)
    mean = sum(values) / n
    if n == 1:
        return (mean, mean, mean)
    var = sum((v - mean) ** 2 for v in values) / (n - 1)
    half = 1.959963984540054 * math.sqrt(var / n)
    return (mean, mean - half, mean + half)


def simulate_matches(
    rules: Rules, lineup: list[str], games: int, seed: str, records: Path | None = None
) -> dict[str, Any]:
    """Play ``games`` matches, rotating sides between games; win rates and points per hand."""
    seats = len(lineup) * (2 if rules.team_game and len(lineup) == 2 else 1)
    rules.check_seats(seats)
    if rules.team_game:
        sides = (
            [[lineup[0], lineup[0]], [lineup[1], lineup[1]]]
            if len(lineup) == 2
            else [[lineup[0], lineup[2]], [lineup[1], lineup[3]]]
        )
    else:
        sides = [[name] for name in lineup]
    count = len(sides)
    match_wins = [0.0] * count
    hand_wins = [0] * count
    hand_points: list[list[float]] = [[] for _ in range(count)]
    hands_total = 0
    draws = 0
    started = time.perf_counter()
    for game in range(games):
        shift = game % count  # rotate who sits where so no side keeps the seat advantage
        position_of = [(k + shift) % count for k in range(count)]
        seat_bots = [""] * seats
        for k, members in enumerate(sides):
            for i, name in enumerate(members):
                seat_bots[position_of[k] + i * count] = name
        match_seed = f"{seed}/game/{game}"
        match = play_match(rules, seat_bots, match_seed)
        result = match.result
        assert result is not None
        if records is not None:
            (records / f"game-{game:05d}.json").write_text(dumps_record(match_record(match)) + "\n")
        if result.winner is None:
            draws += 1
        for k in range(count):
            position = position_of[k]
            if result.winner == position:
                match_wins[k] += 1
            for hand in result.hands:
                hand_points[k].append(float(hand.points[position]))
                hand_wins[k] += hand.winner == position
        hands_total += len(result.hands)
    out_sides = []
    for k, members in enumerate(sides):
        win_low, win_high = _wilson(match_wins[k], games)
        hand_low, hand_high = _wilson(hand_wins[k], hands_total)
        mean, low, high = _mean_ci(hand_points[k])
        out_sides.append(
            {
                "bots": members,
                "match_win_rate": {"value": match_wins[k] / games, "ci95": [win_low, win_high]},
                "hand_win_rate": {
                    "value": hand_wins[k] / max(hands_total, 1),
                    "ci95": [hand_low, hand_high],
                },
                "points_per_hand": {"value": mean, "ci95": [low, high]},
            }
        )
    return {
        "preset": rules.preset,
        "options": rules.options,
        "games": games,
        "hands": hands_total,
        "drawn_games": draws,
        "seed": seed,
        "sides": out_sides,
        "seconds": round(time.perf_counter() - started, 3),
    }


@app.command("simulate")
def simulate(
    preset: PresetOpt = "dew200",
    games: Annotated[int, typer.Option(min=1, help="Matches to play")] = 100,
    bots: Annotated[
        str, typer.Option(help="Comma-separated bots: one per seat, or one per team (2)")
    ] = "hard,easy",
    seed: Annotated[str, typer.Option(help="Base seed; game g uses SEED/game/g")] = "sim",
    option: OptionsOpt = None,
    records: Annotated[
        Path | None, typer.Option(help="Directory to write every match record into")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object")] = False,
) -> None:
    """Play many bot matches and print win rates and points per hand with 95% CIs."""
    rules = _rules(preset, option)
    lineup = _bots(bots)
    if records is not None:
        records.mkdir(parents=True, exist_ok=True)
    try:
        summary = simulate_matches(rules, lineup, games, seed, records)
    except (RulesError, UnknownBotError) as error:
        raise typer.BadParameter(str(error)) from None
    if as_json:
        typer.echo(json.dumps(summary))
        return
    typer.echo(
        f"{rules.preset} {json.dumps(rules.options)}: {games} games, {summary['hands']} hands, "
        f"{summary['drawn_games']} drawn, {summary['seconds']} s (seats rotate every game)"
    )
    typer.echo(
        f"{'side':<22}{'match wins [95% CI]':<26}{'hand wins [95% CI]':<26}points/hand [95% CI]"
    )
    for side in summary["sides"]:
        mw, hw, pp = side["match_win_rate"], side["hand_win_rate"], side["points_per_hand"]
        typer.echo(
            f"{' + '.join(side['bots']):<22}{_rate(mw):<26}{_rate(hw):<26}"
            f"{pp['value']:.2f} [{pp['ci95'][0]:.2f}, {pp['ci95'][1]:.2f}]"
        )


def _rate(figure: dict[str, Any]) -> str:
    low, high = figure["ci95"]
    return f"{figure['value']:.1%} [{low:.1%}, {high:.1%}]"


# -- dew replay --------------------------------------------------------------------------------


@app.command("replay")
def replay_command(
    file: Annotated[str, typer.Argument(help="Match record JSON file, or - for stdin")],
) -> None:
    """Check a match record move by move and print its outcome as JSON."""
    try:
        text = sys.stdin.read() if file == "-" else Path(file).read_text()
    except OSError as error:
        typer.echo(f"replay failed: cannot read {file!r}: {error.strerror}", err=True)
        raise typer.Exit(2) from None
    try:
        record = json.loads(text)
    except json.JSONDecodeError as error:
        typer.echo(f"replay failed: not JSON: {error}", err=True)
        raise typer.Exit(2) from None
    try:
        result = replay(record)
    except ReplayError as error:
        typer.echo(f"replay failed: {error}", err=True)
        raise typer.Exit(1) from None
    outcome = {
        "ok": True,
        "preset": record["preset"],
        "options": record.get("options", {}),
        "seats": record["seats"],
        # True when every deal was re-derived from the revealed, committed server seed.
        "deals_from_seed": all(hand.get("seeded", True) for hand in record["hands"]),
        **result.to_json(),
    }
    typer.echo(json.dumps(outcome))
