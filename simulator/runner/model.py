"""One chat completion from an OpenAI-compatible endpoint, over plain httpx (no SDK).

Two kinds of failure are kept apart. The endpoint's own trouble is infrastructure, never the policy's
doing: ``EndpointUnreachable`` (connection refused, reset), ``EndpointTimeout`` (no reply in time) and
``EndpointError`` (a 5xx, or 429 busy). Each is retried with exponential backoff (``Model.retries``,
``Model.backoff``: 1, 2, 4 s by default); one still failing after the retries ends the rollout
ungraded, reported apart from the scores, and run again when the run resumes. What counts against the
policy: ``ContextOverflow`` (its conversation no longer fits) and ``ModelFailure`` (any other 4xx, a
reply that is not a chat completion).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

import httpx

OVERFLOW_MARKERS = ("context_length_exceeded", "maximum context length", "context length", "too many tokens")
# How long an idle connection to a model server is kept for reuse: under the 5 s that uvicorn-based servers (vLLM,
# SGLang) keep one open. At equal times (httpx's own default is 5 s) a request sent on a connection idle for
# almost 5 s can meet the server closing it and fail: a model error counted against the policy.
KEEP_IDLE_S = 3.0


def model_http(max_connections: int) -> httpx.AsyncClient:
    """The HTTP client for a model server's completions (``KEEP_IDLE_S``)."""
    return httpx.AsyncClient(limits=httpx.Limits(max_connections=max_connections, keepalive_expiry=KEEP_IDLE_S))


class ModelFailure(Exception):
    reason = "model_error"
    infrastructure = False   # True: the endpoint's trouble, not the policy's (not scored, retried on resume)


class ContextOverflow(ModelFailure):
    reason = "context_overflow"


class EndpointFailure(ModelFailure):
    reason = "endpoint_error"
    infrastructure = True


class EndpointUnreachable(EndpointFailure):
    reason = "endpoint_unreachable"


class EndpointTimeout(EndpointFailure):
    reason = "endpoint_timeout"


class EndpointError(EndpointFailure):
    reason = "endpoint_error"


def retrying(status: int) -> bool:
    """A status that says the server, not the request, is at fault: worth asking again."""
    return status >= 500 or status == 429


@dataclass
class Model:
    """Where the policy is: ``url`` is the server (``…/v1`` or ``…/v1/chat/completions`` also accepted)."""

    url: str
    name: str = "default"
    api_key: str | None = None
    timeout: float = 120.0
    temperature: float | None = None
    max_tokens: int | None = None
    retries: int = 3          # more tries after an endpoint failure
    backoff: float = 1.0      # seconds before the first retry, doubled for each next one

    @property
    def endpoint(self) -> str:
        url = self.url.rstrip("/")
        if url.endswith("/chat/completions"):
            return url
        return url + ("/chat/completions" if url.endswith("/v1") else "/v1/chat/completions")

    async def reply(self, http: httpx.AsyncClient, messages: list[dict], tools: list[dict], *,
                    task: str, sample: int) -> dict:
        """The ``Policy`` seam: one completion, the sample index as the seed."""
        return await complete(http, self, messages, tools, seed=sample)

    def describe(self) -> dict:
        return {"model": self.url, "model_name": self.name}


async def complete(http: httpx.AsyncClient, model: Model, messages: list[dict], tools: list[dict],
                   seed: int | None = None) -> dict:
    """The assistant's message (``role``, ``content``, ``tool_calls``) for ``messages``; an endpoint failure is
    tried again ``model.retries`` times, after ``model.backoff`` seconds, doubling."""
    for attempt in range(model.retries + 1):
        try:
            return await _complete_once(http, model, messages, tools, seed)
        except EndpointFailure as exc:
            if attempt == model.retries:
                raise type(exc)(f"{exc} (after {attempt + 1} tries)") from None
        await asyncio.sleep(model.backoff * 2 ** attempt)
    raise AssertionError("the last try returns or raises")


async def _complete_once(http: httpx.AsyncClient, model: Model, messages: list[dict], tools: list[dict],
                         seed: int | None) -> dict:
    body: dict[str, object] = {"model": model.name, "messages": messages, "tools": tools, "tool_choice": "auto"}
    for key, value in (("temperature", model.temperature), ("max_tokens", model.max_tokens), ("seed", seed)):
        if value is not None:
            body[key] = value
    headers = {"Authorization": f"Bearer {model.api_key}"} if model.api_key else {}
    try:
        response = await http.post(model.endpoint, json=body, headers=headers, timeout=model.timeout)
    except httpx.TimeoutException:
        raise EndpointTimeout(f"no reply within {model.timeout:g} s") from None
    except httpx.TransportError as exc:   # refused, reset, closed mid-reply: the server, not the policy
        raise EndpointUnreachable(f"{type(exc).__name__}: {exc}") from None
    except httpx.HTTPError as exc:
        raise ModelFailure(f"{type(exc).__name__}: {exc}") from None
    if response.status_code >= 400:
        text = response.text[:500]
        if response.status_code in (400, 413) and any(m in text.lower() for m in OVERFLOW_MARKERS):
            raise ContextOverflow(text)
        if retrying(response.status_code):
            raise EndpointError(f"HTTP {response.status_code}: {text}")
        raise ModelFailure(f"HTTP {response.status_code}: {text}")
    try:
        message = response.json()["choices"][0]["message"]
    except (ValueError, KeyError, IndexError, TypeError):
        raise ModelFailure(f"not a chat completion: {response.text[:200]}") from None
    if not isinstance(message, dict):
        raise ModelFailure("the completion's message is not an object")
    return message
