"""Gmail's search operators, each compiled to a SQL condition on an entry ``e`` and its message ``m``.

Supported: from: to: cc: bcc: subject: label: in: is: has: filename: before: after: older_than:
newer_than: size: larger: smaller: list: deliveredto: rfc822msgid:. Gmail operators that have no
meaning in a world (category:, is:muted, has:drive ...) and unknown ones (foo:bar) are refused with
an ``Invalid`` naming the operator, rather than silently matching nothing. Matching ignores case: SQLite's
``like`` folds ASCII case itself (and ``lower`` folds no more), so columns are compared as stored; ``from:``
a value with no wildcard in it looks for it with ``instr`` in the lowered columns (the same matches, as
``like`` compares a long pattern character by character at each position).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

from apps.kit import Invalid

_IN = {"inbox": "INBOX", "sent": "SENT", "drafts": "DRAFT", "draft": "DRAFT", "trash": "TRASH",
       "spam": "SPAM", "starred": "STARRED", "important": "IMPORTANT", "unread": "UNREAD"}
_RELATIVE = re.compile(r"^(\d+)([dmy])$")
_DAYS = {"d": 1, "m": 30, "y": 365}
_SIZE = re.compile(r"^(\d+)\s*([kmg]?)b?$", re.IGNORECASE)
_UNITS = {"": 1, "k": 1024, "m": 1024 ** 2, "g": 1024 ** 3}
OPERATORS = ("from", "to", "cc", "bcc", "subject", "label", "in", "is", "has", "filename", "before", "after",
             "older", "newer", "older_than", "newer_than", "size", "larger", "smaller", "list", "deliveredto",
             "rfc822msgid")
_NOT_HERE = {"category": "inbox categories (primary, social, promotions ...) are not part of this world"}
# The size Gmail means: the whole message, attachments included.
_MESSAGE_SIZE = ("(length(cast(m.subject as blob)) + length(cast(m.body_text as blob)) + "
                 "coalesce(length(cast(m.body_html as blob)), 0) + coalesce((select sum(a.size) from "
                 "mail_attachment a where a.message_id = m.id), 0))")


_MATCH = "m.id in (select rowid from mail_message_fts where mail_message_fts match ?)"


@dataclass
class Compiled:
    where: str
    params: list = field(default_factory=list)
    rank_terms: list[str] = field(default_factory=list)
    include_hidden: bool = False

    def free_text(self) -> str | None:
        """One full-text expression when the query is free text alone (terms that must all match), else None:
        its bm25 equals that of the terms OR-ed on every message it matches (the same phrases score)."""
        n = len(self.rank_terms)
        if n and self.params == self.rank_terms and self.where == "(" + " and ".join([_MATCH] * n) + ")":
            return " AND ".join(self.rank_terms)
        return None


class Operators:
    def __init__(self, actor: str, now: datetime, tz: ZoneInfo):
        self.actor, self.now, self.tz = actor, now, tz
        self.out = Compiled(where="1")

    @staticmethod
    def is_operator_like(op: str, value: str) -> bool:
        """``word:value`` is meant as an operator; ``10:30`` or ``https://x`` are text."""
        return bool(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", op)) and not value.startswith("//")

    def check_operator(self, op: str) -> None:
        if op in OPERATORS:
            return
        why = _NOT_HERE.get(op, "it is not a search operator here")
        raise Invalid(f"query: {op}: is not supported ({why}); supported operators: {', '.join(OPERATORS)}. "
                      f'Put text in quotes ("{op}:...") to search for it as words', field="query")

    def apply(self, op: str, value: str) -> str:
        op = {"older": "before", "newer": "after"}.get(op, op)
        return getattr(self, f"_op_{op}")(value)

    def _bind(self, sql: str, *params) -> str:
        self.out.params.extend(params)
        return sql

    def text(self, text: str, negated: bool) -> str:
        return self._match('"' + text.replace('"', '""') + '"', negated)

    def near(self, first: str, second: str, distance: int, negated: bool) -> str:
        phrases = ['"' + t.replace('"', '""') + '"' for t in (first, second)]
        return self._match(f"NEAR({phrases[0]} {phrases[1]}, {distance})", negated)

    def _match(self, expression: str, negated: bool) -> str:
        if not negated:
            self.out.rank_terms.append(expression)
        return self._bind(_MATCH, expression)

    def _person(self, value: str) -> str:
        return self.actor if value.lower() == "me" else value.lower()

    def _op_from(self, value):
        v = self._person(value)
        if v.isascii() and "%" not in v and "_" not in v:   # no wildcard: a plain search, much cheaper than like's
            v = v.lower()   # like folds ASCII case, as lower does: the same matches
            return self._bind("(instr(lower(m.sender), ?) or instr(lower(m.sender_name), ?))", v, v)
        return self._bind("(m.sender like ? or m.sender_name like ?)", f"%{v}%", f"%{v}%")

    def _op_to(self, value):
        return self._bind("m.to_addrs like ?", f"%{self._person(value)}%")

    def _op_cc(self, value):
        return self._bind("m.cc_addrs like ?", f"%{self._person(value)}%")

    def _op_bcc(self, value):
        return self._bind("(m.sender = e.owner and m.bcc_addrs like ?)", f"%{self._person(value)}%")

    def _op_subject(self, value):
        return self._bind("m.subject like ?", f"%{value.lower()}%")

    def _op_deliveredto(self, value):
        # Delivered-To is the mailbox a received copy landed in; your own sent copy was not delivered.
        return self._bind("(e.owner like ? and m.sender != e.owner)", f"%{self._person(value)}%")

    def _op_rfc822msgid(self, value):
        bare = value.strip().strip("<>")
        return self._bind("m.rfc_id in (?, ?)", bare, f"<{bare}>")

    def _op_list(self, value):
        return self._bind("coalesce(m.list_id, '') like ?", f"%{value.lower().strip('<>')}%")

    def _has_label(self, label: str) -> str:
        """Labels match whatever their case, a space or a nested label's '/' written as '-' (as Gmail has it:
        ``label:clients-globex`` and ``label:clients/globex`` both find Clients/Globex; a parent label does not
        find its sub-labels' mail). For a name with neither (every system label), that is SQLite's ASCII-only
        NOCASE equality, cheaper than rewriting each label: the entries holding it are listed once, from an
        index in that collation (``models.DDL``), not looked up per entry."""
        name = label.lower().replace(" ", "-").replace("/", "-")
        if "-" not in name:
            return self._bind("e.id in (select entry_id from mail_entry_label where label = ? collate nocase)", name)
        return self._bind("exists (select 1 from mail_entry_label l where l.entry_id = e.id and "
                          "replace(replace(lower(l.label), ' ', '-'), '/', '-') = ?)", name)

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
        value = value.lower()
        user = ("exists (select 1 from mail_entry_label l where l.entry_id = e.id and l.label not in "
                "('INBOX', 'SENT', 'DRAFT', 'TRASH', 'SPAM', 'STARRED', 'IMPORTANT', 'UNREAD'))")
        if value == "userlabels":
            return user
        if value == "nouserlabels":
            return f"(not {user})"
        if value not in ("attachment", "attachments"):
            raise Invalid(f"query: has:{value} is not supported (attachment, userlabels, nouserlabels)",
                          field="query")
        return "exists (select 1 from mail_attachment a where a.message_id = m.id)"

    def _op_filename(self, value):
        return self._bind("exists (select 1 from mail_attachment a where a.message_id = m.id and "
                          "a.filename like ?)", f"%{value.lower()}%")

    def _bytes(self, op: str, value: str) -> int:
        match = _SIZE.match(value.strip())
        if not match:
            raise Invalid(f"query: {op}:{value} is not a size (bytes, or with K, M or G, e.g. 10M)", field="query")
        size = int(match.group(1)) * _UNITS[match.group(2).lower()] if len(match.group(1)) < 19 else 2 ** 63
        if size >= 2 ** 62:
            raise Invalid(f"query: {op}:{value} is larger than any message could be", field="query")
        return size

    def _op_size(self, value):
        return self._op_larger(value, "size")

    def _op_larger(self, value, op="larger"):
        return self._bind(f"{_MESSAGE_SIZE} > ?", self._bytes(op, value))

    def _op_smaller(self, value):
        return self._bind(f"{_MESSAGE_SIZE} < ?", self._bytes("smaller", value))

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
        try:
            return _stored(self.now - timedelta(days=int(match.group(1)) * _DAYS[match.group(2)]))
        except OverflowError:
            raise Invalid(f"query: {op}:{value} reaches before the year 1", field="query") from None

    def _op_older_than(self, value):
        return self._bind("m.date < ?", self._age("older_than", value))

    def _op_newer_than(self, value):
        return self._bind("m.date >= ?", self._age("newer_than", value))


def _stored(moment: datetime) -> str:
    """A time as the database stores it (UTC, no offset), so that text comparison orders correctly."""
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f")
