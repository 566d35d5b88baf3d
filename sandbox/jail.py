"""The ``jail`` backend: run a shell agent's commands under bubblewrap, with one way out.

Inside: a read-only view of /usr (and the paths given in ``ro_binds``: the interpreter, the agent's
tools), a private /tmp, new PID/IPC/UTS/user/network namespaces (no address is reachable, not even
the host's loopback), and a unix socket at ``/run/bridge/http.sock`` that a ``Bridge`` forwards to
the server for the allowed path prefixes only. Each command runs under CPU-time and address-space
limits (``prlimit``) and a wall-clock timeout.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from sandbox.bridge import Bridge

SOCKET_IN_JAIL = "/run/bridge/http.sock"
_SYSTEM = ("/usr", "/etc/alternatives", "/etc/ssl", "/etc/localtime")


@dataclass
class Limits:
    cpu_seconds: int = 30
    memory_bytes: int = 2 << 30
    wall_seconds: float = 60.0


def _tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise RuntimeError(f"{name} is not installed (apt-get install bubblewrap util-linux)")
    return found


def unavailable_reason() -> str | None:
    """``None`` when bubblewrap can build a jail here, else why not (its exact complaint)."""
    bwrap, prlimit = shutil.which("bwrap"), shutil.which("prlimit")
    if bwrap is None or prlimit is None:
        return f"{'bwrap' if bwrap is None else 'prlimit'} is not installed (apt-get install bubblewrap util-linux)"
    done = subprocess.run([bwrap, "--ro-bind", "/usr", "/usr", *_merged_usr(), "--unshare-all",
                           "--die-with-parent", "true"], capture_output=True, text=True, timeout=30)
    return None if done.returncode == 0 else f"bubblewrap cannot create namespaces here: {done.stderr.strip()}"


@dataclass
class Jail:
    """A jail for one agent: ``run`` executes commands in it while the bridge is open."""

    upstream: str
    allow_prefixes: list[str]
    env: dict[str, str] = field(default_factory=dict)
    ro_binds: list[Path] = field(default_factory=list)
    limits: Limits = field(default_factory=Limits)

    def __enter__(self) -> "Jail":
        self._dir = Path(tempfile.mkdtemp(prefix="officeworld-jail-"))
        (self._dir / "bridge").mkdir()
        self._bridge = Bridge(self._dir / "bridge" / "http.sock", self.upstream, self.allow_prefixes).__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self._bridge.__exit__(*exc)
        shutil.rmtree(self._dir, ignore_errors=True)

    def run(self, argv: list[str], timeout: float | None = None) -> subprocess.CompletedProcess:
        """Run ``argv`` in the jail; returns its exit status and captured output."""
        return subprocess.run(self.command(argv), capture_output=True, text=True,
                              timeout=timeout or self.limits.wall_seconds, stdin=subprocess.DEVNULL)

    def command(self, argv: list[str]) -> list[str]:
        limits = [_tool("prlimit"), f"--cpu={self.limits.cpu_seconds}", f"--as={self.limits.memory_bytes}"]
        return [*limits, "--", _tool("bwrap"), *self._bwrap_args(), "--", *argv]

    def _bwrap_args(self) -> list[str]:
        args = ["--unshare-all", "--die-with-parent", "--new-session", "--uid", "1000", "--gid", "1000",
                "--hostname", "jail", "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--chdir", "/tmp",
                *_merged_usr(), "--ro-bind", str(self._dir / "bridge"), str(Path(SOCKET_IN_JAIL).parent),
                "--clearenv", "--setenv", "HOME", "/tmp", "--setenv", "LANG", "C.UTF-8"]
        for path in [*_SYSTEM, *map(str, self.ro_binds)]:
            if Path(path).exists():
                args += ["--ro-bind", path, path]
        for key, value in self.env.items():
            args += ["--setenv", key, value]
        return args


def _merged_usr() -> list[str]:
    """/bin, /lib and friends as the links into /usr that a merged-/usr system has."""
    links = []
    for name in ("bin", "sbin", "lib", "lib64"):
        if Path(f"/usr/{name}").exists():
            links += ["--symlink", f"usr/{name}", f"/{name}"]
    return links
