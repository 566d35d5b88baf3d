"""``./dev.sh`` installs once, again only when pyproject.toml (or the Inspector's lock) changes; ``up`` installs
only what serving needs, ``test`` (or ``setup --trainers``) the trainer libraries too; each step says what it
installs and why before it starts, and how long it took.

Run on a copy of the repository's set-up files, with pip, npm and the system tools replaced by
scripts that log their calls: nothing is installed, on this machine or elsewhere.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[1]


def _script(path: Path, body: str) -> None:
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(0o755)


def _sandbox(tmp_path: Path, system_tools: tuple[str, ...] = ("bwrap", "chromium", "docker-compose"), uid: int = 1000,
             python312: bool = True):
    """A copy of the set-up files, a fake .venv and a PATH of fakes and the few real tools dev.sh needs."""
    repo, bin_dir, log = tmp_path / "repo", tmp_path / "bin", tmp_path / "calls.log"
    (repo / "tools" / "inspector").mkdir(parents=True)
    shutil.copy(ROOT / "dev.sh", repo / "dev.sh")
    shutil.copy(ROOT / "pyproject.toml", repo / "pyproject.toml")
    shutil.copy(ROOT / "constraints.txt", repo / "constraints.txt")
    shutil.copy(ROOT / "tools" / "inspector" / "package-lock.json", repo / "tools" / "inspector" / "package-lock.json")
    (repo / "trainers").mkdir()
    for name in ("side-requirements.txt", "openenv-requirements.txt", "nemo-requirements.txt"):
        shutil.copy(ROOT / "trainers" / name, repo / "trainers" / name)
    venv = repo / ".venv" / "bin"
    venv.mkdir(parents=True)
    _script(venv / "python", f'[ "$1 $2" = "-m pytest" ] && {{ echo "pytest $*"; exit 0; }}; exec {sys.executable} "$@"')
    _script(venv / "pip", f'echo "pip $*" >> {log}')
    _script(venv / "hello", 'echo "hello $*"')
    side = repo / ".venv-side" / "bin"   # the trainers' own venv, made already
    side.mkdir(parents=True)
    _script(side / "python", "true")
    _script(side / "pip", f'echo "side-pip $*" >> {log}')
    for venv_name, pip in ((".venv-openenv", "openenv-pip"), (".venv-nemo", "nemo-pip")):   # made already too
        apart = repo / venv_name / "bin"
        apart.mkdir(parents=True)
        _script(apart / "python", "true")
        _script(apart / "pip", f'echo "{pip} $*" >> {log}')
    bin_dir.mkdir()
    if python312:
        _script(bin_dir / "python3.12", "exit 0")   # passes dev.sh's version check
    for real in ("sh", "sha256sum", "cut", "cat", "mkdir", "dirname", "grep", "sed", "mv"):
        (bin_dir / real).symlink_to(shutil.which(real))
    _script(bin_dir / "npm", f'echo "npm $*" >> {log}; mkdir -p node_modules')
    _script(bin_dir / "apt-get", f'echo "apt-get $*" >> {log}')
    _script(bin_dir / "id", f"echo {uid}")
    for tool in system_tools:
        _script(bin_dir / tool, "true")
    env = {"PATH": str(bin_dir), "HOME": str(tmp_path)}

    def dev(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([shutil.which("bash"), str(repo / "dev.sh"), *args], capture_output=True, text=True,
                              env=env, timeout=60)

    def calls() -> list[str]:
        return [line.split()[0] for line in log.read_text().splitlines()] if log.exists() else []

    return repo, dev, calls, log


def _project_installs(log: Path) -> list[str]:
    return [line for line in log.read_text().splitlines() if line.startswith("pip ")]


def test_dev_sh_up_installs_only_what_serving_needs_and_says_so(tmp_path):
    repo, dev, calls, log = _sandbox(tmp_path)
    first = dev("hello", "world")   # any command of the venv, as ./dev.sh up: serving only
    assert first.returncode == 0 and first.stdout == "hello world\n", first.stderr
    assert calls() == ["pip"]
    [install] = _project_installs(log)
    assert " -e . " in install and "-c constraints.txt" in install and "trl" not in install
    assert "editable_mode=compat" in install
    said = first.stderr.splitlines()
    assert any(line.startswith("dev.sh: serving: installing officeworld") and "changed" in line for line in said)
    assert any(line.startswith("dev.sh:   done in ") for line in said)
    again = dev("hello")
    assert again.returncode == 0 and calls() == ["pip"] and again.stderr == ""


def test_dev_sh_test_installs_the_trainers_too_once_and_again_when_their_files_change(tmp_path):
    repo, dev, calls, log = _sandbox(tmp_path)
    first = dev("test", "-q")
    assert first.returncode == 0 and first.stdout.startswith("pytest -m pytest -n auto"), first.stderr
    assert calls() == ["pip", "side-pip", "openenv-pip", "nemo-pip", "npm"]   # torch is there (this machine's venv has it)
    [install] = _project_installs(log)
    assert "[test,trl,gym,ray,plot,skyrl]" in install and "-c constraints.txt" in install
    for requirements in ("side", "openenv", "nemo"):
        assert f"-r trainers/{requirements}-requirements.txt" in log.read_text()
    steps = [line for line in first.stderr.splitlines() if line.startswith("dev.sh: trainers: installing")]
    assert len(steps) == 5 and all("(" in line and line.endswith("...") for line in steps)   # what, then why
    assert first.stderr.count("done in ") == 5
    assert dev("hello").returncode == 0 and len(calls()) == 5   # the trainers' install covers serving
    n = len(calls())
    assert dev("test").returncode == 0 and len(calls()) == n
    (repo / "pyproject.toml").write_text((repo / "pyproject.toml").read_text() + "\n# changed\n")
    assert dev("hello").returncode == 0 and calls()[n:] == ["pip"]   # serving again, first
    assert dev("test").returncode == 0 and calls()[n:] == ["pip", "pip"]
    side = repo / "trainers" / "side-requirements.txt"
    side.write_text(side.read_text() + "\n# changed\n")
    assert dev("hello").returncode == 0 and calls()[n:] == ["pip", "pip"]
    assert dev("test").returncode == 0 and calls()[n:] == ["pip", "pip", "side-pip"]
    nemo = repo / "trainers" / "nemo-requirements.txt"
    nemo.write_text(nemo.read_text() + "\n# changed\n")
    assert dev("test").returncode == 0 and calls()[n + 3:] == ["nemo-pip"]
    (repo / "constraints.txt").write_text((repo / "constraints.txt").read_text() + "\n# changed\n")
    assert dev("test").returncode == 0 and calls()[n + 4:] == ["pip"]


def test_dev_sh_setup_reinstalls_serving_and_with_trainers_everything(tmp_path):
    repo, dev, calls, log = _sandbox(tmp_path)
    assert dev("setup").returncode == 0 and calls() == ["pip"]
    assert dev("setup").returncode == 0 and calls() == ["pip", "pip"]   # setup reinstalls
    done = dev("setup", "--trainers")
    assert done.returncode == 0 and calls()[2:] == ["pip", "side-pip", "openenv-pip", "nemo-pip", "npm"], done.stderr


def test_dev_sh_without_python_3_12_says_nemo_gym_is_not_installed(tmp_path):
    repo, dev, calls, log = _sandbox(tmp_path, python312=False)
    done = dev("setup", "--trainers")
    assert done.returncode == 0 and "nemo-pip" not in calls() and "openenv-pip" in calls(), done.stderr
    assert "not installed: NeMo Gym needs Python 3.12" in done.stderr


def test_dev_sh_freeze_writes_constraints_from_the_venv(tmp_path):
    repo, dev, calls, log = _sandbox(tmp_path)
    assert dev("setup", "--trainers").returncode == 0
    frozen = "rich==13.9.4\n-e /work/main\nofficeworld==0.1.0\ntorch==2.13.0+cpu\nx @ file:///tmp/x.whl\n"
    _script(repo / ".venv" / "bin" / "pip", f"printf '{frozen}'")
    done = dev("freeze")
    assert done.returncode == 0, done.stderr
    lines = (repo / "constraints.txt").read_text().splitlines()
    assert [line for line in lines if not line.startswith("#")] == ["rich==13.9.4", "torch==2.13.0"]
    assert lines[0].startswith("# ") and "wrote constraints.txt (2 packages)" in done.stderr


def test_dev_sh_says_what_it_installs_system_wide_before_it_does(tmp_path):
    _, dev, calls, log = _sandbox(tmp_path / "root", system_tools=("chromium", "docker-compose"), uid=0)
    done = dev("setup")
    assert done.returncode == 0, done.stderr
    assert "installing system-wide with apt-get: bubblewrap" in done.stderr
    assert "apt-get install -y -qq --no-install-recommends bubblewrap" in log.read_text()
    _, dev, calls, _ = _sandbox(tmp_path / "user", system_tools=(), uid=1000)
    done = dev("setup")
    assert done.returncode == 0 and "apt-get" not in calls()
    assert "not installed: bubblewrap chromium docker-compose" in done.stderr


def test_dev_sh_setup_compiles_the_project_bytecode_and_a_bad_file_does_not_stop_it(tmp_path):
    """Installing also compiles the project's modules, so a start reads ``.pyc`` even where
    PYTHONDONTWRITEBYTECODE is set; a file that does not compile is left to its import to report."""
    repo, dev, calls, log = _sandbox(tmp_path)
    (repo / "simulator").mkdir()
    (repo / "simulator" / "fine.py").write_text("X = 1\n")
    (repo / "simulator" / "broken.py").write_text("def (\n")
    done = dev("hello")
    assert done.returncode == 0 and done.stdout == "hello \n", done.stderr
    compiled = [p.name for p in (repo / "simulator" / "__pycache__").iterdir()]
    assert any(name.startswith("fine.") for name in compiled) and not any(n.startswith("broken.") for n in compiled)


def test_dev_sh_a_command_only_the_test_extras_have_installs_everything(tmp_path):
    repo, dev, calls, log = _sandbox(tmp_path)
    _script(repo / ".venv" / "bin" / "pip", f'echo "pip $*" >> {log}; case "$*" in *trl*) '
                                            f'printf "#!/bin/sh\\necho mypy here\\n" > {repo}/.venv/bin/mypy; '
                                            f'{shutil.which("chmod")} +x {repo}/.venv/bin/mypy;; esac')
    done = dev("mypy")   # as ./dev.sh mypy on a clone that only served so far: mypy comes with the test extra
    assert done.returncode == 0 and done.stdout == "mypy here\n", done.stderr
    assert calls() == ["pip", "pip", "side-pip", "openenv-pip", "nemo-pip", "npm"]
