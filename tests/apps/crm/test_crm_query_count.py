"""``query``'s ``matching`` is the number of matching records for every page, whether it was counted or
known from a page that came back short of its limit."""

from apps.crm import models as m
from apps.crm import query as crm_query
from apps.crm import views
from apps.kit.invoker import invoke


def test_matching_equals_a_count_of_the_matches_for_every_limit_and_offset(store):
    episode = store.create("acme")
    op = store.apps["crm"].operations["query"]
    conn = episode.read_db("crm").conn
    counted = 0
    original = views._matching

    def spy(conn, q, found):
        nonlocal counted
        total = original(conn, q, found)
        counted += total == conn.execute(q.count_sql, q.params).fetchone()[0]
        return total

    views._matching = spy
    try:
        for where, params in (("amount > 50000", (50000,)), ("stage = 'Closed Won'", ()), ("amount < 0", ())):
            sql = f"select count(*) from {m.Opportunity.__tablename__} where " + where.replace("50000", "?")
            matches = conn.execute(sql, params).fetchone()[0]
            for limit in (1, 2, matches - 1, matches, matches + 1, 200):
                for offset in (0, 1, matches - 1, matches, matches + 3):
                    if limit < 1 or offset < 0:
                        continue
                    soql = f"SELECT name FROM Opportunity WHERE {where} LIMIT {limit} OFFSET {offset}"
                    step = invoke(episode, op, {"soql": soql}, "python")
                    assert step.error is None, step.error
                    expected_rows = max(0, min(limit, matches - offset))
                    assert (step.result["matching"], step.result["total_size"]) == (matches, expected_rows), soql
    finally:
        views._matching = original
    assert counted > 50


def test_records_are_what_zipping_names_and_rows_gives_for_any_names():
    rows = [(1, "a", 2.5, None), [2, "b'\"{}", -1.0, True]]
    for names in (("id", "name", "amount", "flag"), ("name", "name", "x", "name"), ("a'b", 'c"d', "{e}", "_0")):
        made = views._records(names)(rows)
        assert [list(r.items()) for r in made] == [list(dict(zip(names, row)).items()) for row in rows], names
    assert views._records(("only",))([(7,), (8,)]) == [{"only": 7}, {"only": 8}]
    assert views._records(())([(), ()]) == [{}, {}]


def test_query_results_are_byte_for_byte_those_of_zipping_names_and_rows(store, monkeypatch):
    episode = store.create("acme")
    op = store.apps["crm"].operations["query"]
    queries = [f"SELECT FIELDS(ALL) FROM {obj} ORDER BY id LIMIT 7" for obj in m.OBJECTS]
    queries += ["SELECT name, amount FROM Opportunity WHERE amount > 50000 ORDER BY amount DESC",
                "SELECT name, name, is_closed, CreatedDate FROM Opportunity LIMIT 3", "SELECT id FROM Account"]
    fast = [invoke(episode, op, {"soql": soql}, "python") for soql in queries]
    monkeypatch.setattr(views, "_records", lambda names: lambda rows: [dict(zip(names, row)) for row in rows])
    monkeypatch.setattr(crm_query, "kept", lambda db, conn, key: None)   # read afresh, not the answers kept above
    for soql, step in zip(queries, fast):
        reference = invoke(episode, op, {"soql": soql}, "python")
        assert step.error is None and step.result["records"], (soql, step.error)
        assert step.result_json == reference.result_json, soql
