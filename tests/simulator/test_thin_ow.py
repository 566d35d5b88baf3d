"""``ow`` is a thin client: the tools endpoint it builds from, its cache, its imports, its output."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys

import httpx
import pytest
import yaml
from surfaces import CONTROL, ROOT, new_episode, run_ow

from apps.kit import errors
from apps.kit.cli import kind as kit_kind
from apps.kit.cli import positional
from apps.kit.rest import SURFACE_HEADER
from simulator.agent import ow
from simulator.agent.output import to_yaml
from simulator.agent.shell import OW_FILES
from simulator.store.registry import APPS, all_operations


def test_the_tools_endpoint_serves_every_operation_of_the_episode(api, episode):
    got = api.get(f"/episodes/{episode['id']}/api/tools")
    assert got.status_code == 200
    tools = {(t["app"], t["name"]): t for t in got.json()["tools"]}
    assert [a["name"] for a in got.json()["apps"]] == list(APPS)
    for op in all_operations():
        tool = tools.pop((op.app, op.name))
        assert tool["input_schema"] == op.input_schema() and tool["description"] == op.description
        assert tool["positional"] == positional(op) and tool["mutates"] == op.mutates
    assert tools == {}
    assert tools_of(api, episode)["mail_reply_all"]["positional"] is None  # two required arguments
    assert tools_of(api, episode)["mail_search"]["positional"] == "query"
    missing = api.get("/episodes/ep_nope/api/tools")
    assert missing.status_code == 404 and "ep_nope" in missing.json()["error"]["message"]


def tools_of(api, episode) -> dict:
    return {f"{t['app']}_{t['name']}": t for t in api.get(f"/episodes/{episode['id']}/api/tools").json()["tools"]}


def test_the_client_reads_each_schema_as_the_kit_types_the_argument():
    """ow classifies arguments from JSON schemas, the kit from annotations: the two must agree."""
    for op in all_operations():
        properties = op.input_schema()["properties"]
        for p in op.params:
            assert ow.kind(properties[p.name])[0] == kit_kind(p.annotation), f"{op.qualified_name}.{p.name}"


def test_constants_the_client_repeats_match_the_kit():
    assert ow.SURFACE_HEADER == SURFACE_HEADER
    for cls in (errors.NotFound, errors.Forbidden, errors.Invalid, errors.Conflict, errors.Unavailable):
        assert ow.EXIT_CODES[cls.kind] == cls.exit_code


def _imports(env: dict, *args: str) -> tuple[subprocess.CompletedProcess, set[str]]:
    entry = "from simulator.agent.ow import main; main()"  # what the installed ow script runs
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", entry, *args],
                          capture_output=True, text=True, env=env, timeout=60, cwd=ROOT)
    modules = {line.split("|")[-1].strip() for line in done.stderr.splitlines() if line.startswith("import time:")}
    return done, modules


def test_ow_imports_nothing_of_the_server(live_server, world_dir, tmp_path):
    episode = new_episode(live_server, world_dir)
    env = {**os.environ, "OW_URL": live_server, "OW_EPISODE": episode["id"], "OW_CACHE": str(tmp_path)}
    for args in (("mail", "search", "from:sam", "--json"), ("mail", "get-message", "1"), ("--help",)):
        done, modules = _imports(env, *args)
        assert done.returncode == 0, done.stderr[-500:]
        heavy = {m for m in modules if m.split(".")[0] in (
            "fastapi", "starlette", "pydantic", "sqlmodel", "sqlalchemy", "httpx", "typer", "click", "rich", "yaml",
            "mcp", "apps", "worlds", "uvicorn", "http", "email")}
        assert heavy == set(), args
        project = {m for m in modules if m.split(".")[0] == "simulator"}
        assert project == {f"simulator.{f[:-3]}".replace("/", ".").removesuffix(".__init__") for f in OW_FILES}


def test_the_tool_list_is_fetched_once_and_then_read_from_the_cache(live_server, world_dir, tmp_path, monkeypatch):
    episode = new_episode(live_server, world_dir)
    monkeypatch.setenv("OW_CACHE", str(tmp_path))
    first = run_ow(live_server, episode["id"], "mail", "list-labels")
    assert first.returncode == 0, first.stderr
    [cached] = list(tmp_path.glob(f"{episode['id']}-*.json"))
    data = json.loads(cached.read_text())
    data["apps"][0]["title"] = "Mail, as cached"
    cached.write_text(json.dumps(data))
    assert "Mail, as cached" in run_ow(live_server, episode["id"], "mail", "--help").stdout
    cached.write_text("{not json")  # a broken cache entry is fetched again
    assert "Mail, as cached" not in run_ow(live_server, episode["id"], "mail", "--help").stdout
    assert json.loads(cached.read_text())["apps"][0]["title"] == "Mail"
    other = new_episode(live_server, world_dir)  # another episode has its own entry
    assert run_ow(live_server, other["id"], "mail", "list-labels").returncode == 0
    assert len(list(tmp_path.glob("*.json"))) == 2


def test_help_usage_errors_and_an_unreachable_server(live_server, world_dir):
    episode = new_episode(live_server, world_dir)
    top = run_ow(live_server, episode["id"], "--help")
    assert top.returncode == 0 and all(app in top.stdout for app in ("mail", "crm", "docs"))
    mail = run_ow(live_server, episode["id"], "mail", "--help")
    assert mail.returncode == 0 and "reply-all" in mail.stdout and "get-message" in mail.stdout
    reply = run_ow(live_server, episode["id"], "mail", "reply-all", "--help")
    assert reply.returncode == 0 and "--message-id" in reply.stdout and "--body" in reply.stdout
    unknown = run_ow(live_server, episode["id"], "mail", "explode")
    assert unknown.returncode == 2 and "no operation 'explode'" in unknown.stderr
    missing = run_ow(live_server, episode["id"], "mail", "reply-all", "12")
    assert missing.returncode == 2 and "--message-id" in missing.stderr
    not_int = run_ow(live_server, episode["id"], "mail", "get-message", "twelve")
    assert not_int.returncode == 2 and "'twelve' is not a valid integer" in not_int.stderr
    gone = run_ow("http://127.0.0.1:9", episode["id"], "mail", "list-labels")
    assert gone.returncode == 3 and "cannot reach" in gone.stderr
    offline_help = run_ow("http://127.0.0.1:9", episode["id"], "--help")  # compose's health check
    assert offline_help.returncode == 0 and "usage: ow" in offline_help.stdout and "cannot reach" in offline_help.stdout
    no_app = run_ow(live_server, episode["id"], "payroll", "list")
    assert no_app.returncode == 2 and "no app 'payroll'" in no_app.stderr
    no_episode = run_ow(live_server, "ep_nope", "mail", "list-labels")
    assert no_episode.returncode == 4 and "ep_nope" in no_episode.stderr


def test_lists_flags_and_options_left_out(live_server, world_dir):
    episode = new_episode(live_server, world_dir)
    star = run_ow(live_server, episode["id"], "mail", "search", "in:inbox", "--limit", "2", "--json")
    ids = [m["id"] for m in json.loads(star.stdout)["messages"]]
    done = run_ow(live_server, episode["id"], "mail", "star", "--message-ids", str(ids[0]), "--message-ids", str(ids[1]))
    assert done.returncode == 0, done.stderr
    steps = httpx.get(f"{live_server}/v1/episodes/{episode['id']}/trajectory", headers=CONTROL).json()["steps"]
    assert steps[-1]["arguments"] == {"message_ids": ids}
    starred = json.loads(run_ow(live_server, episode["id"], "mail", "search", "is:starred", "--json").stdout)
    assert set(ids) <= {m["id"] for m in starred["messages"]}
    commas = run_ow(live_server, episode["id"], "mail", "mark-unread", "--message-ids", f"{ids[0]}, {ids[1]}")
    assert commas.returncode == 0, commas.stderr
    trajectory = httpx.get(f"{live_server}/v1/episodes/{episode['id']}/trajectory", headers=CONTROL).json()
    assert trajectory["steps"][-1]["arguments"] == {"message_ids": ids}
    bad = run_ow(live_server, episode["id"], "mail", "star", "--message-ids", "1,two")
    assert bad.returncode == 2 and "--message-ids: 'two' is not a valid integer" in bad.stderr


def test_yaml_output_loads_back_to_the_result():
    texts = ["plain", "", "yes", "null", "12", "1.5", "2026-03-20", "Re: Globex", "a #b", "- x", "x:", " lead",
             "two\nlines", "ends\n", "ends twice\n\n", "\nstarts", "tab\tin", "a\x00b", "\u2028", "é", "'q'", '"q"']
    atoms = [*texts, 0, -3, 1.25, 1e-09, True, False, None]
    rng = random.Random(7)

    def value(depth=0):
        pick = rng.random()
        if depth > 3 or pick < 0.5:
            return rng.choice(atoms)
        if pick < 0.75:
            return {rng.choice(texts): value(depth + 1) for _ in range(rng.randint(0, 4))}
        return [value(depth + 1) for _ in range(rng.randint(0, 4))]

    for data in [*atoms, *({t: t} for t in texts), *(value() for _ in range(1500))]:
        assert yaml.safe_load(to_yaml(data) + "\n") == data, to_yaml(data)
    assert to_yaml({"body": "Hi\nthere"}) == "body: |-\n  Hi\n  there"


@pytest.mark.parametrize("url", ["http://127.0.0.1:1", "http://localhost:1/prefix"])
def test_requests_go_where_ow_url_says(url, monkeypatch):
    monkeypatch.setenv("OW_URL", url)
    with pytest.raises(ow.Failure) as failure:
        ow.request("GET", "/episodes/x/api/tools")
    assert failure.value.code == 3 and url in str(failure.value)


def test_the_readmes_placeholder_episode_is_said_to_be_one(live_server):
    # Copied as is from the README (export OW_EPISODE=ep_…), it was reported as an unreachable server (latin-1).
    done = run_ow(live_server, "ep_…", "mail", "list-labels")
    assert done.returncode == 2 and "OW_EPISODE is 'ep_…', not an episode id" in done.stderr
    assert "cannot reach" not in done.stderr
