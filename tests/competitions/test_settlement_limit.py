"""The tournament's prize cap is read from the deployed vault (found by the chaos run: the
read still unpacked three limits after ``limits()`` gained the per-window match count, so
every tournament creation with the chain's limit failed with a ValueError)."""

from __future__ import annotations

from backend.competitions import service


def test_settlement_limit_reads_the_deployed_vaults_limits(deployment) -> None:  # type: ignore[no-untyped-def]
    limits = deployment.contracts.settlement.functions.limits().call()
    assert len(limits) == 4  # periodLimit, maxPerMatch, period, maxMatches
    expected = min(int(limits[0]), int(limits[1]))
    assert expected > 0
    assert service.settlement_limit(deployment.contracts) == expected
