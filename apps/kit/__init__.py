"""The app kit: define an operation once; get REST, MCP, CLI and tool schemas from it.

Public surface: ``OperationSet`` (``read``/``write`` decorators), ``Ctx`` (what an operation receives),
``App`` (an app's operations, tables and seeding), the error tree, ``Episode`` and ``invoke``.
"""

from apps.kit.app import App
from apps.kit.context import Ctx
from apps.kit.errors import Conflict, Forbidden, Invalid, NotFound, OpError
from apps.kit.operation import Operation, OperationDefinitionError, OperationSet

__all__ = [
    "App", "Conflict", "Ctx", "Forbidden", "Invalid", "NotFound", "OpError",
    "Operation", "OperationDefinitionError", "OperationSet",
]
