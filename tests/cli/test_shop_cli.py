"""``dew shop list|close`` against a real worker, beat and anvil: a listing (with its
accessory type defined first) is queued in the outbox, the worker sends it and ``--wait``
waits for the listing id; a retry under the same key is the same request; a close reaches
the chain. Bad input exits 1 and queues nothing."""

from __future__ import annotations

import contextlib
import re

from sqlalchemy import func, select
from sqlalchemy.exc import IntegrityError, OperationalError

from backend.chain.models import ChainRequest
from backend.markets.chain_reader import MarketReader
from backend.markets.indexer import index_markets
from tests.chain.conftest import wait_for
from tests.cli.conftest import start_worker_and_beat
from tests.fixtures.dew_cli import invoke_dew, run_dew


def _requests(sessions) -> int:
    with sessions() as session:
        return session.scalar(select(func.count()).select_from(ChainRequest)) or 0


def test_shop_list_then_close_through_the_worker_once(
    deployment, interval_mining, workers, cli_flow
):
    sessions, env = cli_flow.sessions, cli_flow.env
    start_worker_and_beat(workers, env)
    shop = deployment.contracts.shop.functions
    args = ["shop", "list", "accessory", "--price", str(3 * 10**18), "--supply", "7"]
    args += ["--name", "Red scarf", "--item-id", "77", "--max-supply", "9", "--slot", "neck"]
    listed = run_dew(env, *args, "--key", "scarf-1", "--wait")
    assert listed.returncode == 0, listed.stderr
    found = re.search(r"listing #(\d+) in tx 0x", listed.stdout)
    assert found is not None, listed.stdout
    listing_id = int(found.group(1))
    on_chain = shop.listing(listing_id).call()
    assert on_chain[0] == deployment.contracts.accessories.address
    assert deployment.contracts.accessories.functions.maxSupply(77).call() == 9

    # A retry under the same key: the same request, nothing more queued.
    queued = _requests(sessions)
    again = invoke_dew(env, *args, "--key", "scarf-1")
    assert again.returncode == 0, again.stderr
    assert _requests(sessions) == queued
    # Bad input exits 1 and queues nothing.
    for bad in (["--price", "0"], ["--price", "1e18"], ["--supply", "0"]):
        refused = invoke_dew(env, *[*args, *bad], "--key", "scarf-bad")
        assert refused.returncode == 1, (bad, refused.stdout)
    assert _requests(sessions) == queued

    reader = MarketReader(deployment.contracts, confirmations=1)

    def mirrored() -> bool:
        # The worker's economy cycle indexes too: losing SQLite's lock to it is fine.
        with contextlib.suppress(IntegrityError, OperationalError):
            index_markets(session_factory=sessions, reader=reader)
        return _listed(sessions, listing_id)

    wait_for(mirrored, timeout_s=60, what="the listing mirrored")
    closed = invoke_dew(env, "shop", "close", str(listing_id), "--key", "scarf-close", "--wait")
    assert closed.returncode == 0, closed.stderr
    assert _open_on_chain(deployment, listing_id) is False


def _listed(sessions, listing_id: int) -> bool:
    from backend.markets.models import ShopListing

    with sessions() as session:
        return session.get(ShopListing, listing_id) is not None


def _open_on_chain(deployment, listing_id: int) -> bool:
    """The listing's ``open`` flag, by name from the ABI's struct."""
    shop = deployment.contracts.shop
    [fn] = [f for f in shop.abi if f.get("name") == "listing" and f.get("type") == "function"]
    names = [c["name"] for c in fn["outputs"][0]["components"]]
    return bool(shop.functions.listing(listing_id).call()[names.index("open")])
