"""The live compose stack that tests/deploy's live tests check (`.ci/compose` brings it up and sets these).

OFFICEWORLD_LIVE_URL (the published port: the router's), OFFICEWORLD_LIVE_ENGINE (podman or docker),
OFFICEWORLD_LIVE_PROJECT (the compose project), OFFICEWORLD_LIVE_COMPOSE (the compose command line) and
OFFICEWORLD_LIVE_GATEWAYS (the gateway's replicas; default 1). The ``stack`` fixture is tests/deploy/conftest.py's.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import time
from dataclasses import dataclass

import httpx
import pytest
from surfaces import CONTROL

LIVE = os.environ.get("OFFICEWORLD_LIVE_URL", "").rstrip("/")
GATEWAYS = int(os.environ.get("OFFICEWORLD_LIVE_GATEWAYS") or 1)


@dataclass
class Stack:
    url: str
    engine: str
    project: str
    compose: list[str]

    def containers(self, service: str) -> list[str]:
        names = self.run(self.engine, "ps", "--all", "--format", "{{.Names}}",
                         "--filter", f"label=com.docker.compose.project={self.project}",
                         "--filter", f"label=com.docker.compose.service={service}").split()
        expected = GATEWAYS if service == "gateway" else 1
        assert len(names) == expected, f"expected {expected} {service} container(s) of {self.project}, found {names}"
        return sorted(names)

    def container(self, service: str) -> str:
        """The service's container (the first, for the gateway's replicas)."""
        return self.containers(service)[0]

    def exec(self, service: str, *argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
        return self.exec_in(self.container(service), *argv, env=env)

    def exec_in(self, container: str, *argv: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
        flags = [f"--env={k}={v}" for k, v in (env or {}).items()]
        return subprocess.run([self.engine, "exec", *flags, container, *argv], capture_output=True, text=True,
                              timeout=120)

    def run(self, *argv: str, env: dict[str, str] | None = None) -> str:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=300, env={**os.environ, **(env or {})})
        assert done.returncode == 0, f"{shlex.join(argv)} failed: {done.stderr[-2000:]}"
        return done.stdout

    def episode(self) -> dict:
        response = httpx.post(f"{self.url}/v1/episodes", json={}, headers=CONTROL, timeout=60)
        assert response.status_code == 201, response.text
        return response.json()

    def info(self, episode: dict) -> dict:
        return httpx.get(f"{self.url}/v1/episodes/{episode['id']}", headers=CONTROL, timeout=60).json()


def wait_for(what: str, check, timeout: float = 120.0):
    deadline = time.monotonic() + timeout
    while True:
        result = check()
        if result:
            return result
        assert time.monotonic() < deadline, f"timed out after {timeout:.0f} s waiting for {what}"
        time.sleep(1)


def open_stack() -> Stack:
    """The stack the environment names, once it has an episode whose every app service answers."""
    names = ("OFFICEWORLD_LIVE_ENGINE", "OFFICEWORLD_LIVE_PROJECT", "OFFICEWORLD_LIVE_COMPOSE")
    missing = [name for name in names if not os.environ.get(name)]
    if missing:
        pytest.fail(f"OFFICEWORLD_LIVE_URL is set but not {', '.join(missing)}")
    engine = shutil.which(os.environ["OFFICEWORLD_LIVE_ENGINE"])
    if engine is None:
        pytest.fail(f"the container engine {os.environ['OFFICEWORLD_LIVE_ENGINE']} is not installed")
    stack = Stack(LIVE, engine, os.environ["OFFICEWORLD_LIVE_PROJECT"], shlex.split(os.environ["OFFICEWORLD_LIVE_COMPOSE"]))
    # The apps may still be starting (podman-compose does not wait on healthchecks): wait for a ready episode.
    wait_for("an episode whose every app service answers", lambda: stack.episode()["status"] == "ready", 180)
    return stack


