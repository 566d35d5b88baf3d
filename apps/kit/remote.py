"""``RemoteHost``: an app's per-episode state kept by an app service, reached over its admin API.

The admin API (served by ``simulator.service.app_service``) lives on the internal network only; no agent
surface forwards to it. When the service cannot be reached, every call raises ``Unavailable``
naming the app, the address and the cause, so a dead service is never a silent empty result.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import httpx

from apps.kit.errors import LostEpisode, NotFound, OpError, Unavailable, from_dict
from apps.kit.host import Outcome
from apps.kit.operation import Operation


class RemoteAppError(RuntimeError):
    """The app service crashed on a call (a bug in the app), reported with its message."""


class RemoteHost:
    def __init__(self, app: str, url: str, timeout: float = 30.0, transport: httpx.BaseTransport | None = None,
                 token: str | None = None):
        self.app = app
        self.url = url.rstrip("/")
        headers = {"authorization": f"Bearer {token}"} if token else {}  # the app service's admin token
        self._http = httpx.Client(base_url=self.url, transport=transport, headers=headers,
                                  timeout=httpx.Timeout(timeout, connect=3.0))

    def open(self, episode_id: str, world: str, *, image: bytes | None = None,
             fork_from: str | None = None) -> None:
        if image is not None:
            self._send("PUT", f"/admin/episodes/{episode_id}/image", params={"world": world}, content=image)
        else:
            self._send("PUT", f"/admin/episodes/{episode_id}", json={"world": world, "fork_from": fork_from})

    def call(self, episode_id: str, op: Operation, kwargs: dict[str, Any], actor: str, now: datetime) -> Outcome:
        # Arguments travel as JSON; the service validates them again to get their Python types back.
        arguments = op.input_model(**kwargs).model_dump(mode="json")
        body = {"arguments": arguments, "actor": actor, "now": now.isoformat()}
        data = self._send("POST", f"/admin/episodes/{episode_id}/call/{op.name}", json=body).json()
        return Outcome(result=data.get("result"), error=data.get("error"), state_changed=data["state_changed"],
                       requests=data.get("requests") or [])

    def digest(self, episode_id: str) -> str:
        return self._send("GET", f"/admin/episodes/{episode_id}/digest").json()["digest"]

    def image(self, episode_id: str) -> bytes:
        return self._send("GET", f"/admin/episodes/{episode_id}/image").content

    def close(self, episode_id: str) -> None:
        try:
            self._send("DELETE", f"/admin/episodes/{episode_id}")
        except OpError:
            pass  # a dead service has already lost the episode; deleting it must still succeed

    def status(self, episode_id: str, opened: bool) -> str | None:
        try:
            self._send("GET", f"/admin/episodes/{episode_id}" if opened else "/health")
        except NotFound:
            return f"the {self.app} service at {self.url} has lost this episode's state (did it restart?)"
        except OpError as exc:
            return exc.message
        return None

    def _send(self, method: str, path: str, **kwargs) -> httpx.Response:
        try:
            response = self._http.request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            raise Unavailable(f"the {self.app} service at {self.url} cannot be reached "
                              f"({type(exc).__name__}: {exc})") from None
        if response.status_code < 400:
            return response
        try:
            error = response.json()["error"]
        except (ValueError, KeyError, TypeError):
            raise Unavailable(f"the {self.app} service at {self.url} answered {response.status_code}: "
                              f"{response.text[:200]}") from None
        if error.get("type") == "internal":
            raise RemoteAppError(f"{self.app} service: {error.get('message')}")
        if response.status_code == 404 and error.get("field") == "episode_id" and path.startswith("/admin/episodes/"):
            raise LostEpisode(f"the {self.app} service at {self.url} has lost this episode's state "
                              "(did it restart?)", field="episode_id")
        raise from_dict(error)
