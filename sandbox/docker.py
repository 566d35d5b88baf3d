"""The ``docker`` backend: the same compose.yaml through a Docker engine (``docker compose``).

It drives the docker CLI's compose plugin directly (what python-on-whales wraps), so it needs no
extra Python dependency; ``unavailable_reason`` says plainly when no engine or plugin is present.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Mapping

from sandbox.config import Backend, admin_token


def unavailable_reason() -> str | None:
    """``None`` when ``docker compose`` can reach an engine here, else why not."""
    if shutil.which("docker") is None:
        return "the docker CLI is not installed"
    for argv, what in ((["docker", "compose", "version"], "the docker compose plugin is missing"),
                       (["docker", "info", "--format", "{{.ServerVersion}}"], "no Docker engine is running")):
        done = subprocess.run(argv, capture_output=True, text=True, timeout=30)
        if done.returncode != 0:
            detail = (done.stderr or done.stdout).strip().splitlines()
            return f"{what}: {detail[0][:300]}" if detail else what
    return None


class DockerBackend(Backend):
    def __init__(self, compose_file: Path, profiles: tuple[str, ...] = (), env: Mapping[str, str] | None = None,
                 project: str = "officeworld", startup_timeout: float = 300.0):
        self.compose_file = Path(compose_file)
        self.profiles, self.project, self.startup_timeout = profiles, project, startup_timeout
        self.env = {**os.environ, **admin_token(), **(env or {})}

    def _compose(self, *args: str, timeout: float = 120.0) -> str:
        argv = ["docker", "compose", "-f", str(self.compose_file), "-p", self.project]
        for profile in self.profiles:
            argv += ["--profile", profile]
        done = subprocess.run([*argv, *args], capture_output=True, text=True, env=self.env, timeout=timeout)
        if done.returncode != 0:
            raise RuntimeError(f"docker compose {' '.join(args)} failed: {done.stderr.strip()[-2000:]}")
        return done.stdout

    def start(self) -> None:
        self._compose("up", "--detach", "--wait", "--build", timeout=self.startup_timeout)

    def stop(self) -> None:
        self._compose("down", "--volumes", "--remove-orphans")

    def url(self, service: str, port: int = 8000) -> str:
        address = self._compose("port", service, str(port)).strip()
        if not address:
            raise RuntimeError(f"service {service} publishes no port {port}")
        return f"http://{address}"

