"""One chat completion from an OpenAI-compatible endpoint, over plain httpx (no SDK).

The endpoint's failures are named so that the rollout can count them against the policy:
``ModelTimeout``, ``ContextOverflow`` (the prompt no longer fits) and ``ModelFailure`` (any other
error status or a reply that is not a chat completion).
"""

from __future__ import annotations

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


class ModelTimeout(ModelFailure):
    reason = "model_timeout"


class ContextOverflow(ModelFailure):
    reason = "context_overflow"


@dataclass
class Model:
    """Where the policy is: ``url`` is the server (``…/v1`` or ``…/v1/chat/completions`` also accepted)."""

    url: str
    name: str = "default"
    api_key: str | None = None
    timeout: float = 120.0
    temperature: float | None = None
    max_tokens: int | None = None

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
    """The assistant's message (``role``, ``content``, ``tool_calls``) for ``messages``."""
    body: dict[str, object] = {"model": model.name, "messages": messages, "tools": tools, "tool_choice": "auto"}
    for key, value in (("temperature", model.temperature), ("max_tokens", model.max_tokens), ("seed", seed)):
        if value is not None:
            body[key] = value
    headers = {"Authorization": f"Bearer {model.api_key}"} if model.api_key else {}
    try:
        response = await http.post(model.endpoint, json=body, headers=headers, timeout=model.timeout)
    except httpx.TimeoutException:
        raise ModelTimeout(f"no reply within {model.timeout:g} s") from None
    except httpx.HTTPError as exc:
        raise ModelFailure(f"{type(exc).__name__}: {exc}") from None
    if response.status_code >= 400:
        text = response.text[:500]
        if response.status_code in (400, 413) and any(m in text.lower() for m in OVERFLOW_MARKERS):
            raise ContextOverflow(text)
        raise ModelFailure(f"HTTP {response.status_code}: {text}")
    try:
        message = response.json()["choices"][0]["message"]
    except (ValueError, KeyError, IndexError, TypeError):
        raise ModelFailure(f"not a chat completion: {response.text[:200]}") from None
    if not isinstance(message, dict):
        raise ModelFailure("the completion's message is not an object")
    return message
