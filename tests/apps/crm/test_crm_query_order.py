"""``query`` ordered by amount: ties (and empty amounts) come in id order either way, as the index on amount
reads them, and SQLite reads that index rather than sorting."""

import pytest

from apps.kit.invoker import invoke

SOQL = "SELECT name, amount FROM Opportunity {where} ORDER BY amount {direction}"


def _query(episode, store, soql):
    done = invoke(episode, store.apps["crm"].operations["query"], {"soql": soql}, "python")
    assert done.error is None, done.error
    return done.result["records"]


@pytest.mark.parametrize("direction", ["DESC", "ASC"])
@pytest.mark.parametrize("where", ["", "WHERE amount > 50000", "WHERE amount != NULL"])
def test_amount_order_breaks_ties_by_id_and_reads_the_index(store, direction, where):
    episode = store.create("acme")
    conn = episode.db("crm").conn
    # Ties and empty amounts on purpose: the later ids first in the table, the lower ids sharing their amounts.
    conn.execute("update crm_opportunity set amount = 90000 where id in (3, 40, 7)")
    conn.execute("update crm_opportunity set amount = null where id in (2, 5)")
    conn.commit()
    rows = dict(conn.execute("select id, amount from crm_opportunity").fetchall())
    assert rows[3] == rows[40] == 90000 and rows[5] is None
    records = _query(episode, store, SOQL.format(where=where, direction=direction))
    ids = [r["id"] for r in records]
    kept = {"": lambda amount: True, "WHERE amount > 50000": lambda amount: amount is not None and amount > 50000,
            "WHERE amount != NULL": lambda amount: amount is not None}[where]
    expected = [i for i in rows if kept(rows[i])]
    low = float("-inf")
    expected.sort(key=lambda i: (-(rows[i] if rows[i] is not None else low), i) if direction == "DESC"
                  else ((rows[i] if rows[i] is not None else low), i))
    assert ids == expected and [r["amount"] for r in records] == [rows[i] for i in expected]
    tied = [i for i in ids if rows[i] == 90000]
    assert {3, 7, 40} <= set(tied) and tied == sorted(tied)
    plan = " ".join(r[3] for r in conn.execute(
        f"explain query plan select id, name, amount from crm_opportunity t {where.lower().replace('!= null', 'is not null')}"
        f" order by t.amount {direction.lower()}, t.id asc"))
    assert "ix_crm_opportunity_amount" in plan and "TEMP B-TREE" not in plan
