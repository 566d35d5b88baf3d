"""What ``query`` answers (its statements written once per compiled query, ``Compiled.plan``; times and booleans
converted in its records' dict displays, ``views._records``) is byte for byte what the query read and encoded the
old way gives (``reference`` below: statements written at each call, each cell converted by its own call), across
many queries on acme, the small world and a generated one, before and after writes, in forks, inside a
transaction that is rolled back, and across a change of day."""

from __future__ import annotations

import json
from datetime import date, timedelta
from zoneinfo import ZoneInfo

import pytest
from query_reference import cell

from apps.crm import models as m
from apps.crm import views
from apps.crm.fields import names as field_names
from apps.crm.query import compile_soql
from apps.kit import Ctx
from apps.kit.invoker import invoke
from apps.kit.trajectory import encode


def reference(conn, soql: str, today: date) -> bytes:
    """The query read and encoded as a step encodes a result, the old way: ``query`` before ``Compiled.plan``."""
    q = compile_soql(soql, today)
    base = f"from {m.OBJECTS[q.object].__tablename__} t where {q.where}"
    if q.count_only:
        total = conn.execute(f"select count(*) {base}", q.params).fetchone()[0]
        return encode({"object": q.object, "total_size": total, "matching": total, "records": []})
    rows = conn.execute(f"select {', '.join(f.sql for f in q.select)} {base} order by {', '.join([*q.order, 't.id asc'])}"
                        " limit ? offset ?", [*q.params, q.limit, q.offset]).fetchall()
    total = conn.execute(f"select count(*) {base}", q.params).fetchone()[0]
    records = [dict(zip([f.name for f in q.select], [cell(v, f.kind) for f, v in zip(q.select, row)])) for row in rows]
    return encode({"object": q.object, "total_size": len(records), "matching": total, "records": records})


def queries() -> list[str]:
    out = []
    for obj in m.OBJECTS:
        fields = field_names(obj)
        out += [f"SELECT FIELDS(ALL) FROM {obj}", f"SELECT COUNT() FROM {obj}", f"SELECT id FROM {obj} LIMIT 3 OFFSET 2",
                f"SELECT {', '.join(reversed(fields))} FROM {obj} ORDER BY {fields[-1]} DESC LIMIT 9",
                f"SELECT {fields[1]}, {fields[-1]} FROM {obj} WHERE created_at < TODAY ORDER BY updated_at, {fields[1]}"]
    out += ["SELECT name, amount FROM Opportunity WHERE amount > 50000 ORDER BY amount DESC",
            "SELECT name, amount FROM Opportunity WHERE amount > 50000 ORDER BY amount DESC LIMIT 5 OFFSET 2",
            "SELECT name, Account.Name, is_closed, is_won, CreatedDate FROM Opportunity WHERE close_date <= TODAY",
            "SELECT name, amount FROM Opportunity WHERE amount = NULL OR amount < 1000 ORDER BY amount",
            "SELECT name, stage FROM Opportunity WHERE NOT (stage IN ('Closed Won', 'Closed Lost')) LIMIT 1",
            "SELECT COUNT() FROM Opportunity WHERE close_date > TODAY",
            "SELECT name, reports_to_name, email FROM Contact WHERE name LIKE '%a%' ORDER BY last_name DESC",
            "SELECT name, is_converted, converted_at FROM Lead WHERE is_converted = FALSE",
            "SELECT subject, contact_name, is_closed, closed_at FROM Case ORDER BY priority, created_at DESC LIMIT 2000",
            "SELECT subject, start, end FROM Event WHERE start >= 2026-01-01T00:00:00Z",
            "SELECT id FROM Account WHERE name = 'no such account'", "SELECT id FROM Account LIMIT 0"]
    return out


def _today(episode) -> date:
    return episode.clock.now().astimezone(ZoneInfo(episode.world.info.timezone)).date()


def _answers_are_the_reference(episode, soqls: list[str]) -> None:
    """Every answer is the reference's bytes, and a step decodes it to the reference's data."""
    op = episode_op(episode)
    for soql in soqls:
        step = invoke(episode, op, {"soql": soql}, "python")
        expected = reference(episode.read_db("crm").conn, soql, _today(episode))
        assert step.error is None, (soql, step.error)
        assert step.result_json == expected, soql
        assert json.loads(expected) == step.result


def episode_op(episode):
    return episode.operation("crm", "query")


def _write(episode, name: str, arguments: dict, actor: str | None = None) -> None:
    step = invoke(episode, episode.operation("crm", name), arguments, "python", actor=actor)
    assert step.error is None and step.state_changed, (name, step.error)


@pytest.mark.parametrize("world", ["acme", "small", "generated"])
def test_every_answer_is_the_query_read_the_old_way(store, world_dir, tmp_path, world):
    if world == "generated":
        from simulator.store.registry import world_sections
        from worlds.generate import generate
        root = str(generate(7, "s", tmp_path / "gen", sections=world_sections()))
    else:
        root = "acme" if world == "acme" else str(world_dir)
    episode = store.create(root)
    soqls = queries()
    _answers_are_the_reference(episode, soqls)   # on the world's shared database
    some = json.loads(reference(episode.read_db("crm").conn, "SELECT owner FROM Opportunity ORDER BY amount DESC",
                                _today(episode)))["records"]
    _write(episode, "update_opportunity", {"opportunity_id": some[0]["id"], "amount": 1234.5, "stage": "Closed Won"},
           some[0]["owner"])
    _answers_are_the_reference(episode, soqls)   # the episode's own database now (its first write copied it)
    _write(episode, "update_opportunity", {"opportunity_id": some[1]["id"], "amount": 60000.25}, some[1]["owner"])
    _answers_are_the_reference(episode, soqls)   # the same database, written again
    _write(episode, "create_case", {"subject": "Query results \u00e9\u00e8 \U0001f600 \"quoted\"", "status": "Closed"})
    _answers_are_the_reference(episode, soqls)


def test_a_fork_and_its_parent_each_answer_for_their_own_state(store):
    parent = store.create("acme")
    soql = "SELECT name, amount FROM Opportunity WHERE amount > 50000 ORDER BY amount DESC"
    op = episode_op(parent)
    before = invoke(parent, op, {"soql": soql}, "python").result_json   # read from the world's shared database
    assert before == reference(parent.read_db("crm").conn, soql, _today(parent))
    other = store.create("acme")   # shares the world's database
    assert invoke(other, op, {"soql": soql}, "python").result_json == before
    child = store.fork(parent.id)
    top = json.loads(reference(parent.read_db("crm").conn, soql.replace("name,", "owner,"), _today(parent)))["records"][0]
    _write(child, "update_opportunity", {"opportunity_id": top["id"], "amount": 50001.5}, top["owner"])
    assert invoke(parent, op, {"soql": soql}, "python").result_json == before
    after = invoke(child, op, {"soql": soql}, "python").result_json
    assert after != before and after == reference(child.read_db("crm").conn, soql, _today(child))
    sibling = store.fork(parent.id)   # the same write with another value
    _write(sibling, "update_opportunity", {"opportunity_id": top["id"], "amount": 50002.5}, top["owner"])
    assert invoke(sibling, op, {"soql": soql}, "python").result_json == reference(sibling.read_db("crm").conn, soql,
                                                                                   _today(sibling)) != after


def test_inside_a_transaction_and_after_its_rollback_the_answer_is_the_state_then(store):
    episode = store.create("acme")
    soql = "SELECT name, amount FROM Opportunity WHERE amount > 50000 ORDER BY amount DESC"
    db = episode.db("crm")   # the episode's own copy, written directly below
    conn = db.conn
    ctx = Ctx(db, episode.actor, episode.clock.now(), episode.world.info, episode.id)
    clean = encode(views.query(ctx, soql).data)
    conn.execute("update crm_opportunity set amount = amount + 0.5 where amount > 50000")
    assert conn.in_transaction
    inside = encode(views.query(ctx, soql).data)
    assert inside != clean and inside == reference(conn, soql, _today(episode))
    conn.rollback()
    assert encode(views.query(ctx, soql).data) == clean == reference(conn, soql, _today(episode))


def test_a_new_day_is_a_new_answer_for_today(store):
    episode = store.create("acme")
    op = episode_op(episode)
    soql = "SELECT COUNT() FROM Opportunity WHERE close_date >= TODAY"
    counts = []
    for _ in range(3):
        step = invoke(episode, op, {"soql": soql}, "python")
        assert step.result_json == reference(episode.read_db("crm").conn, soql, _today(episode))
        counts.append(step.result["total_size"])
        episode.clock.advance(timedelta(days=40))
    assert len(set(counts)) > 1


def test_a_value_json_cannot_hold_is_left_to_the_step_as_before(store):
    episode = store.create("acme")
    conn = episode.db("crm").conn
    conn.execute("update crm_opportunity set description = ? where id = 1", (b"\xff",))   # no app writes such a blob
    conn.commit()
    op = episode_op(episode)
    soql = "SELECT description FROM Opportunity WHERE id = 1"
    step = invoke(episode, op, {"soql": soql}, "python")
    assert step.error is None
    assert step.result == {"object": "Opportunity", "total_size": 1, "matching": 1,
                           "records": [{"id": 1, "description": b"\xff"}]}
