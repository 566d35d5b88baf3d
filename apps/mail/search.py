"""Gmail's search language, compiled to SQL over one person's mailbox.

Grammar (what Gmail accepts): terms side by side must all hold; ``OR`` (or ``{a b}``) between terms;
``-`` negates; ``( )`` groups; an operator may take a group, ``subject:(deck board)`` (every word in
the subject) or ``from:{ravi lauren}`` / ``from:(ravi OR lauren)`` (either); ``a AROUND 5 b`` finds
words near each other. Free words and "quoted phrases" search the full text, ranked by relevance.
The operators themselves are in ``operators.py``. Values are bound as parameters, never spliced.
Unless the query says ``in:trash``, ``in:spam`` or ``in:anywhere``, trash and spam are left out.
"""

from __future__ import annotations

import re
from datetime import datetime
from zoneinfo import ZoneInfo

from apps.kit import Invalid
from apps.mail.operators import Compiled, Operators

_TOKEN = re.compile(r'\s*(-?\w+:[({]|-?\w+:"[^"]*"|-?"[^"]*"|-?[({]|[)}]|-?[^\s(){}]+)')
_CLOSE = {"(": ")", "{": "}"}
MAX_DEPTH = 50


class Parser(Operators):
    def __init__(self, query: str, actor: str, now: datetime, tz: str):
        super().__init__(actor, now, ZoneInfo(tz))
        self.tokens = [t for t in _TOKEN.findall(query) if t.strip()]
        self.pos = 0
        self.depth = 0

    def compile(self) -> Compiled:
        if self.tokens:
            self.out.where = self._group(None, None, "and")
            if self.pos < len(self.tokens):
                raise Invalid(f"query: a '{self.tokens[self.pos]}' has no matching opening bracket", field="query")
        return self.out

    def _peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def _group(self, closer: str | None, scope: str | None, joiner: str) -> str:
        """Terms up to ``closer`` (or the end), joined by ``joiner``; ``scope`` is a group's operator."""
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise Invalid(f"query: groups are nested more than {MAX_DEPTH} deep", field="query")
        parts = []
        while self._peek() not in (None, ")", "}"):
            parts.append(self._any(scope))
        if closer is not None:
            if self._peek() != closer:
                raise Invalid(f"query: a '{'(' if closer == ')' else '{'}' is never closed", field="query")
            self.pos += 1
        self.depth -= 1
        return "(" + f" {joiner} ".join(parts or ["1"]) + ")"

    def _any(self, scope: str | None) -> str:
        parts = [self._unary(scope)]
        while self._peek() == "OR":
            self.pos += 1
            if self._peek() in (None, ")", "}"):
                raise Invalid("query: OR needs a term after it", field="query")
            parts.append(self._unary(scope))
        return parts[0] if len(parts) == 1 else "(" + " or ".join(parts) + ")"

    def _unary(self, scope: str | None) -> str:
        token = self.tokens[self.pos]
        self.pos += 1
        negated = token.startswith("-") and len(token) > 1
        token = token[1:] if negated else token
        if token in _CLOSE:
            clause = self._group(_CLOSE[token], scope, "and" if token == "(" else "or")
        elif token[-1] in _CLOSE and token[:-1].endswith(":"):
            op = token[:-2].lower()
            self.check_operator(op)
            clause = self._group(_CLOSE[token[-1]], op, "and" if token[-1] == "(" else "or")
        elif self._peek() == "AROUND" and scope is None and ":" not in token.strip('"'):
            clause = self._around(token, negated)
        else:
            clause = self._term(token, negated, scope)
        return f"(not {clause})" if negated else clause

    def _term(self, token: str, negated: bool, scope: str | None) -> str:
        if not token.startswith('"'):
            op, colon, value = token.partition(":")
            if colon and value and self.is_operator_like(op, value):
                self.check_operator(op.lower())
                return self.apply(op.lower(), value.strip('"'))
        if scope is not None:
            return self.apply(scope, token.strip('"'))
        return self.text(token.strip('"'), negated)

    def _around(self, first: str, negated: bool) -> str:
        self.pos += 1
        distance, second = self._peek(), self.tokens[self.pos + 1] if self.pos + 1 < len(self.tokens) else None
        if distance is None or not distance.isdigit() or second is None or second in ("(", ")", "{", "}"):
            raise Invalid("query: AROUND needs a number and a word after it, e.g. 'budget AROUND 5 approval'",
                          field="query")
        self.pos += 2
        return self.near(first.strip('"'), second.strip('"'), int(distance), negated)


def compile_query(query: str, actor: str, now: datetime, tz: str) -> Compiled:
    return Parser(query, actor, now, tz).compile()
