"""``RemoteHost``: an app's per-episode state kept by an app service, reached over its admin API.

The admin API (served by ``simulator.service.app_service``; its paths and bodies are
``apps.kit.service_protocol``, which both sides use) lives on the internal network only; no agent
surface forwards to it. When the service cannot be reached, every call raises ``Unavailable``
naming the app, the address and the cause, so a dead service is never a silent empty result.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import BaseModel, ValidationError

from apps.kit import service_protocol as protocol
from apps.kit.errors import LostEpisode, NotFound, OpError, Unavailable, from_dict
from apps.kit.host import Outcome
from apps.kit.operation import Operation

if TYPE_CHECKING:   # httpx is imported when a host is made: a server of in-process apps never needs it
    import httpx

Answer = TypeVar("Answer", bound=BaseModel)


class RemoteAppError(RuntimeError):
    """The app service crashed on a call (a bug in the app), reported with its message."""


class RemoteHost:
    def __init__(self, app: str, url: str, timeout: float = 30.0, transport: httpx.BaseTransport | None = None,
                 token: str | None = None):
        self.app = app
        self.url = url.rstrip("/")
        headers = {"authorization": f"Bearer {token}"} if token else {}  # the app service's admin token
        import httpx

        self._http = httpx.Client(base_url=self.url, transport=transport, headers=headers,
                                  timeout=httpx.Timeout(timeout, connect=3.0))

    def open(self, episode_id: str, world: str, *, image: bytes | None = None,
             fork_from: str | None = None) -> None:
        if image is not None:
            self._send("PUT", protocol.IMAGE.format(episode_id=episode_id), params={"world": world}, content=image)
        else:
            body = protocol.OpenEpisode(world=world, fork_from=fork_from)
            self._send("PUT", protocol.EPISODE.format(episode_id=episode_id), json=body.model_dump(mode="json"))

    def call(self, episode_id: str, op: Operation, kwargs: dict[str, Any], actor: str, now: datetime) -> Outcome:
        # Arguments travel as JSON; the service validates them again to get their Python types back.
        arguments = op.input_model(**kwargs).model_dump(mode="json")
        body = protocol.CallRequest.model_construct(arguments=arguments, actor=actor, now=now)
        path = protocol.CALL.format(episode_id=episode_id, operation=op.name)
        answer = self._send("POST", path, json=body.model_dump(mode="json"))
        data = self._answer(protocol.CallResult, answer, f"{op.qualified_name} call")
        return Outcome(result=data.result, error=data.error, state_changed=data.state_changed, requests=data.requests)

    def digest(self, episode_id: str) -> str:
        answer = self._send("GET", protocol.DIGEST.format(episode_id=episode_id))
        return self._answer(protocol.Digest, answer, "digest").digest

    def image(self, episode_id: str) -> bytes:
        return self._send("GET", protocol.IMAGE.format(episode_id=episode_id)).content

    def close(self, episode_id: str) -> None:
        try:
            self._send("DELETE", protocol.EPISODE.format(episode_id=episode_id))
        except OpError:
            pass  # a dead service has already lost the episode; deleting it must still succeed

    def status(self, episode_id: str, opened: bool) -> str | None:
        try:
            self._send("GET", protocol.EPISODE.format(episode_id=episode_id) if opened else protocol.HEALTH)
        except NotFound:
            return f"the {self.app} service at {self.url} has lost this episode's state (did it restart?)"
        except OpError as exc:
            return exc.message
        return None

    def _answer(self, model: type[Answer], response: httpx.Response, what: str) -> Answer:
        """The service's answer read as the protocol's ``model``; an answer that is not one is the service's fault."""
        try:
            return model.model_validate_json(response.content)
        except ValidationError as exc:
            first = exc.errors()[0]
            field = ".".join(str(part) for part in first["loc"]) or "body"
            raise Unavailable(f"the {self.app} service at {self.url} answered a {what} outside the protocol "
                              f"({field}: {first['msg']})") from None

    def _send(self, method: str, path: str, **kwargs) -> httpx.Response:
        import httpx

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
