"""Every HTTP router of the server, one module per aggregate (auth, tables, money, economy,
competitions); the play WebSocket is ``backend/api/ws.py``. Routes validate input, call a
service and let its exceptions propagate to ``backend/api/errors.py``."""
