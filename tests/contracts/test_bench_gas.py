"""Smoke run of scripts/bench_gas.py: it prints one JSON object with every figure."""

from __future__ import annotations

import json
import subprocess
import sys

from backend.chain.contracts import REPO_ROOT


def test_quick_bench_prints_all_figures_with_baselines() -> None:
    done = subprocess.run(
        [sys.executable, str(REPO_ROOT / "scripts" / "bench_gas.py"), "--json", "--quick"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    for key in (
        "settle_gas_per_payout_existing_10",
        "settle_gas_per_payout_new_10",
        "settle_gas_per_payout_new_10_production",
        "settle_gas_per_payout_split_10",
        "transfer_tx_gas_existing",
        "transfer_tx_gas_new",
        "mint_gas_1",
        "mint_gas_10",
        "oz_mint_tx_gas",
    ):
        assert isinstance(figures[key], int) and figures[key] > 0, key
    # Baselines measured in the same run: a transfer to a new holder writes a fresh slot.
    assert figures["transfer_tx_gas_new"] > figures["transfer_tx_gas_existing"] > 21_000
    assert figures["quick"] is True


def test_quick_bench_reports_the_center_and_creator_legs() -> None:
    """Issue 20: the fee match with and without its center and creator legs, measured in the
    same run, and the two ways of renting a center out."""
    done = subprocess.run(
        [sys.executable, str(REPO_ROOT / "scripts" / "bench_gas.py"), "--json", "--quick"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout)
    for suffix in ("", "_batch10"):
        base = figures[f"settle_gas_fee_match{suffix}"]
        legs = figures[f"settle_gas_fee_match_center_creator{suffix}"]
        new = figures[f"settle_gas_fee_match_center_creator_new{suffix}"]
        # Two more legs cost something, and a first-time recipient's fresh slot costs more.
        assert 0 < base < legs < new, suffix
        assert figures[f"settle_gas_center_creator_ratio{suffix}"] == round(legs / base, 3)
        assert figures[f"settle_gas_center_creator_ratio_new{suffix}"] == round(new / base, 3)
    assert figures["targets"]["settle_gas_center_creator_ratio <= 1.3"] == (
        figures["settle_gas_center_creator_ratio"] <= 1.3
    )
    rental = figures["center_rental_fixed_rent_gas"]
    assert rental == sum(
        figures[f"center_rental_{step}_gas"] for step in ("offer", "approve", "accept")
    )
    assert rental > figures["center_rental_setuser_gas"] > 21_000
