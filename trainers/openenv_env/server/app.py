"""The OpenEnv app: officeworld's own OpenEnv server (``trainers.openenv``), built from the environment's
``OFFICEWORLD_*`` settings on import. It does not import the ``openenv`` package (that pins an MCP SDK below
officeworld's); it speaks its wire format, which ``openenv validate --url`` checks.

    uvicorn server.app:app --host 0.0.0.0 --port 8000     # or: python -m server.app
"""

import argparse

from trainers.openenv import app

__all__ = ["app", "main"]


def main(argv: list[str] | None = None) -> None:
    """Serve the app on ``--host`` (default 0.0.0.0: this runs in a container) and ``--port`` (8000)."""
    import uvicorn

    parser = argparse.ArgumentParser(prog="server.app", description="officeworld's OpenEnv server")
    parser.add_argument("--host", default="0.0.0.0")
    parser.add_argument("--port", type=int, default=8000)
    options = parser.parse_args(argv)
    uvicorn.run(app, host=options.host, port=options.port, log_level="warning")


if __name__ == "__main__":
    main()
