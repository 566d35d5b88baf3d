"""Gmail's search language, compiled to SQL over one person's mailbox.

Supported: free words and "quoted phrases" (full text, ranked by relevance), ``from:`` ``to:``
``cc:`` ``bcc:`` ``subject:`` ``label:`` ``in:`` ``is:`` ``has:attachment`` ``filename:``
``before:`` ``after:`` ``older_than:`` ``newer_than:``, ``OR`` between terms, ``-`` to negate,
and parentheses. Terms side by side must all hold. Values are bound as parameters, never spliced.
Unless the query says ``in:trash``, ``in:spam`` or ``in:anywhere``, trash and spam are left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from apps.kit import Invalid

_TOKEN = re.compile(r'\s*(-?\w+:"[^"]*"|-?"[^"]*"|-?\(|\)|-?[^\s()]+)')
_IN = {"inbox": "INBOX", "sent": "SENT", "drafts": "DRAFT", "draft": "DRAFT", "trash": "TRASH",
       "spam": "SPAM", "starred": "STARRED", "important": "IMPORTANT", "unread": "UNREAD"}
_RELATIVE = re.compile(r"^(\d+)([dmy])$")
_DAYS = {"d": 1, "m": 30, "y": 365}


@dataclass
class Compiled:
    where: str
    params: list = field(default_factory=list)
    rank_terms: list[str] = field(default_factory=list)
    include_hidden: bool = False


class Parser:
    def __init__(self, query: str, actor: str, now: datetime, tz: str):
        self.tokens = [t for t in _TOKEN.findall(query) if t.strip()]
        self.pos = 0
        self.actor, self.now, self.tz = actor, now, ZoneInfo(tz)
        self.out = Compiled(where="1")

    def compile(self) -> Compiled:
        if self.tokens:
            self.out.where = self._all(top=True)
        return self.out

    def _all(self, top: bool = False) -> str:
        parts = []
        while self.pos < len(self.tokens) and self.tokens[self.pos] != ")":
            parts.append(self._any())
        if not top and self.pos >= len(self.tokens):
            raise Invalid("query: a '(' is never closed", field="query")
        if top and self.pos < len(self.tokens):
            raise Invalid("query: a ')' has no matching '('", field="query")
        return "(" + " and ".join(parts or ["1"]) + ")"

    def _any(self) -> str:
        parts = [self._unary()]
        while self.pos < len(self.tokens) and self.tokens[self.pos] == "OR":
            self.pos += 1
            if self.pos >= len(self.tokens):
                raise Invalid("query: OR needs a term after it", field="query")
            parts.append(self._unary())
        return parts[0] if len(parts) == 1 else "(" + " or ".join(parts) + ")"

    def _unary(self) -> str:
        token = self.tokens[self.pos]
        self.pos += 1
        negated = token.startswith("-") and len(token) > 1
        token = token[1:] if negated else token
        if token == "(":
            clause = self._all()
            self.pos += 1
        else:
            clause = self._term(token, negated)
        return f"(not {clause})" if negated else clause

    def _term(self, token: str, negated: bool) -> str:
        op, _, value = token.partition(":")
        value = value.strip('"')
        handler = getattr(self, f"_op_{op.lower()}", None) if value else None
        if handler is None:
            return self._text(token.strip('"'), negated)
        return handler(value)

    def _bind(self, sql: str, *params) -> str:
        self.out.params.extend(params)
        return sql

    def _text(self, text: str, negated: bool) -> str:
        phrase = '"' + text.replace('"', '""') + '"'
        if not negated:
            self.out.rank_terms.append(phrase)
        return self._bind("m.id in (select rowid from mail_message_fts where mail_message_fts match ?)", phrase)

    def _person(self, value: str) -> str:
        return self.actor if value.lower() == "me" else value.lower()

    def _op_from(self, value):
        v = self._person(value)
        return self._bind("(lower(m.sender) like ? or lower(m.sender_name) like ?)", f"%{v}%", f"%{v}%")

    def _op_to(self, value):
        return self._bind("lower(m.to_addrs) like ?", f"%{self._person(value)}%")

    def _op_cc(self, value):
        return self._bind("lower(m.cc_addrs) like ?", f"%{self._person(value)}%")

    def _op_bcc(self, value):
        return self._bind("(m.sender = e.owner and lower(m.bcc_addrs) like ?)", f"%{self._person(value)}%")

    def _op_subject(self, value):
        return self._bind("lower(m.subject) like ?", f"%{value.lower()}%")

    def _has_label(self, label: str) -> str:
        return self._bind("exists (select 1 from mail_entry_label l where l.entry_id = e.id and "
                          "replace(lower(l.label), ' ', '-') = ?)", label.lower().replace(" ", "-"))

    def _op_label(self, value):
        return self._has_label(value)

    def _op_in(self, value):
        value = value.lower()
        if value in ("trash", "spam", "anywhere"):
            self.out.include_hidden = True
        if value == "anywhere":
            return "1"
        if value not in _IN:
            raise Invalid(f"query: in:{value} is not a mailbox (inbox, sent, drafts, trash, spam, starred, "
                          "important, anywhere)", field="query")
        return self._has_label(_IN[value])

    def _op_is(self, value):
        value = value.lower()
        if value == "read":
            return f"(not {self._has_label('UNREAD')})"
        if value not in ("unread", "starred", "important"):
            raise Invalid(f"query: is:{value} is not supported (unread, read, starred, important)", field="query")
        return self._has_label(value)

    def _op_has(self, value):
        if value.lower() not in ("attachment", "attachments"):
            raise Invalid(f"query: has:{value} is not supported (has:attachment)", field="query")
        return "exists (select 1 from mail_attachment a where a.message_id = m.id)"

    def _op_filename(self, value):
        return self._bind("exists (select 1 from mail_attachment a where a.message_id = m.id and "
                          "lower(a.filename) like ?)", f"%{value.lower()}%")

    def _day(self, op: str, value: str) -> datetime:
        for fmt in ("%Y/%m/%d", "%Y-%m-%d", "%m/%d/%Y"):
            try:
                return datetime.strptime(value, fmt).replace(tzinfo=self.tz)
            except ValueError:
                continue
        raise Invalid(f"query: {op}:{value} is not a date (use YYYY/MM/DD)", field="query")

    def _op_before(self, value):
        return self._bind("m.date < ?", _stored(self._day("before", value)))

    def _op_after(self, value):
        return self._bind("m.date >= ?", _stored(self._day("after", value)))

    def _age(self, op: str, value: str) -> str:
        match = _RELATIVE.match(value.lower())
        if not match:
            raise Invalid(f"query: {op}:{value} is not an age (like 3d, 2m, 1y)", field="query")
        return _stored(self.now - timedelta(days=int(match.group(1)) * _DAYS[match.group(2)]))

    def _op_older_than(self, value):
        return self._bind("m.date < ?", self._age("older_than", value))

    def _op_newer_than(self, value):
        return self._bind("m.date >= ?", self._age("newer_than", value))


def _stored(moment: datetime) -> str:
    """A time as the database stores it (UTC, no offset), so that text comparison orders correctly."""
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")


def compile_query(query: str, actor: str, now: datetime, tz: str) -> Compiled:
    return Parser(query, actor, now, tz).compile()
