"""The client side, for a user's environment with ``openenv`` installed (``pip install openenv``).

officeworld's actions and observations are plain JSON (``{"tool": NAME, "arguments": {...}}`` in; the tool's
result, ``task_id``, ``instructions`` and ``tools`` out; reward and done on the step that ends the episode), so
OpenEnv's ``GenericEnvClient`` is the client::

    async with OfficeWorldEnv(base_url="http://localhost:8000") as env:
        result = await env.reset(task="crm-close-globex-renewal")
        result = await env.step({"tool": "crm_search", "arguments": {"text": "globex"}})
"""

from openenv import GenericEnvClient


class OfficeWorldEnv(GenericEnvClient):
    """OpenEnv's generic client over officeworld's WebSocket session (one world episode a session)."""
