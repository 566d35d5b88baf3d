"""compose.yaml and the Dockerfile, checked without an engine: the Compose Spec schema,
``docker-compose config``, hadolint, and the project's own rules on the parsed files."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from sandbox import compose
from simulator.store.registry import service_apps

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "compose.yaml"
APPS = set(service_apps())  # compose must run one app service per service app of the registry (fails when they disagree)


@pytest.fixture(scope="module")
def spec() -> dict:
    return yaml.safe_load(COMPOSE.read_text())


def _tool(name: str) -> str:
    found = shutil.which(name) or shutil.which(name, path=str(Path(sys.executable).parent))
    if found is None:
        pytest.skip(f"{name} is not installed (./dev.sh setup installs it)")
    return found


def test_matches_the_compose_spec_schema():
    done = subprocess.run([_tool("check-jsonschema"), "--builtin-schema", "vendor.compose-spec", str(COMPOSE)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_docker_compose_resolves_it(tmp_path):
    # docker-compose 1.x rejects the top-level `name:` that Compose v2 reads; check a copy without it.
    copy = tmp_path / "compose.yaml"
    copy.write_text(re.sub(r"(?m)^name:.*\n", "", COMPOSE.read_text()))
    shutil.copy(ROOT / "Dockerfile", tmp_path / "Dockerfile")
    (tmp_path / "worlds").mkdir()
    base = [_tool("docker-compose"), "-f", str(copy), "-p", "officeworld"]
    env = {**os.environ, "OFFICEWORLD_ADMIN_TOKEN": "t"}
    unset = subprocess.run([*base, "config", "--quiet"], capture_output=True, text=True, timeout=120,
                           env={k: v for k, v in env.items() if k != "OFFICEWORLD_ADMIN_TOKEN"})
    assert unset.returncode != 0 and "OFFICEWORLD_ADMIN_TOKEN" in unset.stderr
    done = subprocess.run([*base, "config", "--quiet"], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stderr
    services = subprocess.run([*base, "--profile", "agent", "config", "--services"], capture_output=True,
                              text=True, timeout=120, env=env).stdout.split()
    assert sorted(services) == sorted([*APPS, "gateway", "agent-proxy", "agent-shell"])


def test_only_the_gateway_publishes_a_port_and_only_on_loopback(spec):
    published = {name: s["ports"] for name, s in spec["services"].items() if s.get("ports")}
    assert list(published) == ["gateway"]
    resolved = compose.interpolate(published["gateway"], {})
    assert all(p.startswith("127.0.0.1:") for p in resolved)


def test_the_agent_shell_reaches_only_its_episode_proxy(spec):
    services = spec["services"]
    shell, proxy, gateway = (set(services[n]["networks"]) for n in ("agent-shell", "agent-proxy", "gateway"))
    assert shell & gateway == set() and shell <= proxy
    assert "agent-proxy:8000" in services["agent-shell"]["environment"]["OW_URL"]
    assert services["agent-proxy"]["command"][-1] == "episode-proxy"


def test_apps_sit_only_on_internal_networks(spec):
    networks = spec["networks"]
    for name in APPS | {"agent-shell", "agent-proxy"}:
        for network in spec["services"][name]["networks"]:
            assert networks[network].get("internal") is True, f"{name} is on non-internal network {network}"
    gateway = spec["services"]["gateway"]["networks"]
    assert [n for n in gateway if not networks[n].get("internal")] == ["edge"]


def test_every_service_has_a_healthcheck_and_the_gateway_waits_for_healthy_apps(spec):
    project = compose.load(COMPOSE, {"OFFICEWORLD_ADMIN_TOKEN": "t"})
    assert {s.name for s in project.services.values() if s.healthcheck is None} == set()
    assert project.services["gateway"].depends_on == {app: "service_healthy" for app in APPS}


def test_worlds_are_read_only_and_trajectories_go_to_a_volume(spec):
    for name in APPS | {"gateway"}:
        mounts = spec["services"][name]["volumes"]
        world_mounts = [m for m in mounts if m.startswith("./worlds:")]
        assert world_mounts and all(m.endswith(":ro") for m in world_mounts), name
    gateway = spec["services"]["gateway"]
    assert "trajectories:/trajectories" in gateway["volumes"] and "trajectories" in spec["volumes"]
    assert gateway["environment"]["OFFICEWORLD_TRAJECTORY_DIR"] == "/trajectories"


def test_the_gateway_finds_each_app_service_by_environment(spec):
    env = spec["services"]["gateway"]["environment"]
    assert {app: env[f"OFFICEWORLD_{app.upper()}_URL"] for app in APPS} == {app: f"http://{app}:8000" for app in APPS}


def test_dockerfile_passes_hadolint():
    done = subprocess.run([_tool("hadolint"), str(ROOT / "Dockerfile")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_dockerfile_is_multi_stage_with_a_non_root_final_stage_without_build_tools():
    stages = re.split(r"(?m)^FROM ", (ROOT / "Dockerfile").read_text())[1:]
    assert len(stages) >= 2
    final = stages[-1]
    users = re.findall(r"(?m)^USER\s+(\S+)", final)
    assert users and users[-1].split(":")[0] not in ("root", "0")
    assert not re.search(r"(?m)^RUN .*(apt-get|apk|pip install|gcc|build-essential)", final)
    assert "COPY --from=build" in final


def test_dockerignore_keeps_environments_and_tests_out_of_the_image():
    ignored = (ROOT / ".dockerignore").read_text().split()
    assert {".git", ".venv", "tests"} <= set(ignored)


def test_the_admin_token_goes_to_the_apps_and_the_gateway_only_and_is_required():
    project = compose.load(COMPOSE, {"OFFICEWORLD_ADMIN_TOKEN": "s3cret"})
    given = {s.name for s in project.services.values() if s.environment.get("OFFICEWORLD_ADMIN_TOKEN") == "s3cret"}
    assert given == {*APPS, "gateway"}
    with pytest.raises(ValueError, match="OFFICEWORLD_ADMIN_TOKEN"):
        compose.load(COMPOSE, {})


def test_the_image_holds_every_package_the_project_installs():
    """The build and the final stage copy each package of ``[tool.setuptools.packages.find]``: the
    services run ``simulator.cli``, whose commands import from all of them (``openenv`` the trainers)."""
    include = re.search(r'include = \[(.*?)\]', (ROOT / "pyproject.toml").read_text()).group(1)
    packages = [name.strip(' "*') for name in include.split(",")]
    dockerfile = (ROOT / "Dockerfile").read_text()
    for package in packages:
        assert f"COPY {package} ./{package}" in dockerfile, package
        assert f"COPY --chown=root:root {package} ./{package}" in dockerfile, package
    assert not set(packages) & set((ROOT / ".dockerignore").read_text().split())
    # ... and their bytecode, compiled once in the final stage: it sets PYTHONDONTWRITEBYTECODE and runs as a
    # user who cannot write /app, so a container would otherwise compile every module at each start.
    final = re.split(r"(?m)^FROM ", dockerfile)[-1]
    compiled = re.search(r"(?m)^RUN python -m compileall -q (.*)$", final)
    assert compiled and set(packages) <= set(compiled.group(1).split())
    assert final.index(compiled.group(0)) < final.index("USER ")


def _name(requirement: str) -> str:
    return re.sub(r"[-_.]+", "-", re.match(r"[A-Za-z0-9_.-]+", requirement).group(0)).lower()


def test_the_image_installs_the_versions_the_tests_passed_with():
    """The build stage installs the project with constraints.txt (what dev.sh installs from and the suite
    passed with), the file is in the build context, it pins every dependency, and CI's offline wheelhouse
    is built at those versions (an image built from it could not install anything else)."""
    stages = dict(re.findall(r"(?ms)^FROM \S+ AS (\S+)\n(.*?)(?=^FROM |\Z)", (ROOT / "Dockerfile").read_text()))
    build = stages["build"]
    copied = re.search(r"(?m)^COPY (.*) \./$", build)
    assert copied and "constraints.txt" in copied.group(1).split()
    installs = re.findall(r"(?m)^RUN .*pip install (.*)$", build)
    assert installs and all("-c constraints.txt" in line for line in installs), installs
    assert "constraints.txt" not in (ROOT / ".dockerignore").read_text().split()
    import tomllib

    pinned = {_name(line) for line in (ROOT / "constraints.txt").read_text().splitlines()
              if line.strip() and not line.startswith("#") and "==" in line}
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    assert {_name(d) for d in dependencies} <= pinned, {_name(d) for d in dependencies} - pinned
    wheels = [line for line in (ROOT / ".ci" / "compose").read_text().splitlines() if "pip wheel" in line]
    assert wheels and all("-c constraints.txt" in line for line in wheels), wheels


def test_the_agent_shell_image_holds_python_and_ow_only(spec):
    """compose's agent shell runs the Dockerfile's ``agent`` stage: ``ow``'s four files, no tasks, worlds or apps."""
    shell = spec["services"]["agent-shell"]
    assert shell["build"]["target"] == "agent" and shell["image"] != spec["services"]["gateway"]["image"]
    assert shell["volumes"] == []
    stages = {m.group(1): m.group(0) for m in re.finditer(r"(?ms)^FROM \S+ AS (\w[\w-]*)\n.*?(?=^FROM |\Z)",
                                                            (ROOT / "Dockerfile").read_text())}
    copied = [line.split()[1:-1] for line in stages["agent"].splitlines() if line.startswith("COPY")]
    sources = sorted(s for line in copied for s in line if not s.startswith("--"))
    assert sources == ["simulator/__init__.py", "simulator/agent/__init__.py", "simulator/agent/output.py",
                       "simulator/agent/ow.py"]
    assert "--from" not in stages["agent"] and "pip" not in stages["agent"]
    assert re.findall(r"(?m)^USER\s+(\S+)", stages["agent"]) == ["10001:10001"]
