"""The plain-SQL reads give what the ORM paths give, field by field and in order, on every record of a world."""

import json
from datetime import date, datetime, timezone

import pytest
from query_reference import cell
from sqlmodel import select

from apps.crm import fastpath, selling
from apps.crm import models as m
from apps.crm import schemas as s
from apps.crm import store as crm_store
from apps.kit import Ctx, NotFound
from apps.kit.invoker import invoke
from apps.kit.wire import Wire


def _ctx(db, session=None):
    ctx = Ctx(db, "dana@small.test", datetime(2026, 3, 16, tzinfo=timezone.utc), None, "e1")
    ctx._session = session
    return ctx


def _account_orm(ctx, a):
    """``get_account`` as the ORM path built it: the account, then its related lists by ``store.related``."""
    return s.AccountDetail(
        **crm_store.account(ctx, a).model_dump(),
        contacts=[crm_store.contact(ctx, c) for c in crm_store.related(ctx, m.Contact, m.Contact.account_id, a.id,
                                                                        m.Contact.last_name)],
        opportunities=[crm_store.opportunity(ctx, o) for o in crm_store.related(
            ctx, m.Opportunity, m.Opportunity.account_id, a.id, m.Opportunity.close_date)],
        cases=[crm_store.case(ctx, c) for c in crm_store.related(ctx, m.Case, m.Case.account_id, a.id,
                                                                  m.Case.created_at)],
    )


# object: (table, fast path, ORM reference, operation)
READS = {
    "account": (m.Account, fastpath.account_detail, _account_orm, "get_account"),
    "contact": (m.Contact, fastpath.contact, crm_store.contact, "get_contact"),
    "lead": (m.Lead, fastpath.lead, crm_store.lead, "get_lead"),
    "opportunity": (m.Opportunity, fastpath.opportunity_detail, selling.detail, "get_opportunity"),
    "case": (m.Case, fastpath.case, crm_store.case, "get_case"),
}


def _text(data) -> str:
    """A dumped result as JSON text: equal only when every field, value and key order is."""
    return json.dumps(data)


@pytest.mark.parametrize("world", ["acme", "small"])
def test_reads_match_the_orm_paths_for_every_record(store, world_dir, world):
    episode = store.create("acme" if world == "acme" else str(world_dir))
    crm = store.apps["crm"].operations
    some = invoke(episode, crm["query"], {"soql": "SELECT id FROM Opportunity"}, "python").result["records"][0]["id"]
    moved = invoke(episode, crm["update_opportunity"], {"opportunity_id": some, "stage": "Closed Lost",
                                                         "close_date": "2026-03-20", "loss_reason": "price"}, "python")
    assert moved.error is None
    for name, args in (("create_case", {"subject": "No account", "status": "Closed"}),   # no account, contact
                       ("create_contact", {"last_name": "Alone", "first_name": " "}),      # no account, a blank first name
                       ("convert_lead", {"lead_id": 1})):                                  # converted: times, flags
        assert invoke(episode, crm[name], args, "python").error is None, name
    db = episode.db("crm")
    expected: dict[str, dict] = {}
    with db.session() as session:
        ctx = _ctx(db, session)
        for what, (table, _, orm, _) in READS.items():
            expected[what] = {r.id: orm(ctx, r).model_dump(mode="json") for r in session.exec(select(table))}
    assert all(expected.values())
    assert any(c["reports_to_name"] for c in expected["contact"].values())
    assert any(c["contact_name"] for c in expected["case"].values())
    assert any(c["account_name"] is None and c["is_closed"] for c in expected["case"].values())
    assert any(lead["is_converted"] and lead["converted_at"] for lead in expected["lead"].values())
    assert len(expected["opportunity"][some]["history"]) >= 2
    assert any(a["contacts"] and a["opportunities"] for a in expected["account"].values())
    for what, (_, fast, _, name) in READS.items():
        op = crm[name]
        for record_id, dumped in expected[what].items():
            got = fast(_ctx(db), record_id)
            assert isinstance(got, Wire)
            assert _text(op.dump(got)) == _text(dumped), (what, record_id)
        with pytest.raises(NotFound, match=f"no {what} with id 9999") as refused:
            fast(_ctx(db), 9999)
        assert refused.value.field == f"{what}_id"
        # And through the invoker: the step records the same result.
        first = next(iter(expected[what]))
        step = invoke(episode, op, {f"{what}_id": first}, "python")
        assert _text(step.result) == _text(expected[what][first])


def test_list_users_and_query_give_what_their_models_dump_to(store):
    episode = store.create("acme")
    crm = store.apps["crm"].operations
    users = invoke(episode, crm["list_users"], {}, "python").result
    assert _text(users) == _text([s.User(email=p.email, name=p.name, title=p.title, team=p.team, manager=p.manager)
                                  .model_dump(mode="json") for p in episode.world.info.people])
    soqls = [f"SELECT FIELDS(ALL) FROM {obj}" for obj in ("Account", "Contact", "Lead", "Opportunity", "Case", "Task",
                                                           "Event", "Note")]
    soqls += ["SELECT COUNT() FROM Opportunity WHERE amount > 50000", "SELECT name, amount FROM Opportunity "
              "WHERE amount > 50000 ORDER BY amount DESC LIMIT 5 OFFSET 2", "SELECT id FROM Lead WHERE is_converted = TRUE"]
    from apps.crm.query import compile_soql

    conn = episode.db("crm").conn
    for soql in soqls:
        result = invoke(episode, crm["query"], {"soql": soql}, "python").result
        assert result["records"] or "COUNT" in soql or "is_converted" in soql
        assert _text(result) == _text(s.QueryResult.model_validate(result).model_dump(mode="json")), soql
        q = compile_soql(soql, date(2026, 3, 16))   # the records as first built: every cell through ``cell``
        if q.count_only:
            assert result["records"] == [] and result["total_size"] == result["matching"]
            continue
        rows = conn.execute(f"select {', '.join(f.sql for f in q.select)} from {m.OBJECTS[q.object].__tablename__} t "
                            f"where {q.where} order by {', '.join([*q.order, 't.id asc'])} limit ? offset ?",
                            [*q.params, q.limit, q.offset]).fetchall()
        first = [{f.name: cell(v, f.kind) for f, v in zip(q.select, row)} for row in rows]
        assert _text(result["records"]) == _text(first), soql


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
        name, detail, haystack, _, only = (part.replace(views._ACCOUNT, _FIRST_ACCOUNT) if isinstance(part, str)
                                           else part for part in views._SEARCH[obj])
        where = " and ".join([only, *(f"lower({haystack}) like ?" for _ in words)])   # converted leads left out
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


def _activities_orm(ctx, related_object, related_id):
    """``list_activities`` as the ORM path read it."""
    from sqlmodel import and_, or_

    crm_store.get(ctx, m.OBJECTS[related_object], related_id, "related_id")
    parents = [(related_object, related_id)]
    if related_object == "Account":
        for obj, table in (("Contact", m.Contact), ("Opportunity", m.Opportunity), ("Case", m.Case)):
            parents += [(obj, i) for i in ctx.session.exec(select(table.id).where(table.account_id == related_id))]

    def rows(table):
        wanted = or_(*[and_(table.related_object == obj, table.related_id == i) for obj, i in parents])
        return [crm_store.activity(r) for r in ctx.session.exec(
            select(table).where(wanted).order_by(table.created_at, table.id))]

    return s.Activities(tasks=rows(m.Task), events=rows(m.Event), notes=rows(m.Note))


def _views_orm(ctx, who, everyone):
    """``my_open_opportunities``, ``my_open_tasks`` and ``open_cases_by_priority`` as the ORM path read them."""
    from sqlmodel import col

    from apps.crm.picklists import CASE_PRIORITIES, OPEN_STAGES

    opportunities = [crm_store.opportunity(ctx, o) for o in ctx.session.exec(
        select(m.Opportunity).where(m.Opportunity.owner == who, col(m.Opportunity.stage).in_(OPEN_STAGES))
        .order_by(col(m.Opportunity.close_date).is_(None), col(m.Opportunity.close_date), col(m.Opportunity.id)))]
    tasks = [crm_store.activity(t) for t in ctx.session.exec(
        select(m.Task).where(m.Task.owner == who, m.Task.status != "Completed")
        .order_by(col(m.Task.due_date).is_(None), col(m.Task.due_date), col(m.Task.id)))]
    stmt = select(m.Case).where(m.Case.status != "Closed").order_by(col(m.Case.created_at), col(m.Case.id))
    cases = list(ctx.session.exec(stmt if everyone else stmt.where(m.Case.owner == who)))
    groups = []
    for priority in CASE_PRIORITIES:
        found = [crm_store.case(ctx, c) for c in cases if c.priority == priority]
        groups.append(s.PriorityGroup(priority=priority, count=len(found), cases=found))
    return ([o.model_dump(mode="json") for o in opportunities], [t.model_dump(mode="json") for t in tasks],
            [g.model_dump(mode="json") for g in groups])


def test_activities_and_list_views_match_the_orm_paths_for_every_record_and_person(store):
    episode = store.create("acme")
    crm = store.apps["crm"].operations
    db = episode.db("crm")
    logged = 0
    with db.session() as session:
        ctx = _ctx(db, session)
        for obj in ("Account", "Contact", "Lead", "Opportunity", "Case"):
            for (record_id,) in db.conn.execute(f"select id from {m.OBJECTS[obj].__tablename__}").fetchall():
                expected = _activities_orm(ctx, obj, record_id).model_dump(mode="json")
                got = invoke(episode, crm["list_activities"], {"related_object": obj, "related_id": record_id}, "python")
                assert _text(got.result) == _text(expected), (obj, record_id)
                logged += sum(len(v) for v in expected.values())
            refused = invoke(episode, crm["list_activities"], {"related_object": obj, "related_id": 9999}, "python")
            assert refused.error == {"type": "not_found", "message": f"no {obj.lower()} with id 9999",
                                     "field": "related_id"}
        assert logged
        seen = [0, 0, 0]
        for person in [p.email for p in episode.world.info.people]:
            opportunities, tasks, groups = _views_orm(ctx, person, everyone=False)
            for name, expected in (("my_open_opportunities", opportunities), ("my_open_tasks", tasks),
                                   ("open_cases_by_priority", groups)):
                got = invoke(episode, crm[name], {"owner": person}, "python")
                assert _text(got.result) == _text(expected), (name, person)
            seen = [seen[0] + len(opportunities), seen[1] + len(tasks), seen[2] + sum(g["count"] for g in groups)]
        assert all(seen)
        everyone = invoke(episode, crm["open_cases_by_priority"], {}, "python").result
        assert _text(everyone) == _text(_views_orm(ctx, episode.actor, everyone=True)[2])
