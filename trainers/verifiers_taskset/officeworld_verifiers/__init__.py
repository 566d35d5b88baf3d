"""officeworld's tasks as a verifiers v1 taskset (``vf-eval officeworld-verifiers``, ``vf-validate officeworld-verifiers``).

Each rollout opens its own episode of a running world (``officeworld up``), the episode's MCP endpoint is the
agent's toolset, and the reward is the world's grade at ``finish``. The package also ships a harness, the
stock chat loop run by this interpreter (verifiers' ``null`` harness installs it with ``uv`` at run time).
"""

from officeworld_verifiers.harness import WorldHarness
from officeworld_verifiers.taskset import WorldTask, WorldTaskset

__all__ = ["WorldHarness", "WorldTask", "WorldTaskset"]
