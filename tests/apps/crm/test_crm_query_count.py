"""``query``'s ``matching`` is the number of matching records for every page, whether it was counted or
known from a page that came back short of its limit."""

from apps.crm import models as m
from apps.crm import views
from apps.kit.invoker import invoke


def test_matching_equals_a_count_of_the_matches_for_every_limit_and_offset(store):
    episode = store.create("acme")
    op = store.apps["crm"].operations["query"]
    conn = episode.read_db("crm").conn
    counted = 0
    original = views._matching

    def spy(ctx, base, q, found):
        nonlocal counted
        total = original(ctx, base, q, found)
        counted += total == ctx.sql.execute(f"select count(*) {base}", q.params).fetchone()[0]
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
