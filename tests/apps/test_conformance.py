"""Every operation of every app, over each agent surface (REST, MCP, ``ow``), on the acme world.

Each case forks one prepared episode and makes two calls in it:
- with valid arguments: no error, the result matches the operation's output schema, the step is recorded
  with the surface's name and the arguments sent, and a read leaves the state as it was;
- with one invalid argument: an ``invalid`` error naming that argument, a recorded step, no state change.

The valid arguments are written per operation below (a new operation without an example fails
``test_every_operation_has_an_example``); ids come from the world, found through the control API.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import io
import json
import os
import threading

import httpx
import jsonschema
import pytest
from mcp import Client
from surfaces import CONTROL, TOKEN

from apps.kit.cli import positional
from simulator.agent import ow
from simulator.gateway.server import build_app
from simulator.service.serve import serve_in_thread
from simulator.store.episodes import EpisodeStore
from simulator.store.registry import all_operations

OPERATIONS = {op.qualified_name: op for op in all_operations()}
SURFACES = ("rest", "mcp", "cli")
LATER = "2026-03-20T15:00:00Z"


def examples(f: dict) -> dict[str, dict]:
    """Valid arguments for every operation, given the facts ``f`` found in the prepared episode."""
    msgs, threads = [f["message"]], [f["thread"]]
    return {
        "mail_search": {"query": "from:lauren has:attachment", "limit": 5},
        "mail_get_message": {"message_id": f["message"]},
        "mail_get_thread": {"thread_id": f["thread"]},
        "mail_get_attachment": {"message_id": f["message"], "attachment_id": f["attachment"]},
        "mail_list_labels": {},
        "mail_create_label": {"name": "Conformance new"},
        "mail_delete_label": {"name": "Conformance"},
        "mail_create_filter": {"sender": "lauren", "label": "Conformance", "archive": True, "apply_to_existing": True},
        "mail_list_filters": {},
        "mail_delete_filter": {"filter_id": f["filter"]},
        "mail_mark_read": {"message_ids": msgs},
        "mail_mark_unread": {"message_ids": msgs},
        "mail_star": {"message_ids": msgs},
        "mail_unstar": {"message_ids": msgs},
        "mail_archive": {"message_ids": msgs},
        "mail_move_to_inbox": {"message_ids": [f["trashed_message"]]},
        "mail_trash": {"message_ids": msgs},
        "mail_restore": {"message_ids": [f["trashed_message"]]},
        "mail_delete_forever": {"message_ids": [f["trashed_message"]]},
        "mail_mark_spam": {"message_ids": msgs},
        "mail_add_label": {"message_ids": msgs, "label": "Conformance"},
        "mail_remove_label": {"message_ids": msgs, "label": "Conformance"},
        "mail_send": {"to": [f["colleague"]], "subject": "Conformance", "body": "Checking in."},
        "mail_reply": {"message_id": f["message"], "body": "Thanks."},
        "mail_reply_all": {"message_id": f["message"], "body": "Thanks, all."},
        "mail_forward": {"message_id": f["message"], "to": [f["colleague"]], "body": "FYI"},
        "mail_create_draft": {"to": [f["colleague"]], "subject": "Draft", "body": "Later."},
        "mail_update_draft": {"draft_id": f["draft"], "subject": "Updated draft"},
        "mail_send_draft": {"draft_id": f["draft"]},
        "mail_discard_draft": {"draft_id": f["draft"]},
        "mail_search_threads": {"query": "forecast", "limit": 3, "include_messages": True},
        "mail_mark_thread_read": {"thread_ids": threads},
        "mail_mark_thread_unread": {"thread_ids": threads},
        "mail_archive_thread": {"thread_ids": threads},
        "mail_add_thread_label": {"thread_ids": threads, "label": "Conformance"},
        "mail_remove_thread_label": {"thread_ids": threads, "label": "Conformance"},
        "mail_trash_thread": {"thread_ids": threads},
        "mail_restore_thread": {"thread_ids": [f["trashed_thread"]]},
        "crm_list_users": {},
        "crm_get_account": {"account_id": f["account"]},
        "crm_create_account": {"name": "Conformance Corp", "industry": "Software", "type": "Prospect"},
        "crm_update_account": {"account_id": f["account"], "industry": "Retail"},
        "crm_get_contact": {"contact_id": f["contact"]},
        "crm_create_contact": {"last_name": "Tester", "first_name": "Cora", "account_id": f["account"],
                               "email": "cora.tester@example.com"},
        "crm_update_contact": {"contact_id": f["contact"], "title": "VP Testing"},
        "crm_get_lead": {"lead_id": f["lead"]},
        "crm_create_lead": {"last_name": "Lead", "company": "Conformance Ltd"},
        "crm_update_lead": {"lead_id": f["lead"], "status": "Working"},
        "crm_convert_lead": {"lead_id": f["lead"]},
        "crm_get_opportunity": {"opportunity_id": f["opportunity"]},
        "crm_create_opportunity": {"account_id": f["account"], "name": "Conformance deal", "stage": "Prospecting",
                                   "amount": 1000, "close_date": "2026-06-30"},
        "crm_update_opportunity": {"opportunity_id": f["opportunity"], "stage": "Negotiation"},
        "crm_get_case": {"case_id": f["case"]},
        "crm_create_case": {"subject": "Cannot log in", "account_id": f["account"], "priority": "High"},
        "crm_update_case": {"case_id": f["case"], "status": "Working"},
        "crm_list_activities": {"related_object": "Account", "related_id": f["account"]},
        "crm_create_task": {"subject": "Call back", "related_object": "Account", "related_id": f["account"],
                            "due_date": "2026-03-20"},
        "crm_update_task": {"task_id": f["task"], "status": "Completed"},
        "crm_create_event": {"subject": "Review", "start": "2026-03-20T15:00:00Z", "end": "2026-03-20T16:00:00Z",
                             "related_object": "Account", "related_id": f["account"]},
        "crm_add_note": {"related_object": "Account", "related_id": f["account"], "title": "Note", "body": "Text"},
        "crm_search": {"text": "globex", "objects": ["Account", "Opportunity"], "limit": 5},
        "crm_query": {"soql": "SELECT Id, Name, Amount FROM Opportunity WHERE Amount > 1000 LIMIT 3"},
        "crm_my_open_opportunities": {},
        "crm_pipeline_by_stage": {},
        "crm_open_cases_by_priority": {},
        "crm_my_open_tasks": {},
        "crm_delete_record": {"object": "Case", "record_id": f["case"]},
        "crm_delete_activity": {"object": "Task", "record_id": f["task"]},
        "crm_restore_record": {"object": "Lead", "record_id": f["deleted_lead"]},
        "crm_list_recycle_bin": {"everyone": True},
        "docs_list_drives": {},
        "docs_list_folder": {"folder_id": f["folder"], "limit": 5},
        "docs_list_view": {"view": "starred", "limit": 5},
        "docs_get_file": {"file_id": f["document"]},
        "docs_read_file": {"file_id": f["document"]},
        "docs_search": {"query": "forecast", "type": "spreadsheet"},
        "docs_create_folder": {"name": "Conformance"},
        "docs_create_document": {"name": "Notes", "text": "Hello"},
        "docs_create_spreadsheet": {"name": "Numbers", "rows": [["a", 1], ["b", 2.5]]},
        "docs_upload_file": {"name": "notes.txt", "text": "plain text", "mime_type": "text/plain"},
        "docs_rename": {"file_id": f["document"], "name": "Renamed"},
        "docs_move": {"file_id": f["document"], "folder_id": f["folder"]},
        "docs_copy": {"file_id": f["document"], "name": "Copy"},
        "docs_star": {"file_id": f["document"]},
        "docs_unstar": {"file_id": f["document"]},
        "docs_trash": {"file_id": f["document"]},
        "docs_restore": {"file_id": f["trashed_file"]},
        "docs_delete_forever": {"file_id": f["trashed_file"]},
        "docs_write_document": {"file_id": f["document"], "text": "New text"},
        "docs_append_to_document": {"file_id": f["document"], "text": "More"},
        "docs_replace_in_document": {"file_id": f["document"], "find": "Conformance", "replace_with": "Checked",
                                     "replace_all": True},
        "docs_get_spreadsheet": {"file_id": f["sheet"], "range": "A1:C3"},
        "docs_update_cells": {"file_id": f["sheet"], "cells": {"Z1": 5}},
        "docs_update_range": {"file_id": f["sheet"], "range": "Y1:Y2", "values": [[1], [2]]},
        "docs_append_rows": {"file_id": f["sheet"], "rows": [["x", 1]]},
        "docs_add_tab": {"file_id": f["sheet"], "name": "Extra", "index": 0},
        "docs_rename_tab": {"file_id": f["sheet"], "tab": "Prepared tab", "new_name": "Renamed tab"},
        "docs_delete_tab": {"file_id": f["sheet"], "tab": "Prepared tab"},
        "docs_move_tab": {"file_id": f["sheet"], "tab": "Prepared tab", "index": 0},
        "docs_list_revisions": {"file_id": f["document"]},
        "docs_get_revision": {"file_id": f["document"], "revision_number": f["revision"]},
        "docs_restore_revision": {"file_id": f["document"], "revision_number": f["revision"]},
        "docs_share": {"file_id": f["document"], "email": f["colleague"], "role": "viewer"},
        "docs_unshare": {"file_id": f["document"], "email": f["shared_with"]},
        "docs_set_general_access": {"file_id": f["document"], "role": "viewer"},
        "docs_transfer_ownership": {"file_id": f["document"], "new_owner": f["colleague"]},
        "docs_list_comments": {"file_id": f["document"], "include_resolved": True},
        "docs_add_comment": {"file_id": f["document"], "text": "Looks good"},
        "docs_reply_to_comment": {"comment_id": f["comment"], "text": "Agreed"},
        "docs_resolve_comment": {"comment_id": f["comment"]},
        "docs_reopen_comment": {"comment_id": f["resolved_comment"]},
        "calendar_list_calendars": {},
        "calendar_list_events": {"start": "2026-03-16T00:00:00Z", "end": "2026-03-23T00:00:00Z", "limit": 5},
        "calendar_get_event": {"event_id": f["event"]},
        "calendar_search_events": {"query": "weekly", "limit": 5},
        "calendar_free_busy": {"people": [f["colleague"]], "start": "2026-03-16T00:00:00Z",
                               "end": "2026-03-18T00:00:00Z"},
        "calendar_find_time": {"people": [f["colleague"]], "duration_minutes": 30, "start": "2026-03-16T00:00:00Z",
                               "end": "2026-03-20T00:00:00Z"},
        "calendar_create_event": {"title": "Conformance sync", "start": LATER, "end": "2026-03-20T15:30:00Z",
                                  "attendees": [f["colleague"]]},
        "calendar_update_event": {"event_id": f["own_event"], "location": "Room 2"},
        "calendar_move_event": {"event_id": f["own_event"], "start": "2026-03-20T17:00:00Z"},
        "calendar_cancel_event": {"event_id": f["own_event"], "message": "No longer needed"},
        "calendar_respond": {"event_id": f["invitation"], "response": "tentative"},
        "calendar_create_calendar": {"name": "Team offsites"},
        "calendar_share_calendar": {"calendar_id": f["actor"], "person": f["colleague"], "role": "reader"},
        "task_submit_answer": {"answer": "Done", "status": "done"},
        "task_describe_view": {"description": "The inbox: three unread threads."},
        "task_wait": {"seconds": 60},
        "task_ask_user": {"question": "Which account do you mean?"},
    }


def invalid(op, args: dict) -> tuple[dict, str]:
    """``args`` with one argument made invalid in a way every surface can send (``ow`` included):
    an integer past 64 bits, a value outside an enumeration, a date that is not one, text with a NUL."""
    schema = op.input_schema()["properties"]
    for name in [p.name for p in op.params if p.required] + [p.name for p in op.params if not p.required]:
        prop = _plain(schema[name])
        if prop.get("type") == "integer":
            return {**args, name: 2**63}, name
        if prop.get("type") == "array" and _plain(prop.get("items", {})).get("type") == "integer":
            return {**args, name: [2**63]}, name
        if "enum" in prop:
            return {**args, name: "nonsense"}, name
        if prop.get("format") in ("date", "date-time"):
            return {**args, name: "not a date"}, name
    name = next((p.name for p in op.params if _plain(schema[p.name]).get("type") == "string"), None)
    if name is None:
        return {**args, "unexpected": 1}, "unexpected"
    return {**args, name: "before\x00after"}, name


def _plain(prop: dict) -> dict:
    """The non-null branch of an optional property's schema."""
    for branch in prop.get("anyOf", []):
        if branch.get("type") != "null":
            return branch
    return prop


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    store = EpisodeStore(cache_dir=tmp_path_factory.mktemp("conformance"))
    with serve_in_thread(build_app(store, token=TOKEN)) as base:
        with httpx.Client(base_url=base, headers=CONTROL, timeout=60) as control:
            base_episode = control.post("/v1/episodes", json={}).json()
            facts = prepare(control, base_episode)
            yield base, control, base_episode, facts


def prepare(control: httpx.Client, episode: dict) -> dict:
    """Facts about the world for the examples, and the state some operations need (a draft, a trashed
    message and file, a deleted lead, a comment, a label, an invitation from a colleague)."""
    def call(tool: str, **arguments):
        step = control.post(f"/v1/episodes/{episode['id']}/call", json={"tool": tool, "arguments": arguments}).json()
        assert step["error"] is None, (tool, step["error"])
        return step["result"]

    actor = episode["actor"]
    message = call("mail_search", query="has:attachment", limit=1)["messages"][0]
    full = call("mail_get_message", message_id=message["id"])
    others = call("mail_search", query="in:inbox", limit=5)["messages"]
    trashed = next(m for m in others if m["thread_id"] != message["thread_id"])
    call("mail_trash_thread", thread_ids=[trashed["thread_id"]])
    call("mail_create_label", name="Conformance")
    mail_filter = call("mail_create_filter", subject="conformance", star=True)
    draft = call("mail_create_draft", to=["someone@example.com"], subject="Draft", body="Draft body")
    colleague = next(p for p in (message["cc"] + [message["sender"]]) if p != actor)
    accounts = call("crm_query", soql="SELECT Id FROM Account LIMIT 1")["records"]
    account = accounts[0]["id"]
    leads = call("crm_query", soql="SELECT Id FROM Lead WHERE IsConverted = false LIMIT 2")["records"]
    call("crm_delete_record", object="Lead", record_id=leads[1]["id"])
    case = call("crm_create_case", subject="Prepared case", account_id=account)
    task = call("crm_create_task", subject="Prepared task", related_object="Account", related_id=account)
    document = call("docs_create_document", name="Conformance doc", text="Conformance text")
    call("docs_write_document", file_id=document["id"], text="Conformance text, second revision")
    call("docs_share", file_id=document["id"], email=colleague, role="commenter")
    revisions = call("docs_list_revisions", file_id=document["id"])
    comment = call("docs_add_comment", file_id=document["id"], text="A question")
    resolved = call("docs_add_comment", file_id=document["id"], text="Settled")
    call("docs_resolve_comment", comment_id=resolved["id"])
    trashed_file = call("docs_create_document", name="To trash", text="bye")
    call("docs_trash", file_id=trashed_file["id"])
    sheet = call("docs_search", type="spreadsheet")["files"][0]
    call("docs_add_tab", file_id=sheet["id"], name="Prepared tab")
    folder = call("docs_create_folder", name="Conformance folder")
    own = call("calendar_create_event", title="Prepared", start=LATER, end="2026-03-20T15:30:00Z",
               attendees=[colleague])
    invite = control.post(f"/v1/episodes/{episode['id']}/call", json={
        "tool": "calendar_create_event", "as": colleague, "arguments": {
            "title": "Invitation", "start": "2026-03-19T15:00:00Z", "end": "2026-03-19T15:30:00Z",
            "attendees": [actor]}}).json()
    assert invite["error"] is None, invite["error"]
    event = call("calendar_list_events", start="2026-03-16T00:00:00Z", end="2026-03-23T00:00:00Z", limit=1)
    return {
        "actor": actor, "colleague": colleague, "message": message["id"], "thread": message["thread_id"],
        "attachment": full["attachments"][0]["id"], "trashed_message": trashed["id"],
        "trashed_thread": trashed["thread_id"], "draft": draft["id"], "filter": mail_filter["id"],
        "account": account, "contact": _first(call, "Contact"), "lead": leads[0]["id"], "deleted_lead": leads[1]["id"],
        "opportunity": _first(call, "Opportunity"), "case": case["id"], "task": task["id"],
        "document": document["id"], "revision": next(r["number"] for r in revisions if not r["current"]),
        "shared_with": colleague, "comment": comment["id"],
        "resolved_comment": resolved["id"], "trashed_file": trashed_file["id"], "sheet": sheet["id"],
        "folder": folder["id"], "own_event": own["id"], "invitation": invite["result"]["id"],
        "event": event["events"][0]["id"],
    }


def _first(call, sobject: str) -> int:
    return call("crm_query", soql=f"SELECT Id FROM {sobject} LIMIT 1")["records"][0]["id"]


def test_every_operation_has_an_example(server):
    *_, facts = server
    assert set(examples(facts)) == set(OPERATIONS)


@pytest.mark.parametrize("surface", SURFACES)
@pytest.mark.parametrize("name", sorted(OPERATIONS))
def test_operation_over_surface(server, name, surface):
    base, control, base_episode, facts = server
    op = OPERATIONS[name]
    args = examples(facts)[name]
    episode = control.post(f"/v1/episodes/{base_episode['id']}/fork").json()
    try:
        with SURFACE[surface](base, episode) as send:
            before, steps = _digest(control, episode), len(_steps(control, episode))
            error, result = send(op, args)
            assert error is None, f"{name} over {surface}: {error}"
            jsonschema.validate(op.structured(result) if surface != "mcp" else result, op.output_schema)
            step = _steps(control, episode)[steps]   # peer steps (a notification mailed) may follow it
            assert (step["surface"], step["app"], step["operation"], step["error"]) == (surface, op.app, op.name, None)
            assert step["arguments"] == args
            after = _digest(control, episode)
            assert op.mutates or after == before

            bad, field = invalid(op, args)
            steps = len(_steps(control, episode))
            error, _ = send(op, bad)
        assert _digest(control, episode) == after
        if surface == "cli" and field == "unexpected":   # ow has no option for it: a usage error, no call
            assert (error["type"], error["exit"]) == ("usage", 2) and "--unexpected" in error["message"], error
            assert len(_steps(control, episode)) == steps
            return
        assert error is not None and error["type"] == "invalid" and error["message"], error
        assert error["field"] in ((None,) if surface == "cli" else (field, f"{field}.0")), error   # ow prints none
        step = _steps(control, episode)[steps]
        assert (step["surface"], step["operation"]) == (surface, op.name)
        assert step["error"]["field"] in (field, f"{field}.0"), step["error"]   # a list names the item
    finally:
        control.delete(f"/v1/episodes/{episode['id']}")


def _digest(control, episode) -> str:
    return control.get(f"/v1/episodes/{episode['id']}/digest").json()["digest"]


def _steps(control, episode) -> list[dict]:
    return control.get(f"/v1/episodes/{episode['id']}/trajectory").json()["steps"]


@contextlib.contextmanager
def rest(base, episode):
    with httpx.Client(base_url=f"{base}/episodes/{episode['id']}/api", timeout=60) as http:
        def send(op, args):
            response = http.post(f"/{op.app}/{op.name}", json=args)
            assert response.status_code < 500, response.text
            body = response.json()
            return (body["error"], None) if response.status_code >= 400 else (None, body)
        yield send


@contextlib.contextmanager
def mcp(base, episode):
    """One session of the official client for the test's calls, held by a task on a loop of its own
    (a client's context must be entered and left in one task)."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    requests: asyncio.Queue = asyncio.run_coroutine_threadsafe(_queue(), loop).result()

    async def session():
        async with Client(f"{base}/episodes/{episode['id']}/mcp") as client:
            while (item := await requests.get()) is not None:
                (name, args), answer = item
                try:
                    answer.set_result(await client.call_tool(name, args))
                except Exception as exc:  # handed to the test, which fails on it
                    answer.set_exception(exc)
    held = asyncio.run_coroutine_threadsafe(session(), loop)

    def send(op, args):
        answer = concurrent.futures.Future()
        loop.call_soon_threadsafe(requests.put_nowait, ((op.qualified_name, args), answer))
        result = answer.result(timeout=60)
        if result.is_error:
            return json.loads(result.content[0].text)["error"], None
        return None, result.structured_content
    try:
        yield send
    finally:
        loop.call_soon_threadsafe(requests.put_nowait, None)
        held.result(timeout=60)
        loop.call_soon_threadsafe(loop.stop)
        thread.join()
        loop.close()


async def _queue() -> asyncio.Queue:
    return asyncio.Queue()


@contextlib.contextmanager
def cli(base, episode):
    """``ow`` in this process (the same code as the command), its arguments written as a shell agent would.
    ``ow`` prints an error as ``type: message`` with an exit code; the field is read from the step."""
    def send(op, args):
        argv = [op.app, op.name.replace("_", "-"), *_argv(op, args), "--json"]
        out, err = io.StringIO(), io.StringIO()
        with _environ({"OW_URL": base, "OW_EPISODE": episode["id"], "OW_CACHE": "off"}), \
                contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = ow.run(argv)
            except ow.Failure as failure:
                kind, _, message = str(failure).partition(": ")
                return {"type": kind, "message": message, "field": None, "exit": failure.code}, None
            except SystemExit as exit_:   # argparse refused the command line itself: nothing was sent
                return {"type": "usage", "message": err.getvalue(), "field": None, "exit": exit_.code}, None
        assert code == 0, err.getvalue()
        return None, json.loads(out.getvalue())
    yield send


def _argv(op, args: dict) -> list[str]:
    """The command line for ``args``: the positional argument first, lists as repeated options, booleans as
    ``--x`` / ``--no-x``, objects as JSON."""
    schema = op.input_schema()["properties"]
    first = positional(op)
    argv = []
    for name, value in args.items():
        prop = _plain(schema.get(name, {}))
        flag = "--" + name.replace("_", "-")
        items = _plain(prop.get("items", {})).get("type")
        if name == first and prop.get("type") in ("integer", "string", "number", "boolean"):
            argv.insert(0, str(value).lower() if isinstance(value, bool) else str(value))
        elif isinstance(value, bool):
            argv.append(flag if value else "--no-" + name.replace("_", "-"))
        elif isinstance(value, list) and prop.get("type") == "array" and items in ("integer", "string", "number"):
            for item in value:
                argv += [flag, str(item)]
        elif isinstance(value, (dict, list)):
            argv += [flag, json.dumps(value)]
        else:
            argv += [flag, str(value)]
    return argv


@contextlib.contextmanager
def _environ(values: dict):
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


SURFACE = {"rest": rest, "mcp": mcp, "cli": cli}
