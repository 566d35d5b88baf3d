"""The few control-API calls the taskset makes, over httpx (verifiers' venv cannot import the project, whose
MCP SDK differs; ``simulator/gateway/client.py`` is the same API in the project). The token comes from an environment
variable, never from the config, which verifiers writes into its run folders."""

from __future__ import annotations

import os
from typing import Any

import httpx


class WorldError(RuntimeError):
    """The world refused a call: its status and ``{type, message, field}`` error."""

    def __init__(self, status: int, error: dict):
        self.status, self.error = status, error
        super().__init__(f"{status} {error.get('type', 'error')}: {error.get('message', '')}"
                         + (f" (field {error['field']})" if error.get("field") else ""))


def _parse(response: httpx.Response) -> Any:
    if response.status_code >= 400:
        try:
            error = response.json().get("error") or {"message": response.text}
        except ValueError:
            error = {"message": response.text[:500]}
        raise WorldError(response.status_code, error)
    return None if response.status_code == 204 else response.json()


def _options(url: str, token_var: str, timeout: float) -> dict:
    token = os.environ.get(token_var, "").strip()
    return {"base_url": url.rstrip("/"), "timeout": timeout,
            "headers": {"Authorization": f"Bearer {token}"} if token else {}}


def list_tasks(url: str, token_var: str, suite: str | None, tag: str | None, timeout: float = 60.0) -> list[dict]:
    params = {k: v for k, v in {"suite": suite, "tag": tag}.items() if v}
    with httpx.Client(**_options(url, token_var, timeout)) as http:
        return _parse(http.get("/v1/tasks", params=params))


def delete_now(url: str, token_var: str, episode: str, timeout: float = 10.0) -> None:
    """Delete an episode without an event loop (at exit); a failure is ignored (the idle timeout bounds it)."""
    try:
        with httpx.Client(**_options(url, token_var, timeout)) as http:
            http.delete(f"/v1/episodes/{episode}")
    except httpx.HTTPError:
        pass


class Control:
    """``async with Control(url, token_var) as ow``: episodes of tasks, the oracle, finish, delete."""

    def __init__(self, url: str, token_var: str, timeout: float = 120.0):
        self.http = httpx.AsyncClient(**_options(url, token_var, timeout))

    async def __aenter__(self) -> "Control":
        return self

    async def __aexit__(self, *exc) -> None:
        await self.http.aclose()

    async def _call(self, method: str, path: str, body: dict | None = None) -> Any:
        return _parse(await self.http.request(method, path, json=body))

    async def create(self, task: str, meta: dict, toolset: str = "task") -> dict:
        return await self._call("POST", "/v1/episodes", {"task": task, "meta": meta, "tools": False,
                                                         "toolset": toolset})

    async def oracle(self, episode: str) -> list[dict]:
        return await self._call("POST", f"/v1/episodes/{episode}/oracle", {})

    async def finish(self, episode: str) -> dict:
        return await self._call("POST", f"/v1/episodes/{episode}/finish", {})

    async def delete(self, episode: str) -> None:
        await self._call("DELETE", f"/v1/episodes/{episode}")
