"""What ``tasks check`` asks of the agent's sandbox: can the task definitions or the grader-only facts
be read from inside the shell jail? Any such file is an answer within the agent's reach."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

import tasks
import worlds
from sandbox.jail import Jail, Limits, unavailable_reason
from simulator.agent.shell import episode_jail

LIST = ["sh", "-c", "find / \\( -path /proc -o -path /sys -o -path /dev \\) -prune -o -type f -print 2>/dev/null"]


def grader_files(suites: Path) -> list[Path]:
    """The files only the control plane may read: task definitions, labelled sets, worlds' grader facts."""
    calibration = Path(tasks.__file__).parent / "calibration"
    found = [*suites.rglob("*.yaml"), *calibration.glob("*.yaml"), *Path(worlds.__file__).parent.glob("*/FACTS.md")]
    return sorted(p.resolve() for p in found)


def readable_grader_files(suites: Path, jail: Callable[[], Jail] | None = None) -> list[str] | None:
    """Grader files readable in the jail (by their path or by their path below the package), or None
    when no jail can run here (the probe did not run)."""
    if unavailable_reason() is not None:
        return None
    secret = grader_files(suites)
    make = jail or (lambda: episode_jail("http://127.0.0.1:9", "ep_sandbox_probe", Limits(cpu_seconds=30, wall_seconds=120)))
    with make() as opened:
        listed = opened.run(LIST).stdout.splitlines()
    base = Path(tasks.__file__).resolve().parent.parent
    suffixes = tuple("/" + str(p.relative_to(base)) if p.is_relative_to(base) else str(p) for p in secret)
    return sorted(f for f in listed if f.endswith(suffixes) or f in {str(p) for p in secret})
