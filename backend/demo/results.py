"""What the demo prints and returns: DEW amounts for people, and the run's result."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

DEW = 10**18


def dew_amount(wei: int) -> str:
    """Wei as DEW with two decimals, as the demo prints it."""
    return f"{Decimal(wei) / DEW:,.2f}"


@dataclass
class DemoResult:
    ok: bool
    problems: list[str]
    table: str
    seconds: float
