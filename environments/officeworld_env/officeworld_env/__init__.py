"""officeworld as a verifiers environment package, the way the Environments Hub installs one.

``prime env install OWNER/officeworld-env`` (or ``pip install officeworld-env`` from the Hub's index) installs this
module; ``vf-eval OWNER/officeworld-env`` imports it by its name (verifiers strips the owner and the version) and
takes the taskset and the harness it exports in ``__all__``: ``officeworld-verifiers``' own, unchanged. Rollouts
run against a world the user started (``officeworld up``): ``OFFICEWORLD_URL`` (or
``--env.taskset.task.world-url``) and the token in ``OFFICEWORLD_TOKEN``.

In Python, ``load_environment(world_url=..., suite=...)`` is verifiers' own loader (``vf.load_environment``) for
this package's id, with the taskset's settings as keywords.
"""

from __future__ import annotations

from typing import Any

import verifiers.v1 as vf
from officeworld_verifiers import WorldHarness, WorldTask, WorldTaskset

ENV_ID = "officeworld-env"


def load_environment(world_url: str | None = None, **taskset: Any) -> vf.Env:
    """The verifiers environment over the world at ``world_url`` (default ``OFFICEWORLD_URL``); ``taskset`` are
    ``WorldTasksetConfig``'s fields (``suite``, ``tag``, ``tasks``, ``task={"toolset": "all"}``...)."""
    task = dict(taskset.pop("task", None) or {})
    if world_url is not None:
        task["world_url"] = world_url
    return vf.load_environment(vf.resolve_env_config({"taskset": {"id": ENV_ID, "task": task, **taskset}}))


__all__ = ["WorldHarness", "WorldTask", "WorldTaskset", "load_environment"]
