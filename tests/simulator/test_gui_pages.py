"""The GUI's pages over a TestClient: each renders, reads and writes through the invoker as surface gui,
and shows errors by the field they name, never a stack trace."""

from __future__ import annotations

import re

import pytest
from gui_world import gui_server, new_episode
from surfaces import call

PAGES = ["/", "/mail", "/mail?label=STARRED", "/mail?q=from:sam has:attachment", "/mail/thread/1", "/mail/compose",
         "/mail/compose?mode=reply_all&message_id=1", "/crm", "/crm/Account", "/crm/Opportunity?view=open",
         "/crm/Lead?view=mine", "/crm/Account/1", "/crm/Opportunity/1", "/crm/Opportunity/1/edit", "/crm/Lead/1/convert",
         "/crm/Case/1", "/crm/search?q=globex", "/docs", "/docs?view=shared_with_me", "/docs?view=trash",
         "/docs?q=renewal", "/docs/folders/1", "/docs/drives/1", "/docs/files/2", "/docs/files/5?cell=B2",
         "/docs/files/2/share", "/docs/files/2/revisions?number=1"]


@pytest.fixture(scope="module")
def api(tmp_path_factory):
    """One server over one compiled world for the module (compiling is the slow part); an episode per test."""
    with gui_server(tmp_path_factory.mktemp("gui")) as client:
        yield client


@pytest.fixture
def episode(api):
    return new_episode(api)


@pytest.fixture
def gui(api, episode):
    return f"/episodes/{episode['id']}/gui"


def steps(api, episode) -> list[dict]:
    return api.get(f"/v1/episodes/{episode['id']}/trajectory").json()["steps"]


def shown_errors(html: str) -> dict[str, str]:
    return dict(re.findall(r'data-testid="error-([^"]+)">([^<]*)<', html))


@pytest.mark.parametrize("path", PAGES)
def test_every_main_page_renders_and_reads_through_the_invoker(api, episode, gui, path):
    response = api.get(gui + path)
    assert response.status_code == 200, response.text[:500]
    assert "data-testid" in response.text and 'data-testid="actor">dana@small.test' in response.text
    recorded = steps(api, episode)
    assert path == "/" or recorded, "a page reads by invoking operations"
    assert {s["surface"] for s in recorded} <= {"gui"}
    assert not [s for s in recorded if s["error"]]


def test_the_home_page_names_the_person_the_apps_and_the_virtual_time(api, gui):
    html = api.get(gui + "/").text
    assert "Dana Whitfield" in html and "Monday March 16 2026, 09:00" in html
    assert all(f'data-testid="open-{app}"' in html for app in ("mail", "crm", "docs"))


def test_a_missing_record_is_a_page_that_says_so_without_a_trace(api, gui):
    for path, status in [("/mail/thread/999", 404), ("/crm/Widget", 404), ("/docs/files/999", 404),
                         ("/crm/Opportunity/abc", 422), ("/docs/files/2/revisions?number=x", 422)]:
        response = api.get(gui + path)
        assert response.status_code == status
        assert 'data-testid="page-error"' in response.text and "Traceback" not in response.text
    assert api.get("/episodes/ep_nope/gui/mail").status_code == 404


def test_a_reply_from_the_gui_is_the_same_step_as_from_any_surface(api, episode, gui):
    response = api.post(gui + "/mail/compose", data={"mode": "reply", "message_id": "1", "body": "Zebra quote attached."},
                        follow_redirects=False)
    assert response.status_code == 303 and "label=SENT" in response.headers["location"]
    reply = [s for s in steps(api, episode) if s["operation"] == "reply"]
    assert len(reply) == 1 and reply[0]["surface"] == "gui" and reply[0]["state_changed"]
    assert reply[0]["arguments"] == {"message_id": 1, "body": "Zebra quote attached."}
    sent = call(api, episode, "mail", "search", query="in:sent zebra").json()
    assert sent["total"] == 1 and sent["messages"][0]["to"] == ["sam@globex.example"]


def test_a_text_area_submitted_with_crlf_lines_is_stored_with_lf(api, episode, gui):
    # Browsers submit a text area's lines ending in CRLF; Gmail keeps what was typed with LF, as MCP does.
    api.post(gui + "/mail/compose", data={"mode": "reply", "message_id": "1", "body": "Line one\r\nLine two\rthree"},
             follow_redirects=False)
    reply = [s for s in steps(api, episode) if s["operation"] == "reply"]
    assert reply[0]["arguments"]["body"] == "Line one\nLine two\nthree"
    sent = call(api, episode, "mail", "search", query="in:sent").json()["messages"]
    body = call(api, episode, "mail", "get_message", message_id=sent[0]["id"]).json()["body"]
    assert "\r" not in body and "Line one\nLine two" in body


def test_compose_shows_a_bad_address_next_to_the_field_and_keeps_what_was_typed(api, gui):
    response = api.post(gui + "/mail/compose", data={"to": "sam at globex", "subject": "Quote", "body": "Hi"})
    assert response.status_code == 422
    assert "sam at globex" in shown_errors(response.text)["to"]
    assert 'value="Quote"' in response.text


def test_an_opportunity_without_a_close_date_shows_the_error_by_the_field(api, episode, gui):
    # Salesforce's CloseDate is required: the new-record form says so by the field.
    missing = api.post(gui + "/crm/Opportunity/new", data={"account_id": "1", "name": "Globex add-on",
                                                          "stage": "Prospecting"}, follow_redirects=False)
    assert missing.status_code == 422 and "close_date" in shown_errors(missing.text)
    created = api.post(gui + "/crm/Opportunity/new", data={"account_id": "1", "name": "Globex add-on",
                                                          "stage": "Prospecting", "close_date": "2026-06-30"},
                       follow_redirects=False)
    assert created.status_code == 303
    record = created.headers["location"].split("?")[0].rsplit("/", 1)[1]
    saved = api.post(gui + f"/crm/Opportunity/{record}/edit", follow_redirects=False, data={
        "stage": "Closed Won", "original.stage": "Prospecting", "close_date": "2026-03-16",
        "original.close_date": "2026-06-30", "name": "Globex add-on", "original.name": "Globex add-on"})
    assert saved.status_code == 303
    update = [s for s in steps(api, episode) if s["operation"] == "update_opportunity"][-1]
    assert update["arguments"] == {"opportunity_id": int(record), "stage": "Closed Won", "close_date": "2026-03-16"}
    assert call(api, episode, "crm", "get_opportunity", opportunity_id=int(record)).json()["is_won"]


def test_lead_conversion_from_its_form(api, episode, gui):
    response = api.post(gui + "/crm/Lead/1/convert", data={"create_opportunity": "on", "opportunity_name": "Hooli - New"},
                        follow_redirects=False)
    assert response.status_code == 303
    lead = call(api, episode, "crm", "get_lead", lead_id=1).json()
    assert lead["is_converted"] and lead["converted_opportunity_id"]
    assert 'data-testid="converted-opportunity"' in api.get(gui + "/crm/Lead/1").text


def test_sharing_with_an_outsider_is_refused_by_the_email_field(api, gui):
    response = api.post(gui + "/docs/files/2/share", data={"email": "sam@globex.example", "role": "viewer"})
    assert response.status_code == 422 and "email" in shown_errors(response.text)


def test_a_cell_typed_as_a_number_recalculates_the_formulas_that_use_it(api, episode, gui):
    assert api.post(gui + "/docs/files/5/cells", data={"ref": "b2", "input": "200000"}, follow_redirects=False).status_code == 303
    sheet = call(api, episode, "docs", "get_spreadsheet", file_id=5).json()
    assert sheet["rows"][1][3] == 120000 and sheet["rows"][3][1] == 250000
    html = api.get(gui + "/docs/files/5").text
    assert re.search(r'data-testid="cell-D2"[^>]*><a[^>]*>120000<', html)


def test_mail_buttons_star_archive_and_label(api, episode, gui):
    postmortem = call(api, episode, "mail", "search", query="subject:postmortem").json()["messages"][0]["id"]
    for action, extra in [("star", {}), ("add_label", {"label": "Deals"}), ("archive", {})]:
        response = api.post(gui + "/mail/act", data={"action": action, "message_ids": [str(postmortem)], "back": gui + "/mail",
                                                     **extra},
                            follow_redirects=False)
        assert response.status_code == 303, re.findall(r"form-error\">[^<]*", response.text)
    message = call(api, episode, "mail", "get_message", message_id=postmortem).json()
    assert "STARRED" in message["labels"] and "Deals" in message["labels"] and "INBOX" not in message["labels"]
    refused = api.post(gui + "/mail/act", data={"action": "drop_table", "message_ids": [str(postmortem)]})
    assert refused.status_code == 422 and "drop_table" in refused.text


def test_compose_sends_an_uploaded_file_as_an_attachment(api, episode, gui):
    response = api.post(gui + "/mail/compose", data={"to": "ravi@small.test", "subject": "Numbers", "body": "See file."},
                        files={"attachments": ("q1.csv", b"month,amount\nJan,10\n", "text/csv")}, follow_redirects=False)
    assert response.status_code == 303
    send = [s for s in steps(api, episode) if s["operation"] == "send"][0]
    assert send["arguments"]["attachments"] == [{"filename": "q1.csv", "mime_type": "text/csv",
                                                 "text": "month,amount\nJan,10\n"}]
    sent = call(api, episode, "mail", "search", query="in:sent filename:q1.csv").json()
    assert sent["total"] == 1 and sent["messages"][0]["has_attachments"]


def test_a_draft_is_saved_then_sent_from_the_compose_form(api, episode, gui):
    saved = api.post(gui + "/mail/compose", data={"to": "mei@small.test", "subject": "Rota", "body": "Draft 1",
                                                  "action": "draft"}, follow_redirects=False)
    assert saved.status_code == 303 and "label=DRAFT" in saved.headers["location"]
    draft = call(api, episode, "mail", "search", query="in:drafts subject:Rota").json()["messages"][0]["id"]
    assert 'value="Rota"' in api.get(gui + f"/mail/compose?draft_id={draft}").text
    sent = api.post(gui + "/mail/compose", data={"draft_id": str(draft), "to": "mei@small.test", "subject": "Rota",
                                                 "body": "Final text", "action": "send"}, follow_redirects=False)
    assert sent.status_code == 303
    assert [s["operation"] for s in steps(api, episode) if s["mutates"]][-2:] == ["update_draft", "send_draft"]
    assert call(api, episode, "mail", "search", query="in:sent subject:Rota").json()["messages"][0]["snippet"].startswith("Final")


def test_renaming_a_file_to_nothing_says_so_by_the_name(api, episode, gui):
    assert api.post(gui + "/docs/files/2/act", data={"action": "rename", "name": "Renewal plan v2"},
                    follow_redirects=False).status_code == 303
    assert call(api, episode, "docs", "get_file", file_id=2).json()["name"] == "Renewal plan v2"
    refused = api.post(gui + "/docs/files/2/act", data={"action": "rename", "name": " "})
    assert refused.status_code == 422 and list(shown_errors(refused.text)) == ["name"]


def test_a_sheet_shows_its_tabs_and_a_cell_typed_on_a_tab_lands_there(api, episode, gui):
    added = api.post(gui + "/docs/files/5/tabs", data={"action": "add", "name": "Q1 Plan"}, follow_redirects=False)
    assert added.status_code == 303 and "tab=Q1+Plan" in added.headers["location"]
    page = api.get(added.headers["location"])
    assert 'aria-current="page" style="font-weight:600">Q1 Plan</a>' in page.text
    typed = api.post(gui + "/docs/files/5/cells", data={"tab": "Q1 Plan", "ref": "A1", "input": "=Sheet1!B2*2"},
                     follow_redirects=False)
    assert typed.status_code == 303
    shown = call(api, episode, "docs", "get_spreadsheet", file_id=5, tab="Q1 Plan").json()
    assert shown["cells"][0]["input"] == "=Sheet1!B2*2" and shown["rows"] == [[368000]]
    renamed = api.post(gui + "/docs/files/5/tabs", data={"action": "rename", "tab": "Q1 Plan", "name": "Plan"},
                       follow_redirects=False)
    assert renamed.status_code == 303 and "tab=Plan" in renamed.headers["location"]
    taken = api.post(gui + "/docs/files/5/tabs", data={"action": "add", "name": "plan"})
    assert taken.status_code == 422 and 'data-testid="error-name"' in taken.text and "already has a tab named" in taken.text
    gone = api.post(gui + "/docs/files/5/tabs", data={"action": "delete", "tab": "Plan"}, follow_redirects=False)
    assert gone.status_code == 303
    assert call(api, episode, "docs", "get_spreadsheet", file_id=5).json()["tabs"] == ["Sheet1"]
    assert [s["operation"] for s in steps(api, episode) if s["surface"] == "gui" and "tab" in s["operation"]] == [
        "add_tab", "rename_tab", "add_tab", "delete_tab"]
