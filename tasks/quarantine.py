"""Quarantined tasks: those whose verifier failed a QA gate, kept out of listings and runs until fixed.

``tasks/suites/QUARANTINE.yaml`` maps a task id to the reason (written by ``officeworld tasks check
--quarantine``); a task comes out when its check passes again.
"""

from __future__ import annotations

from pathlib import Path

import yaml

FILE = "QUARANTINE.yaml"


def load_quarantine(root: Path) -> dict[str, str]:
    path = root / FILE
    if not path.is_file():
        return {}
    data = yaml.safe_load(path.read_text()) or {}
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a mapping of task id to reason")
    return {str(k): str(v) for k, v in data.items()}


def save_quarantine(root: Path, entries: dict[str, str]) -> None:
    path = root / FILE
    if not entries:
        path.unlink(missing_ok=True)
        return
    header = "# Tasks kept out of GET /v1/tasks and the runner until `officeworld tasks check` passes them.\n"
    path.write_text(header + yaml.safe_dump(dict(sorted(entries.items())), sort_keys=False, width=120))
