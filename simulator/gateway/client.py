"""A Python client for the control API, sync (``Client``) and async (``AsyncClient``), over httpx.

    with Client("http://127.0.0.1:8000", token) as ow:
        episode = ow.create_episode(task="crm-close-globex-renewal")   # prompt, tools, mcp_url
        step = ow.call(episode["id"], "crm_search", {"text": "globex"})
        reward = ow.finish(episode["id"], answer="Done")
        ow.delete(episode["id"])

Every method is written once, in ``_Calls``; ``AsyncClient``'s return awaitables. Answers are the
API's JSON; an error response raises ``ControlError`` with its type, message and field. A tool error
is not an error here: ``call`` returns the Step with its ``error`` set, as agents see it.
``transport`` (e.g. ``httpx.ASGITransport(app)``) runs against a server in this process.
"""

from __future__ import annotations

from typing import Any

import httpx

from apps.kit.settings import settings


class ControlError(Exception):
    def __init__(self, status: int, error: dict):
        self.status, self.type = status, error.get("type", "error")
        self.message, self.field = error.get("message", ""), error.get("field")
        super().__init__(f"{status} {self.type}: {self.message}")


def _parse(response: httpx.Response) -> Any:
    if response.status_code >= 400:
        try:
            error = response.json().get("error") or {"message": response.text}
        except ValueError:
            error = {"message": response.text[:500]}
        raise ControlError(response.status_code, error)
    return None if response.status_code == 204 else response.json()


def _present(**values) -> dict:
    return {k: v for k, v in values.items() if v is not None}


class _Calls:
    def _call(self, method: str, path: str, json: Any = None, params: dict | None = None):
        raise NotImplementedError

    def create_episode(self, task: str | None = None, *, world: str | None = None, actor: str | None = None,
                       record: bool | None = None, meta: dict | None = None, tools: bool | None = None):
        """A new episode (for ``task``: set up, with its prompt and, by default, the tools in both forms)."""
        body = _present(task=task, world=world, record=record, meta=meta, tools=tools, **{"as": actor})
        return self._call("POST", "/v1/episodes", json=body)

    def episode(self, episode_id: str):
        return self._call("GET", f"/v1/episodes/{episode_id}")

    def episodes(self, task: str | None = None):
        return self._call("GET", "/v1/episodes", params=_present(task=task))

    def call(self, episode_id: str, tool: str, arguments: dict | None = None, actor: str | None = None):
        """Call a tool (``app_operation``) in the episode; the Step comes back, a tool error in its ``error``."""
        body = {"tool": tool, "arguments": arguments or {}, **_present(**{"as": actor})}
        return self._call("POST", f"/v1/episodes/{episode_id}/call", json=body)

    def fork(self, episode_id: str):
        return self._call("POST", f"/v1/episodes/{episode_id}/fork")

    def finish(self, episode_id: str, answer: str | None = None, status: str | None = None):
        """Record the final answer (optional) and return the Reward."""
        return self._call("POST", f"/v1/episodes/{episode_id}/finish", json=_present(answer=answer, status=status))

    def oracle(self, episode_id: str, alternative: int = 0):
        """Run the task's oracle (or its Nth alternative) in the episode; its Steps come back."""
        return self._call("POST", f"/v1/episodes/{episode_id}/oracle", json={"alternative": alternative})

    def trajectory(self, episode_id: str):
        return self._call("GET", f"/v1/episodes/{episode_id}/trajectory")

    def digest(self, episode_id: str):
        return self._call("GET", f"/v1/episodes/{episode_id}/digest")

    def advance_clock(self, episode_id: str, seconds: float):
        return self._call("POST", f"/v1/episodes/{episode_id}/clock", json={"seconds": seconds})

    def delete(self, episode_id: str):
        return self._call("DELETE", f"/v1/episodes/{episode_id}")

    def tasks(self, suite: str | None = None, tag: str | None = None, world: str | None = None):
        return self._call("GET", "/v1/tasks", params=_present(suite=suite, tag=tag, world=world))

    def task(self, task_id: str):
        return self._call("GET", f"/v1/tasks/{task_id}")

    def tools(self):
        """Every operation as an OpenAI-style function tool."""
        return self._call("GET", "/v1/tools")


def _options(base_url: str, token: str | None, timeout: float, transport) -> dict:
    token = token or settings().token
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return {"base_url": base_url.rstrip("/"), "headers": headers, "timeout": timeout,
            **({"transport": transport} if transport is not None else {})}


class Client(_Calls):
    """The control API over a blocking httpx client; a context manager."""

    def __init__(self, base_url: str, token: str | None = None, timeout: float = 60.0, transport=None):
        self.http = httpx.Client(**_options(base_url, token, timeout, transport))

    def _call(self, method, path, json=None, params=None):
        return _parse(self.http.request(method, path, json=json, params=params))

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class AsyncClient(_Calls):
    """The control API over an async httpx client; every method returns an awaitable."""

    def __init__(self, base_url: str, token: str | None = None, timeout: float = 60.0, transport=None,
                 max_connections: int = 100):
        limits = httpx.Limits(max_connections=max_connections, max_keepalive_connections=max_connections)
        self.http = httpx.AsyncClient(limits=limits, **_options(base_url, token, timeout, transport))

    async def _call(self, method, path, json=None, params=None):
        return _parse(await self.http.request(method, path, json=json, params=params))

    async def aclose(self) -> None:
        await self.http.aclose()

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc) -> None:
        await self.aclose()
