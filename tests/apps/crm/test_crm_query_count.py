"""``query``'s ``matching`` is the number of matching records for every page, whether it was counted or
known from a page that came back short of its limit; its records are what zipping names and converted cells gives."""


import pytest
from query_reference import cell

from apps.crm import models as m
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


TIMES = ["2026-03-16 13:00:00.000000", "2026-03-16 13:00:00.123400", "0999-01-02 03:04:05.000001", "2026-03-16",
         "2026-03-16T13:00:00", "2026-03-16 13:00:00+02:00", "2026-03-16T13:00:00.5-04:30", "2026-03-16 13:00:00Z",
         "2026-03-16T13:00:00.123456789", "2026-W11-1 13:00:00.000000", "20260316T130000", "2026-03-16 23:59:59.999999",
         "2026-02-30 13:00:00.000000", "2026-03-16 24:00:00.000000", "not a time", "", "2026-03-16 13:00:00 +00:00"]


def test_converted_cells_are_what_converting_each_cell_gives():
    values = [*TIMES, None, 0, 1, 2, -1, 1.5, 0.0, "0", "text", b"", b"x"]
    for kind in ("bool", "datetime"):
        for value in values:
            made = views._records(("v",), ((0, kind),))
            try:
                expected = {"v": cell(value, kind)}
            except ValueError as exc:
                with pytest.raises(ValueError) as raised:
                    made([(value,)])
                assert str(raised.value) == str(exc), value
                continue
            found = made([(value,)])[0]
            assert repr(found) == repr(expected) and type(found["v"]) is type(expected["v"]), (kind, value)
    rows = [(1, "2026-03-16 13:00:00.000000", 0, "a"), (2, None, None, "b"), (3, "2026-03-16 13:00:00.5", 7, "c")]
    names, converted = ("id", "at", "flag", "at"), ((1, "datetime"), (2, "bool"))
    assert views._records(names, converted)(rows) == [
        dict(zip(names, [cell(v, dict(converted).get(i, "text")) for i, v in enumerate(row)])) for row in rows]


def test_query_results_are_byte_for_byte_those_of_zipping_names_and_rows(store, monkeypatch):
    episode = store.create("acme")
    op = store.apps["crm"].operations["query"]
    queries = [f"SELECT FIELDS(ALL) FROM {obj} ORDER BY id LIMIT 7" for obj in m.OBJECTS]
    queries += ["SELECT name, amount FROM Opportunity WHERE amount > 50000 ORDER BY amount DESC",
                "SELECT name, name, is_closed, CreatedDate FROM Opportunity LIMIT 3", "SELECT id FROM Account"]
    fast = [invoke(episode, op, {"soql": soql}, "python") for soql in queries]
    monkeypatch.setattr(views, "_records", lambda names, converted: lambda rows: [
        dict(zip(names, [cell(v, dict(converted).get(i, "")) for i, v in enumerate(row)])) for row in rows])
    for soql, step in zip(queries, fast):
        reference = invoke(episode, op, {"soql": soql}, "python")
        assert step.error is None and step.result["records"], (soql, step.error)
        assert step.result_json == reference.result_json, soql
