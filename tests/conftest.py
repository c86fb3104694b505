"""Shared fixtures come in as plugins, one module per concern; and how a parallel run is split.

``make test`` runs pytest on pytest-xdist workers with ``--dist loadgroup
--no-loadscope-reorder`` (docs/testing.md). Every test here gets an ``xdist_group``: its module,
so that a module's fixtures (its anvil, its databases, its servers) are set up by one worker
only, or ``browser`` for every module with a Chromium test, so that one worker runs them all
one after another on one browser and one web server. Modules are put in an order that starts
the longest ones first, so that no worker is left with a long module at the end of the run.
"""

from __future__ import annotations

from collections import defaultdict

import pytest

pytest_plugins = [
    "tests.fixtures.anvil",
    "tests.fixtures.database",
]

BROWSER_GROUP = "browser"

# Started first in a parallel run (measured, docs/testing.md): the browser group, then the
# demo's end-to-end seasons and the worker's command-line flows (a minute or more a test).
HEAVY_FIRST = ("tests/e2e/", "tests/worker/")


def _module(item: pytest.Item) -> str:
    return item.nodeid.split("::", 1)[0]


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups into the node ids
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    browser_modules = {_module(item) for item in items if "browser" in item.fixturenames}

    def rank(module: str) -> int:
        if module in browser_modules:
            return 0
        return 1 if module.startswith(HEAVY_FIRST) else 2

    for item in items:
        module = _module(item)
        if module in browser_modules:
            item.add_marker(pytest.mark.browser)
        group = BROWSER_GROUP if module in browser_modules else module
        item.add_marker(pytest.mark.xdist_group(group))
    # A stable sort on whole modules: a module's tests stay together and in their order.
    items.sort(key=lambda item: rank(_module(item)))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """How the tests' time divides between the browser tests and the others (setup, call and
    teardown summed over every worker), for docs/testing.md's phase figures."""
    seconds: dict[bool, float] = defaultdict(float)
    tests: dict[bool, set[str]] = defaultdict(set)
    for reports in terminalreporter.stats.values():
        for report in reports:
            if isinstance(report, pytest.TestReport):
                browser = BROWSER_GROUP in report.keywords
                seconds[browser] += report.duration
                tests[browser].add(report.nodeid)
    if tests:
        terminalreporter.write_line(
            f"test time: browser tests {seconds[True]:.0f} s ({len(tests[True])} tests), "
            f"the others {seconds[False]:.0f} s ({len(tests[False])} tests), summed over workers"
        )
