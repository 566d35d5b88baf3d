"""A small, safe subset of SOQL, compiled to parameterised SQL over one object.

    SELECT field, ... | FIELDS(ALL) | COUNT()  FROM Object
    [WHERE cond]  [ORDER BY field [ASC|DESC], ...]  [LIMIT n]  [OFFSET n]

    cond  := term { AND term | OR term }    (AND binds tighter than OR)
    term  := NOT term | ( cond ) | field op value | field [NOT] IN (value, ...) | field [NOT] LIKE 'pattern'
    op    := = != <> < <= > >=              value := 'text' | number | YYYY-MM-DD | TRUE | FALSE | NULL | TODAY

Field names come from the object's allowlist (``fields``); every value is bound as a parameter.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime, timezone

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
  | (?P<word>[A-Za-z_][\w.]*)
)""", re.VERBOSE)
_COMPARE = {"=": "=", "!=": "!=", "<>": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}
MAX_LIMIT = 2000
MAX_OFFSET = 2000  # Salesforce's own ceiling
DEFAULT_LIMIT = 200
MAX_DEPTH = 100  # nested parentheses and NOTs; deeper is refused, never a crash
_SQL_INT = 2 ** 63


def _bad(message: str) -> Invalid:
    return Invalid(f"soql: {message}", field="soql")


def tokenize(text: str) -> list[tuple[str, str]]:
    tokens, pos = [], 0
    text = text.strip()
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None or match.end() == pos:
            raise _bad(f"cannot read {text[pos:pos + 20]!r}")
        kind = match.lastgroup or ""
        tokens.append((kind, match.group(kind)))
        pos = match.end()
    return tokens


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
    # Made once from the above (``plan``), as a compiled query is kept and run again (``views._compiled``).
    count_sql: str = ""
    page_sql: str = ""
    page_params: tuple = ()
    names: tuple[str, ...] = ()
    converted: tuple[tuple[int, str], ...] = ()   # (column, kind) of the columns whose stored form is not dumped as is

    def plan(self) -> "Compiled":
        """Write the statements (the count, and the page with ``limit`` and ``offset`` bound last) and what reading
        a row needs, once."""
        base = f"from {m.OBJECTS[self.object].__tablename__} t where {self.where}"
        self.count_sql = f"select count(*) {base}"
        order = ", ".join([*self.order, "t.id asc"])
        self.page_sql = f"select {', '.join(q.sql for q in self.select)} {base} order by {order} limit ? offset ?"
        self.page_params = (*self.params, self.limit, self.offset)
        self.names = tuple(q.name for q in self.select)
        self.converted = tuple((i, q.kind) for i, q in enumerate(self.select) if q.kind in ("bool", "datetime"))
        return self


class Parser:
    def __init__(self, text: str, today: date):
        self.tokens = tokenize(text)
        self.pos = 0
        self.today = today
        self.depth = 0

    def peek(self, *words: str) -> bool:
        if self.pos >= len(self.tokens):
            return False
        kind, value = self.tokens[self.pos]
        return not words or (kind == "word" and value.upper() in words) or (kind != "word" and value in words)

    def take(self, *words: str) -> tuple[str, str]:
        if self.pos >= len(self.tokens):
            raise _bad(f"ends too early; expected {' or '.join(words) or 'more'}")
        if words and not self.peek(*words):
            raise _bad(f"expected {' or '.join(words)} but found {self.tokens[self.pos][1]!r}")
        self.pos += 1
        return self.tokens[self.pos - 1]

    def compile(self) -> Compiled:
        self.take("SELECT")
        fields_at = self.pos
        while not self.peek("FROM"):
            self.take()
        self.take("FROM")
        self.out = Compiled(object=self._object(self.take()[1]), select=[])
        self._select(fields_at)
        if self.peek("WHERE"):
            self.take()
            self.out.where = self._or()
        if self.peek("ORDER"):
            self._order()
        self.out.limit = self._number("LIMIT", DEFAULT_LIMIT, MAX_LIMIT)
        self.out.offset = self._number("OFFSET", 0, MAX_OFFSET)
        if self.pos < len(self.tokens):
            raise _bad(f"unexpected {self.tokens[self.pos][1]!r}")
        return self.out.plan()

    def _object(self, name: str) -> str:
        found = next((o for o in m.OBJECTS if o.lower() == name.lower()), None)
        if found is None:
            raise _bad(f"unknown object {name!r}; query one of {', '.join(m.OBJECTS)}")
        return found

    def _field(self, name: str) -> f.QField:
        found = f.field(self.out.object, name)
        if found is None:
            raise _bad(f"{self.out.object} has no field {name!r}; its fields: {', '.join(f.names(self.out.object))}")
        return found

    def _select(self, start: int) -> None:
        words = [v for _, v in self.tokens[start:self.pos - 2] if v != ","]
        if [w.upper() for w in words] in (["FIELDS", "(", "ALL", ")"], ["*"]):
            self.out.select = list(f.FIELDS[self.out.object].values())
        elif [w.upper() for w in words] == ["COUNT", "(", ")"]:
            self.out.count_only = True
        elif not words or any(w in "()" for w in words):
            raise _bad("SELECT needs field names, FIELDS(ALL) or COUNT()")
        else:
            chosen = [self._field(w) for w in words]
            self.out.select = list({q.name: q for q in [self._field("id"), *chosen]}.values())

    def _or(self) -> str:
        parts = [self._and()]
        while self.peek("OR"):
            self.take()
            parts.append(self._and())
        return parts[0] if len(parts) == 1 else "(" + " or ".join(parts) + ")"

    def _and(self) -> str:
        parts = [self._term()]
        while self.peek("AND"):
            self.take()
            parts.append(self._term())
        return parts[0] if len(parts) == 1 else "(" + " and ".join(parts) + ")"

    def _term(self) -> str:
        nots = 0
        while self.peek("NOT"):  # a loop, not recursion: NOT NOT NOT ... of any length
            self.take()
            nots += 1
        inner = self._group() if self.peek("(") else self._comparison()
        return f"(not {inner})" if nots % 2 else inner

    def _group(self) -> str:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise _bad(f"parentheses are nested more than {MAX_DEPTH} deep")
        self.take("(")
        inner = self._or()
        self.take(")")
        self.depth -= 1
        return inner

    def _comparison(self) -> str:
        kind, name = self.take()
        if kind != "word":
            raise _bad(f"expected a field name but found {name!r}")
        q = self._field(name)
        negated = self.peek("NOT") and bool(self.take())
        if self.peek("IN"):
            self.take()
            return self._in(q, negated)
        if self.peek("LIKE"):
            self.take()
            return self._bind(f"({'not ' if negated else ''}{q.sql} like ?)", self._value(q, like=True))
        if negated:
            raise _bad("NOT after a field name must be followed by IN or LIKE")
        return self._compare(q)

    def _compare(self, q: f.QField) -> str:
        kind, op = self.take()
        if kind != "op":
            raise _bad(f"expected a comparison (=, !=, <, <=, >, >=, LIKE, IN) after {q.name} but found {op!r}")
        value = self._value(q)
        if value is None:
            if op not in ("=", "!=", "<>"):
                raise _bad(f"{q.name} {op} NULL: only = and != compare with NULL")
            return f"({q.sql} is {'not ' if op != '=' else ''}null)"
        return self._bind(f"({q.sql} {_COMPARE[op]} ?)", value)

    def _in(self, q: f.QField, negated: bool) -> str:
        self.take("(")
        values = [self._value(q)]
        while self.peek(","):
            self.take()
            values.append(self._value(q))
        self.take(")")
        marks = ", ".join("?" for _ in values)
        return self._bind(f"({q.sql} {'not ' if negated else ''}in ({marks}))", *values)

    def _value(self, q: f.QField, like: bool = False):
        kind, raw = self.take()
        if like and kind != "str":
            raise _bad(f"LIKE on {q.name} needs a quoted pattern, e.g. '%acme%'")
        words = {"TRUE": 1, "FALSE": 0, "NULL": None, "TODAY": self.today.isoformat()}
        if kind == "word" and raw.upper() in words:
            return self._typed(q, raw.upper(), words[raw.upper()])
        if kind not in ("str", "num", "date", "datetime"):
            raise _bad(f"expected a value for {q.name} but found {raw!r}; quote text values: '{raw}'")
        if kind == "str":
            return self._typed(q, "str", re.sub(r"\\(.)", r"\1", raw[1:-1]), like)
        return self._typed(q, kind, getattr(self, f"_{kind}")(q, raw))

    def _typed(self, q: f.QField, kind: str, value, like: bool = False):
        """Refuse a value of the wrong type for the field, as Salesforce does, naming the field."""
        fits = {"number": ("num",), "bool": ("TRUE", "FALSE"), "date": ("date", "TODAY"),
                "datetime": ("datetime", "date", "TODAY"), "text": ("str", "num")}[q.kind]
        if kind != "NULL" and kind not in fits and not like:
            shown = {"str": "text", "num": "a number", "date": "a date", "datetime": "a date and time",
                     "TRUE": "TRUE", "FALSE": "FALSE", "TODAY": "TODAY"}[kind]
            raise _bad(f"{q.name} is a {q.kind} field and cannot be compared with {shown}")
        if like and q.kind != "text":
            raise _bad(f"LIKE needs a text field; {q.name} is a {q.kind} field")
        return value

    def _num(self, q: f.QField, raw: str):
        value = None if len(raw) > 40 else float(raw) if "." in raw else int(raw)
        if value is None or not abs(value) < _SQL_INT:
            raise _bad(f"the number {raw[:20]}{'...' if len(raw) > 20 else ''} for {q.name} is out of range")
        return value

    def _date(self, q: f.QField, raw: str) -> str:
        try:
            return date.fromisoformat(raw).isoformat()
        except ValueError:
            raise _bad(f"{raw} is not a date for {q.name} (YYYY-MM-DD, a real day of a real month)") from None

    def _datetime(self, q: f.QField, raw: str) -> str:
        try:
            moment = datetime.fromisoformat(raw.replace("Z", "+00:00")).astimezone(timezone.utc)
        except ValueError:
            raise _bad(f"{raw} is not a date and time for {q.name} (e.g. 2026-03-20T15:00:00Z)") from None
        return moment.strftime("%Y-%m-%d %H:%M:%S.%f")

    def _bind(self, sql: str, *values) -> str:
        self.out.params.extend(values)
        return sql

    def _order(self) -> None:
        self.take("ORDER")
        self.take("BY")
        while True:
            q = self._field(self.take()[1])
            direction = self.take()[1].upper() if self.peek("ASC", "DESC") else "ASC"
            self.out.order.append(f"{q.sql} {direction.lower()}")
            if not self.peek(","):
                break
            self.take()

    def _number(self, word: str, default: int, most: int) -> int:
        if not self.peek(word):
            return default
        self.take()
        kind, raw = self.take()
        if kind != "num" or "." in raw or len(raw) > 12 or int(raw) < 0 or int(raw) > most:
            raise _bad(f"{word} takes a whole number from 0 to {most}, not {raw[:20]!r}")
        return int(raw)


def compile_soql(text: str, today: date) -> Compiled:
    if not text.strip():
        raise _bad("write a query such as SELECT name, amount FROM Opportunity WHERE stage = 'Proposal'")
    return Parser(text, today).compile()
