"""The ``jail`` backend: run a shell agent's commands under bubblewrap, with one way out.

Inside: a read-only view of /usr (and the paths given in ``ro_binds``: the interpreter, the agent's
tools), a private /tmp, new PID/IPC/UTS/user/network namespaces (no address is reachable, not even
the host's loopback), and a unix socket at ``/run/bridge/http.sock`` that a ``Bridge`` forwards to
the server for the allowed path prefixes only. Each command runs under CPU-time and address-space
limits (``prlimit``) and a wall-clock timeout.

``mounts`` place host files at other paths inside (``host -> in-jail``), ``hide`` lays an empty
tmpfs over directories that a bind would otherwise show (an interpreter's site-packages), ``links``
makes symlinks and ``files`` writes small read-only files (``in-jail path -> text``). Both
``prlimit`` and bubblewrap start from ``MINIMAL_ENV``, not the caller's environment: bubblewrap is
PID 1 of the jail, its environment is readable inside at ``/proc/1/environ``, and the operator's
(``OFFICEWORLD_TOKEN``, the admin token, judge keys) must not be.
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
MINIMAL_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8"}


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
                           "--die-with-parent", "true"], capture_output=True, text=True, timeout=30, env=MINIMAL_ENV)
    return None if done.returncode == 0 else f"bubblewrap cannot create namespaces here: {done.stderr.strip()}"


@dataclass
class Jail:
    """A jail for one agent: ``run`` executes commands in it while the bridge is open."""

    upstream: str
    allow_prefixes: list[str]
    env: dict[str, str] = field(default_factory=dict)
    ro_binds: list[Path] = field(default_factory=list)
    mounts: dict[Path, str] = field(default_factory=dict)
    hide: list[Path] = field(default_factory=list)
    links: dict[str, str] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)
    limits: Limits = field(default_factory=Limits)

    def __enter__(self) -> "Jail":
        self._dir = Path(tempfile.mkdtemp(prefix="officeworld-jail-"))
        (self._dir / "bridge").mkdir()
        for n, (inside, text) in enumerate(self.files.items()):
            (self._dir / f"file{n}").write_text(text)
            (self._dir / f"file{n}").chmod(0o555)
        self._bridge = Bridge(self._dir / "bridge" / "http.sock", self.upstream, self.allow_prefixes).__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self._bridge.__exit__(*exc)
        shutil.rmtree(self._dir, ignore_errors=True)

    def run(self, argv: list[str], timeout: float | None = None) -> subprocess.CompletedProcess:
        """Run ``argv`` in the jail; returns its exit status and captured output."""
        return subprocess.run(self.command(argv), capture_output=True, text=True, env=MINIMAL_ENV,
                              timeout=timeout or self.limits.wall_seconds, stdin=subprocess.DEVNULL)

    def attach(self, argv: list[str]) -> int:
        """Run ``argv`` in the jail on this terminal (stdin, stdout and stderr passed through); its exit status."""
        return subprocess.run(self.command(argv), env=MINIMAL_ENV, timeout=self.limits.wall_seconds).returncode

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
        for host, inside in self.mounts.items():
            args += ["--ro-bind", str(host), inside]
        for hidden in self.hide:
            if hidden.is_dir() and self._shown(hidden):
                args += ["--tmpfs", str(hidden), "--remount-ro", str(hidden)]
        for n, inside in enumerate(self.files):
            args += ["--ro-bind", str(self._dir / f"file{n}"), inside]
        for target, link in self.links.items():
            args += ["--dir", str(Path(link).parent), "--symlink", target, link]
        for key, value in self.env.items():
            args += ["--setenv", key, value]
        return args


    def _shown(self, path: Path) -> bool:
        return any(path.is_relative_to(bound) for bound in [*map(Path, _SYSTEM), *self.ro_binds])


def _merged_usr() -> list[str]:
    """/bin, /lib and friends as the links into /usr that a merged-/usr system has."""
    links = []
    for name in ("bin", "sbin", "lib", "lib64"):
        if Path(f"/usr/{name}").exists():
            links += ["--symlink", f"usr/{name}", f"/{name}"]
    return links
