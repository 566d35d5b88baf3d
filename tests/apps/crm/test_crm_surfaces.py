"""The CRM over MCP (official client, live loopback server) and the agent CLI ``ow crm ...``."""

import asyncio
import json

import httpx
import pytest
from surfaces import CONTROL, mcp_session, new_episode, run_ow


def test_mcp_lists_crm_tools_with_picklists_and_read_only_hints(live_server, world_dir):
    episode = new_episode(live_server, world_dir)
    tools, _ = asyncio.run(mcp_session(episode["mcp_url"], []))
    by_name = {t.name: t for t in tools}
    update = by_name["crm_update_opportunity"]
    stage = json.dumps(update.input_schema["properties"]["stage"])
    assert "Closed Won" in stage and "Needs Analysis" in stage
    assert update.annotations.read_only_hint is False and by_name["crm_query"].annotations.read_only_hint is True
    assert {"crm_convert_lead", "crm_pipeline_by_stage", "crm_search", "crm_open_cases_by_priority"} <= set(by_name)


def test_mcp_updates_and_reports_validation_and_permission_errors(live_server, world_dir):
    episode = new_episode(live_server, world_dir, "ravi@small.test")
    _, (found, moved, lost, theirs, pipeline) = asyncio.run(mcp_session(episode["mcp_url"], [
        ("crm_query", {"soql": "SELECT id FROM Opportunity WHERE name = 'Globex - Renewal 2026'"}),
        ("crm_update_opportunity", {"opportunity_id": 1, "stage": "Negotiation"}),
        ("crm_update_opportunity", {"opportunity_id": 1, "stage": "Closed Lost"}),
        ("crm_update_opportunity", {"opportunity_id": 2, "amount": 1}),
        ("crm_pipeline_by_stage", {"owner": "me"}),
    ]))
    assert found.structured_content["records"] == [{"id": 1}]
    assert not moved.is_error and moved.structured_content["probability"] == 80
    assert lost.is_error and '"field": "loss_reason"' in lost.content[0].text
    assert theirs.is_error and "forbidden" in theirs.content[0].text
    assert {s["stage"]: s["count"] for s in pipeline.structured_content["stages"]}["Negotiation"] == 1
    steps = httpx.get(f"{live_server}/v1/episodes/{episode['id']}/trajectory", headers=CONTROL).json()["steps"]
    assert [(s["surface"], s["state_changed"]) for s in steps] == [
        ("mcp", False), ("mcp", True), ("mcp", False), ("mcp", False), ("mcp", False)]


@pytest.fixture
def ow(live_server, world_dir):
    episode = new_episode(live_server, world_dir, "ravi@small.test")
    return lambda *args: run_ow(live_server, episode["id"], "crm", *args)


def test_cli_reads_and_queries(ow):
    got = ow("get-opportunity", "1", "--json")
    assert got.returncode == 0, got.stderr
    assert json.loads(got.stdout)["name"] == "Globex - Renewal 2026"
    table = ow("query", "SELECT name, amount FROM Opportunity WHERE amount > 40000 ORDER BY amount DESC")
    assert table.returncode == 0 and "Initech - Expansion" in table.stdout and "Globex Europe" not in table.stdout


def test_cli_writes_and_errors_map_to_exit_codes(ow):
    done = ow("update-opportunity", "1", "--amount", "200000", "--next-step", "Send MSA", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["history"][-1]["new_value"] == "200000.0"
    negative = ow("update-opportunity", "1", "--amount", "-5")
    assert negative.returncode == 2 and "amount" in negative.stderr
    forbidden = ow("update-opportunity", "2", "--amount", "5")
    assert forbidden.returncode == 5 and "owned by mei@small.test" in forbidden.stderr
    missing = ow("get-case", "999")
    assert missing.returncode == 4


def test_cli_takes_picklist_values_and_dates_as_plain_text(ow):
    won = ow("update-opportunity", "1", "--stage", "Closed Won", "--close-date", "2026-03-20", "--json")
    assert won.returncode == 0, won.stderr
    assert (json.loads(won.stdout)["stage"], json.loads(won.stdout)["close_date"]) == ("Closed Won", "2026-03-20")
    wrong = ow("update-opportunity", "1", "--stage", "Won-ish")
    assert wrong.returncode == 2 and "stage" in wrong.stderr
