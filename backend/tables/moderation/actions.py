"""A moderator acts on a complaint: the sanction on the reported wallet (warn, mute, suspend,
ban: ``backend.care.moderation``) and the complaint closed with what was done, in one
transaction; or the complaint closed with no sanction. The reporter reads the outcome of its
own reports: the kind of action taken, and nothing more (not the moderator's reason, the
sanction's length or its number)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import select
from sqlalchemy.orm import Session

from backend.care import moderation
from backend.care.models import Sanction
from backend.care.moderation import SanctionRow, Terms
from backend.care.schemas import ReportOutcomeOut
from backend.db.base import aware, utcnow
from backend.kit.rows import columns
from backend.tables import exceptions as exc
from backend.tables.moderation.complaints import RESOLUTION_MAX_CHARS, Complaint, lock_open


def outcomes(
    *, session: Session, reporter: str, complaint_id: int | None = None, limit: int = 100
) -> list[ReportOutcomeOut]:
    """The reporter's own reports newest first (``complaint_id``: that one, if it is the
    reporter's; another's is not found), each as its reporter sees it: ``action`` is None
    while it is open, then the kind of sanction it led to (warn, mute, suspend, ban) or
    "none"."""
    query = (
        select(Complaint)
        .where(Complaint.reporter == reporter)
        .order_by(Complaint.id.desc())
        .limit(max(1, min(limit, 1000)))
    )
    if complaint_id is not None:
        query = query.where(Complaint.id == complaint_id)
    rows = list(session.scalars(query))
    if complaint_id is not None and not rows:
        raise exc.ComplaintNotFound(f"no report {complaint_id} of yours")
    sanctioned = session.execute(
        select(Sanction.complaint_id, Sanction.kind).where(
            Sanction.complaint_id.in_([c.id for c in rows])
        )
    )
    kinds = {complaint: kind for complaint, kind in sanctioned}
    return [
        ReportOutcomeOut(
            **columns(c, "id table_id message_id reported reason status"),
            created_at=aware(c.created_at),
            closed_at=aware(c.closed_at),
            action=None if c.status != "closed" else kinds.get(c.id, "none"),
        )
        for c in rows
    ]


def act_on_complaint(
    *,
    session: Session,
    complaint_id: int,
    terms: Terms,
    actor: str,
    now: datetime | None = None,
) -> SanctionRow:
    """Sanction the wallet an open complaint reports and close the complaint; committed."""
    complaint = lock_open(session, complaint_id)
    now = now or utcnow()
    row = moderation.record(
        session=session,
        address=complaint.reported,
        terms=terms,
        actor=actor,
        complaint_id=complaint.id,
        now=now,
    )
    complaint.status = "closed"
    complaint.resolution = f"{terms.kind} #{row.id}: {row.reason}"[:RESOLUTION_MAX_CHARS]
    complaint.closed_at = now
    session.commit()
    return row
