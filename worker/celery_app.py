"""The Celery application: broker, queues and the beat schedule all come from settings.

Embedded default: kombu's SQLAlchemy transport on a SQLite file (no server needed).
Production: ``DEW_BROKER_URL=redis://...``. Start with ``dew worker`` and ``dew beat``.
"""

from __future__ import annotations

import logging
from typing import Any

from celery import Celery
from celery.signals import (
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
        },
    )
    if broker.url.startswith("sqla+sqlite"):
        from pathlib import Path

        Path(broker.url.split("sqlite:///", 1)[1]).parent.mkdir(parents=True, exist_ok=True)
    return app


@after_setup_logger.connect
def _quiet_http_client(**_kwargs: object) -> None:
    # httpx logs every JSON-RPC call at INFO; the engine logs what matters.
    logging.getLogger("httpx").setLevel(logging.WARNING)


# --- logs, request ids and metrics (docs/operations.md) ------------------------------------

REQUEST_ID_HEADER = "dew_request_id"


@setup_logging.connect
def _structured_logs(loglevel: object = None, **_kwargs: object) -> None:
    # Connected: Celery leaves logging to us (one structlog handler, JSON in production).
    from backend.ops import logs

    level = loglevel if isinstance(loglevel, str) else logging.getLevelName(loglevel or 20)
    logs.configure(get_settings().log.format, str(level), force=True)
    logging.getLogger("httpx").setLevel(logging.WARNING)


@before_task_publish.connect
def _carry_request_id(headers: dict[str, Any] | None = None, **_kwargs: object) -> None:
    # The request (or task) that enqueues work passes its id on: the worker's lines carry it.
    request_id = get_contextvars().get("request_id")
    if headers is not None and isinstance(request_id, str):
        headers.setdefault(REQUEST_ID_HEADER, request_id)


@task_prerun.connect
def _bind_task(task: Any = None, task_id: str | None = None, **_kwargs: object) -> None:
    clear_contextvars()
    request_id = getattr(task.request, REQUEST_ID_HEADER, None) if task is not None else None
    bind_contextvars(
        task=getattr(task, "name", None),
        task_id=task_id,
        request_id=request_id if isinstance(request_id, str) else task_id,
    )


@task_postrun.connect
def _unbind_task(**_kwargs: object) -> None:
    clear_contextvars()


def _task_name(sender: Any) -> str:
    name = getattr(sender, "name", None)
    return name if isinstance(name, str) and name in app.tasks else "other"


@task_success.connect
def _count_success(sender: Any = None, **_kwargs: object) -> None:
    from backend.ops.metrics import TASKS

    TASKS.labels(_task_name(sender), "success").inc()


@task_failure.connect
def _count_failure(sender: Any = None, **_kwargs: object) -> None:
    from backend.ops.metrics import TASKS

    TASKS.labels(_task_name(sender), "failure").inc()


@task_retry.connect
def _count_retry(sender: Any = None, **_kwargs: object) -> None:
    from backend.ops.metrics import TASKS

    TASKS.labels(_task_name(sender), "retry").inc()


_heartbeat: Any = None


@worker_ready.connect
def _start_heartbeat_and_metrics(sender: Any = None, **_kwargs: object) -> None:
    global _heartbeat
    from backend.db import create_db_engine
    from backend.ops.heartbeat import Heartbeat

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
        multiprocess.MultiProcessCollector(registry)
    try:
        if registry is None:
            start_http_server(port, addr=host)
        else:
            start_http_server(port, addr=host, registry=registry)
    except OSError as error:  # another worker on this machine has the port: log, go on
        logging.getLogger(__name__).warning(
            "worker metrics not served on %s:%s: %r", host, port, error
        )


@worker_shutdown.connect
def _stop_heartbeat(**_kwargs: object) -> None:
    if _heartbeat is not None:
        _heartbeat.stop()


@worker_process_shutdown.connect
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


@worker_init.connect
def _declare_queues_for_worker(**_kwargs: object) -> None:
    declare_queues(app)


@beat_init.connect
def _declare_queues_for_beat(**_kwargs: object) -> None:
    declare_queues(app)


app = create_app()
