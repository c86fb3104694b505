"""``run_demo``: the demo's story from start to end, chapter by chapter."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import ExitStack

from backend.demo import creators, epilogue, markets, report
from backend.demo.results import DemoResult
from backend.demo.season import DemoConfig, DemoContext, Season


def run_demo(config: DemoConfig, check: Callable[[DemoContext], None] | None = None) -> DemoResult:
    """Play the season; ``check`` (the tests) runs with everything still up, before teardown."""
    config.workdir.mkdir(parents=True, exist_ok=True)
    with ExitStack() as stack:
        season = Season(config, stack)
        season.start()
        season.sign_in()
        creators.bring_players(season)
        season.mint_avatars()
        creators.open_center(season)
        season.scholarships()
        season.vip_pass()
        season.entry_deposits()
        season.deposit_savings()
        season.play()
        season.settle()
        epilogue.campeonato(season)
        epilogue.withdrawal(season)
        epilogue.moderation(season)
        result = report.close_the_books(season)
        if config.boundaries:
            result = epilogue.boundaries(season, result)
        result = epilogue.season_rewards(season, result)
        result = markets.markets(season, result)
        if check is not None:
            check(season.context())
        if config.stay:
            season.stay()
        season.step("stopping")
    return result
