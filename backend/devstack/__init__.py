"""The development stack: the processes a run, a test or a benchmark starts on this machine.

``anvil`` starts a local chain, ``services`` the other single processes (a subprocess with its
log, a private PostgreSQL and Redis, a gate in front of the chain's RPC), and ``stack`` puts
them together as ``docker-compose.yml`` describes. Nothing here is a command: ``backend.cli``
drives it, and tests and scripts import it directly.
"""
