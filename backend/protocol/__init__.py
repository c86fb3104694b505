"""The play protocol: its messages (``messages``) and the one Python client (``client``).

``messages`` is standard library only, so the server, the web client's generator and any
third-party program can import it; ``client.DewClient`` speaks it over HTTP and WebSocket.
"""
