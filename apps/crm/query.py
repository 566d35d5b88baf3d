"""A safe subset of SOQL, compiled to parameterised SQL over one object.

    SELECT item, ... | FIELDS(ALL) | COUNT()  FROM Object
    [WHERE cond]  [GROUP BY field, ...  [HAVING cond]]  [ORDER BY key [ASC|DESC] [NULLS FIRST|LAST], ...]
    [LIMIT n]  [OFFSET n]

    item  := field [alias] | aggregate [alias] | ( SELECT field, ... FROM ChildRelationship [WHERE cond]
             [ORDER BY ...] [LIMIT n] )
    field := name | Lookup.name | Lookup.Lookup.name ...   (Account.Owner.Name, up to five lookups)
    aggregate := COUNT() | COUNT(field) | COUNT_DISTINCT(field) | SUM(field) | AVG(field) | MIN(field) | MAX(field)

Conditions are read by ``query_where`` (date literals by ``datelits``). As in Salesforce: a query with an
aggregate or ``GROUP BY`` returns one record per group, every other field it selects must be grouped, and an
aggregate without an alias is named ``expr0``, ``expr1``, ... in order; ``HAVING`` filters groups; a child
subquery gives each parent record its children under the relationship's name (``contacts``), ``null`` when
it has none, its ``LIMIT`` counting per parent. What this subset does not do (semi-joins, ``TYPEOF``, date
functions, ``WITH``, ``FOR``, ``ROLLUP``, ...) is refused by name. Field names come from the object's allowlist
(``fields``); every value is bound as a parameter.
"""

from __future__ import annotations

from datetime import date

from apps.crm import fields as f
from apps.crm import models as m
from apps.crm.query_plan import DEFAULT_LIMIT, MAX_LIMIT, MAX_OFFSET, Child, Compiled, bad, tokenize
from apps.crm.query_where import Conditions

__all__ = ["Compiled", "compile_soql"]
_AGGREGATES = {"COUNT", "COUNT_DISTINCT", "SUM", "AVG", "MIN", "MAX"}
_AGGREGATE_KINDS = {"SUM": ("number",), "AVG": ("number",), "MIN": ("number", "date", "datetime", "text"),
                    "MAX": ("number", "date", "datetime", "text")}
_UNSUPPORTED = ("WITH", "FOR", "USING", "TYPEOF", "ROLLUP", "CUBE", "GROUPING", "FORMAT", "TOLABEL",
                "CONVERTCURRENCY", "DISTANCE", "GEOLOCATION", "CALENDAR_MONTH", "CALENDAR_QUARTER", "CALENDAR_YEAR",
                "DAY_IN_MONTH", "DAY_IN_WEEK", "DAY_IN_YEAR", "DAY_ONLY", "FISCAL_MONTH", "FISCAL_QUARTER",
                "FISCAL_YEAR", "HOUR_IN_DAY", "WEEK_IN_MONTH", "WEEK_IN_YEAR", "SELECT")
# Per parent object: child relationship (normalised) → (child object, the child's column holding the parent's id).
_ACTIVITIES = {"tasks": ("Task", "related_id"), "events": ("Event", "related_id"), "notes": ("Note", "related_id")}
CHILDREN: dict[str, dict[str, tuple[str, str]]] = {
    "Account": {"contacts": ("Contact", "account_id"), "opportunities": ("Opportunity", "account_id"),
                "cases": ("Case", "account_id"), "child_accounts": ("Account", "parent_id"), **_ACTIVITIES},
    "Contact": {"cases": ("Case", "contact_id"), **_ACTIVITIES},
    "Lead": dict(_ACTIVITIES), "Opportunity": dict(_ACTIVITIES), "Case": dict(_ACTIVITIES),
}


class Parser(Conditions):
    """Reads one query (or, made by ``_child``, one child subquery) into ``self.out``."""

    def __init__(self, tokens: list[tuple[str, str]], today: date, zone: str = "UTC", people: tuple = (),
                 child: bool = False):
        super().__init__(tokens, today, zone, people)
        self.child = child
        self.having = False
        self.unnamed = 0

    def compile(self) -> Compiled:
        self.take("SELECT")
        fields_at = self.pos
        self._skip_to_from()
        self.take("FROM")
        self.out = Compiled(object=self._source(self.take()[1]), select=[], people=self.people)
        after, self.pos = self.pos, fields_at
        items = self._items()
        self.pos = after
        self._clauses(items)
        if self.pos < len(self.tokens) and not (self.child and self.peek(")")):
            word = self.tokens[self.pos][1]
            if word.upper() in _UNSUPPORTED:
                raise bad(f"{word} is not supported in this subset of SOQL")
            raise bad(f"unexpected {word!r}")
        return self.out if self.child else self.out.plan()

    def _skip_to_from(self) -> None:
        depth = 0
        while depth or not self.peek("FROM"):
            kind, value = self.take("FROM") if not self.peek() else self.take()
            depth += (value == "(") - (value == ")")

    def _source(self, name: str) -> str:
        found = next((o for o in m.OBJECTS if o.lower() == name.lower()), None)
        if found is None:
            raise bad(f"unknown object {name!r}; query one of {', '.join(m.OBJECTS)}")
        return found

    def _items(self) -> list[tuple[str, f.QField | Child, bool]]:
        """The SELECT list as (kind, what, whether it was given an alias), kind ``field``, ``aggregate`` or ``child``."""
        words = [v.upper() for _, v in self.tokens[self.pos:self.pos + 4]]
        if words[:3] == ["COUNT", "(", ")"] and self.tokens[self.pos + 3][1].upper() == "FROM":
            self.out.count_only = True
            return []
        items = self._all_or_item()
        while self.peek(","):
            self.take()
            items += self._all_or_item()
        if not self.peek("FROM"):
            raise bad(f"expected , or FROM in the SELECT list but found {self.tokens[self.pos][1]!r}")
        return items

    def _all_or_item(self) -> list[tuple[str, f.QField | Child, bool]]:
        """``FIELDS(ALL)`` (or ``*``) as every field of the object, or one item."""
        words = [v.upper() for _, v in self.tokens[self.pos:self.pos + 4]]
        if words[:4] == ["FIELDS", "(", "ALL", ")"] or words[:1] == ["*"]:
            self.pos += 4 if words[0] == "FIELDS" else 1
            return [("field", q, False) for q in f.FIELDS[self.out.object].values()]
        return [self._item()]

    def _item(self) -> tuple[str, f.QField | Child, bool]:
        if self.peek("("):
            return "child", self._child(), False
        if self.peek("FROM", ","):
            raise bad("SELECT needs field names, FIELDS(ALL) or COUNT()")
        q = self.operand(aggregates=True)
        kind = "aggregate" if q.name == "" else "field"
        if self.peek() and self.tokens[self.pos][0] == "word" and not self.peek("FROM"):
            return kind, f.QField(self.take()[1], q.sql, q.kind), True
        if kind == "aggregate":
            self.unnamed += 1
            return kind, f.QField(f"expr{self.unnamed - 1}", q.sql, q.kind), False
        return kind, q, False

    def operand(self, aggregates: bool = False) -> f.QField:
        """A field, or an aggregate where one may stand (the SELECT list, HAVING, an aggregate query's ORDER BY):
        an aggregate comes back unnamed (``name == ""``)."""
        kind, name = self.take()
        if kind != "word":
            raise bad(f"expected a field name but found {name!r}")
        word = name.upper()
        if not self.peek("("):
            q = self.field(name)
            if self.having and q.sql not in (self.out.group or ()):
                raise bad(f"HAVING {q.name}: the field must be grouped, or stand inside an aggregate")
            return q
        if word not in _AGGREGATES or word == "COUNT" and self.child:
            raise bad(f"{name}() is not supported in this subset of SOQL"
                      f"{'' if word not in _AGGREGATES else ' inside a child subquery'}")
        if not (aggregates or self.having):
            raise bad(f"{name}() may stand only in the SELECT list, HAVING or ORDER BY of an aggregate query")
        self.take("(")
        if word == "COUNT" and self.peek(")"):
            self.take(")")
            return f.QField("", "count(*)", "number")
        q = self.field(self.take()[1])
        self.take(")")
        if word in _AGGREGATE_KINDS and q.kind not in _AGGREGATE_KINDS[word]:
            raise bad(f"{word} does not work on {q.name}, a {q.kind} field")
        sql = {"COUNT": f"count({q.sql})", "COUNT_DISTINCT": f"count(distinct {q.sql})"}.get(word, f"{word.lower()}({q.sql})")
        return f.QField("", sql, q.kind if word in ("MIN", "MAX") else "number")

    def _child(self) -> Child:
        if self.child:
            raise bad("a subquery inside a subquery is not supported (Salesforce allows one level)")
        self.take("(")
        start = self.pos
        self.take("SELECT")
        self._skip_to_from()
        self.take("FROM")
        name = self.take()[1]
        known = {f.normal(k): k for k in CHILDREN.get(self.out.object, {})}
        if f.normal(name) not in known:
            shown = ", ".join(known.values()) or "none"
            raise bad(f"{self.out.object} has no child relationship {name!r}; its relationships: {shown}")
        relation = known[f.normal(name)]
        obj, link = CHILDREN[self.out.object][relation]
        sub = Parser(self.tokens, self.today, self.zone, self.people, child=True)
        sub.pos = start
        query = sub.compile_child(obj)
        self.pos = sub.pos
        self.take(")")
        only = f"t.related_object = '{self.out.object}'" if link == "related_id" else "1"
        return Child(relation, query, f"t.{link}", only)

    def compile_child(self, obj: str) -> Compiled:
        self.take("SELECT")
        fields_at = self.pos
        self._skip_to_from()
        self.take("FROM")
        self.take()
        self.out = Compiled(object=obj, select=[], people=self.people, limit=MAX_LIMIT)
        after, self.pos = self.pos, fields_at
        items = self._items()
        if self.out.count_only or any(kind != "field" for kind, _, _ in items):
            raise bad("a child subquery selects fields only: no COUNT(), aggregates or nested subqueries")
        self.pos = after
        self._clauses(items)
        if not self.peek(")"):
            raise bad(f"expected ) to end the subquery but found {self.tokens[self.pos][1] if self.peek() else 'the end'!r}")
        return self.out

    def _clauses(self, items: list) -> None:
        if self.peek("WHERE"):
            self.take()
            self.out.where = self._or()
        self._grouping(items)
        if self.peek("ORDER"):
            self._order()
        self.out.limit = self._number("LIMIT", self.out.limit if self.child else DEFAULT_LIMIT, MAX_LIMIT)
        if self.child and self.peek("OFFSET"):
            raise bad("OFFSET is not supported in a child subquery")
        self.out.offset = self._number("OFFSET", 0, MAX_OFFSET)

    def _grouping(self, items: list) -> None:
        group: list[f.QField] = []
        if self.peek("GROUP"):
            if self.child:
                raise bad("GROUP BY is not supported in a child subquery")
            self.take("GROUP")
            self.take("BY")
            group = [self._groupable(self.take()[1])]
            while self.peek(","):
                self.take()
                group.append(self._groupable(self.take()[1]))
        aggregate = bool(group) or any(kind == "aggregate" for kind, _, _ in items)
        if aggregate and self.out.count_only:
            raise bad("COUNT() stands alone; to count per group, select COUNT(Id) with the grouped fields")
        if aggregate:
            self._aggregate(items, group)
        elif self.peek("HAVING"):
            raise bad("HAVING needs GROUP BY")
        else:
            self._plain(items)

    def _groupable(self, name: str) -> f.QField:
        q = self.field(name)
        if q.kind == "datetime":
            raise bad(f"{q.name} is a date and time field and cannot be grouped (date functions are not supported)")
        return q

    def _aggregate(self, items: list, group: list[f.QField]) -> None:
        grouped = {q.sql for q in group}
        for kind, q, _ in items:
            if kind == "child":
                raise bad("a child subquery cannot stand in an aggregate query")
            if kind == "field" and q.sql not in grouped:
                raise bad(f"field must be grouped or aggregated: {q.name}")
        self.out.select = [q for _, q, _ in items]
        self.out.group = [q.sql for q in group]
        if self.peek("HAVING"):
            if not group:
                raise bad("HAVING needs GROUP BY")
            self.take()
            self.having = True
            self.out.having = self._or()
            self.having = False

    def _plain(self, items: list) -> None:
        if any(aliased for _, _, aliased in items):
            raise bad("an alias may be given only in an aggregate query (with GROUP BY or an aggregate)")
        fields = [q for kind, q, _ in items if kind == "field"]
        self.out.children = [c for kind, c, _ in items if kind == "child"]
        if not self.out.count_only:
            self.out.select = list({q.name: q for q in [self.field("id"), *fields]}.values())

    def _order(self) -> None:
        self.take("ORDER")
        self.take("BY")
        grouped = set(self.out.group or ())
        while True:
            q = self.operand(aggregates=self.out.aggregate)
            if self.out.aggregate and q.name and q.sql not in grouped:
                raise bad(f"ORDER BY {q.name} in an aggregate query: order by a grouped field or an aggregate")
            direction = self.take()[1].lower() if self.peek("ASC", "DESC") else "asc"
            nulls = ""
            if self.peek("NULLS"):
                self.take()
                nulls = f" nulls {self.take('FIRST', 'LAST')[1].lower()}"
            self.out.order.append(f"{q.sql} {direction}{nulls}")
            if not self.peek(","):
                break
            self.take()

    def _number(self, word: str, default: int, most: int) -> int:
        if not self.peek(word):
            return default
        self.take()
        kind, raw = self.take()
        if kind != "num" or "." in raw or len(raw) > 12 or int(raw) < 0 or int(raw) > most:
            raise bad(f"{word} takes a whole number from 0 to {most}, not {raw[:20]!r}")
        return int(raw)


def compile_soql(text: str, today: date, zone: str = "UTC", people: tuple = ()) -> Compiled:
    """``text`` compiled for a day (date literals count from it) in a zone (where a day of a time field starts),
    with the world's people (``(email, name, title, team, manager)``) as the users an owner is."""
    if not text.strip():
        raise bad("write a query such as SELECT name, amount FROM Opportunity WHERE stage = 'Proposal'")
    return Parser(tokenize(text), today, zone, people).compile()
