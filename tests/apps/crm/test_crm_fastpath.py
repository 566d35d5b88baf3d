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


def _pipeline_orm(ctx, who):
    """``pipeline_by_stage`` as it read the opportunities before: whole ORM rows."""
    from apps.crm import views

    stmt = select(m.Opportunity)
    if who:
        stmt = stmt.where(m.Opportunity.owner == who)
    return views.pipeline(who, [(o.stage, o.amount, o.probability) for o in ctx.session.exec(stmt)])


@pytest.mark.parametrize("world", ["acme", "small"])
def test_pipeline_matches_the_orm_path_for_everyone_and_every_owner(store, world_dir, world):
    episode = store.create("acme" if world == "acme" else str(world_dir))
    crm = store.apps["crm"].operations
    if world == "small":   # amounts with cents, one without an amount, a stage moved
        for name, amount in (("Cents", 1234.56), ("Thirds", 1000 / 3), ("Nothing", None)):
            made = invoke(episode, crm["create_opportunity"], {"name": name, "account_id": 1, "stage": "Prospecting",
                                                               "close_date": "2026-04-01", "amount": amount}, "python")
            assert made.error is None, made.error
    people = [None, "me", *[p.email for p in episode.world.info.people]]
    db, seen = episode.db("crm"), 0
    for owner in people:
        got = invoke(episode, crm["pipeline_by_stage"], {} if owner is None else {"owner": owner}, "python")
        with db.session() as session:
            ctx = Ctx(db, episode.actor, episode.clock.now(), episode.world.info, episode.id)
            ctx._session = session
            who = None if owner is None else (episode.actor if owner == "me" else owner)
            assert got.result == _pipeline_orm(ctx, who).model_dump(mode="json")
        seen += sum(t["count"] for t in got.result["stages"])
    assert seen
    refused = invoke(episode, crm["pipeline_by_stage"], {"owner": "nobody@else.test"}, "python")
    assert refused.error["field"] == "owner"


# The search as first written: the account read by a subquery per record, the text lowered before ``like``.
_FIRST_ACCOUNT = "coalesce((select a.name from crm_account a where a.id = t.account_id), '')"


def _search_first(ctx, words, objects, limit):
    from apps.crm import views

    hits = []
    for obj in objects:
        name, detail, haystack, _ = (part.replace(views._ACCOUNT, _FIRST_ACCOUNT) if isinstance(part, str) else part
                                     for part in views._SEARCH[obj])
        where = " and ".join(f"lower({haystack}) like ?" for _ in words)
        sql = (f"select t.id, {name}, {detail} from {m.OBJECTS[obj].__tablename__} t where {where} "
               f"order by {name}, t.id limit ?")
        rows = ctx.sql.execute(sql, [f"%{w.lower()}%" for w in words] + [limit]).fetchall()
        hits += [{"object": obj, "id": r[0], "name": r[1], "detail": r[2].strip(" ·")} for r in rows]
    return hits


TEXTS = ["globex", "GLOBEX", "sam ortiz", "a", "e o", "@", "acme com", "renewal", "Inc", "%", "a_b", "é", "zzz",
         "closed won", "new"]


def test_search_matches_its_first_spelling_for_every_text_and_object(store):
    from apps.crm import views

    episode = store.create("acme")
    crm = store.apps["crm"].operations
    db = episode.db("crm")
    objects = list(views._SEARCH)
    found = 0
    for text in TEXTS:
        for wanted, limit in ((objects, 20), (["Contact", "Opportunity"], 3), (["Case"], 100)):
            got = invoke(episode, crm["search"], {"text": text, "objects": wanted, "limit": limit}, "python")
            ctx = Ctx(db, episode.actor, episode.clock.now(), episode.world.info, episode.id)
            assert got.result == _search_first(ctx, text.split(), wanted, limit), (text, wanted)
            found += len(got.result)
    assert found
    assert invoke(episode, crm["search"], {"text": "  "}, "python").error["field"] == "text"
