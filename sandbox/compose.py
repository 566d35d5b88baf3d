"""Read compose.yaml into the services it declares: command, environment, healthcheck, dependencies.

Just enough of the Compose Specification for running its services elsewhere (``processes``):
YAML anchors and ``<<`` merges (PyYAML resolves them), ``${VAR}``, ``${VAR:-default}``,
``${VAR-default}``, ``${VAR:?message}`` and ``$$`` interpolation, profiles, and durations such as ``1m30s``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

import yaml

_VARIABLE = re.compile(r"\$(?:\$|\{(\w+)(?:(:?[-?])([^}]*))?\}|(\w+))")
_DURATION = re.compile(r"(\d+(?:\.\d+)?)(us|ms|s|m|h)")
_UNITS = {"us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


class ComposeError(ValueError):
    """compose.yaml says something this reader cannot run; the message names the service and key."""


@dataclass(frozen=True)
class Healthcheck:
    test: list[str]
    interval: float = 30.0
    timeout: float = 30.0
    retries: int = 3
    start_period: float = 0.0


@dataclass
class Service:
    name: str
    command: list[str]
    environment: dict[str, str] = field(default_factory=dict)
    healthcheck: Healthcheck | None = None
    depends_on: dict[str, str] = field(default_factory=dict)
    expose: list[int] = field(default_factory=list)
    profiles: list[str] = field(default_factory=list)
    networks: list[str] = field(default_factory=list)
    ports: list[str] = field(default_factory=list)


@dataclass
class Project:
    services: dict[str, Service]
    extensions: dict[str, object]

    def active(self, profiles: list[str] | tuple[str, ...] = ()) -> list[Service]:
        """Services that run with ``profiles`` enabled (a service without profiles always runs)."""
        return [s for s in self.services.values() if not s.profiles or set(s.profiles) & set(profiles)]


def load(path: Path, env: Mapping[str, str]) -> Project:
    """Parse ``path``, interpolating variables from ``env`` (as compose does from the shell)."""
    raw = interpolate(yaml.safe_load(Path(path).read_text()), env)
    services = {name: _service(name, spec or {}) for name, spec in (raw.get("services") or {}).items()}
    return Project(services, {k: v for k, v in raw.items() if k.startswith("x-")})


def interpolate(value, env: Mapping[str, str]):
    if isinstance(value, str):
        return _VARIABLE.sub(lambda m: _substitute(m, env), value)
    if isinstance(value, list):
        return [interpolate(v, env) for v in value]
    if isinstance(value, dict):
        return {k: interpolate(v, env) for k, v in value.items()}
    return value


def _substitute(match: re.Match, env: Mapping[str, str]) -> str:
    if match.group(0) == "$$":
        return "$"
    name = match.group(1) or match.group(4)
    value, operator, default = env.get(name), match.group(2), match.group(3) or ""
    if operator == ":-" and not value:
        return default
    if operator == "-" and value is None:
        return default
    if (operator == ":?" and not value) or (operator == "?" and value is None):
        raise ValueError(f"${{{name}}} is required: {default or 'set it in the environment'}")
    return value or ""


def duration(text: str | int | float, where: str) -> float:
    if isinstance(text, (int, float)):
        return float(text)
    parts = _DURATION.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text:
        raise ComposeError(f"{where}: {text!r} is not a duration such as 5s or 1m30s")
    return sum(float(n) * _UNITS[u] for n, u in parts)


def _service(name: str, spec: dict) -> Service:
    command = spec.get("command")
    if isinstance(command, str) or not command:
        raise ComposeError(f"services.{name}.command: give the command as a list of arguments")
    depends = spec.get("depends_on") or {}
    if isinstance(depends, list):
        depends = {d: {"condition": "service_started"} for d in depends}
    networks = spec.get("networks") or []
    return Service(
        name=name, command=[str(c) for c in command], environment=_environment(name, spec.get("environment")),
        healthcheck=_healthcheck(name, spec.get("healthcheck")),
        depends_on={d: (c or {}).get("condition", "service_started") for d, c in depends.items()},
        expose=[int(str(p).split("/")[0]) for p in spec.get("expose") or []],
        profiles=list(spec.get("profiles") or []), networks=list(networks), ports=[str(p) for p in spec.get("ports") or []],
    )


def _environment(name: str, environment) -> dict[str, str]:
    if isinstance(environment, list):
        environment = dict(item.split("=", 1) if "=" in item else (item, "") for item in environment)
    return {k: "" if v is None else str(v) for k, v in (environment or {}).items()}


def _healthcheck(name: str, spec: dict | None) -> Healthcheck | None:
    if not spec or spec.get("disable") or spec.get("test") in (["NONE"], "NONE"):
        return None
    test = spec["test"]
    test = ["CMD-SHELL", test] if isinstance(test, str) else [str(t) for t in test]
    where = f"services.{name}.healthcheck"
    return Healthcheck(test=test, interval=duration(spec.get("interval", "30s"), where + ".interval"),
                       timeout=duration(spec.get("timeout", "30s"), where + ".timeout"),
                       retries=int(spec.get("retries", 3)),
                       start_period=duration(spec.get("start_period", "0s"), where + ".start_period"))
