"""The ``processes`` backend: the services of compose.yaml as local processes on loopback ports.

What runs comes from compose.yaml alone: each active service's command, environment and
healthcheck, started in waves that respect ``depends_on``. Because processes share one host, each
service that ``expose``s a port gets a free loopback port instead: the variables named by the
file's ``x-sandbox`` block (``host_env``, ``port_env``) tell the service where to listen, and
``http://<service>:<port>`` in any environment value becomes ``http://127.0.0.1:<its port>``. A
command or healthcheck starting with ``python`` runs under this interpreter.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Mapping

from sandbox import compose
from sandbox.compose import Service
from sandbox.config import Backend, admin_token

LOOPBACK = "127.0.0.1"


class ServiceFailed(RuntimeError):
    """A service exited or never became healthy; the message carries the tail of its log."""


class ProcessesBackend(Backend):
    def __init__(self, compose_file: Path, profiles: tuple[str, ...] = (), env: Mapping[str, str] | None = None,
                 log_dir: Path | None = None, startup_timeout: float = 120.0, ports: Mapping[str, int] | None = None):
        self.compose_file = Path(compose_file)
        self.workdir = self.compose_file.parent
        self.overrides = dict(env or {})
        # The token reaches only the services whose environment in compose.yaml names it.
        base = {**os.environ, **admin_token(), **self.overrides}
        self.admin_token = base["OFFICEWORLD_ADMIN_TOKEN"]
        self.project = compose.load(self.compose_file, base)
        self.services = self.project.active(profiles)
        self.log_dir = Path(log_dir or tempfile.mkdtemp(prefix="officeworld-processes-"))
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self.startup_timeout = startup_timeout
        fixed = dict(ports or {})  # e.g. the gateway on the port a user asked for; the rest are free ports
        self.ports = {s.name: fixed.get(s.name) or _free_port() for s in self.services if s.expose}
        self.procs: dict[str, subprocess.Popen] = {}

    def url(self, service: str) -> str:
        return f"http://{LOOPBACK}:{self.ports[service]}"

    def start(self) -> None:
        """Start every service, a wave at a time, each wave once the services it needs are healthy."""
        pending, ready = {s.name: s for s in self.services}, set[str]()
        while pending:
            wave = [s for s in pending.values() if set(s.depends_on) <= ready]
            if not wave:
                raise ServiceFailed(f"services {sorted(pending)} depend on services that are not active or form a cycle")
            for service in wave:
                self.procs[service.name] = self._spawn(service)
            for service in wave:
                self._wait_healthy(service)
                ready.add(service.name)
                del pending[service.name]

    def stop(self, timeout: float = 10.0) -> None:
        """Stop every service, newest first: SIGTERM to its process group, SIGKILL if it lingers."""
        for name in reversed(list(self.procs)):
            self.kill(name, signal.SIGTERM, timeout)
        self.procs.clear()

    def kill(self, service: str, sig: int = signal.SIGKILL, timeout: float = 10.0) -> None:
        proc = self.procs.get(service)
        if proc is None or proc.poll() is not None:
            return
        _signal_group(proc, sig)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            _signal_group(proc, signal.SIGKILL)
            proc.wait(timeout)

    def environment(self, service: Service) -> dict[str, str]:
        found = self.project.extensions.get("x-sandbox")
        settings = found if isinstance(found, dict) else {}
        env = {**os.environ, **service.environment}
        for value_key, value in list(env.items()):
            env[value_key] = self._rewrite_urls(value)
        if service.name in self.ports:
            env[settings.get("host_env", "HOST")] = LOOPBACK
            env[settings.get("port_env", "PORT")] = str(self.ports[service.name])
        env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
        return {**env, **self.overrides}

    def log(self, service: str) -> str:
        path = self.log_dir / f"{service}.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def _rewrite_urls(self, value: str) -> str:
        for service in self.services:
            for port in service.expose:
                if service.name in self.ports:
                    value = value.replace(f"://{service.name}:{port}", f"://{LOOPBACK}:{self.ports[service.name]}")
        return value

    def _spawn(self, service: Service) -> subprocess.Popen:
        log = open(self.log_dir / f"{service.name}.log", "ab")
        with log:
            return subprocess.Popen(_local(service.command), cwd=self.workdir, env=self.environment(service),
                                    stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                    start_new_session=True)

    def _wait_healthy(self, service: Service) -> None:
        check = service.healthcheck
        deadline = time.monotonic() + self.startup_timeout
        while True:
            proc = self.procs[service.name]
            if proc.poll() is not None:
                raise ServiceFailed(f"service {service.name} exited with status {proc.returncode}:\n"
                                    f"{self.log(service.name)[-2000:]}")
            if check is None or self._healthy(service):
                return
            if time.monotonic() > deadline:
                raise ServiceFailed(f"service {service.name} not healthy after {self.startup_timeout:.0f}s:\n"
                                    f"{self.log(service.name)[-2000:]}")
            time.sleep(0.2)

    def _healthy(self, service: Service) -> bool:
        check = service.healthcheck
        assert check is not None  # only a service with a healthcheck is polled (_wait_healthy)
        argv = ["sh", "-c", check.test[1]] if check.test[0] == "CMD-SHELL" else _local(check.test[1:])
        try:
            done = subprocess.run(argv, cwd=self.workdir, env=self.environment(service), timeout=check.timeout,
                                  stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        except (subprocess.TimeoutExpired, OSError):
            return False
        return done.returncode == 0


def _local(argv: list[str]) -> list[str]:
    """``python`` in the image is this interpreter here."""
    return [sys.executable, *argv[1:]] if argv and argv[0] in ("python", "python3") else list(argv)


def _signal_group(proc: subprocess.Popen, sig: int) -> None:
    try:
        os.killpg(proc.pid, sig)
    except ProcessLookupError:
        pass


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind((LOOPBACK, 0))
        return sock.getsockname()[1]
