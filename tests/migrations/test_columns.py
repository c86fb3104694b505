"""The migrations' builders are frozen: each keeps writing the DDL the migrations ran with."""

from __future__ import annotations

import io
from collections.abc import Callable

import pytest
from alembic import op
from alembic.migration import MigrationContext
from alembic.operations import Operations

from backend.migrations import columns as col


def offline_sql(dialect: str, migrate: Callable[[], None]) -> str:
    """The SQL ``migrate`` emits on ``dialect`` (Alembic's --sql mode, no database)."""
    buffer = io.StringIO()
    context = MigrationContext.configure(
        dialect_name=dialect, opts={"as_sql": True, "output_buffer": buffer}
    )
    with Operations.context(context):
        migrate()
    return "\n".join(line.rstrip() for line in buffer.getvalue().strip().splitlines())


def every_builder() -> None:
    op.create_table(
        "things",
        col.serial_id(),
        col.chain_key("token_id"),
        col.address("owner"),
        col.address("renter", nullable=True),
        col.moment("created_at"),
        col.amount("price"),
        col.hash32("result_hash", nullable=True),
        col.string("status", 16),
        col.text("note", nullable=True),
        col.integer("seat"),
        col.big_integer("block_number", nullable=True),
        col.boolean("open"),
        col.json("options"),
        *col.log_position(),
        *col.seat_occupant(),
        *col.seat_outcome(),
        col.primary_key("things", "id"),
        col.foreign_key("things", "seat", "seats"),
        col.foreign_key_to("things", "owner", "accounts", "address"),
        col.unique("things", "tx_hash", "log_index"),
    )
    col.create_index("things", "seat")
    col.create_indexes("things", "owner", "status")
    col.create_unique_where("uq_things_open_owner", "things", ["owner"], "status = 'open'")
    col.add_indexed_column("things", col.big_integer("center_id", nullable=True))
    col.drop_indexes("things", "status", "owner")
    col.drop_index("things", "seat")


POSTGRESQL = """
CREATE TABLE things (
    id SERIAL NOT NULL,
    token_id BIGINT NOT NULL,
    owner VARCHAR(42) NOT NULL,
    renter VARCHAR(42),
    created_at TIMESTAMP WITH TIME ZONE NOT NULL,
    price VARCHAR(80) NOT NULL,
    result_hash VARCHAR(66),
    status VARCHAR(16) NOT NULL,
    note TEXT,
    seat INTEGER NOT NULL,
    block_number BIGINT,
    open BOOLEAN NOT NULL,
    options JSON NOT NULL,
    tx_hash VARCHAR(66) NOT NULL,
    log_index INTEGER NOT NULL,
    address VARCHAR(42),
    bot_level VARCHAR(16),
    avatar_id BIGINT,
    admitted_as VARCHAR(16),
    is_bot BOOLEAN NOT NULL,
    team INTEGER,
    placement INTEGER NOT NULL,
    points INTEGER NOT NULL,
    won BOOLEAN NOT NULL,
    forfeited BOOLEAN NOT NULL,
    CONSTRAINT pk_things PRIMARY KEY (id),
    CONSTRAINT fk_things_seat_seats FOREIGN KEY(seat) REFERENCES seats (id),
    CONSTRAINT fk_things_owner_accounts FOREIGN KEY(owner) REFERENCES accounts (address),
    CONSTRAINT uq_things_tx_hash UNIQUE (tx_hash, log_index)
);

CREATE INDEX ix_things_seat ON things (seat);

CREATE INDEX ix_things_owner ON things (owner);

CREATE INDEX ix_things_status ON things (status);

CREATE UNIQUE INDEX uq_things_open_owner ON things (owner) WHERE status = 'open';

ALTER TABLE things ADD COLUMN center_id BIGINT;

CREATE INDEX ix_things_center_id ON things (center_id);

DROP INDEX ix_things_status;

DROP INDEX ix_things_owner;

DROP INDEX ix_things_seat;
""".strip()

# SQLite spells the two types PostgreSQL has its own words for as itself; all else is alike.
SQLITE = POSTGRESQL.replace("id SERIAL", "id INTEGER").replace(
    "TIMESTAMP WITH TIME ZONE", "DATETIME"
)


@pytest.mark.parametrize(("dialect", "expected"), [("postgresql", POSTGRESQL), ("sqlite", SQLITE)])
def test_every_builder_writes_the_ddl_it_always_wrote(dialect: str, expected: str) -> None:
    assert offline_sql(dialect, every_builder) == expected


def test_dropping_an_indexed_column_drops_its_index_first() -> None:
    sql = offline_sql("postgresql", lambda: col.drop_indexed_column("things", "center_id"))
    assert sql == ("DROP INDEX ix_things_center_id;\n\nALTER TABLE things DROP COLUMN center_id;")


def test_create_table_names_its_constraints_and_indexes_as_the_separate_builders_do() -> None:
    def with_builders() -> None:
        op.create_table(
            "legs",
            col.serial_id(),
            col.integer("seat"),
            col.address("owner"),
            col.hash32("tx_hash"),
            col.integer("log_index"),
            col.foreign_key("legs", "seat", "seats"),
            col.foreign_key_to("legs", "owner", "accounts", "address"),
            col.primary_key("legs", "id"),
            col.unique("legs", "owner"),
            col.unique("legs", "tx_hash", "log_index"),
        )
        col.create_indexes("legs", "seat", "owner")

    def with_create_table() -> None:
        col.create_table(
            "legs",
            col.serial_id(),
            col.integer("seat"),
            col.address("owner"),
            col.hash32("tx_hash"),
            col.integer("log_index"),
            key="id",
            references={"seat": "seats", "owner": "accounts.address"},
            uniques=["owner", ("tx_hash", "log_index")],
            indexes=["seat", "owner"],
        )

    for dialect in ("postgresql", "sqlite"):
        expected = offline_sql(dialect, with_builders)
        assert (
            "CONSTRAINT fk_legs_owner_accounts FOREIGN KEY(owner) REFERENCES accounts" in expected
        )
        assert offline_sql(dialect, with_create_table) == expected


def test_create_table_takes_a_key_of_several_columns() -> None:
    sql = offline_sql(
        "postgresql",
        lambda: col.create_table(
            "seats", col.integer("table_id"), col.integer("seat"), key=("table_id", "seat")
        ),
    )
    assert "CONSTRAINT pk_seats PRIMARY KEY (table_id, seat)" in sql


def test_each_builds_one_column_per_name_in_order_with_the_same_options() -> None:
    def one_by_one() -> None:
        op.create_table(
            "runs",
            col.string("kind", 16),
            col.string("status", 16),
            col.moment("sent_at", nullable=True),
            col.moment("mined_at", nullable=True),
        )

    def with_each() -> None:
        op.create_table(
            "runs",
            *col.each(col.string, "kind", "status", length=16),
            *col.each(col.moment, "sent_at", "mined_at", nullable=True),
        )

    for dialect in ("postgresql", "sqlite"):
        expected = offline_sql(dialect, one_by_one)
        assert "mined_at" in expected
        assert offline_sql(dialect, with_each) == expected
