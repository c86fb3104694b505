"""The Celery application: broker, queues and the beat schedule all come from settings.

Embedded default: kombu's SQLAlchemy transport on a SQLite file (no server needed).
Production: ``DEW_BROKER_URL=redis://...``. Start with ``dew worker`` and ``dew beat``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ParamSpec, Protocol, TypeVar, cast

# Celery ships no type information (no py.typed, no stubs in our lock): its objects are
# Any here, and ``task`` and ``connect`` below give what we define with it real types.
from celery import Celery  # type: ignore[import-untyped]
from celery.signals import (  # type: ignore[import-untyped]
    after_setup_logger,
    beat_init,
    before_task_publish,
    setup_logging,
    task_failure,
    task_postrun,
    task_prerun,
    task_retry,
    task_success,
    worker_init,
    worker_process_shutdown,
    worker_ready,
    worker_shutdown,
)
from sqlalchemy.exc import IntegrityError
from structlog.contextvars import bind_contextvars, clear_contextvars, get_contextvars

from backend.config import get_settings

P = ParamSpec("P")
R = TypeVar("R", covariant=True)
Handler = TypeVar("Handler", bound=Callable[..., None])


class TaskFunction(Protocol[P, R]):
    """What ``@app.task`` makes of a function, as far as we use it: call, delay, apply."""

    name: str

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R: ...

    def delay(self, *args: P.args, **kwargs: P.kwargs) -> object: ...

    def apply_async(
        self,
        args: Sequence[object] | None = None,
        kwargs: Mapping[str, object] | None = None,
        **options: object,
    ) -> object: ...


def connect(signal: Any) -> Callable[[Handler], Handler]:
    """``@signal.connect`` that keeps the handler's type (the handler is returned as is)."""

    def register(handler: Handler) -> Handler:
        signal.connect(handler)
        return handler

    return register


def on_worker_ready(handler: Handler) -> Handler:
    """Run ``handler`` once this worker is ready to take tasks (``worker_ready``)."""
    return connect(worker_ready)(handler)


def create_app() -> Celery:
    settings = get_settings()
    broker = settings.broker
    app = Celery("dew", include=["worker.tasks"])
    app.conf.update(
        broker_url=broker.url,
        result_backend=broker.result_backend,
        task_ignore_result=broker.result_backend is None,
        task_default_queue=broker.default_queue,
        task_routes={
            "worker.tasks.pump_wallet_task": {"queue": broker.payouts_queue},
            "worker.tasks.reconcile_task": {"queue": broker.default_queue},
        },
        worker_prefetch_multiplier=broker.prefetch_multiplier,
        # Late acks are opted into per task (only the idempotent ones).
        task_acks_late=False,
        task_reject_on_worker_lost=False,
        broker_connection_retry_on_startup=True,
        task_serializer="json",
        accept_content=["json"],
        timezone="UTC",
        beat_schedule={
            "pump-operator-wallet": {
                "task": "worker.tasks.pump_wallet_task",
                "schedule": broker.pump_every_s,
            },
            "reconcile-chain-requests": {
                "task": "worker.tasks.reconcile_task",
                "schedule": broker.reconcile_every_s,
            },
            "economy-cycle": {
                "task": "worker.tasks.economy_cycle_task",
                "schedule": settings.economy.settle_every_s,
            },
            "advance-tournaments": {
                "task": "worker.tasks.advance_tournaments_task",
                "schedule": settings.competitions.advance_every_s,
            },
            "reconcile-economy": {
                "task": "worker.tasks.reconcile_economy_task",
                "schedule": broker.reconcile_every_s,
            },
            # Ended seasons' leaderboard rewards (backend/economy/season_rewards.py).
            "settle-season-rewards": {
                "task": "worker.tasks.settle_season_rewards_task",
                "schedule": settings.economy.settle_every_s,
            },
        },
    )
    if broker.url.startswith("sqla+sqlite"):
        from pathlib import Path

        Path(broker.url.split("sqlite:///", 1)[1]).parent.mkdir(parents=True, exist_ok=True)
    return app


@connect(after_setup_logger)
def _quiet_http_client(**_kwargs: object) -> None:
    # httpx logs every JSON-RPC call at INFO; the engine logs what matters.
    logging.getLogger("httpx").setLevel(logging.WARNING)


# --- logs, request ids and metrics (docs/operations.md) ------------------------------------

REQUEST_ID_HEADER = "dew_request_id"


@connect(setup_logging)
def _structured_logs(loglevel: object = None, **_kwargs: object) -> None:
    # Connected: Celery leaves logging to us (one structlog handler, JSON in production).
    from backend.ops import logs

    level = (
        loglevel
        if isinstance(loglevel, str)
        else logging.getLevelName(
            loglevel if isinstance(loglevel, int) and loglevel else logging.INFO
        )
    )
    logs.configure(get_settings().log.format, str(level), force=True)
    logging.getLogger("httpx").setLevel(logging.WARNING)


@connect(before_task_publish)
def _carry_request_id(headers: dict[str, Any] | None = None, **_kwargs: object) -> None:
    # The request (or task) that enqueues work passes its id on: the worker's lines carry it.
    request_id = get_contextvars().get("request_id")
    if headers is not None and isinstance(request_id, str):
        headers.setdefault(REQUEST_ID_HEADER, request_id)


@connect(task_prerun)
def _bind_task(task: Any = None, task_id: str | None = None, **_kwargs: object) -> None:
    clear_contextvars()
    request_id = getattr(task.request, REQUEST_ID_HEADER, None) if task is not None else None
    bind_contextvars(
        task=getattr(task, "name", None),
        task_id=task_id,
        request_id=request_id if isinstance(request_id, str) else task_id,
    )


@connect(task_postrun)
def _unbind_task(**_kwargs: object) -> None:
    clear_contextvars()


def _task_name(sender: Any) -> str:
    name = getattr(sender, "name", None)
    return name if isinstance(name, str) and name in app.tasks else "other"


@connect(task_success)
def _count_success(sender: Any = None, **_kwargs: object) -> None:
    from backend.ops.metrics import TASKS

    TASKS.labels(_task_name(sender), "success").inc()


@connect(task_failure)
def _count_failure(sender: Any = None, **_kwargs: object) -> None:
    from backend.ops.metrics import TASKS

    TASKS.labels(_task_name(sender), "failure").inc()


@connect(task_retry)
def _count_retry(sender: Any = None, **_kwargs: object) -> None:
    from backend.ops.metrics import TASKS

    TASKS.labels(_task_name(sender), "retry").inc()


_heartbeat: Any = None


@connect(worker_ready)
def _start_heartbeat_and_metrics(sender: Any = None, **_kwargs: object) -> None:
    global _heartbeat
    from backend.db import create_db_engine
    from worker.heartbeat import Heartbeat

    settings = get_settings()
    hostname = getattr(sender, "hostname", None) or "worker"
    _heartbeat = Heartbeat(settings, create_db_engine(settings.db.url), f"{hostname}")
    _heartbeat.start()
    if settings.metrics.enabled and settings.metrics.worker_port:
        _serve_metrics(settings.metrics.worker_host, settings.metrics.worker_port)


def _serve_metrics(host: str, port: int) -> None:
    from prometheus_client import CollectorRegistry, start_http_server

    from backend.ops import multiproc

    registry: Any = None
    if multiproc.directory():
        from prometheus_client import multiprocess

        registry = CollectorRegistry()
        # prometheus_client leaves this constructor unannotated; it registers on ``registry``.
        collector: Callable[[CollectorRegistry], object] = multiprocess.MultiProcessCollector
        collector(registry)
    try:
        if registry is None:
            start_http_server(port, addr=host)
        else:
            start_http_server(port, addr=host, registry=registry)
    except OSError as error:  # another worker on this machine has the port: log, go on
        logging.getLogger(__name__).warning(
            "worker metrics not served on %s:%s: %r", host, port, error
        )


@connect(worker_shutdown)
def _stop_heartbeat(**_kwargs: object) -> None:
    if _heartbeat is not None:
        _heartbeat.stop()


@connect(worker_process_shutdown)
def _forget_process(pid: int | None = None, **_kwargs: object) -> None:
    from backend.ops import multiproc

    if pid:
        multiproc.mark_dead(pid)


def declare_queues(celery: Celery, attempts: int = 3) -> None:
    """Create the broker's queues before this process uses them, tolerating another process
    doing the same. kombu's SQLAlchemy transport creates a queue's row on first use under a
    lock that holds only within one process, so a worker and beat starting side by side on
    the SQLite broker could both insert it; the loser's ``UNIQUE constraint failed:
    kombu_queue.name`` used to stop beat's schedule for good. The retry finds the row."""
    broker = get_settings().broker
    for attempt in range(1, attempts + 1):
        try:
            with celery.connection_for_write() as connection:
                for name in (broker.default_queue, broker.payouts_queue):
                    connection.default_channel.queue_declare(queue=name)
            return
        except IntegrityError:
            if attempt == attempts:
                raise


@connect(worker_init)
def _declare_queues_for_worker(**_kwargs: object) -> None:
    declare_queues(app)


@connect(beat_init)
def _declare_queues_for_beat(**_kwargs: object) -> None:
    declare_queues(app)


app = create_app()


def task(**options: object) -> Callable[[Callable[P, R]], TaskFunction[P, R]]:
    """``@app.task(**options)`` with the task's signature kept for callers and ``delay``."""

    def register(function: Callable[P, R]) -> TaskFunction[P, R]:
        # Celery's Task object (untyped) is callable like the function and has delay/apply_async.
        return cast("TaskFunction[P, R]", app.task(**options)(function))

    return register
