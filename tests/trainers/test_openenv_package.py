"""officeworld as an OpenEnv package (``python -m trainers.openenv_package``) against openenv 0.10's own CLI: its
local validator (``openenv validate DIR``), the structure check ``openenv push`` runs first, and ``openenv build``
with a stand-in ``docker`` that records the build it was asked for (no engine here). The image itself is built
and started by .ci/compose; ``openenv push`` needs the Hugging Face Hub and is not run anywhere.

The CLI is openenv 0.10's (``$OFFICEWORLD_OPENENV_CLI`` or ``.venv-openenv/bin/openenv``, which dev.sh makes);
without it those tests are skipped."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from surfaces import ROOT

from trainers.openenv_package import PackageError, write_package

TASK = "crm-close-globex-renewal"


def _cli() -> Path:
    cli = Path(os.environ.get("OFFICEWORLD_OPENENV_CLI") or ROOT / ".venv-openenv" / "bin" / "openenv")
    if not cli.exists():
        pytest.skip(f"no openenv 0.10 CLI at {cli} (./dev.sh setup --trainers makes .venv-openenv)")
    return cli


@pytest.fixture(scope="module")
def package(tmp_path_factory) -> Path:
    return write_package(tmp_path_factory.mktemp("openenv") / "officeworld_env")


def _validate(target: Path, *args: str) -> tuple[int, dict]:
    done = subprocess.run([str(_cli()), "validate", str(target), "--json", *args], capture_output=True, text=True,
                          timeout=120)
    return done.returncode, json.loads(done.stdout)


def test_the_package_has_openenvs_layout_and_the_projects_source(package):
    for name in ("openenv.yaml", "__init__.py", "client.py", "README.md", "pyproject.toml", "Dockerfile",
                 "server/__init__.py", "server/app.py", "officeworld/pyproject.toml", "officeworld/constraints.txt",
                 "officeworld/worlds/acme", "officeworld/trainers/openenv.py", "wheelhouse"):
        assert (package / name).exists(), name
    assert not (package / "officeworld" / "trainers" / "openenv_env").exists(), "the template is not copied twice"
    assert not list(package.rglob("__pycache__"))


def test_a_package_is_not_written_over_something(tmp_path):
    (tmp_path / "kept.txt").write_text("mine")
    with pytest.raises(PackageError, match="not empty"):
        write_package(tmp_path)
    with pytest.raises(PackageError, match="not an officeworld checkout"):
        write_package(tmp_path / "new", root=tmp_path)


def test_openenvs_own_validator_passes_the_package(package):
    code, report = _validate(package)
    results = {r["check_id"]: r for r in report["results"]}
    assert code == 0 and report["verdict"] in ("pass", "warn"), json.dumps(report, indent=1)[:3000]
    assert results["static.manifest"]["status"] == "pass"
    assert not [r for r in report["results"] if r["status"] in ("fail", "error")]
    # The runtime level builds the image and pulls OpenEnv's helper images: it SKIPs here (no Docker engine, no
    # registry); `validate --url` checks the running server instead (test_openenv_validate.py, .ci/compose).
    assert results["runtime.startup"]["status"] == "skip"
    code, static = _validate(package, "--level", "static")
    assert code == 0 and static["verdict"] == "pass"


def test_the_validator_fails_a_manifest_without_its_validation_block(package, tmp_path):
    broken = tmp_path / "broken"
    shutil.copytree(package / "server", broken / "server")
    manifest = (package / "openenv.yaml").read_text()
    (broken / "openenv.yaml").write_text(manifest.split("validation:")[0])
    code, report = _validate(broken)
    assert code == 1 and report["verdict"] == "fail", "the check this package passes can fail"


def test_openenv_push_accepts_the_packages_structure(package):
    python = _cli().parent / "python"
    check = ("import sys; from pathlib import Path; from openenv.cli._cli_utils import validate_env_structure; "
             "print(validate_env_structure(Path(sys.argv[1])))")   # what `openenv push` runs before uploading
    done = subprocess.run([str(python), "-c", check, str(package)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]


def test_openenv_build_builds_the_packages_dockerfile(package, tmp_path):
    fake = tmp_path / "bin"
    fake.mkdir()
    record = tmp_path / "docker.json"
    (fake / "docker").write_text(   # records argv and the build context it was given
        f"#!{sys.executable}\nimport json, os, sys\nctx = sys.argv[-1]\n"
        f"json.dump({{'argv': sys.argv[1:], 'files': sorted(os.listdir(ctx)), "
        f"'app': os.path.exists(os.path.join(ctx, 'server', 'app.py'))}}, open({str(record)!r}, 'w'))\n")
    (fake / "docker").chmod(0o755)
    env = {**os.environ, "PATH": f"{fake}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run([str(_cli()), "build", str(package)], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    seen = json.loads(record.read_text())
    argv = seen["argv"]
    assert argv[:3] == ["build", "-t", "openenv-officeworld"] and argv[argv.index("-f") + 1].endswith("/Dockerfile")
    assert {"Dockerfile", "openenv.yaml", "officeworld", "server"} <= set(seen["files"]) and seen["app"]


def test_the_images_dockerfile_serves_the_packages_app_and_passes_hadolint(package):
    dockerfile = (package / "Dockerfile").read_text()
    assert 'CMD ["python", "-m", "server.app"]' in dockerfile and "EXPOSE 8000" in dockerfile
    assert "/health" in dockerfile and "COPY officeworld /src/officeworld" in dockerfile
    hadolint = shutil.which("hadolint") or shutil.which("hadolint", path=str(Path(sys.executable).parent))
    if hadolint:
        done = subprocess.run([hadolint, str(package / "Dockerfile")], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stdout


def test_the_packages_server_app_is_the_openenv_server(package, monkeypatch):
    from fastapi.testclient import TestClient

    import trainers.openenv as module

    monkeypatch.syspath_prepend(str(package))
    monkeypatch.setenv("OFFICEWORLD_TASK", TASK)
    monkeypatch.delenv("OFFICEWORLD_SERVER", raising=False)
    vars(module).pop("app", None)
    sys.modules.pop("server.app", None)
    sys.modules.pop("server", None)
    try:
        from server import app as served  # the module `uvicorn server.app:app` and `python -m server.app` load

        assert callable(served.main)
        with TestClient(served.app) as api:
            assert api.get("/health").json() == {"status": "healthy"}
            assert api.post("/reset", json={}).json()["observation"]["task_id"] == TASK
    finally:
        vars(module).pop("app", None)
        sys.modules.pop("server.app", None)
        sys.modules.pop("server", None)
