"""REST surface: one ``POST /<app>/<operation>`` route per operation, documented in OpenAPI.

The route's body is the operation's input model, its response the operation's result. Errors come
back as ``{"error": {"type", "message", "field"}}`` with the status of their ``OpError`` class.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable

from fastapi import APIRouter, Body, Depends, Request
from fastapi.responses import JSONResponse

from apps.kit.errors import OpError, from_dict
from apps.kit.invoker import invoke_async
from apps.kit.operation import Operation

SURFACE_HEADER = "x-officeworld-surface"
_ERROR_RESPONSES = {status: {"description": text} for status, text in (
    (403, "Forbidden for the acting user"), (404, "Not found"), (409, "Conflict with the current state"),
    (422, "Invalid argument; the message names the field"))}


def error_response(error: OpError | dict) -> JSONResponse:
    body = error.to_dict() if isinstance(error, OpError) else error
    status = error.status if isinstance(error, OpError) else _status_of(body)
    return JSONResponse({"error": body}, status_code=status)


def _status_of(error: dict) -> int:
    return from_dict(error).status if error.get("type") != "internal" else 500


def operation_router(operations: list[Operation], get_episode: Callable) -> APIRouter:
    """Routes for ``operations``; ``get_episode`` is a FastAPI dependency yielding the Episode."""
    router = APIRouter()
    for op in operations:
        router.add_api_route(
            f"/{op.app}/{op.name}", _endpoint(op, get_episode), methods=["POST"],
            name=op.qualified_name, operation_id=op.qualified_name, summary=op.summary,
            description=op.description, tags=[op.app], response_model=op.result_type,
            responses=_ERROR_RESPONSES,
        )
    return router


def _endpoint(op: Operation, get_episode: Callable):
    async def endpoint(request: Request, episode=Depends(get_episode), body: Any = None) -> Any:
        arguments = body.model_dump(exclude_unset=True) if body is not None else {}
        surface = "cli" if request.headers.get(SURFACE_HEADER) == "cli" else "rest"
        step = await invoke_async(episode, op, arguments, surface)
        return error_response(step.error) if step.error else JSONResponse(step.result)

    params = list(inspect.signature(endpoint).parameters.values())
    params[-1] = params[-1].replace(annotation=op.input_model | None, default=Body(None))
    endpoint.__signature__ = inspect.Signature(params)
    endpoint.__name__ = op.qualified_name
    return endpoint
