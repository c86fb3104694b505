"""schemathesis against the economy routes, on a live deployment and PostgreSQL: no
generated request gets a server error, and every error keeps the API's one shape."""

from __future__ import annotations

import pytest
import schemathesis
from fastapi import FastAPI
from hypothesis import HealthCheck, given, settings
from schemathesis.checks import not_a_server_error

from backend.api.errors import install_error_handlers
from backend.api.routers.economy import router
from backend.config import Settings
from backend.db import create_db_engine, make_session_factory
from backend.economy.scholarships.transactions import ScholarshipTxBuilder

pytestmark = pytest.mark.timeout(300)


@pytest.fixture(scope="module")
def app(deployment, pg_url):
    engine = create_db_engine(pg_url)
    app = FastAPI()
    app.state.settings = Settings()
    app.state.session_factory = make_session_factory(engine)
    app.state.economy_tx_builder = ScholarshipTxBuilder(deployment.contracts)
    app.include_router(router)
    install_error_handlers(app)
    yield app
    engine.dispose()


def test_no_generated_request_gets_a_server_error(app):
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 15
    statuses: set[int] = set()
    for operation in operations:

        @given(case=operation.as_strategy())
        @settings(
            max_examples=6,
            deadline=None,
            derandomize=True,
            suppress_health_check=list(HealthCheck),
            database=None,
        )
        def check(case) -> None:  # type: ignore[no-untyped-def]
            response = case.call()
            case.validate_response(response, checks=[not_a_server_error])
            if response.status_code >= 400:
                body = response.json()
                assert set(body) == {"error"} and body["error"]["code"], body
            statuses.add(response.status_code)

        check()
    assert {200, 422} <= statuses
