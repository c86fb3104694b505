"""The foundation every issue builds on: migrations run on both databases."""

from sqlalchemy import inspect


def test_migrations_reach_head_on_both_databases(db_engine):
    tables = set(inspect(db_engine).get_table_names())
    assert "alembic_version" in tables
