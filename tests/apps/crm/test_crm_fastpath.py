"""The plain-SQL reads give what the ORM paths give, on every opportunity and contact of a world."""

from datetime import datetime, timezone

import pytest
from sqlmodel import select

from apps.crm import fastpath, selling
from apps.crm import models as m
from apps.crm import store as crm_store
from apps.kit import Ctx, NotFound
from apps.kit.invoker import invoke


def _ctx(db, session=None):
    ctx = Ctx(db, "dana@small.test", datetime(2026, 3, 16, tzinfo=timezone.utc), None, "e1")
    ctx._session = session
    return ctx


def test_reads_match_the_orm_paths_for_every_record(store, world_dir):
    episode = store.create(str(world_dir))
    crm = store.apps["crm"].operations
    some = invoke(episode, crm["query"], {"soql": "SELECT id FROM Opportunity"}, "python").result["records"][0]["id"]
    moved = invoke(episode, crm["update_opportunity"], {"opportunity_id": some, "stage": "Closed Lost",
                                                         "close_date": "2026-03-20", "loss_reason": "price"}, "python")
    assert moved.error is None
    db = episode.db("crm")
    with db.session() as session:
        ctx = _ctx(db, session)
        opportunities = {o.id: selling.detail(ctx, o).model_dump(mode="json") for o in session.exec(select(m.Opportunity))}
        contacts = {c.id: crm_store.contact(ctx, c).model_dump(mode="json") for c in session.exec(select(m.Contact))}
    assert opportunities and contacts and any(c["reports_to_name"] for c in contacts.values())
    assert len(opportunities[some]["history"]) >= 2
    for record_id, dumped in opportunities.items():
        assert fastpath.opportunity_detail(_ctx(db), record_id).model_dump(mode="json") == dumped
    for record_id, dumped in contacts.items():
        assert fastpath.contact(_ctx(db), record_id).model_dump(mode="json") == dumped
    with pytest.raises(NotFound, match="no opportunity with id 9999"):
        fastpath.opportunity_detail(_ctx(db), 9999)
    with pytest.raises(NotFound, match="no contact with id 9999"):
        fastpath.contact(_ctx(db), 9999)
