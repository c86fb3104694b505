"""Who may sit at an earning table, and who may create a table with premium rules.

The server asks a ``Gate``. ``ChainGate`` (backend/tables/chain_gate.py) reads the
contracts; ``ClosedGate`` is used when no chain is configured and refuses anything that
needs one, so free tables still work on the embedded defaults.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from backend.tables import exceptions as exc

AdmittedAs = Literal["avatar_user", "avatar_owner", "vip"]


@dataclass(frozen=True)
class Admission:
    admitted_as: AdmittedAs
    avatar_id: int | None


class Gate(Protocol):
    def admit(self, address: str, avatar_id: int | None) -> Admission:
        """Admit ``address`` to an earning table (playing ``avatar_id``) or raise NotEligible."""
        ...

    def is_vip(self, address: str) -> bool: ...

    def vip_expiry(self, address: str) -> int | None:
        """When ``address``'s valid VIP pass expires (chain unix seconds); None without one."""
        ...


class ClosedGate:
    """No chain configured: earning tables and premium rules are unavailable."""

    def admit(self, address: str, avatar_id: int | None) -> Admission:
        raise exc.ChainUnavailable("earning tables need the chain, which is not configured")

    def is_vip(self, address: str) -> bool:
        raise exc.ChainUnavailable("premium rules need the chain, which is not configured")

    def vip_expiry(self, address: str) -> int | None:
        raise exc.ChainUnavailable("VIP passes need the chain, which is not configured")
