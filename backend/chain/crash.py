"""Test-only crash hook: SIGKILL this process at a named step of the engine.

Production never sets ``DEW_CHAIN_CRASH_AT``; the crash tests start a worker with
it set to one of ``STEPS`` to prove that a kill at that exact point loses and
duplicates nothing.
"""

from __future__ import annotations

import logging
import os
import signal

logger = logging.getLogger(__name__)

STEPS = ("after_sign", "after_broadcast", "after_receipt")


def crash_point(step: str, crash_at: str | None) -> None:
    if crash_at is not None and crash_at == step:
        logger.critical("crash hook: SIGKILL at %s (pid %s)", step, os.getpid())
        for handler in logging.getLogger().handlers:
            handler.flush()
        os.kill(os.getpid(), signal.SIGKILL)
