"""REST surface: one ``POST /<app>/<operation>`` route per operation, documented in OpenAPI.

The route's body is the operation's input model, its response the operation's result. Errors come
back as ``{"error": {"type", "message", "field"}}`` with the status of their ``OpError`` class.
"""

from __future__ import annotations

import json
from typing import Any, Callable

from fastapi import APIRouter, Depends, FastAPI, Request
from fastapi.responses import JSONResponse, Response

from apps.kit.errors import Invalid, OpError, from_dict
from apps.kit.invoker import invoke_async
from apps.kit.operation import Operation
from apps.kit.trajectory import Surface, encode  # noqa: F401  (``encode`` is this surface's JSON, used by the gateway)

SURFACE_HEADER = "x-officeworld-surface"
_REF = "#/components/schemas/{model}"
_ERROR_RESPONSES: dict[int | str, dict[str, Any]] = {status: {"description": text} for status, text in (
    (403, "Forbidden for the acting user"), (404, "Not found"), (409, "Conflict with the current state"),
    (422, "Invalid argument; the message names the field"))}


def error_response(error: OpError | dict) -> JSONResponse:
    body = error.to_dict() if isinstance(error, OpError) else error
    status = error.status if isinstance(error, OpError) else error_status(body)
    return JSONResponse({"error": body}, status_code=status)


def error_status(error: dict) -> int:
    """The HTTP status of an error in its JSON form (a recorded step's)."""
    return from_dict(error).status if error.get("type") != "internal" else 500


def error_body(error: dict) -> bytes:
    """``{"error": error}`` encoded as ``error_response`` encodes it (Starlette's ``JSONResponse``)."""
    return json.dumps({"error": error}, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode()


def operation_router(operations: list[Operation], get_episode: Callable) -> APIRouter:
    """Routes for ``operations``; ``get_episode`` is a FastAPI dependency yielding the Episode.

    The body is read as raw JSON and validated by the invoker, not by FastAPI, so that a refused body
    is recorded as a Step like any other call (and in the same form as MCP's arguments). The input
    model still documents the body in OpenAPI (``openapi_extra``; its ``$defs`` go to the components
    through ``document_inputs``).
    """
    router = APIRouter()
    for op in operations:
        router.add_api_route(
            f"/{op.app}/{op.name}", _endpoint(op, get_episode), methods=["POST"],
            name=op.qualified_name, operation_id=op.qualified_name, summary=op.summary,
            description=op.description, tags=[op.app], response_model=op.result_type,
            responses=_ERROR_RESPONSES, openapi_extra={"requestBody": _request_body(op)},
        )
    return router


def _request_body(op: Operation) -> dict:
    schema = op.input_schema(_REF)
    schema.pop("$defs", None)
    return {"required": False, "content": {"application/json": {"schema": schema}}}


def document_inputs(api: FastAPI, operations: list[Operation]) -> None:
    """Add the input models' nested schemas to ``api``'s OpenAPI components (when it is first built)."""
    build = api.openapi

    def openapi() -> dict[str, Any]:
        if api.openapi_schema is None:
            defs = {}
            for op in operations:
                defs.update(op.input_schema(_REF).get("$defs", {}))
            build().setdefault("components", {}).setdefault("schemas", {}).update(defs)
        assert api.openapi_schema is not None  # build() keeps what it made
        return api.openapi_schema

    api.openapi = openapi  # type: ignore[method-assign]  # FastAPI's documented way to extend the schema


def parse_arguments(raw: bytes) -> Any:
    """A request's JSON body as sent (``{}`` when empty); ``Invalid`` naming the body when it is not JSON."""
    if not raw.strip():
        return {}
    try:
        return json.loads(raw)
    except (ValueError, RecursionError) as exc:
        raise Invalid(f"body: not valid JSON ({type(exc).__name__}: {str(exc)[:200]})", field="body") from None


async def answer(episode, op: Operation, raw: bytes, surface: Surface) -> tuple[int, bytes]:
    """An operation called over REST with body ``raw``: the status and JSON body, its result or the error
    refusing it (recorded as a step either way). ``Invalid`` when the body is not JSON at all."""
    step = await invoke_async(episode, op, parse_arguments(raw), surface)
    if step.error:
        return error_status(step.error), error_body(step.error)
    return 200, step.result_json   # the step keeps its result encoded: these are its bytes


async def _respond(op: Operation, request: Request, episode) -> Response:
    surface: Surface = "cli" if request.headers.get(SURFACE_HEADER) == "cli" else "rest"
    status, body = await answer(episode, op, await request.body(), surface)
    return Response(body, status_code=status, media_type="application/json")


def _endpoint(op: Operation, get_episode: Callable):
    async def endpoint(request: Request, episode=Depends(get_episode)) -> Any:
        return await _respond(op, request, episode)

    endpoint.__name__ = op.qualified_name
    return endpoint
