"""``dew center mint`` against a real worker, beat and anvil (issue 20): the command queues
the mint, the worker sends it and ``--wait`` shows the new center; the worker's economy cycle
then mirrors it, and it is found by place. The same key again mints nothing more; a bad
description exits 1 and queues nothing."""

from __future__ import annotations

import re

from sqlalchemy import func, select

from backend.centers import service
from backend.chain.models import ChainRequest
from tests.chain.conftest import wait_for
from tests.cli.conftest import start_worker_and_beat
from tests.fixtures.dew_cli import invoke_dew, run_dew


def test_center_mint_through_the_worker_is_mirrored(deployment, interval_mining, workers, cli_flow):  # type: ignore[no-untyped-def]
    sessions, env = cli_flow.sessions, cli_flow.env
    start_worker_and_beat(workers, env)
    owner = deployment.w3.eth.account.create().address
    args = [
        "center", "mint", owner, "--name", "Peña Triana", "--country", "ES", "--city", "Sevilla",
        "--lat", "37.38", "--lon", "-6.0", "--capacity", "6", "--key", "cli-center-1",
    ]  # fmt: skip

    done = run_dew(env, *args, "--wait")
    assert done.returncode == 0, done.stderr
    (center_id,) = [int(i) for i in re.findall(r"center #(\d+) -> ", done.stdout)]
    assert deployment.contracts.game_center.functions.ownerOf(center_id).call() == owner

    def mirrored() -> bool:
        with sessions() as session:
            found = service.find(session=session, lat_e2=3739, lon_e2=-599, limit=100)
            return any(f.center.center_id == center_id for f in found)

    wait_for(mirrored, timeout_s=120, what="the economy cycle to mirror the center")
    again = invoke_dew(env, *args)
    assert again.returncode == 0, again.stderr
    bad = invoke_dew(env, *[a if a != "6" else "0" for a in args[:-1]], "cli-center-2")
    assert bad.returncode == 1 and "capacity" in bad.stderr
    with sessions() as session:
        assert session.scalar(select(func.count()).select_from(ChainRequest)) == 1
