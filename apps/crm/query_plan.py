"""What a SOQL query compiles to (``Compiled``, with its ``Child`` subqueries) and the tokens it is read from.

``plan`` writes the SQL once: the count, the page (``limit`` and ``offset`` bound last), and for an aggregate
query the same over its groups. A query that reaches an owner or creator is given the world's people as the
``crm_user`` table first (``fields.users_cte``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from apps.crm import fields as f
from apps.crm import models as m
from apps.kit import Invalid

_TOKEN = re.compile(r"""\s*(?:
    (?P<str>'(?:[^'\\]|\\.)*')
  | (?P<datetime>\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2}))
  | (?P<date>\d{4}-\d{2}-\d{2})
  | (?P<num>-?\d+(?:\.\d+)?)
  | (?P<op><=|>=|!=|<>|=|<|>)
  | (?P<punct>[(),*])
  | (?P<word>[A-Za-z_][\w.]*(?::\d+)?)
)""", re.VERBOSE)
MAX_LIMIT = 2000
MAX_OFFSET = 2000  # Salesforce's own ceiling
DEFAULT_LIMIT = 200


def bad(message: str) -> Invalid:
    return Invalid(f"soql: {message}", field="soql")


def tokenize(text: str) -> list[tuple[str, str]]:
    tokens, pos = [], 0
    text = text.strip()
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None or match.end() == pos:
            raise bad(f"cannot read {text[pos:pos + 20]!r}")
        kind = match.lastgroup or ""
        tokens.append((kind, match.group(kind)))
        pos = match.end()
    return tokens


@dataclass
class Child:
    """A child subquery, ``(SELECT LastName FROM Contacts)``: its records per parent under ``name``."""

    name: str                 # the relationship, as each parent record holds it: ``contacts``
    query: "Compiled"
    link: str                 # the child's column holding the parent's id, as SQL over ``t``
    only: str = "1"           # what else picks the parent's children (a task's ``related_object``)

    def sql(self, parents: int) -> str:
        q = self.query
        marks = ", ".join("?" for _ in range(parents))
        order = ", ".join([self.link, *q.order, "t.id asc"])
        return (f"{q.cte()}select {', '.join([*(c.sql for c in q.select), self.link])} "
                f"from {m.OBJECTS[q.object].__tablename__} t where ({q.where}) and {self.only} "
                f"and {self.link} in ({marks}) order by {order}")


@dataclass
class Compiled:
    object: str
    select: list[f.QField]
    count_only: bool = False
    where: str = "1"
    params: list = field(default_factory=list)
    order: list[str] = field(default_factory=list)
    limit: int = DEFAULT_LIMIT
    offset: int = 0
    group: list[str] | None = None          # an aggregate query's GROUP BY (``[]`` when it has none)
    having: str = ""
    children: list[Child] = field(default_factory=list)
    people: tuple = ()                      # the world's people, for ``crm_user``
    # Made once from the above (``plan``), as a compiled query is kept and run again (``views._compiled``).
    count_sql: str = ""
    page_sql: str = ""
    page_params: tuple = ()
    names: tuple[str, ...] = ()
    converted: tuple[tuple[int, str], ...] = ()   # (column, kind) of the columns whose stored form is not dumped as is

    @property
    def aggregate(self) -> bool:
        return self.group is not None

    def cte(self) -> str:
        texts = (self.where, self.having, *self.order, *(self.group or ()), *(q.sql for q in self.select))
        uses = any("crm_user" in text for text in texts)
        return f.users_cte(self.people) if uses else ""

    def plan(self) -> "Compiled":
        """Write the statements (the count, and the page with ``limit`` and ``offset`` bound last) and what reading
        a row needs, once."""
        base = f"from {m.OBJECTS[self.object].__tablename__} t where {self.where}"
        order = [*self.order, "t.id asc"]
        if self.group is not None:
            base += (f" group by {', '.join(self.group)}" if self.group else "") + \
                (f" having {self.having}" if self.having else "")
            order = [*self.order, *self.group]
        cte = self.cte()
        self.count_sql = (f"{cte}select count(*) from (select 1 {base})" if self.group is not None
                          else f"{cte}select count(*) {base}")
        ordered = f" order by {', '.join(order)}" if order else ""
        self.page_sql = f"{cte}select {', '.join(q.sql for q in self.select)} {base}{ordered} limit ? offset ?"
        self.page_params = (*self.params, self.limit, self.offset)
        self.names = tuple(q.name for q in self.select)
        self.converted = tuple((i, q.kind) for i, q in enumerate(self.select) if q.kind in ("bool", "datetime"))
        for child in self.children:
            child.query.plan()
        return self
