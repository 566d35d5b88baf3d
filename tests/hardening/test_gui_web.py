"""The GUI and REST as a web app a browser reaches: what another web page could make a browser send is
refused (cross-origin POSTs, JSON sent as text/plain), redirects stay inside the episode and on this
server, answers carry the usual security headers, downloads of any file name are valid headers."""

from __future__ import annotations

from urllib.parse import unquote

import pytest

EVIL = "http://evil.example"


def steps(api, episode) -> list[dict]:
    return api.get(f"/v1/episodes/{episode['id']}/trajectory").json()["steps"]


@pytest.mark.parametrize("origin", [EVIL, "null", "http://localhost:8001", "https://localhost.evil.example"])
def test_a_cross_origin_form_post_changes_nothing(api, episode, origin):
    gui = f"/episodes/{episode['id']}/gui"
    before = steps(api, episode)
    answer = api.post(f"{gui}/task", data={"answer": "planted"}, headers={"origin": origin})
    assert answer.status_code == 403 and answer.json()["error"]["field"] == "origin", answer.text
    rest = api.post(f"/episodes/{episode['id']}/api/mail/create_draft", json={"subject": "planted"},
                    headers={"origin": origin})
    assert rest.status_code == 403
    assert steps(api, episode) == before


def test_a_same_origin_form_post_acts(api, episode):
    gui = f"/episodes/{episode['id']}/gui"
    answer = api.post(f"{gui}/task", data={"answer": "mine"}, headers={"origin": "http://localhost:8000"},
                      follow_redirects=False)
    assert answer.status_code == 303, answer.text


@pytest.mark.parametrize("media", ["text/plain", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded",
                                   "multipart/form-data; boundary=x"])
def test_rest_refuses_a_json_body_a_page_could_send_without_asking(api, episode, media):
    before = steps(api, episode)
    rest = api.post(f"/episodes/{episode['id']}/api/mail/create_draft", content=b'{"subject": "planted"}',
                    headers={"content-type": media})
    assert rest.status_code == 415 and rest.json()["error"]["field"] == "content-type", rest.text
    control = api.post(f"/v1/episodes/{episode['id']}/call", content=b'{"tool": "mail_create_draft"}',
                       headers={"content-type": media})
    assert control.status_code == 415
    assert steps(api, episode) == before


@pytest.mark.parametrize("back", [f"{EVIL}/x", "//evil.example/x", "javascript:alert(1)", "/v1/episodes",
                                  "/episodes/other/gui/mail", "\\\\evil.example", "/episodes/{id}/gui/../../v1",
                                  "/episodes/{id}/gui/%2e%2e/%2E%2E/v1", "/episodes/{id}/gui/..", "/episodes/{id}/gui\\..\\.."])
def test_back_never_leaves_the_episode(api, episode, back):
    gui = f"/episodes/{episode['id']}/gui"
    answer = api.post(f"{gui}/mail/act", data={"action": "star", "message_ids": "1", "back": back.format(id=episode["id"])},
                      follow_redirects=False)
    assert answer.status_code == 303, answer.text
    location = answer.headers["location"]
    path = unquote(location.split("?", 1)[0])
    assert location.startswith(f"{gui}/") and "\\" not in path, location
    assert not {".", ".."} & set(path.split("/")), location   # a browser would resolve them out of the GUI


def test_back_inside_the_episode_is_kept(api, episode):
    gui = f"/episodes/{episode['id']}/gui"
    answer = api.post(f"{gui}/mail/act", data={"action": "star", "message_ids": "1", "back": f"{gui}/mail?label=STARRED"},
                      follow_redirects=False)
    assert answer.headers["location"].startswith(f"{gui}/mail?label=STARRED&done=")


def test_the_trailing_slash_redirect_names_no_host(api, episode):
    answer = api.get(f"/episodes/{episode['id']}/gui/mail/", headers={"host": "evil.example"}, follow_redirects=False)
    assert answer.status_code in (307, 308), answer.text
    assert answer.headers["location"] == f"/episodes/{episode['id']}/gui/mail"


def test_pages_carry_the_security_headers(api, episode):
    for path in (f"/episodes/{episode['id']}/gui/", f"/episodes/{episode['id']}/gui/mail/thread/999999"):
        answer = api.get(path)
        assert answer.headers["x-frame-options"] == "DENY" and answer.headers["x-content-type-options"] == "nosniff"
        policy = answer.headers["content-security-policy"]
        assert "frame-ancestors 'none'" in policy and "form-action 'self'" in policy and "script-src 'none'" in policy


@pytest.mark.parametrize("name", ["résumé ✓ 報告.txt", 'a"b\r\nX-Injected: 1.txt', "naïve.txt"])
def test_an_attachment_of_any_name_downloads(api, episode, name):
    sent = api.post(f"/episodes/{episode['id']}/api/mail/send", json={
        "to": ["ravi@small.test"], "subject": "files", "body": "x", "attachments": [{"filename": name, "text": "hello"}]})
    assert sent.status_code == 200, sent.text
    message = sent.json()
    attachment = message["attachments"][0]["id"]
    answer = api.get(f"/episodes/{episode['id']}/gui/mail/attachment/{message['id']}/{attachment}")
    assert answer.status_code == 200 and answer.content == b"hello"
    disposition = answer.headers["content-disposition"]
    assert disposition.startswith("attachment; filename=") and "filename*=UTF-8''" in disposition
    assert "x-injected" not in answer.headers


def test_a_number_as_text_in_a_form_keeps_the_finite_rule(api, episode):
    gui = f"/episodes/{episode['id']}/gui"
    before = api.get(f"/v1/episodes/{episode['id']}/digest").json()["digest"]
    answer = api.post(f"{gui}/crm/Opportunity/1/edit", data={"amount": "1e999"})
    assert answer.status_code == 422 and 'data-testid="error-amount"' in answer.text, answer.text[-500:]
    assert api.get(f"/v1/episodes/{episode['id']}/digest").json()["digest"] == before
