"""A match never stalls: the hostile review of main 7b68057 (``make demo`` froze a table).

1. The bot registry's first load raced: ``_load_builtin`` set its flag before importing the
   bot modules, and bot moves are computed in worker threads, so a second thread could find
   the registry empty (``UnknownBotError("no bot 'easy'; bots: []")``).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

from tests.tables.harness import REPO

# A fresh interpreter: the registry is empty, and many threads make their first bot at once.
FIRST_BOTS = textwrap.dedent(
    """
    import sys, threading
    sys.setswitchinterval(1e-6)  # switch threads as often as possible: the race shows
    from backend.game.bots import make_bot

    barrier = threading.Barrier(16)
    failures = []

    def first_bot(n):
        barrier.wait()
        try:
            make_bot(("easy", "medium", "hard", "expert")[n % 4], n)
        except Exception as error:
            failures.append(repr(error))

    threads = [threading.Thread(target=first_bot, args=(n,)) for n in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print("\\n".join(failures))
    sys.exit(1 if failures else 0)
    """
)


def test_bots_made_from_many_threads_at_once_in_a_fresh_process_all_exist():
    for run in range(8):
        child = subprocess.run(
            [sys.executable, "-c", FIRST_BOTS],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert child.returncode == 0, f"run {run}: {child.stdout}{child.stderr}"
