"""Shared fixtures come in as plugins, one module per concern."""

pytest_plugins = [
    "tests.fixtures.anvil",
    "tests.fixtures.database",
]
