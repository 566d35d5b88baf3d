"""The agent's surfaces for ``officeworld tasks check``: the oracle through REST, MCP and ``ow``, and
probes that an agent cannot reach grader or admin routes through them.

REST goes through a FastAPI TestClient over ``build_app`` (in process); MCP uses the official client
against the same app served on a loopback port; ``ow`` runs as a subprocess per call (about a
second each, so the check runs it on a sample). Each acts in an episode the check created in the
same ``EpisodeStore``, so the check grades what the surface did.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

from mcp import Client

from apps.kit.cli import kind, positional
from apps.kit.episode import Episode
from tasks.model import Call
from tasks.qa.attempt import unescape

ROOT = Path(__file__).parents[2]   # the repository root (simulator/tasks/surfaces.py), where python -m simulator.agent.ow runs
GRADER_WORDS = ("grade", "oracle", "criteria", "finish", "reward", "admin", "verif")


def _plain(args: dict) -> dict:
    return json.loads(json.dumps(unescape(args), default=str))


def grader_paths(episode_id: str) -> list[tuple[str, str]]:
    """Control and grader routes, tried through the agent's per-episode prefix."""
    api = f"/episodes/{episode_id}/api"
    return [("GET", f"{api}/v1/tasks"), ("POST", f"{api}/v1/episodes/{episode_id}/finish"),
            ("GET", f"{api}/v1/episodes/{episode_id}/trajectory"), ("POST", f"{api}/v1/episodes"),
            ("POST", f"{api}/task/grade"), ("POST", f"{api}/task/finish"), ("GET", f"{api}/task/oracle"),
            ("GET", f"{api}/%2e%2e/%2e%2e/v1/tasks"), ("POST", f"{api}/control/finish")]


class RestSurface:
    name, probes = "rest", True

    def __init__(self, client):
        self.client = client   # a TestClient over simulator.gateway.server.build_app(store)

    def run(self, episode: Episode, calls: list[Call]) -> list[str]:
        errors = []
        for c in calls:
            r = self.client.post(f"/episodes/{episode.id}/api/{c.app}/{c.name}", json=_plain(c.args))
            if r.status_code >= 400:
                errors.append(f"{c.op}: {r.status_code} {r.text[:200]}")
        return errors

    def probe(self, episode: Episode) -> list[str]:
        reached = []
        for method, path in grader_paths(episode.id):
            r = self.client.request(method, path, json={})
            if r.status_code < 400:
                reached.append(f"{method} {path} -> {r.status_code}")
        return reached


class McpSurface:
    name, probes = "mcp", True

    def __init__(self, base_url: str, tool_names: set[str]):
        self.base_url = base_url          # the app served on loopback (simulator.service.serve.serve_in_thread)
        self.tool_names = tool_names      # app_operation names every tool must be one of

    def run(self, episode: Episode, calls: list[Call]) -> list[str]:
        pairs = [(f"{c.app}_{c.name}", _plain(c.args)) for c in calls]
        _, results = asyncio.run(self._session(episode, pairs))
        return [f"{name}: {r.content[0].text if r.content else ''}"[:200]
                for (name, _), r in zip(pairs, results) if r.is_error]

    def probe(self, episode: Episode) -> list[str]:
        tools, results = asyncio.run(self._session(episode, [("grade", {}), ("finish_episode", {})]))
        reached = [f"tool {t.name}" for t in tools
                   if t.name not in self.tool_names or any(w in t.name for w in GRADER_WORDS)]
        return reached + [f"call {n} succeeded" for n, r in zip(("grade", "finish_episode"), results) if not r.is_error]

    async def _session(self, episode: Episode, calls: list[tuple[str, dict]]):
        async with Client(f"{self.base_url}/episodes/{episode.id}/mcp") as client:
            tools = (await client.list_tools()).tools
            results = [await client.call_tool(name, args) for name, args in calls]
            return tools, results


class OwSurface:
    name, probes = "ow", False   # ow only wraps the REST routes probed above

    def __init__(self, base_url: str, operations: dict):
        self.base_url, self.operations = base_url, operations

    def run(self, episode: Episode, calls: list[Call]) -> list[str]:
        env = {**os.environ, "OW_URL": self.base_url, "OW_EPISODE": episode.id}
        errors = []
        for c in calls:
            argv = [sys.executable, "-m", "simulator.agent.ow", *ow_args(self.operations[c.op], _plain(c.args))]
            done = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=60, cwd=ROOT)
            if done.returncode != 0:
                errors.append(f"{c.op}: exit {done.returncode}: {done.stderr.strip()[:200]}")
        return errors

    def probe(self, episode: Episode) -> list[str]:
        return []


def ow_args(op, args: dict) -> list[str]:
    """``ow`` arguments for an operation call: the positional one bare, lists repeated, objects as JSON."""
    named = positional(op)
    out = [op.app, op.name.replace("_", "-")]
    for p in op.params:
        if p.name not in args or args[p.name] is None:
            continue
        value, flag = args[p.name], f"--{p.name.replace('_', '-')}"
        how = kind(p.annotation)
        if p.name == named:
            out.append(str(value))
        elif how == "json":
            out += [flag, json.dumps(value)]
        elif how == "list":
            for item in value:
                out += [flag, str(item)]
        elif isinstance(value, bool):
            out.append(flag if value else f"--no-{p.name.replace('_', '-')}")
        else:
            out += [flag, str(value)]
    return out
