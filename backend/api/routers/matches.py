"""Matches (``/matches``): a match, its seed once it has ended and its record once finished."""

from __future__ import annotations

from fastapi import APIRouter

from backend.api.deps import SessionDep
from backend.api.params import error_responses
from backend.tables import schemas
from backend.tables import service as tables

router = APIRouter(prefix="/matches", tags=["tables"])
_ERRORS = error_responses(401, 403, 404, 409, 422, 503)


@router.get("/{match_id}", response_model=schemas.MatchOut, responses=_ERRORS)
def get_match(match_id: str, session: SessionDep) -> schemas.MatchOut:
    """A match; its seed is revealed once it has ended (finished or abandoned), its full
    record once it is finished."""
    match = tables.get_match(session=session, match_id=match_id)
    over = match.status == "finished"
    ended = match.status in ("finished", "abandoned")
    return schemas.MatchOut(
        id=match.id,
        table_id=match.table_id,
        preset=match.preset,
        options=match.options,
        seats=[{k: v for k, v in s.items() if k != "admitted_as"} for s in match.seats],
        status=match.status,
        seed_commitment=match.seed_commitment,
        server_seed=match.seed if ended else None,
        result=match.result if over else None,
        result_hash=match.result_hash if over else None,
        record=match.record if over else None,
        created_at=match.created_at,
        finished_at=match.finished_at,
    )
