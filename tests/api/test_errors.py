"""The one error-to-status table: every service's errors get the status and the body shape
the routers gave them before the table was one, whichever router raised them."""

from __future__ import annotations

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from backend.accounts import exceptions as accounts_exc
from backend.api.errors import install_error_handlers, status_for
from backend.competitions import exceptions as competitions_exc
from backend.economy import exceptions as economy_exc
from backend.tables import exceptions as tables_exc

EXPECTED = [
    (accounts_exc.MalformedSignIn("m"), 400),
    (accounts_exc.BadSignature("m"), 401),
    (accounts_exc.TokenExpired("m"), 401),
    (accounts_exc.RefreshTokenReused("m"), 401),
    (accounts_exc.AccountsError("m"), 400),
    (tables_exc.TableNotFound("m"), 404),
    (tables_exc.VipRequired("m"), 403),
    (tables_exc.TableFull("m"), 409),
    (tables_exc.UnknownPreset("m"), 422),
    (tables_exc.ChainUnavailable("m"), 503),
    (tables_exc.IllegalMove("m"), 400),
    (economy_exc.SeasonNotFound("m"), 404),
    (economy_exc.AgreementNotFound("m"), 404),
    (economy_exc.Refused("m"), 409),
    (economy_exc.InsufficientBudget("m"), 409),
    (economy_exc.EconomyValueError("m"), 422),
    (economy_exc.Unavailable("m"), 503),
    (economy_exc.EconomyError("m"), 400),
    (competitions_exc.TournamentNotFound("m"), 404),
    (competitions_exc.NotEligible("m"), 403),
    (competitions_exc.InvalidTournament("m"), 422),
    (competitions_exc.RegistrationClosed("m"), 409),
    (competitions_exc.AlreadyRegistered("m"), 409),
    (competitions_exc.TournamentFull("m"), 409),
    (competitions_exc.InsufficientFunds("m"), 409),
    (competitions_exc.NotCancellable("m"), 409),
    (competitions_exc.CompetitionsError("m"), 409),
]


@pytest.mark.parametrize(("error", "status"), EXPECTED, ids=lambda x: type(x).__name__)
def test_each_error_has_its_status(error: Exception, status: int) -> None:
    assert status_for(error) == status


def test_every_error_of_every_service_is_rendered_in_the_one_shape() -> None:
    app = FastAPI()
    install_error_handlers(app)
    raised: dict[str, Exception] = {}

    @app.get("/raise/{name}")
    def raise_it(name: str) -> None:
        raise raised[name]

    with TestClient(app) as client:
        for error, status in EXPECTED:
            name = type(error).__name__ + type(error).__module__
            raised[name] = error
            response = client.get(f"/raise/{name}")
            assert response.status_code == status, name
            code = getattr(error, "code", None)
            assert response.json() == {"error": {"code": code, "message": "m", "detail": None}}


def test_every_service_error_has_a_kind_so_the_table_stays_one_row_per_kind() -> None:
    """Each package's errors subclass a kind of ``backend.kit.errors``: a new error needs no
    new row in ``STATUS_BY_ERROR``, which has one row per kind."""
    import importlib
    import inspect
    import pkgutil

    import backend
    from backend.api.errors import STATUS_BY_ERROR
    from backend.kit.errors import KINDS, DewError

    assert [cls for cls, _ in STATUS_BY_ERROR] == list(KINDS)
    assert len(STATUS_BY_ERROR) <= 12
    strays = []
    for info in pkgutil.walk_packages(backend.__path__, "backend."):
        if not info.name.endswith(".exceptions") or info.name.startswith("backend.chain"):
            continue  # the chain's errors never reach a caller: they are retried or logged
        module = importlib.import_module(info.name)
        for name, cls in vars(module).items():
            own = inspect.isclass(cls) and cls.__module__ == info.name
            if own and issubclass(cls, Exception) and not issubclass(cls, DewError):
                strays.append(f"{info.name}.{name}")
    assert strays == []
