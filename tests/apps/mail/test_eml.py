"""The quick ``.eml`` reader gives what ``email``'s parser gives, and steps aside for what it does not read."""

from __future__ import annotations

from pathlib import Path

import pytest

from apps.mail import eml
from worlds.loader import WORLDS_DIR

ODD = {
    "encoded.eml": "From: =?utf-8?b?SsO8cmdlbiBNw7xsbGVy?= <jm@x.test>\nTo: a@x.test\nSubject: =?utf-8?q?Gr=C3=BC=C3=9Fe?=\n"
                   "Date: Tue, 10 Mar 2026 09:00:00 -0400\nMessage-ID: <e1@x.test>\n\nHallo\n",
    "quoted.eml": 'From: "Doe, Jane" <jane@x.test>\nTo: "Lee, Ann" <ann@x.test>, bo@x.test\nSubject: Hi\n'
                  "Date: Tue, 10 Mar 2026 09:00:00 -0400\nMessage-ID: <q1@x.test>\n\nHi\n",
    "folded.eml": "From: Ann Lee <ann@x.test>\nTo: a@x.test,\n b@x.test\nSubject: A long\n subject\n"
                  "Date: Tue, 10 Mar 2026 09:00:00 -0400\nMessage-ID: <f1@x.test>\nReferences: <a@x>\n <b@x>\n\nbody\n\nmore\n",
    "html.eml": "From: ann@x.test\nTo: b@x.test\nSubject: Both\nDate: Tue, 10 Mar 2026 09:00:00 -0400\n"
                'Message-ID: <h1@x.test>\nContent-Type: multipart/alternative; boundary="b"\n\n--b\n'
                "Content-Type: text/plain; charset=utf-8\n\nplain\n--b\nContent-Type: text/html; charset=utf-8\n\n"
                "<p>html</p>\n--b--\n",
    "latin.eml": "From: Ann Lee <ann@x.test>\nTo: b@x.test\nSubject: Caf\n"
                 "Date: Tue, 10 Mar 2026 09:00:00 -0400\nMessage-ID: <l1@x.test>\n"
                 "Content-Type: text/plain; charset=iso-8859-1\n\ncaf\xe9\n",
}


def both(root: Path, path: Path, monkeypatch) -> tuple:
    quick = eml.load_message(root, path, [])
    with monkeypatch.context() as patched:
        patched.setattr(eml, "_plain", lambda raw: None)
        slow = eml.load_message(root, path, [])
    return quick, slow


@pytest.mark.parametrize("world", ["acme", "harbor-legal"])
def test_every_shipped_message_reads_the_same_both_ways(world, monkeypatch):
    root = WORLDS_DIR / world
    paths = sorted((root / "mail").rglob("*.eml"))
    assert paths
    for path in paths:
        quick, slow = both(root, path, monkeypatch)
        assert quick is not None and quick.model_dump() == slow.model_dump() and quick.lines == slow.lines, path


def test_odd_messages_read_the_same_and_the_unusual_ones_go_to_email(tmp_path, monkeypatch):
    (tmp_path / "mail").mkdir()
    for name, text in ODD.items():
        (tmp_path / "mail" / name).write_bytes(text.encode("latin-1"))
        quick, slow = both(tmp_path, tmp_path / "mail" / name, monkeypatch)
        assert quick.model_dump() == slow.model_dump(), name
    read = {name: eml.load_message(tmp_path, tmp_path / "mail" / name, []) for name in ODD}
    assert read["encoded.eml"].sender_name == "Jürgen Müller" and read["encoded.eml"].subject == "Grüße"
    assert read["quoted.eml"].sender_name == "Doe, Jane" and read["quoted.eml"].to == ["ann@x.test", "bo@x.test"]
    assert read["folded.eml"].subject == "A long subject" and read["folded.eml"].references == ["<a@x>", "<b@x>"]
    assert read["folded.eml"].body_text == "body\n\nmore\n"
    assert (read["html.eml"].body_text, read["html.eml"].body_html) == ("plain", "<p>html</p>")
    assert read["latin.eml"].body_text == "café\n"
    assert eml._plain(ODD["html.eml"].encode()) is None and eml._plain(ODD["latin.eml"].encode("latin-1")) is None
    assert eml._plain(ODD["folded.eml"].encode()) is not None


def test_a_written_message_reads_back_equal(tmp_path):
    root = WORLDS_DIR / "acme"
    for path in sorted((root / "mail").rglob("*.eml"))[:40]:
        message = eml.load_message(root, path, [])
        (tmp_path / "mail").mkdir(exist_ok=True)
        (tmp_path / "mail" / "m.eml").write_bytes(eml.format_message(message))
        (tmp_path / "mail" / "attachments").mkdir(exist_ok=True)
        for a in message.attachments:
            (tmp_path / "mail" / "attachments" / a.filename).write_bytes(a.content)
        again = eml.load_message(tmp_path, tmp_path / "mail" / "m.eml", [])
        assert again.model_dump(exclude={"source"}) == message.model_dump(exclude={"source"})
