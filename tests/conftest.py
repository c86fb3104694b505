"""Shared fixtures come in as plugins, one module per concern; and how a parallel run is split.

``make test`` runs pytest on pytest-xdist workers (docs/testing.md). The scheduler below hands
out whole modules, so that a module's fixtures (its anvil, its databases, its servers, the
state its tests pass on) are set up by one worker only, as in a serial run; and every module
with a Chromium test (``tests/web/test_*_in_browser.py``) as one unit, so that one worker runs
them all one after another on one browser and one web server; and ``tests/contracts/`` as
one unit, since its modules run forge on one build directory. Modules are put in an order that
starts the longest first, so that no worker is left alone with a long module at the end.

(xdist's own ``--dist loadgroup`` would do the grouping, but pytest-xdist 3.8 marks the groups
on ``Item._nodeid``, which pytest 9 no longer reads: every test became its own unit.)
"""

from __future__ import annotations

import os
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

pytest_plugins = [
    "tests.fixtures.anvil",
    "tests.fixtures.database",
    "tests.fixtures.workers",
    "tests.fixtures.launcher",
]

BROWSER_UNIT = "browser"
BROWSER_MODULE_SUFFIX = "_in_browser.py"
# forge builds into contracts/out and its cache: the modules that run it share one worker.
FORGE_UNIT = "tests/contracts/"

# Started first in a parallel run (docs/testing.md): the browser modules, then the demo's
# end-to-end seasons, the `dew` commands' flows and the worker's (a minute or more a test).
HEAVY_FIRST = ("tests/e2e/", "tests/cli/", "tests/worker/")
# The package-scoped demo stack some browser modules share (tests/web/conftest.py).
SHARED_STACK = "scholarship_season"


def _module(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def _unit(nodeid: str) -> str:
    """The unit of work a test belongs to: its module, all the browser modules together, or
    all the contracts' modules together."""
    module = _module(nodeid)
    if module.endswith(BROWSER_MODULE_SUFFIX):
        return BROWSER_UNIT
    return FORGE_UNIT if module.startswith(FORGE_UNIT) else module


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        module = _module(item.nodeid)
        if "browser" in item.fixturenames and not module.endswith(BROWSER_MODULE_SUFFIX):
            raise pytest.UsageError(
                f"{module} drives Chromium: name it test_*{BROWSER_MODULE_SUFFIX} so that a "
                "parallel run keeps it with the other browser tests (tests/conftest.py)"
            )
        if module.endswith(BROWSER_MODULE_SUFFIX):
            item.add_marker(pytest.mark.browser)

    # The browser modules on the package's shared demo stack run last in the browser unit:
    # the stack (a server, a Celery worker and beat polling the chain) then stops with the
    # package right after them instead of idling beside every other browser module.
    shared_stack = {_module(i.nodeid) for i in items if SHARED_STACK in i.fixturenames}

    def rank(item: pytest.Item) -> tuple[int, bool]:
        module = _module(item.nodeid)
        if module.endswith(BROWSER_MODULE_SUFFIX):
            return 0, module in shared_stack
        return (1 if module.startswith(HEAVY_FIRST) else 2), False

    # A stable sort on whole modules: a module's tests stay together and in their order.
    items.sort(key=rank)


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Whole modules (and the browser modules as one) to a worker, in collection order."""
    from xdist.scheduler import LoadScopeScheduling

    class ModuleScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return _unit(nodeid)

    config.option.loadscopereorder = False  # collection order: the longest first (above)
    return ModuleScheduling(config, log)


# A file for every module's time (tab-separated, slowest first), written when the variable is set.
MODULE_TIMES_ENV = "DEW_TEST_MODULE_TIMES"
SLOWEST_MODULES_SHOWN = 15


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """How the tests' time divides between the browser tests and the others, and the slowest
    modules (setup, call and teardown summed over every worker: a module's own fixtures count
    in its first test's setup and its last test's teardown), for docs/testing.md's figures."""
    seconds: dict[bool, float] = defaultdict(float)
    tests: dict[bool, set[str]] = defaultdict(set)
    module_seconds: dict[str, float] = defaultdict(float)
    module_tests: dict[str, set[str]] = defaultdict(set)
    for reports in terminalreporter.stats.values():
        for report in reports:
            if isinstance(report, pytest.TestReport):
                browser = _unit(report.nodeid) == BROWSER_UNIT
                seconds[browser] += report.duration
                tests[browser].add(report.nodeid)
                module_seconds[_module(report.nodeid)] += report.duration
                module_tests[_module(report.nodeid)].add(report.nodeid)
    if not tests:
        return
    slowest = sorted(module_seconds.items(), key=lambda row: -row[1])
    terminalreporter.write_line(f"slowest modules (of {len(slowest)}):")
    for module, spent in slowest[:SLOWEST_MODULES_SHOWN]:
        count = len(module_tests[module])
        terminalreporter.write_line(f"{spent:8.1f} s {count:4d} tests  {module}")
    if path := os.environ.get(MODULE_TIMES_ENV):
        rows = [f"{spent:.1f}\t{len(module_tests[m])}\t{m}\n" for m, spent in slowest]
        Path(path).write_text("".join(rows))
    terminalreporter.write_line(
        f"test time: browser tests {seconds[True]:.0f} s ({len(tests[True])} tests), "
        f"the others {seconds[False]:.0f} s ({len(tests[False])} tests), summed over workers"
    )
