"""Economy: seasons, planned settlements, the per-wallet ledger and the scholarship mirror.

Revision ID: economy_0001
Revises: 0000_base
Create Date: 2026-11-21 18:59:08.271882
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from backend.migrations.columns import address, foreign_key, moment, primary_key

revision = "economy_0001"
down_revision = "0000_base"
branch_labels = None
depends_on = None


def upgrade() -> None:

    op.create_table(
        "economy_agreements",
        sa.Column("id", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("avatar_id", sa.BigInteger(), nullable=False),
        address("owner"),
        address("scholar", nullable=True),
        sa.Column("terms", sa.String(length=24), nullable=False),
        sa.Column("duration_s", sa.BigInteger(), nullable=False),
        sa.Column("rent", sa.String(length=80), nullable=False),
        sa.Column("owner_bps", sa.Integer(), nullable=False),
        sa.Column("manager_bps", sa.Integer(), nullable=False),
        address("manager", nullable=True),
        sa.Column("dust_to", sa.String(length=16), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("starts_at", sa.BigInteger(), nullable=True),
        sa.Column("ends_at", sa.BigInteger(), nullable=True),
        sa.Column("rent_escrowed", sa.String(length=80), nullable=False),
        sa.Column("rent_paid", sa.String(length=80), nullable=False),
        sa.Column("rent_refunded", sa.String(length=80), nullable=False),
        sa.Column("ended_by", sa.String(length=16), nullable=True),
        sa.Column("offered_block", sa.BigInteger(), nullable=False),
        sa.Column("updated_block", sa.BigInteger(), nullable=False),
        primary_key("economy_agreements", "id"),
    )
    with op.batch_alter_table("economy_agreements", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_economy_agreements_avatar_id"), ["avatar_id"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_economy_agreements_owner"), ["owner"], unique=False)
        batch_op.create_index(
            batch_op.f("ix_economy_agreements_scholar"), ["scholar"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_economy_agreements_status"), ["status"], unique=False)

    op.create_table(
        "economy_indexer_cursors",
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("next_block", sa.BigInteger(), nullable=False),
        primary_key("economy_indexer_cursors", "name"),
    )
    op.create_table(
        "economy_screened_owners",
        address("address"),
        sa.Column("approved", sa.Boolean(), nullable=False),
        address("screener"),
        sa.Column("block_number", sa.BigInteger(), nullable=False),
        primary_key("economy_screened_owners", "address"),
    )
    op.create_table(
        "economy_seasons",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        moment("starts_at"),
        moment("ends_at"),
        sa.Column("emission_budget", sa.String(length=80), nullable=False),
        sa.Column("emitted", sa.String(length=80), nullable=False),
        moment("created_at"),
        primary_key("economy_seasons", "id"),
        sa.UniqueConstraint("name", name=op.f("uq_economy_seasons_name")),
    )
    with op.batch_alter_table("economy_seasons", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_economy_seasons_starts_at"), ["starts_at"], unique=False
        )

    op.create_table(
        "economy_settlements",
        sa.Column("match_id", sa.String(length=32), nullable=False),
        sa.Column("chain_match_id", sa.String(length=66), nullable=False),
        sa.Column("result_hash", sa.String(length=66), nullable=False),
        sa.Column("season_id", sa.Integer(), nullable=True),
        sa.Column("economy", sa.String(length=16), nullable=False),
        sa.Column("preset", sa.String(length=64), nullable=False),
        moment("finished_at"),
        sa.Column("stake_pot", sa.String(length=80), nullable=False),
        sa.Column("emission", sa.String(length=80), nullable=False),
        sa.Column("fee", sa.String(length=80), nullable=False),
        sa.Column("returned", sa.String(length=80), nullable=False),
        sa.Column("paid", sa.String(length=80), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("chain_request_id", sa.Integer(), nullable=True),
        sa.Column("tx_hash", sa.String(length=66), nullable=True),
        sa.Column("block_number", sa.BigInteger(), nullable=True),
        sa.Column("failure_reason", sa.Text(), nullable=True),
        moment("created_at"),
        moment("updated_at"),
        foreign_key("economy_settlements", "season_id", "economy_seasons"),
        primary_key("economy_settlements", "match_id"),
        sa.UniqueConstraint("chain_match_id", name=op.f("uq_economy_settlements_chain_match_id")),
    )
    with op.batch_alter_table("economy_settlements", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_economy_settlements_season_id"), ["season_id"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_economy_settlements_status"), ["status"], unique=False)

    op.create_table(
        "economy_ledger_legs",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("match_id", sa.String(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("avatar_id", sa.BigInteger(), nullable=True),
        sa.Column("agreement_id", sa.BigInteger(), nullable=True),
        sa.Column("party", sa.String(length=16), nullable=False),
        address("address"),
        sa.Column("amount", sa.String(length=80), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        moment("updated_at"),
        sa.ForeignKeyConstraint(
            ["match_id"],
            ["economy_settlements.match_id"],
            name=op.f("fk_economy_ledger_legs_match_id_economy_settlements"),
        ),
        primary_key("economy_ledger_legs", "id"),
    )
    with op.batch_alter_table("economy_ledger_legs", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_economy_ledger_legs_address"), ["address"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_economy_ledger_legs_avatar_id"), ["avatar_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_economy_ledger_legs_match_id"), ["match_id"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_economy_ledger_legs_status"), ["status"], unique=False)

    op.create_table(
        "economy_seat_records",
        sa.Column("match_id", sa.String(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("season_id", sa.Integer(), nullable=True),
        address("address", nullable=True),
        sa.Column("avatar_id", sa.BigInteger(), nullable=True),
        sa.Column("admitted_as", sa.String(length=16), nullable=True),
        sa.Column("is_bot", sa.Boolean(), nullable=False),
        sa.Column("team", sa.Integer(), nullable=True),
        sa.Column("placement", sa.Integer(), nullable=False),
        sa.Column("points", sa.Integer(), nullable=False),
        sa.Column("won", sa.Boolean(), nullable=False),
        sa.Column("forfeited", sa.Boolean(), nullable=False),
        sa.Column("stake_share", sa.String(length=80), nullable=False),
        sa.Column("emission_share", sa.String(length=80), nullable=False),
        sa.Column("amount", sa.String(length=80), nullable=False),
        sa.Column("to_avatar", sa.Boolean(), nullable=False),
        moment("finished_at"),
        sa.ForeignKeyConstraint(
            ["match_id"],
            ["economy_settlements.match_id"],
            name=op.f("fk_economy_seat_records_match_id_economy_settlements"),
        ),
        primary_key("economy_seat_records", "match_id", "seat"),
    )
    with op.batch_alter_table("economy_seat_records", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_economy_seat_records_address"), ["address"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_economy_seat_records_avatar_id"), ["avatar_id"], unique=False
        )
        batch_op.create_index(
            "ix_economy_seat_records_season_address", ["season_id", "address"], unique=False
        )


def downgrade() -> None:

    with op.batch_alter_table("economy_seat_records", schema=None) as batch_op:
        batch_op.drop_index("ix_economy_seat_records_season_address")
        batch_op.drop_index(batch_op.f("ix_economy_seat_records_avatar_id"))
        batch_op.drop_index(batch_op.f("ix_economy_seat_records_address"))

    op.drop_table("economy_seat_records")
    with op.batch_alter_table("economy_ledger_legs", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_economy_ledger_legs_status"))
        batch_op.drop_index(batch_op.f("ix_economy_ledger_legs_match_id"))
        batch_op.drop_index(batch_op.f("ix_economy_ledger_legs_avatar_id"))
        batch_op.drop_index(batch_op.f("ix_economy_ledger_legs_address"))

    op.drop_table("economy_ledger_legs")
    with op.batch_alter_table("economy_settlements", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_economy_settlements_status"))
        batch_op.drop_index(batch_op.f("ix_economy_settlements_season_id"))

    op.drop_table("economy_settlements")
    with op.batch_alter_table("economy_seasons", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_economy_seasons_starts_at"))

    op.drop_table("economy_seasons")
    op.drop_table("economy_screened_owners")
    op.drop_table("economy_indexer_cursors")
    with op.batch_alter_table("economy_agreements", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_economy_agreements_status"))
        batch_op.drop_index(batch_op.f("ix_economy_agreements_scholar"))
        batch_op.drop_index(batch_op.f("ix_economy_agreements_owner"))
        batch_op.drop_index(batch_op.f("ix_economy_agreements_avatar_id"))

    op.drop_table("economy_agreements")
