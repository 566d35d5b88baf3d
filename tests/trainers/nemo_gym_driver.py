"""Run in NeMo Gym's venv (.venv-nemo, Python 3.12) by test_nemo_gym.py: NeMo Gym's own ``SimpleAgent`` and
``ServerClient`` drive officeworld's resources server (``trainers.nemo_gym``) against a world the test runs, with a
stand-in model server (Responses API) that replays a script of tool calls. Prints one JSON report of what happened;
the test asserts on it.

    python nemo_gym_driver.py WORLD_URL TOKEN SCENARIO_JSON     # SCENARIO: {"task", "calls": [{tool, arguments}]}
"""

from __future__ import annotations

import asyncio
import json
import socket
import sys
import threading
import time
import uuid

import httpx
import uvicorn
from fastapi import FastAPI, Request
from nemo_gym.config_types import BaseServerConfig, ModelServerRef, ResourcesServerRef
from nemo_gym.server_utils import GlobalAIOHTTPAsyncClientConfig, ServerClient, set_global_aiohttp_client
from omegaconf import OmegaConf
from responses_api_agents.simple_agent.app import SimpleAgent, SimpleAgentConfig

from simulator.gateway.client import Client
from trainers.nemo_gym import OfficeWorldResourcesServer, OfficeWorldResourcesServerConfig, task_row


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def stand_in_model(calls: list[dict]) -> FastAPI:
    """A Responses API model that answers the n-th turn with the n-th scripted call, then with a plain message."""
    app = FastAPI()

    @app.post("/v1/responses")
    async def responses(request: Request) -> dict:
        body = await request.json()
        turn = sum(1 for item in body.get("input", []) if item.get("type") == "function_call_output")
        if turn < len(calls):
            output = [{"type": "function_call", "id": f"fc_{turn}", "call_id": f"call_{turn}", "status": "completed",
                       "name": calls[turn]["tool"], "arguments": json.dumps(calls[turn]["arguments"])}]
        else:
            output = [{"type": "message", "id": "msg_end", "role": "assistant", "status": "completed",
                       "content": [{"type": "output_text", "text": "Done.", "annotations": []}]}]
        return {"id": f"resp_{uuid.uuid4().hex}", "created_at": time.time(), "model": "stand-in", "object": "response",
                "output": output, "parallel_tool_calls": False, "tool_choice": "auto", "tools": []}
    return app


def serve(apps: dict[str, tuple[FastAPI, int]]) -> tuple[threading.Thread, list[uvicorn.Server]]:
    """Every app on one event loop in a thread (NeMo's aiohttp client is made in, and bound to, that loop)."""
    servers = [uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="error", lifespan="on"))
               for app, port in apps.values()]

    async def main() -> None:
        set_global_aiohttp_client(GlobalAIOHTTPAsyncClientConfig())
        await asyncio.gather(*(server.serve() for server in servers))

    thread = threading.Thread(target=asyncio.run, args=(main(),), daemon=True)
    thread.start()
    for server in servers:
        while not server.started:
            time.sleep(0.05)
    return thread, servers


def main() -> int:
    world, token, scenario = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    names = {"officeworld": "resources_servers", "broken_world": "resources_servers", "model": "responses_api_models",
             "idle_model": "responses_api_models", "agent": "responses_api_agents",
             "idle_agent": "responses_api_agents", "broken_agent": "responses_api_agents"}
    ports = {name: free_port() for name in names}
    client = ServerClient(head_server_config=BaseServerConfig(host="127.0.0.1", port=free_port()),
                          global_config_dict=OmegaConf.create(
                              {name: {kind: {name: {"host": "127.0.0.1", "port": ports[name]}}}
                               for name, kind in names.items()}))

    def resources(name: str, url: str) -> OfficeWorldResourcesServer:
        config = OfficeWorldResourcesServerConfig(host="127.0.0.1", port=ports[name], entrypoint="", name=name,
                                                  world_url=url, world_token=token)
        return OfficeWorldResourcesServer(config=config, server_client=client)

    def agent(name: str, resources_name: str, model: str = "model") -> SimpleAgent:
        config = SimpleAgentConfig(host="127.0.0.1", port=ports[name], entrypoint="", name=name, max_steps=40,
                                   resources_server=ResourcesServerRef(type="resources_servers", name=resources_name),
                                   model_server=ModelServerRef(type="responses_api_models", name=model))
        return SimpleAgent(config=config, server_client=client)

    dead = f"http://127.0.0.1:{free_port()}"   # nothing listens there: the world is down
    thread, servers = serve({"officeworld": (resources("officeworld", world).setup_webserver(), ports["officeworld"]),
                             "broken_world": (resources("broken_world", dead).setup_webserver(), ports["broken_world"]),
                             "model": (stand_in_model(scenario["calls"]), ports["model"]),
                             "idle_model": (stand_in_model([]), ports["idle_model"]),
                             "agent": (agent("agent", "officeworld").setup_webserver(), ports["agent"]),
                             "idle_agent": (agent("idle_agent", "officeworld", "idle_model").setup_webserver(),
                                            ports["idle_agent"]),
                             "broken_agent": (agent("broken_agent", "broken_world").setup_webserver(),
                                              ports["broken_agent"])})
    report: dict = {}
    with Client(world, token) as ow:
        row = task_row(ow, scenario["task"])
        report["row_tools"] = [tool["name"] for tool in row["responses_create_params"]["tools"]]
        with httpx.Client(timeout=120) as http:
            for name in ("agent", "idle_agent", "broken_agent"):   # the scripted model, one that calls no tool, no world
                run = http.post(f"http://127.0.0.1:{ports[name]}/run", json=row)
                body = run.json() if run.status_code == 200 else {}
                report[name] = {"status": run.status_code, "reward": body.get("reward"), "passed": body.get("passed"),
                                "gradable": body.get("gradable"), "task_id": body.get("task_id"),
                                "calls": [item["name"] for item in body.get("response", {}).get("output", [])
                                          if item.get("type") == "function_call"]}
                report[f"open_after_{name}"] = len(ow.episodes())
            base = f"http://127.0.0.1:{ports['officeworld']}"
            report["unseeded_call"] = http.post(f"{base}/crm_search", json={"text": "x"}).status_code
            seeded = http.post(f"{base}/seed_session", json=row)   # a rollout whose verify never comes
            report["seeded"] = seeded.status_code
            report["open_before_shutdown"] = len(ow.episodes())
            broken = http.post(f"http://127.0.0.1:{ports['broken_world']}/seed_session", json=row)
            report["broken_seed"] = {"status": broken.status_code, "body": broken.text}
        for server in servers:
            server.should_exit = True
        thread.join(timeout=60)
        report["open_after_shutdown"] = len(ow.episodes())
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
