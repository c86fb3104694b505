"""prometheus-client's multiprocess mode: several processes (``dew serve --workers N``, a
Celery worker's pool) each write their samples to files in one directory, and a scrape
sums them. The directory must be empty when the first process starts, and the
environment variable must be set before any metric is created (before
``backend.ops.metrics`` is imported)."""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

ENV = "PROMETHEUS_MULTIPROC_DIR"


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def prepare(configured: Path | None, var_dir: Path, component: str) -> Path:
    """Point prometheus-client at a fresh directory for this run and return it.

    ``configured`` (DEW_METRICS_MULTIPROC_DIR) is wiped and reused; without it the directory
    is ``var_dir/metrics/<component>-<pid>``, removed again when this process exits (run
    directories of processes that died without that are pruned here)."""
    if "backend.ops.metrics" in sys.modules:
        raise RuntimeError("metrics were created before their multiprocess directory was set")
    if configured is not None:
        path = configured
    else:
        root = var_dir / "metrics"
        root.mkdir(parents=True, exist_ok=True)
        for old in root.iterdir():
            name, _, pid = old.name.rpartition("-")
            if name and pid.isdigit() and not _pid_alive(int(pid)):
                shutil.rmtree(old, ignore_errors=True)
        path = root / f"{component}-{os.getpid()}"
        atexit.register(shutil.rmtree, path, True)
    if path.exists():
        for child in path.iterdir():
            with contextlib.suppress(FileNotFoundError):
                child.unlink() if not child.is_dir() else shutil.rmtree(child)
    path.mkdir(parents=True, exist_ok=True)
    # Children (uvicorn's workers, a prefork pool) inherit it; prometheus-client reads it.
    os.environ[ENV] = str(path)
    from prometheus_client import values

    # prometheus-client leaves this function unannotated: it returns the value class to use.
    get_value_class = cast("Callable[[], type[Any]]", values.get_value_class)
    values.ValueClass = get_value_class()
    return path


def directory() -> str | None:
    return os.environ.get(ENV) or None


def mark_dead(pid: int) -> None:
    """Drop a dead process's live gauges (its open sockets must not count any more)."""
    path = directory()
    if path:
        from prometheus_client import multiprocess

        # Unannotated in prometheus-client: it removes the pid's live-gauge files.
        mark_process_dead = cast("Callable[[int, str], None]", multiprocess.mark_process_dead)
        mark_process_dead(pid, path)
