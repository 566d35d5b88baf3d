"""CRM operations for finding and summarising: global search, SOQL-like queries, and list views."""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache
from typing import Callable, Literal
from zoneinfo import ZoneInfo

from apps.crm import fastpath, store
from apps.crm import models as m
from apps.crm import schemas as s
from apps.crm.picklists import CASE_PRIORITIES, CLOSED_STAGES, OPEN_STAGES, STAGES
from apps.crm.query import Compiled, compile_soql
from apps.crm.query_plan import Child
from apps.kit import Ctx, Invalid, OperationSet
from apps.kit.wire import Wire

ops = OperationSet("crm")
SearchObject = Literal["Account", "Contact", "Lead", "Opportunity", "Case"]

# The record's account name: the account is joined (``a``) where an object has one.
_ACCOUNT = "coalesce(a.name, '')"
_PERSON = "trim(t.first_name || ' ' || t.last_name)"
# Per object: (name, detail, text searched, whether the account is joined, which records search at all); all SQL
# written here, the search words are bound. ``like`` ignores ASCII case itself, as ``lower`` folds only ASCII: the
# text is not lowered. A converted lead is found no more, as in Salesforce: its contact (and account) are.
_SEARCH = {
    "Account": ("t.name", "coalesce(t.industry, '')", "t.name || ' ' || coalesce(t.website, '')", False, "1"),
    "Contact": (_PERSON, f"coalesce(t.email, '') || ' · ' || {_ACCOUNT}",
                f"{_PERSON} || ' ' || coalesce(t.email, '') || ' ' || {_ACCOUNT}", True, "1"),
    "Lead": (_PERSON, "t.company || ' · ' || coalesce(t.email, '')",
             f"{_PERSON} || ' ' || coalesce(t.email, '') || ' ' || t.company", False, "not t.is_converted"),
    "Opportunity": ("t.name", f"{_ACCOUNT} || ' · ' || t.stage", f"t.name || ' ' || {_ACCOUNT}", True, "1"),
    "Case": ("t.subject", f"{_ACCOUNT} || ' · ' || t.status", f"t.subject || ' ' || {_ACCOUNT}", True, "1"),
}
_JOIN = " left join crm_account a on a.id = t.account_id"


@ops.read
def search(ctx: Ctx, query: str = "", objects: list[SearchObject] = [], limit: int = 20,
           text: str | None = None) -> list[s.SearchHit]:
    """Search accounts, contacts, leads, opportunities and cases by name, email or company.

    Every word must appear (case-insensitive) in a record's name, email, company or account name.
    Converted leads are left out, as in Salesforce (read one with get_lead; its contact is found).

    Args:
        query: Words to look for, e.g. 'globex' or 'sam ortiz'.
        objects: Only these kinds of record; all when empty.
        limit: Most hits to return per kind of record (1-100).
        text: The words to look for, under the name this argument had before: give query or text, not both.
    """
    if text is not None and query:
        raise Invalid("text: give the words as query (text is its old name), not both", field="text")
    named = "text" if text is not None else "query"
    words = (text if text is not None else query).split()
    if not words:
        raise Invalid(f"{named}: give at least one word to search for", field=named)
    if not 1 <= limit <= 100:
        raise Invalid("limit: must be between 1 and 100", field="limit")
    hits = []
    wanted: list[str] = list(objects) or list(_SEARCH)
    for obj in wanted:
        name, detail, haystack, joined, only = _SEARCH[obj]
        where = " and ".join([only, *(f"({haystack}) like ?" for _ in words)])
        sql = (f"select t.id, {name}, {detail} from {m.OBJECTS[obj].__tablename__} t{_JOIN if joined else ''} "
               f"where {where} order by {name}, t.id limit ?")
        rows = ctx.sql.execute(sql, [f"%{w.lower()}%" for w in words] + [limit]).fetchall()
        hits += [s.SearchHit(object=obj, id=r[0], name=r[1], detail=r[2].strip(" ·")) for r in rows]
    return hits


# A query compiled once for its text and day (an agent repeats its queries); the compiled query is only read.
_compiled = lru_cache(maxsize=512)(compile_soql)


def _flag(value):
    """A boolean column's stored value as it dumps: ``bool``, ``None`` kept."""
    return value if value is None else bool(value)


def _utc(value):
    """A time column's stored text as it dumps: the time read as UTC, ``Z`` for its zone (a time written with another
    zone keeps its clock reading, as it always did); anything but text as it is. ``isoformat`` of the time read,
    as read: what putting UTC in as its zone and writing ``+00:00`` as ``Z`` gave at a third of the cost."""
    if not isinstance(value, str):
        return value
    moment = datetime.fromisoformat(value)
    return (moment if moment.tzinfo is None else moment.replace(tzinfo=None)).isoformat() + "Z"


@ops.read
def query(ctx: Ctx, soql: str) -> Wire[s.QueryResult]:
    """Query one kind of record with SOQL (a subset): fields through lookups, aggregates, child subqueries.

    SELECT field, ... | FIELDS(ALL) | COUNT() FROM Account|Contact|Lead|Opportunity|Case|Task|Event|Note
    [WHERE cond] [GROUP BY field, ... [HAVING cond]] [ORDER BY field [ASC|DESC], ...] [LIMIT n] [OFFSET n].
    Operators: = != < <= > >= LIKE IN NOT IN; values: 'text', numbers, YYYY-MM-DD, TRUE, FALSE, NULL and date
    literals (TODAY, YESTERDAY, THIS_WEEK, LAST_MONTH, THIS_QUARTER, LAST_N_DAYS:n, NEXT_N_DAYS:n, ...,
    counted from today in the company's zone). Field names are ours (close_date) or Salesforce's (CloseDate,
    StageName), also through lookups (Account.Owner.Name, Contact.Account.Industry). Aggregates: COUNT(Id),
    COUNT_DISTINCT, SUM, AVG, MIN, MAX, named expr0, expr1, ... unless given an alias; one record per group.
    A child subquery, e.g. SELECT Name, (SELECT LastName FROM Contacts) FROM Account, gives each record its
    children as {total_size, records}, or null when it has none. Without LIMIT, at most 200 records come back.
    total_size counts the records that came back (as Salesforce's totalSize does; for COUNT() it is the count);
    matching counts every match (every group, for an aggregate query).

    Args:
        soql: The query, e.g. "SELECT name, amount FROM Opportunity WHERE stage = 'Proposal' ORDER BY amount DESC".
    """
    zone = ctx.world.timezone
    today = ctx.now.astimezone(ZoneInfo(zone)).date()
    q = _compiled(soql, today, zone, _people(ctx.world))
    conn = ctx.sql
    # Built in the form a QueryResult dumps to: its records hold SQLite's own values, which dump as they are
    # (times and booleans converted: ``_records``).
    if q.count_only:
        total = conn.execute(q.count_sql, q.params).fetchone()[0]
        return Wire({"object": q.object, "total_size": total, "matching": total, "records": []})
    rows = conn.execute(q.page_sql, q.page_params).fetchall()
    total = _matching(conn, q, len(rows))
    records = _records(q.names, q.converted)(rows)
    for child in q.children:
        _children(conn, child, records)
    return Wire({"object": q.object, "total_size": len(records), "matching": total, "records": records})


def _people(world) -> tuple:
    """The world's people as ``crm_user`` rows: made once per world (the same tuple each call keys the cache)."""
    known = _USERS.get(id(world.people))
    if known is None or known[0] is not world.people:
        if len(_USERS) > 64:
            _USERS.clear()
        known = _USERS[id(world.people)] = (world.people, _Users((p.email, p.name, p.title, p.team, p.manager)
                                                                 for p in world.people))
    return known[1]


class _Users(tuple):
    """The rows, hashed once: a query's cache key holds them (7 µs a call to hash acme's 32 again each time)."""

    def __hash__(self) -> int:
        found = self.__dict__.get("hash")
        if found is None:
            found = self.__dict__["hash"] = tuple.__hash__(self)
        return found


_USERS: dict[int, tuple[list, tuple]] = {}   # id of a world's list of people → (that list, its rows)


def _children(conn, child: Child, records: list[dict]) -> None:
    """Each record's children under ``child.name``: ``{total_size, records}``, at most the subquery's LIMIT, or
    ``None`` when it has none (as Salesforce gives them)."""
    ids = [r["id"] for r in records]
    found: dict[int, list[dict]] = {}
    q = child.query
    read = _records(q.names, q.converted)
    for start in range(0, len(ids), 500):
        part = ids[start:start + 500]
        for row in conn.execute(child.sql(len(part)), [*q.params, *part]).fetchall():
            mine = found.setdefault(row[-1], [])
            if len(mine) < q.limit:
                mine.extend(read([row[:-1]]))
    for record in records:
        kids = found.get(record["id"])
        record[child.name] = {"total_size": len(kids), "records": kids} if kids else None


@lru_cache(maxsize=512)
def _records(names: tuple[str, ...], converted: tuple[tuple[int, str], ...] = ()) -> Callable[[list], list[dict]]:
    """What ``[dict(zip(names, row)) for row in rows]`` gives (a later column of a name repeated wins, in the
    first one's place), the columns in ``converted`` (position, ``bool`` or ``datetime``) through ``_flag`` or
    ``_utc``, as a comprehension of dict displays written for these names: a third of the time. The names are
    written as string literals (``repr``), the values bound by position."""
    if not names:
        return lambda rows: [{} for _ in rows]
    values = [f"_{i}" for i in range(len(names))]
    shown = list(values)
    for i, kind in converted:
        shown[i] = f"{_CONVERT[kind]}({values[i]})"
    pairs = ", ".join(f"{name!r}: {value}" for name, value in zip(names, shown))
    return eval(f"lambda rows: [{{{pairs}}} for {', '.join(values)}, in rows]",   # noqa: S307
                {"__builtins__": {}, "_flag": _flag, "_utc": _utc})


_CONVERT = {"bool": "_flag", "datetime": "_utc"}


def _matching(conn, q: Compiled, found: int) -> int:
    """How many records match: known without counting them when the page came back short of its limit
    with something on it (or from the start), since then it holds the last match."""
    if 0 <= found < q.limit and (found or q.offset == 0):
        return q.offset + found
    return conn.execute(q.count_sql, q.params).fetchone()[0]


def _owner_filter(ctx: Ctx, owner: str | None) -> str | None:
    return None if owner is None else store.person(ctx, owner)


@ops.read
def my_open_opportunities(ctx: Ctx, owner: str = "me") -> Wire[list[s.Opportunity]]:
    """The list view 'My Opportunities': open opportunities you own, soonest close date first.

    Args:
        owner: Whose open opportunities ('me' for yours, or a user's address).
    """
    who = store.person(ctx, owner)
    return Wire(fastpath.OPPORTUNITY.where(ctx, f"t.owner = ? and t.stage in ({', '.join('?' * len(OPEN_STAGES))})",
                                           (who, *OPEN_STAGES), "t.close_date is null, t.close_date, t.id"))


@ops.read
def pipeline_by_stage(ctx: Ctx, owner: str | None = None) -> s.Pipeline:
    """The pipeline: for every stage, how many opportunities, their total and weighted amounts.

    Args:
        owner: Only this user's opportunities ('me' for yours); everyone's when left out.
    """
    who = _owner_filter(ctx, owner)
    # Three columns in plain SQL, in the order the ORM read whole rows in (by id): sums come out the same.
    sql = "select stage, amount, probability from crm_opportunity" + (" where owner = ?" if who else "")
    return pipeline(who, ctx.sql.execute(sql + " order by id", (who,) if who else ()))


def pipeline(who: str | None, opportunities) -> s.Pipeline:
    """The totals of ``pipeline_by_stage`` from each opportunity's (stage, amount, probability)."""
    totals = {stage: [0, 0.0, 0.0] for stage in STAGES}
    for stage, amount, probability in opportunities:
        amount = amount or 0.0
        totals[stage][0] += 1
        totals[stage][1] += amount
        totals[stage][2] += amount * probability / 100
    stages = [s.StageTotal(stage=k, count=c, amount=round(a, 2), weighted_amount=round(w, 2))
              for k, (c, a, w) in totals.items()]
    open_ = [t for t in stages if t.stage not in CLOSED_STAGES]
    return s.Pipeline(owner=who, stages=stages, open_amount=round(sum(t.amount for t in open_), 2),
                      open_weighted_amount=round(sum(t.weighted_amount for t in open_), 2))


@ops.read
def open_cases_by_priority(ctx: Ctx, owner: str | None = None) -> Wire[list[s.PriorityGroup]]:
    """Open cases grouped by priority, most urgent first; oldest case first within a priority.

    Args:
        owner: Only this user's cases ('me' for yours); everyone's when left out.
    """
    who = _owner_filter(ctx, owner)
    cases = fastpath.CASE.where(ctx, "t.status != 'Closed'" + (" and t.owner = ?" if who else ""), (who,) if who else (),
                                "t.created_at, t.id")
    groups = []
    for priority in CASE_PRIORITIES:
        found = [c for c in cases if c["priority"] == priority]
        groups.append({"priority": priority, "count": len(found), "cases": found})
    return Wire(groups)


@ops.read
def my_open_tasks(ctx: Ctx, owner: str = "me") -> Wire[list[s.Task]]:
    """The list view 'My Tasks': tasks not yet completed, earliest due date first.

    Args:
        owner: Whose tasks ('me' for yours, or a user's address).
    """
    who = store.person(ctx, owner)
    return Wire(fastpath.TASK.where(ctx, "t.owner = ? and t.status != 'Completed'", (who,),
                                    "t.due_date is null, t.due_date, t.id"))
