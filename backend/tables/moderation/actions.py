"""A moderator acts on a complaint: the sanction on the reported wallet (warn, mute, suspend,
ban: ``backend.care.moderation``) and the complaint closed with what was done, in one
transaction; or the complaint closed with no sanction."""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy.orm import Session

from backend.care import moderation
from backend.care.moderation import SanctionRow
from backend.db.base import utcnow
from backend.tables.moderation.complaints import RESOLUTION_MAX_CHARS, lock_open


def act_on_complaint(
    *,
    session: Session,
    complaint_id: int,
    kind: str,
    reason: str,
    duration: timedelta,
    actor: str,
    now: datetime | None = None,
) -> SanctionRow:
    """Sanction the wallet an open complaint reports and close the complaint; committed."""
    complaint = lock_open(session, complaint_id)
    now = now or utcnow()
    row = moderation.record(
        session=session,
        address=complaint.reported,
        kind=kind,
        reason=reason,
        duration=duration,
        actor=actor,
        complaint_id=complaint.id,
        now=now,
    )
    complaint.status = "closed"
    complaint.resolution = f"{kind} #{row.id}: {row.reason}"[:RESOLUTION_MAX_CHARS]
    complaint.closed_at = now
    session.commit()
    return row
