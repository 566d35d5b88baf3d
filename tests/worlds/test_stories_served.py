"""A generated world's story, served: in an episode the docs app's evaluated forecast total, the CRM's
pipeline and the summary mail in the chief executive's inbox give the same number, and the review
meeting that mail names is on their calendar on that day."""

from __future__ import annotations

import csv
import io
import re

from simulator.store.registry import world_sections
from worlds import load_world
from worlds.generate import generate


def test_the_forecast_the_crm_and_the_mail_agree_through_the_apps(api, tmp_path):
    root = generate(11, "s", tmp_path / "w", sections=world_sections())
    ceo = next(p.email for p in load_world(root, world_sections()).info.people if p.manager is None)
    episode = api.post("/v1/episodes", json={"world": str(root)}).json()["id"]

    def call(tool: str, **arguments):
        step = api.post(f"/v1/episodes/{episode}/call", json={"tool": tool, "arguments": arguments, "as": ceo}).json()
        assert step.get("error") is None, step
        return step["result"]

    soql = ("SELECT amount FROM Opportunity WHERE stage != 'Closed Lost' AND close_date >= 2026-01-01 "
            "AND close_date <= 2026-03-31")
    pipeline = sum(r["amount"] for r in api.post(f"/episodes/{episode}/api/crm/query", json={"soql": soql}).json()["records"])
    (sheet,) = api.post(f"/episodes/{episode}/api/docs/search", json={"name": "Forecast Q1 2026"}).json()["files"]
    values = list(csv.reader(io.StringIO(api.post(f"/episodes/{episode}/api/docs/read_file",
                                                  json={"file_id": sheet["id"]}).json()["content"])))
    assert values[-1][0] == "Total" and float(values[-1][5]) == pipeline > 0

    found = call("mail_search", query='"sheet totals"')
    (hit,) = [m for m in found["messages"] if not m["subject"].startswith("Re:")]  # not the replies quoting it
    message = call("mail_get_message", message_id=hit["id"])
    assert f"totals ${pipeline:,.0f} across {len(values) - 2} opportunities" in message["body"]
    title, day = re.search(r'invite for "([^"]+)" on \w+, (\w+ \d+)', message["body"]).groups()
    events = call("calendar_search_events", query=title)
    events = events["events"] if isinstance(events, dict) else events
    assert any(e["title"] == title and day.split()[1] == str(int(e["start"][8:10])) for e in events), events
