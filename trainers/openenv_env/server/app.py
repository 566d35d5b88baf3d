"""The OpenEnv app: officeworld's own OpenEnv server (``trainers.openenv``), built from the environment's
``OFFICEWORLD_*`` settings on import. It does not import the ``openenv`` package (that pins an MCP SDK below
officeworld's); it speaks its wire format, which ``openenv validate --url`` checks.

    uvicorn server.app:app --host 0.0.0.0 --port 8000     # or: python -m server.app
"""

import os

from trainers.openenv import app

__all__ = ["app", "main"]


def main() -> None:
    """Serve the app on ``OFFICEWORLD_HOST`` (default 0.0.0.0: this runs in a container) and ``OFFICEWORLD_PORT`` (8000)."""
    import uvicorn

    uvicorn.run(app, host=os.environ.get("OFFICEWORLD_HOST", "0.0.0.0"), port=int(os.environ.get("OFFICEWORLD_PORT", "8000")),
                log_level="warning")


if __name__ == "__main__":
    main()
