"""The taskset's default harness: verifiers' own chat loop (the ``null`` harness's program: a chat with the
rollout's MCP tools until a reply without tool calls), run by this interpreter.

The stock ``null`` and ``bash`` harnesses build the program's environment with ``uv`` at run time, which
downloads ``openai``, ``mcp`` and friends; this venv already holds them (they are verifiers' own
dependencies), so nothing is fetched when a rollout starts. It runs on the host, so it needs the
``subprocess`` runtime; in a container pick ``--env.agent.harness.id null`` instead (the toolset, the
episode's MCP URL, works with any harness that speaks MCP).
"""

from __future__ import annotations

import sys

from verifiers.v1.clients import ModelContext
from verifiers.v1.errors import HarnessError
from verifiers.v1.harnesses.null.harness import NullHarness
from verifiers.v1.harnesses.utils.launch import CHAT_PROGRAM_SOURCE, launch_chat_program
from verifiers.v1.runtimes import ProgramResult, Runtime
from verifiers.v1.task import TaskData
from verifiers.v1.trace import Trace

PROGRAM = "vf-officeworld-chat.py"


class _ThisInterpreter:
    """The runtime, except that the chat program runs with this interpreter instead of in an environment
    that ``uv`` would build for it."""

    def __init__(self, runtime: Runtime):
        self._runtime = runtime

    def __getattr__(self, name: str):
        return getattr(self._runtime, name)

    async def prepare_uv_script(self, script: str | bytes, env: dict | None = None, *, activate: bool = True):
        await self._runtime.write(PROGRAM, script.encode() if isinstance(script, str) else script)
        return [sys.executable, PROGRAM]


class WorldHarness(NullHarness):
    """``null``'s program and arguments (``launch_chat_program``), this interpreter."""

    async def setup(self, runtime: Runtime) -> None:
        if runtime.type != "subprocess":
            raise HarnessError(f"the officeworld harness runs on the host (subprocess runtime), not {runtime.type!r}: "
                               "use --env.agent.harness.id null in a container")

    async def cleanup(self, trace, runtime: Runtime) -> None:
        """verifiers runs this on every path (a failed rollout skips the task's ``finalize``): the rollout's
        episode, if still open, is deleted."""
        from officeworld_verifiers.taskset import close_episode

        await super().cleanup(trace, runtime)
        episode = getattr(trace.state, "episode_id", None)
        if episode is not None:
            await close_episode(episode)

    async def launch(self, ctx: ModelContext, trace: Trace, runtime: Runtime, endpoint: str, secret: str,
                     mcp_urls: dict[str, str], data: TaskData, tool_interception_url: str | None = None
                     ) -> ProgramResult:
        system_prompt, prompt = self.resolve_prompt(data)
        extra = [f"--tool-interception-url={tool_interception_url}"] if tool_interception_url else []
        return await launch_chat_program(CHAT_PROGRAM_SOURCE, self.config, ctx, trace, _ThisInterpreter(runtime),
                                         endpoint, secret, mcp_urls, system_prompt, prompt, extra_args=extra)
