"""The worker's tests run on the module's chain mining a block a second."""

from tests.chain.conftest import interval_mining  # noqa: F401  (fixture)
