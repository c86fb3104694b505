"""Tables: tables, seats, invitations, matchmaking, matches, moves, results, settlement outbox."""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from backend.migrations.columns import (
    address,
    amount,
    big_integer,
    boolean,
    create_table,
    drop_index,
    drop_indexes,
    each,
    hash32,
    integer,
    json,
    moment,
    seat_occupant,
    seat_outcome,
    serial_id,
    string,
    text,
)

revision = "tables_0001"
down_revision = "0000_base"
branch_labels = ("tables",)


def upgrade() -> None:
    create_table(
        "game_tables",
        string("id", 32),
        string("preset", 64),
        json("options"),
        integer("seat_count"),
        amount("stake"),
        boolean("earning"),
        *each(string, "kind", "visibility", length=16),
        string("invite_code", 32),
        address("creator", nullable=True),
        string("bot_level", 16),
        sa.Column("turn_timeout_s", sa.Float(), nullable=False),
        boolean("spectators_allowed"),
        sa.Column("spectator_delay_s", sa.Float(), nullable=False),
        string("status", 16),
        string("match_id", 32, nullable=True),
        moment("created_at"),
        key="id",
        uniques=["invite_code"],
        indexes=["status"],
    )
    create_table(
        "matchmaking_tickets",
        string("id", 32),
        address("address"),
        string("preset", 64),
        boolean("earning"),
        big_integer("avatar_id", nullable=True),
        string("admitted_as", 16, nullable=True),
        string("status", 16),
        string("table_id", 32, nullable=True),
        moment("created_at"),
        key="id",
        indexes=["address", "status"],
    )
    create_table(
        "matches",
        *each(string, "id", "table_id", length=32),
        string("preset", 64),
        *each(json, "options", "seats"),
        *each(string, "seed", "seed_commitment", length=64),
        string("status", 16),
        moment("finished_at", nullable=True),
        *each(json, "result", "record", nullable=True),
        hash32("result_hash", nullable=True),
        moment("created_at"),
        key="id",
        references={"table_id": "game_tables"},
        indexes=["status", "table_id"],
    )
    create_table(
        "table_invitations",
        string("table_id", 32),
        address("address"),
        moment("created_at"),
        key=("table_id", "address"),
        references={"table_id": "game_tables"},
    )
    create_table(
        "table_seats",
        string("table_id", 32),
        integer("seat"),
        *seat_occupant(),
        moment("joined_at"),
        key=("table_id", "seat"),
        references={"table_id": "game_tables"},
        indexes=["address"],
    )
    create_table(
        "match_moves",
        string("match_id", 32),
        *each(integer, "ply", "seat"),
        string("kind", 16),
        json("move", nullable=True),
        string("actor", 16),
        moment("created_at"),
        key=("match_id", "ply"),
        references={"match_id": "matches"},
    )
    create_table(
        "match_results",
        string("match_id", 32),
        integer("seat"),
        address("address", nullable=True),
        big_integer("avatar_id", nullable=True),
        *seat_outcome(),
        moment("finished_at"),
        key=("match_id", "seat"),
        references={"match_id": "matches"},
        indexes=["address", "avatar_id"],
    )
    create_table(
        "settlement_requests",
        serial_id(),
        string("idempotency_key", 64),
        string("match_id", 32),
        hash32("chain_match_id"),
        string("table_id", 32),
        string("preset", 64),
        boolean("earning"),
        amount("stake"),
        hash32("result_hash"),
        json("seats"),
        moment("finished_at"),
        string("status", 16),
        integer("attempts"),
        text("last_error", nullable=True),
        moment("updated_at", nullable=True),
        moment("created_at"),
        key="id",
        references={"match_id": "matches"},
        uniques=["chain_match_id", "idempotency_key", "match_id"],
        indexes=["status"],
    )


def downgrade() -> None:
    drop_index("settlement_requests", "status")
    op.drop_table("settlement_requests")
    drop_indexes("match_results", "avatar_id", "address")
    op.drop_table("match_results")
    op.drop_table("match_moves")
    drop_index("table_seats", "address")
    op.drop_table("table_seats")
    op.drop_table("table_invitations")
    drop_indexes("matches", "table_id", "status")
    op.drop_table("matches")
    drop_indexes("matchmaking_tickets", "status", "address")
    op.drop_table("matchmaking_tickets")
    drop_index("game_tables", "status")
    op.drop_table("game_tables")
