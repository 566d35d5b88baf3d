"""officeworld, an OpenEnv environment: a company's mail, CRM, docs and calendar with tasks graded by verifiers.

``OfficeWorldEnv`` (client.py) is OpenEnv's ``GenericEnvClient`` for it; the server is ``server/app.py``."""

from .client import OfficeWorldEnv

__all__ = ["OfficeWorldEnv"]
