"""A snapshot is validated whole before anything is replaced, then every app is swapped at once; the
episode keeps its acting person. A refused snapshot answers 422 naming the body and changes nothing."""

import io
import json
import zipfile

import pytest


def snapshot(api, episode) -> bytes:
    response = api.get(f"/v1/episodes/{episode['id']}/snapshot")
    assert response.status_code == 200
    return response.content


def rewritten(original: bytes, **replace: bytes) -> bytes:
    """``original`` with the members named in ``replace`` (``mail_sqlite`` for ``mail.sqlite``) swapped."""
    replace = {name.replace("_sqlite", ".sqlite").replace("_json", ".json"): data for name, data in replace.items()}
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(original)) as source, zipfile.ZipFile(out, "w") as target:
        for name in source.namelist():
            target.writestr(name, replace.get(name, source.read(name)))
    return out.getvalue()


def state(api, episode) -> tuple:
    info = api.get(f"/v1/episodes/{episode['id']}").json()
    return api.get(f"/v1/episodes/{episode['id']}/digest").json(), info["now"], info["actor"]


def restore(api, episode, body: bytes):
    return api.post(f"/v1/episodes/{episode['id']}/restore", content=body,
                    headers={"content-type": "application/zip"})


@pytest.fixture
def changed(api, episode):
    """A snapshot of the episode, taken before a mail and a document were written in it."""
    taken = snapshot(api, episode)
    assert api.post(f"/episodes/{episode['id']}/api/mail/send", json={
        "to": ["ravi@small.test"], "subject": "After the snapshot", "body": "x"}).status_code == 200
    return taken


@pytest.mark.parametrize("case", ["empty mail", "zeroed mail", "not sqlite", "other world", "bad clock",
                                  "no episode.json", "episode.json not json", "missing app"])
def test_a_bad_snapshot_is_refused_and_changes_nothing(api, episode, changed, case):
    meta = json.loads(zipfile.ZipFile(io.BytesIO(changed)).read("episode.json"))
    bodies = {
        "empty mail": lambda: rewritten(changed, mail_sqlite=b""),
        "zeroed mail": lambda: rewritten(changed, mail_sqlite=bytes(len(zipfile.ZipFile(io.BytesIO(changed))
                                                                        .read("mail.sqlite")))),
        "not sqlite": lambda: rewritten(changed, mail_sqlite=b"SQLite format 3\x00" + b"\xff" * 4096),
        "other world": lambda: rewritten(changed, episode_json=json.dumps({**meta, "world": "elsewhere"}).encode()),
        "bad clock": lambda: rewritten(changed, episode_json=json.dumps({**meta, "now": "9999-99-99"}).encode()),
        "no episode.json": lambda: _without(changed, "episode.json"),
        "episode.json not json": lambda: rewritten(changed, episode_json=b"[" * 5000),
        "missing app": lambda: _without(changed, "mail.sqlite"),
    }
    before = state(api, episode)
    answer = restore(api, episode, bodies[case]())
    assert answer.status_code == 422 and answer.json()["error"]["field"] == "body", answer.text
    assert state(api, episode) == before
    assert api.post(f"/episodes/{episode['id']}/api/mail/search", json={"query": "After"}).status_code == 200
    assert api.post(f"/episodes/{episode['id']}/api/docs/list_drives", json={}).status_code == 200


def _without(original: bytes, member: str) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(original)) as source, zipfile.ZipFile(out, "w") as target:
        for name in source.namelist():
            if name != member:
                target.writestr(name, source.read(name))
    return out.getvalue()


def test_a_good_snapshot_restores_every_app_and_keeps_the_acting_person(api, episode, changed, world_dir):
    other = api.post("/v1/episodes", json={"world": str(world_dir), "as": "ravi@small.test"}).json()
    answer = restore(api, other, changed)
    assert answer.status_code == 200, answer.text
    assert answer.json()["actor"] == "ravi@small.test"    # the episode's person, not the snapshot's
    found = api.post(f"/episodes/{other['id']}/api/mail/search", json={"query": "After the snapshot"}).json()
    assert found["total"] == 0
