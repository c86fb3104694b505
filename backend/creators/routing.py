"""Who is paid the center and creator legs of a fee: the economy's ``FeeRecipients``.

The economy plans settlements below the packages that know tables and creators, so the
processes that plan them (the worker's economy cycle, the competitions' jobs, the demo)
pass a ``FeeRouting`` in. A table's center comes from the lookup they give it
(``backend.tables.hosting.center_of_table``): this package sits beside ``backend.tables`` and
does not import it.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from sqlalchemy.orm import Session

from backend.centers.service import payee_of as center_payee_of
from backend.creators.service import beneficiary

PayeeOf = Callable[[Session, int, datetime], str | None]
CenterOfTable = Callable[[Session, str], int | None]


class FeeRouting:
    """Center legs to the center's payee (``backend.centers.service.payee_of``: the renter
    while rented, else the owner), creator legs to the player's creator
    (``backend.creators.service.beneficiary``)."""

    def __init__(
        self, *, center_of_table: CenterOfTable, payee_of: PayeeOf = center_payee_of
    ) -> None:
        self._center_of_table = center_of_table
        self._payee_of = payee_of

    def center_payee(
        self, session: Session, *, table_id: str | None, center_id: int | None, at: datetime
    ) -> tuple[int, str] | None:
        if center_id is None and table_id:
            center_id = self._center_of_table(session, table_id)
        if center_id is None:
            return None
        payee = self._payee_of(session, int(center_id), at)
        return (int(center_id), payee) if payee else None

    def creator_of(self, session: Session, *, player: str, at: datetime) -> str | None:
        return beneficiary(session, player, at)
