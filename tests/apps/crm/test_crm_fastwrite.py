"""The plain-SQL ``update_opportunity`` writes what its ORM path writes (the row, the field history, the change
log's list of them) and gives what it gives, errors included, in field order, on every opportunity."""

import json

import pytest
from written import written

from apps.crm import schemas as s
from apps.crm import selling
from apps.kit import Ctx, OpError

# Updates that pass and updates the rules refuse: stage moves (with and without a probability), amounts, dates,
# names, owners, clearing texts, and a loss without its reason.
UPDATES = [
    {"next_step": "Send the revised proposal"}, {"next_step": ""}, {"stage": "Proposal"},
    {"stage": "Negotiation", "probability": 55}, {"probability": 101}, {"amount": 1000}, {"amount": 12.5},
    {"amount": -5}, {"amount": None}, {"close_date": "2026-05-01"}, {"close_date": None}, {"stage": "Closed Lost"},
    {"stage": "Closed Lost", "loss_reason": "Price", "amount": 0}, {"loss_reason": ""}, {"name": "  "},
    {"name": " Renamed deal "}, {"owner": "me"}, {"owner": "nobody@example.com"}, {"owner": "KEVIN.LIU@acmeanalytics.com"},
    {"description": "", "type": "Existing Customer", "lead_source": "Web"}, {},
]


@pytest.mark.parametrize("world", ["acme", "small"])
def test_update_opportunity_matches_the_orm_path_on_every_opportunity(store, world_dir, world):
    episode = store.create("acme" if world == "acme" else str(world_dir))
    db, info = episode.db("crm"), episode.world.info
    op = store.apps["crm"].operations["update_opportunity"]
    ids = [i for (i,) in db.conn.execute("select id from crm_opportunity order by id")]
    assert ids
    owners = [o for (o,) in db.conn.execute("select distinct owner from crm_opportunity order by owner")]
    people = [*owners[:3], *[p.email for p in info.people if p.email not in owners][:1], info.people[0].email]
    kinds: dict[str, int] = {}
    for n, opportunity_id in enumerate([*ids, max(ids) + 1]):
        for person in people:
            # every opportunity with the first update, and two others in turn (so each update meets several stages)
            same = dict(zip(("name", "stage"), db.conn.execute(   # what it holds already: no column changes
                "select name, stage from crm_opportunity where id = ?", (opportunity_id,)).fetchone() or ()))
            for update in (UPDATES[0], UPDATES[1 + n % (len(UPDATES) - 1)], UPDATES[1 + n * 7 % (len(UPDATES) - 1)],
                           same):
                try:
                    kwargs, _ = op.accept({"opportunity_id": opportunity_id, **update})
                except OpError:   # refused before the operation runs (a negative amount)
                    continue
                given = {f: kwargs.pop(f) for f in s.OpportunityUpdate.model_fields if f in kwargs}
                kwargs["fields"] = s.OpportunityUpdate.model_validate(   # as the operation gathers its fields
                    {f: value for f, value in given.items() if value is not None})
                ctx = Ctx(db, person, episode.clock.now(), info, episode.id)
                expected = written(selling._update, ctx, **kwargs)
                assert written(selling.update_opportunity, ctx, **kwargs) == expected, (opportunity_id, person, update)
                outcome = json.loads(expected)[0]
                kind = outcome["type"] if "message" in outcome else "ok"
                kinds[kind] = kinds.get(kind, 0) + 1
    assert {"ok", "forbidden", "invalid", "not_found"} <= set(kinds)
    assert kinds["ok"] >= len(ids)
