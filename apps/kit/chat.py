"""One request to an OpenAI-compatible chat endpoint (``POST {base_url}/chat/completions``), for the co-workers'
models (``scenarios/people/llm.py``) and the judge (``tasks/judge.py``): each builds its own body and reads the
reply its own way."""

from __future__ import annotations

from typing import Any


class ChatError(Exception):
    """The endpoint gave no usable reply: refused, unreachable, an HTTP error, or a body without a message."""


def completion(client, base_url: str, body: dict) -> Any:
    """The first choice's message content (whatever its type: the caller reads it), or ``ChatError``."""
    import httpx

    try:
        response = client.post(f"{base_url}/chat/completions", json=body)
        response.raise_for_status()
        return response.json()["choices"][0]["message"]["content"]
    except (httpx.HTTPError, KeyError, IndexError, TypeError, ValueError) as exc:
        raise ChatError(f"{type(exc).__name__}: {exc}") from None
