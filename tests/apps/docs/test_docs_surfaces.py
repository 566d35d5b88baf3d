"""The docs app over MCP (the official client, streamable HTTP) and the agent CLI ``ow docs ...``."""

import asyncio
import json

import httpx
import pytest
from surfaces import CONTROL, mcp_session, new_episode, run_ow


def test_mcp_lists_docs_tools_with_described_arguments(live_server, world_dir):
    episode = new_episode(live_server, world_dir)
    tools, _ = asyncio.run(mcp_session(episode["mcp_url"], []))
    by_name = {t.name: t for t in tools}
    assert {"docs_search", "docs_replace_in_document", "docs_update_cells", "docs_share", "docs_add_comment",
            "docs_restore_revision"} <= set(by_name)
    replace = by_name["docs_replace_in_document"]
    assert replace.input_schema["required"] == ["file_id", "find", "replace_with"]
    assert "exact passage" in replace.input_schema["properties"]["find"]["description"]
    assert by_name["docs_get_spreadsheet"].annotations.read_only_hint is True
    assert by_name["docs_trash"].annotations.read_only_hint is False


def test_mcp_edits_a_sheet_and_reads_the_recomputed_total(live_server, world_dir):
    episode = new_episode(live_server, world_dir)
    _, (found,) = asyncio.run(mcp_session(episode["mcp_url"], [("docs_search", {"query": "pipeline"})]))
    sheet = found.structured_content["files"][0]["id"]
    _, (updated, read) = asyncio.run(mcp_session(episode["mcp_url"], [
        ("docs_update_cells", {"file_id": sheet, "cells": {"B3": 60000}}),
        ("docs_read_file", {"file_id": sheet}),
    ]))
    assert not updated.is_error and updated.structured_content["rows"][3][1] == 244000
    assert read.structured_content["content"].splitlines()[-1] == "Total,244000,,134400"
    steps = httpx.get(f"{live_server}/v1/episodes/{episode['id']}/trajectory", headers=CONTROL).json()["steps"]
    assert [(s["surface"], s["operation"], s["state_changed"]) for s in steps] == [
        ("mcp", "search", False), ("mcp", "update_cells", True), ("mcp", "read_file", False)]


def test_mcp_reports_a_refusal_as_a_tool_error_and_goes_on(live_server, world_dir):
    episode = new_episode(live_server, world_dir, "mei@small.test")
    _, (found,) = asyncio.run(mcp_session(episode["mcp_url"], [("docs_search", {"query": "renewal plan"})]))
    plan = found.structured_content["files"][0]["id"]
    _, (refused, ambiguous, fine) = asyncio.run(mcp_session(episode["mcp_url"], [
        ("docs_write_document", {"file_id": plan, "text": "gone"}),
        ("docs_add_comment", {"file_id": plan, "text": "x", "quote": "nowhere in it"}),
        ("docs_add_comment", {"file_id": plan, "text": "Agreed", "quote": "Budget freeze"}),
    ]))
    assert refused.is_error and json.loads(refused.content[0].text)["error"]["type"] == "forbidden"
    assert ambiguous.is_error and '"field": "quote"' in ambiguous.content[0].text
    assert not fine.is_error and fine.structured_content["quote"] == "Budget freeze"


@pytest.fixture
def ow(live_server, world_dir):
    def as_actor(actor: str = "dana@small.test"):
        episode = new_episode(live_server, world_dir, actor)
        return lambda *args: run_ow(live_server, episode["id"], "docs", *args)
    return as_actor


def test_cli_searches_reads_and_edits_a_document(ow):
    run = ow()
    found = run("search", "budget freeze", "--json")
    assert found.returncode == 0, found.stderr
    plan = json.loads(found.stdout)["files"][0]["id"]
    table = run("list-folder")
    assert table.returncode == 0 and "Deals" in table.stdout
    edited = run("replace-in-document", "--file-id", str(plan), "--find", "184,000", "--replace-with", "172,000", "--json")
    assert edited.returncode == 0, edited.stderr
    assert "172,000 USD" in json.loads(edited.stdout)["content"]
    assert "172,000 USD" in run("read-file", str(plan)).stdout
    ambiguous = run("replace-in-document", "--file-id", str(plan), "--find", "Globex", "--replace-with", "G")
    assert ambiguous.returncode == 2 and "appears 2 times" in ambiguous.stderr


def test_cli_refusals_exit_with_the_forbidden_code(ow):
    run = ow("mei@small.test")
    plan = json.loads(run("search", "renewal plan", "--json").stdout)["files"][0]["id"]
    refused = run("append-to-document", "--file-id", str(plan), "--text", "mine")
    assert refused.returncode == 5 and "you are a commenter" in refused.stderr and refused.stdout == ""
    cells = run("update-cells", "--file-id", str(plan), "--cells", json.dumps({"A1": 1}))
    assert cells.returncode == 5
    missing = run("get-file", "4242")
    assert missing.returncode == 4 and "no file or folder with id 4242" in missing.stderr
