"""Mail filters in the world format: a mailbox of ``mail/mailboxes.yaml`` may declare filters, which an
episode's mailbox holds from the start (list_filters) and which act on mail as it arrives, as Gmail's do;
the world's own mail is left as its files say. A filter create_filter would refuse is a problem naming
the file and line. The writer gives the filters back."""

import pytest
import yaml
from factories import make_world
from surfaces import call

from apps.mail.world import MailSection
from simulator.store.registry import world_sections
from worlds import WorldError, load_world

SAM = "sam@globex.example"
BOX = {"labels": ["Deals", "Clients/Globex"], "messages": {"<g1@globex.example>": ["UNREAD", "Deals", "STARRED"]},
       "filters": [{"sender": SAM, "label": "clients/globex", "archive": True, "star": True},
                   {"subject": "lunch", "mark_read": True}]}


def _world(tmp_path, box=BOX):
    return make_world(tmp_path / "worlds", mailboxes={"dana@small.test": box})


def _send_as(api, episode, sender, **arguments):
    step = api.post(f"/v1/episodes/{episode['id']}/call", json={"tool": "mail_send", "as": sender,
                                                                  "arguments": arguments}).json()
    assert step["error"] is None, step["error"]


def _labels(api, episode, subject):
    hits = call(api, episode, "mail", "search", query=f'subject:"{subject}" in:anywhere').json()["messages"]
    return set(next(h for h in hits if h["subject"] == subject)["labels"])


def test_a_worlds_filters_are_in_the_mailbox_and_act_on_arriving_mail(api, tmp_path):
    episode = api.post("/v1/episodes", json={"world": str(_world(tmp_path))}).json()
    filters = call(api, episode, "mail", "list_filters").json()
    assert [(f["sender"], f["label"], f["archive"]) for f in filters] == [
        (SAM, "Clients/Globex", True), (None, None, False)]
    assert _labels(api, episode, "Globex renewal pricing") == {"INBOX", "UNREAD", "Deals", "STARRED"}   # as filed
    _send_as(api, episode, SAM, to=["dana@small.test"], subject="Renewal question", body="One more thing.")
    _send_as(api, episode, "ravi@small.test", to=["dana@small.test"], subject="Lunch today", body="Noon?")
    assert _labels(api, episode, "Renewal question") == {"UNREAD", "Clients/Globex", "STARRED"}   # archived
    assert _labels(api, episode, "Lunch today") == {"INBOX"}


def test_the_writer_gives_the_filters_back(tmp_path):
    world = load_world(_world(tmp_path), world_sections())
    out = tmp_path / "out"
    MailSection().write(world.sections["mail"], out)
    written = yaml.safe_load((out / "mail" / "mailboxes.yaml").read_text())
    assert written["dana@small.test"]["filters"] == BOX["filters"]


@pytest.mark.parametrize("bad, problem", [
    ({"sender": SAM}, "give at least one action"),
    ({"star": True}, "give at least one criterion"),
    ({"sender": SAM, "label": "Nope"}, "label 'Nope' is not in their labels"),
    ({"sender": SAM, "forward_to": "sam@globex.example"}, "is not a colleague of theirs"),
    ({"sender": SAM, "forward_to": "dana@small.test"}, "is not a colleague of theirs"),
    ({"sender": SAM, "colour": "red"}, "colour"),
])
def test_a_filter_create_filter_would_refuse_is_a_problem_with_its_line(tmp_path, bad, problem):
    with pytest.raises(WorldError) as raised:
        load_world(_world(tmp_path, {**BOX, "filters": [bad]}), world_sections())
    assert any(p.startswith("mail/mailboxes.yaml:") and problem in p for p in raised.value.problems), \
        raised.value.problems
