"""The gateway: one ASGI app (``server``) for the control API (``control``, ``/v1``), per-episode REST,
MCP and GUI; its bearer token, body limit and the control API's Python client (``client``)."""
