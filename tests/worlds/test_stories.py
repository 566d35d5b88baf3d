"""Generated worlds read like a company: deals, escalations, hires and the quarter close unfold across
mail, CRM, docs and the calendar, and what one app says agrees with the others."""

from __future__ import annotations

import re
from collections import defaultdict
from datetime import date
from zoneinfo import ZoneInfo

import pytest

from simulator.store.registry import world_sections
from worlds import load_world
from worlds.consistency import check
from worlds.digest import content_hash
from worlds.generate import generate
from worlds.generate.voice import SIGN_OFFS, attribution


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    return load_world(generate(11, "s", tmp_path_factory.mktemp("stories") / "s", sections=world_sections()),
                      world_sections())


def by_thread(world, prefix: str) -> dict[str, list]:
    threads = defaultdict(list)
    for m in world.sections["mail"].messages:
        if m.source.startswith(f"mail/{prefix}-"):
            threads[m.source.rsplit("/", 1)[0]].append(m)
    return {k: sorted(v, key=lambda m: m.date) for k, v in threads.items()}


def meetings(world) -> dict[str, list]:
    found = defaultdict(list)
    for key, event in world.sections["calendar"].events.items():
        found[event.title].append(event)
    return found


def test_the_same_seed_writes_the_same_stories(world, tmp_path):
    again = generate(11, "s", tmp_path / "again", sections=world_sections())
    assert content_hash(again) == content_hash(world.root)


def test_deals_move_through_stages_with_mail_meetings_and_a_proposal(world):
    told = [(k, o) for k, o in world.sections["crm"].opportunities.items() if len(o.history) > 1]
    assert len(told) >= 5
    order = ["Prospecting", "Qualification", "Needs Analysis", "Value Proposition", "Proposal", "Negotiation"]
    docs = {i.name: i for i in world.sections["docs"].items}
    calendar = meetings(world)
    for key, opp in told:
        stages = [e for e in opp.history if e.field == "stage"]
        assert stages[0].old == "Prospecting" and stages[-1].new == opp.stage
        assert all(a.new == b.old and a.at < b.at for a, b in zip(stages, stages[1:]))
        assert all(order.index(e.new) > order.index(e.old) for e in stages if e.new in order)
        account = world.sections["crm"].accounts[opp.account].name.split(",")[0]
        assert calendar[f"Discovery call: {account}"], key
        assert any(e.related == f"opportunity/{key}" for e in world.sections["crm"].events.values())
        if any(e.new == "Proposal" for e in stages):
            proposal = docs[f"Proposal - {opp.name}"]
            assert f"The total for {opp.name} is ${opp.amount:,.0f}" in proposal.text
    negotiated = [o for _, o in told if any(e.field == "amount" for e in o.history)]
    assert negotiated and all(o.history[-1].new == o.stage for o in negotiated)
    assert all(a.at < b.at for o in negotiated for a, b in zip(o.history, o.history[1:]))
    for opp in negotiated:
        change = next(e for e in opp.history if e.field == "amount")
        assert change.new == opp.amount and change.old > opp.amount
        text = " ".join(m.body_text for m in world.sections["mail"].messages if opp.name in m.body_text)
        assert f"${change.old:,.0f}" in text and f"We can do {opp.name} at ${opp.amount:,.0f}" in text


def test_a_meeting_named_in_mail_is_on_the_calendar_that_day_with_the_people_mailed(world):
    zone = ZoneInfo(world.info.timezone)
    calendar = meetings(world)
    named = 0
    for m in world.sections["mail"].messages:
        own = "\n".join(line for line in m.body_text.splitlines() if not line.startswith(">"))
        for title, month, day in re.findall(r'invite for "([^"]+)" on \w+day, (\w+) (\d+)', own):
            events = [e for e in calendar[title] if e.start.strftime("%B") == month and e.start.day == int(day)]
            assert events, (m.source, title)
            invited = {events[0].organizer, *events[0].attendees}
            assert {m.sender, *m.to, *m.cc} <= invited, m.source
            assert m.date.astimezone(zone).date() <= events[0].start.date()
            named += 1
    assert named >= 15


def test_people_write_in_one_voice_and_replies_quote_their_parent_in_the_worlds_zone(world):
    zone = ZoneInfo(world.info.timezone)
    by_id = {m.message_id: m for m in world.sections["mail"].messages}
    endings = defaultdict(set)
    for m in world.sections["mail"].messages:
        own = re.split(r"\n\nOn .* wrote:\n", m.body_text, maxsplit=1)[0].rstrip().splitlines()
        endings[m.sender].add(next(line.split()[0] if line.startswith("— ") else line for line in reversed(own)
                                   if line in SIGN_OFFS or line.startswith("— ")))
        if m.in_reply_to:
            parent = by_id[m.in_reply_to]
            line = f"On {attribution(parent.date.astimezone(zone))} {parent.sender_name} <{parent.sender}> wrote:"
            assert line in m.body_text, m.source
            assert "\n".join("> " + x if x else ">" for x in parent.body_text.rstrip().splitlines()) in m.body_text
    writers = [s for s in endings if sum(m.sender == s for m in world.sections["mail"].messages) >= 3]
    assert len(writers) >= 10 and all(len(endings[s]) == 1 for s in writers)
    assert len({next(iter(endings[s])) for s in writers}) >= 3  # people differ from each other


def test_an_escalation_has_the_complaint_the_case_the_internal_mail_and_the_call(world):
    escalations = by_thread(world, "escalation")
    assert escalations
    for thread in escalations.values():
        first = thread[0]
        account = first.subject.removeprefix("Escalation: ").split(" - ")[0]
        case = next(c for c in world.sections["crm"].cases.values() if c.subject in first.subject
                    and world.sections["crm"].accounts[c.account].name.startswith(account))
        assert case.status in ("Escalated", "Closed") and case.priority in ("High", "Critical")
        call = meetings(world)[f"Escalation call: {account}"]
        contact = world.sections["crm"].contacts[case.contact].email
        assert call and contact in call[0].attendees and first.sender in {call[0].organizer, *call[0].attendees}
        assert any(m.sender == contact and m.subject == case.subject for m in world.sections["mail"].messages)


def test_a_hire_has_a_requisition_interviews_and_an_offer_inside_the_band(world):
    offers = [t for t in by_thread(world, "hire").values() if t[0].subject.startswith("Offer: ")]
    assert offers
    for thread in offers:
        role = thread[0].subject.removeprefix("Offer: ").split(" at ")[0]
        requisition = next(i for i in world.sections["docs"].items if i.name == f"Requisition - {role}")
        low, high = (int(x.replace(",", "")) for x in re.findall(r"\$([\d,]+)", requisition.text)[:2])
        salary = int(re.search(r"base salary of \$([\d,]+)", thread[0].body_text)[1].replace(",", ""))
        assert low <= salary <= high
        candidate = thread[0].to[0]
        assert candidate in {o.email for o in world.info.outsiders}
        assert any(candidate in e.attendees for e in world.sections["calendar"].events.values()
                   if e.title.startswith("Interview: "))


def test_the_forecast_sheet_is_the_crm_pipeline_and_the_summary_quotes_its_total(world):
    now = world.info.now.date()
    first = date(now.year, 3 * ((now.month - 1) // 3) + 1, 1)
    pipeline = {o.name: o.amount for o in world.sections["crm"].opportunities.values()
                if o.stage != "Closed Lost" and o.close_date and first <= o.close_date <= now.replace(month=3, day=31)}
    sheet = next(i for i in world.sections["docs"].items if i.name == f"Forecast Q1 {now.year}")
    body = sheet.rows[1:-1]
    assert sorted(r[0] for r in body) == sorted(pipeline) and all(float(r[5]) == pipeline[r[0]] for r in body)
    assert sheet.rows[-1][0] == "Total" and sheet.rows[-1][5] == f"=SUM(F2:F{len(sheet.rows) - 1})"
    summary = by_thread(world, "forecast")
    (thread,) = summary.values()
    assert f'sheet totals ${sum(pipeline.values()):,.0f} across {len(pipeline)} opportunities' in thread[0].body_text
    assert world.person(thread[0].sender).title == "VP Sales" and world.person(thread[0].to[0]).manager is None


def test_the_generated_world_is_consistent_across_apps(world):
    assert check(world, world_sections()) == []
