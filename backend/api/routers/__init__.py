"""Every HTTP router of the server, one module per URL prefix and named as it
(``wallet.py`` serves ``/wallet``; ``economy/`` holds one module per ``/economy`` resource);
the play WebSocket is ``backend/api/ws.py``. Routes validate input, call a service and let its
exceptions propagate to ``backend/api/errors.py``; their models are their package's
``schemas.py``."""
