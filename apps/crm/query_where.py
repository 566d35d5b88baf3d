"""Reading SOQL conditions (``WHERE`` and ``HAVING``) into SQL with every value bound as a parameter.

    cond  := term { AND term | OR term }    (AND binds tighter than OR)
    term  := NOT term | ( cond ) | operand op value | operand [NOT] IN (value, ...) | operand [NOT] LIKE 'pattern'
    op    := = != <> < <= > >=
    value := 'text' | number | YYYY-MM-DD | date and time | TRUE | FALSE | NULL | a date literal (``datelits``)

An operand is a field (through lookups: ``Account.Owner.Name``) or, in ``HAVING``, an aggregate (``SUM(Amount)``).
A date literal names a range of days: ``=`` holds inside it, ``<`` before it, ``>`` after it.
"""

from __future__ import annotations

import re
from datetime import date, datetime, time, timezone
from zoneinfo import ZoneInfo

from apps.crm import datelits
from apps.crm import fields as f
from apps.crm.query_plan import Compiled, bad

_COMPARE = {"=": "=", "!=": "!=", "<>": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">="}
# A date literal's range (first, after last) against a field, per operator: the SQL and which bounds it binds.
_RANGE = {"=": ("({0} >= ? and {0} < ?)", (0, 1)), "!=": ("({0} < ? or {0} >= ?)", (0, 1)),
          "<": ("({0} < ?)", (0,)), "<=": ("({0} < ?)", (1,)), ">": ("({0} >= ?)", (1,)), ">=": ("({0} >= ?)", (0,))}
MAX_DEPTH = 100  # nested parentheses and NOTs; deeper is refused, never a crash
_SQL_INT = 2 ** 63


class Conditions:
    """The tokens of one query and the reading of its conditions; ``query.Parser`` reads the rest."""

    out: Compiled

    def __init__(self, tokens: list[tuple[str, str]], today: date, zone: str = "UTC", people: tuple = ()):
        self.tokens = tokens
        self.pos = 0
        self.today = today
        self.zone = zone
        self.people = people
        self.depth = 0

    def peek(self, *words: str) -> bool:
        if self.pos >= len(self.tokens):
            return False
        kind, value = self.tokens[self.pos]
        return not words or (kind == "word" and value.upper() in words) or (kind != "word" and value in words)

    def take(self, *words: str) -> tuple[str, str]:
        if self.pos >= len(self.tokens):
            raise bad(f"ends too early; expected {' or '.join(words) or 'more'}")
        if words and not self.peek(*words):
            raise bad(f"expected {' or '.join(words)} but found {self.tokens[self.pos][1]!r}")
        self.pos += 1
        return self.tokens[self.pos - 1]

    def field(self, name: str) -> f.QField:
        try:
            return f.path(self.out.object, name)
        except LookupError as e:
            raise bad(str(e)) from None

    def operand(self) -> f.QField:
        """The left side of a comparison: a field here, an aggregate too in ``HAVING`` (``query.Parser``)."""
        kind, name = self.take()
        if kind != "word":
            raise bad(f"expected a field name but found {name!r}")
        return self.field(name)

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
            raise bad(f"parentheses are nested more than {MAX_DEPTH} deep")
        self.take("(")
        inner = self._or()
        self.take(")")
        self.depth -= 1
        return inner

    def _comparison(self) -> str:
        q = self.operand()
        negated = self.peek("NOT") and bool(self.take())
        if self.peek("IN"):
            self.take()
            return self._in(q, negated)
        if self.peek("LIKE"):
            self.take()
            return self._bind(f"({'not ' if negated else ''}{q.sql} like ?)", self._value(q, like=True))
        if negated:
            raise bad("NOT after a field name must be followed by IN or LIKE")
        return self._compare(q)

    def _compare(self, q: f.QField) -> str:
        kind, op = self.take()
        if kind != "op":
            raise bad(f"expected a comparison (=, !=, <, <=, >, >=, LIKE, IN) after {q.name} but found {op!r}")
        if self._at_literal():
            sql, bounds = _RANGE[op]
            edges = self._range(q, self.take()[1].upper())
            return self._bind(sql.format(q.sql), *(edges[i] for i in bounds))
        value = self._value(q)
        if value is None:
            if op not in ("=", "!=", "<>"):
                raise bad(f"{q.name} {op} NULL: only = and != compare with NULL")
            return f"({q.sql} is {'not ' if op != '=' else ''}null)"
        return self._bind(f"({q.sql} {_COMPARE[op]} ?)", value)

    def _at_literal(self) -> bool:
        return self.peek() and self.tokens[self.pos][0] == "word" and datelits.is_literal(self.tokens[self.pos][1].upper())

    def _range(self, q: f.QField, word: str) -> tuple[str, str]:
        """The literal's days as the field stores them: dates, or UTC times of the world's midnights."""
        if q.kind not in ("date", "datetime"):
            raise bad(f"{q.name} is a {q.kind} field and cannot be compared with the date literal {word}")
        try:
            first, after = datelits.day_range(word, self.today)
        except (ValueError, OverflowError) as e:
            raise bad(f"{e} (in {word}, compared with {q.name})") from None
        if q.kind == "date":
            return first.isoformat(), after.isoformat()
        zone = ZoneInfo(self.zone)
        return tuple(datetime.combine(d, time(), zone).astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")
                     for d in (first, after))   # type: ignore[return-value]

    def _in(self, q: f.QField, negated: bool) -> str:
        self.take("(")
        if self.peek("SELECT"):
            raise bad("a semi-join, IN (SELECT ...), is not supported in this subset of SOQL")
        values = [self._value(q)]
        while self.peek(","):
            self.take()
            values.append(self._value(q))
        self.take(")")
        marks = ", ".join("?" for _ in values)
        return self._bind(f"({q.sql} {'not ' if negated else ''}in ({marks}))", *values)

    def _value(self, q: f.QField, like: bool = False):
        if self._at_literal():
            raise bad(f"the date literal {self.tokens[self.pos][1]} compares with =, !=, <, <=, > or >=, "
                      "not inside IN or LIKE")
        kind, raw = self.take()
        if like and kind != "str":
            raise bad(f"LIKE on {q.name} needs a quoted pattern, e.g. '%acme%'")
        words = {"TRUE": 1, "FALSE": 0, "NULL": None}
        if kind == "word" and raw.upper() in words:
            return self._typed(q, raw.upper(), words[raw.upper()])
        if kind not in ("str", "num", "date", "datetime"):
            raise bad(f"expected a value for {q.name} but found {raw!r}; quote text values: '{raw}'")
        if kind == "str":
            return self._typed(q, "str", re.sub(r"\\(.)", r"\1", raw[1:-1]), like)
        return self._typed(q, kind, getattr(self, f"_{kind}")(q, raw))

    def _typed(self, q: f.QField, kind: str, value, like: bool = False):
        """Refuse a value of the wrong type for the field, as Salesforce does, naming the field."""
        fits = {"number": ("num",), "bool": ("TRUE", "FALSE"), "date": ("date",),
                "datetime": ("datetime", "date"), "text": ("str", "num")}[q.kind]
        if kind != "NULL" and kind not in fits and not like:
            shown = {"str": "text", "num": "a number", "date": "a date", "datetime": "a date and time",
                     "TRUE": "TRUE", "FALSE": "FALSE"}[kind]
            raise bad(f"{q.name} is a {q.kind} field and cannot be compared with {shown}")
        if like and q.kind != "text":
            raise bad(f"LIKE needs a text field; {q.name} is a {q.kind} field")
        return value

    def _num(self, q: f.QField, raw: str):
        value = None if len(raw) > 40 else float(raw) if "." in raw else int(raw)
        if value is None or not abs(value) < _SQL_INT:
            raise bad(f"the number {raw[:20]}{'...' if len(raw) > 20 else ''} for {q.name} is out of range")
        return value

    def _date(self, q: f.QField, raw: str) -> str:
        try:
            return date.fromisoformat(raw).isoformat()
        except ValueError:
            raise bad(f"{raw} is not a date for {q.name} (YYYY-MM-DD, a real day of a real month)") from None

    def _datetime(self, q: f.QField, raw: str) -> str:
        try:
            moment = datetime.fromisoformat(raw.replace("Z", "+00:00")).astimezone(timezone.utc)
        except ValueError:
            raise bad(f"{raw} is not a date and time for {q.name} (e.g. 2026-03-20T15:00:00Z)") from None
        return moment.strftime("%Y-%m-%d %H:%M:%S.%f")

    def _bind(self, sql: str, *values) -> str:
        self.out.params.extend(values)
        return sql
