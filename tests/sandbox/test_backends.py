"""Backend choice by configuration, the compose reader's details, and the Docker backend where an engine runs."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from pydantic import ValidationError

from sandbox import compose
from sandbox.config import (
    DockerConfig,
    InProcessBackend,
    ProcessesConfig,
    open_backend,
    parse_config,
)
from sandbox.docker import DockerBackend, unavailable_reason
from sandbox.processes import ProcessesBackend

ROOT = Path(__file__).resolve().parents[2]


def test_backend_is_chosen_by_its_kind():
    assert isinstance(parse_config({"kind": "processes"}), ProcessesConfig)
    assert isinstance(open_backend(parse_config({"kind": "inprocess"})), InProcessBackend)
    assert isinstance(open_backend(parse_config({"kind": "docker", "compose_file": ROOT / "compose.yaml"})),
                      DockerBackend)
    with pytest.raises(ValidationError, match="kind"):
        parse_config({"kind": "kubernetes"})
    with pytest.raises(ValidationError, match="colour"):
        parse_config({"kind": "processes", "colour": "blue"})


def test_interpolation_follows_compose_rules():
    env = {"SET": "x", "EMPTY": ""}
    assert compose.interpolate("${SET:-d} ${EMPTY:-d} ${EMPTY-d} ${UNSET-d} $SET $$HOME", env) == "x d  d x $HOME"


def test_durations_parse_and_bad_ones_name_their_key():
    assert compose.duration("1m30s", "k") == 90 and compose.duration("250ms", "k") == 0.25
    with pytest.raises(compose.ComposeError, match="services.x.healthcheck.interval"):
        compose.duration("soon", "services.x.healthcheck.interval")


def test_processes_backend_maps_service_addresses_to_loopback_ports():
    backend = ProcessesBackend(ROOT / "compose.yaml", env={"OFFICEWORLD_WORLD": "small"})
    gateway = next(s for s in backend.services if s.name == "gateway")
    env = backend.environment(gateway)
    assert env["OFFICEWORLD_MAIL_URL"] == backend.url("mail") != "http://mail:8000"
    assert env["OFFICEWORLD_HOST"] == "127.0.0.1" and env["OFFICEWORLD_PORT"] == str(backend.ports["gateway"])
    assert env["OFFICEWORLD_WORLD"] == "small"


def test_processes_backend_reports_a_service_that_dies_at_start(tmp_path):
    broken = tmp_path / "compose.yaml"
    broken.write_text("services:\n  bad:\n    command: [python, -c, 'import sys; print(\"no world\"); sys.exit(3)']\n"
                      "    expose: ['8000']\n    healthcheck: {test: [CMD, 'false'], interval: 1s}\n")
    with pytest.raises(RuntimeError, match=r"(?s)bad exited with status 3.*no world"):
        with ProcessesBackend(broken, startup_timeout=10):
            pass


DOCKER = unavailable_reason()


@pytest.mark.skipif(DOCKER is not None, reason=f"no Docker here: {DOCKER}")
def test_docker_backend_serves_the_gateway(tmp_path):
    config = DockerConfig(compose_file=ROOT / "compose.yaml", project="officeworld-test",
                          env={"OFFICEWORLD_PORT": "0"})
    with open_backend(config) as backend:
        assert httpx.get(f"{backend.url('gateway')}/health", timeout=10).json()["status"] == "ok"
