"""The FastAPI application: HTTP routers, dependencies and the WebSocket protocol."""
