"""Which backend runs the services, chosen by configuration (a tagged union on ``kind``)."""

from __future__ import annotations

import secrets
from pathlib import Path
from typing import Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from apps.kit.settings import settings


class _Config(BaseModel):
    model_config = ConfigDict(extra="forbid")


class InProcessConfig(_Config):
    """Everything in the caller's process: there are no services to start."""
    kind: Literal["inprocess"] = "inprocess"


class ProcessesConfig(_Config):
    kind: Literal["processes"] = "processes"
    compose_file: Path = Path("compose.yaml")
    profiles: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict, description="Set in every service, over compose.yaml")
    ports: dict[str, int] = Field(default_factory=dict, description="Fixed loopback ports by service")
    startup_timeout: float = 120.0


class DockerConfig(_Config):
    kind: Literal["docker"] = "docker"
    compose_file: Path = Path("compose.yaml")
    profiles: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict, description="Interpolated into compose.yaml")
    project: str = "officeworld"
    startup_timeout: float = 300.0


BackendConfig = Annotated[Union[InProcessConfig, ProcessesConfig, DockerConfig], Field(discriminator="kind")]
parse_config = TypeAdapter(BackendConfig).validate_python


ADMIN_TOKEN_ENV = "OFFICEWORLD_ADMIN_TOKEN"


def admin_token() -> dict[str, str]:
    """The app services' admin token as an environment entry: the caller's, else a fresh random one
    (shared by the gateway and the app services of one start, unknown to anything else)."""
    return {ADMIN_TOKEN_ENV: settings().admin_token or secrets.token_urlsafe(32)}


class Backend:
    """Starts its services on entering and stops them on leaving, also when a start fails half-way."""

    def start(self) -> None:
        pass

    def stop(self) -> None:
        pass

    def __enter__(self) -> "Backend":
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


class InProcessBackend(Backend):
    """The no-op backend: the gateway itself holds every app."""


def open_backend(config: BackendConfig):
    """The backend for ``config``, as a context manager that starts and stops its services."""
    if isinstance(config, ProcessesConfig):
        from sandbox.processes import ProcessesBackend
        return ProcessesBackend(config.compose_file, tuple(config.profiles), config.env,
                                startup_timeout=config.startup_timeout, ports=config.ports)
    if isinstance(config, DockerConfig):
        from sandbox.docker import DockerBackend
        return DockerBackend(config.compose_file, tuple(config.profiles), config.env, config.project,
                             config.startup_timeout)
    return InProcessBackend()
