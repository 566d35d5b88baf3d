"""A time zone that is no IANA name is refused as invalid, naming the field, even when the times carry their
own offset (it was kept and crashed the invitation mail: found by a random agent of ``tasks check``)."""

from __future__ import annotations

from surfaces import call


def test_an_unknown_zone_is_refused_even_beside_times_with_offsets(api, episode):
    for start in ("2026-03-18T15:00:00", "2026-03-18T15:00:00-04:00"):
        r = call(api, episode, "calendar", "create_event", title="Sync", start=start, end="2026-03-18T16:00:00-04:00",
                 time_zone="kickoff get the", attendees=["ravi@small.test"])
        assert r.status_code == 422, r.text
        assert r.json()["error"]["field"] == "time_zone" and "IANA" in r.json()["error"]["message"]
    r = call(api, episode, "calendar", "create_calendar", name="Trips", time_zone="Mars/Olympus")
    assert r.status_code == 422 and r.json()["error"]["field"] == "time_zone"
    r = call(api, episode, "calendar", "list_events", start="2026-03-18T00:00:00", end="2026-03-19T00:00:00")
    assert "Sync" not in {e["title"] for e in r.json()["events"]}
