"""Spreadsheet cells and formulas: A1 references, and a small safe evaluator (no ``eval``).

Formulas: numbers, "text", cell references (A1, $B$2), ranges (A1:C3) inside functions,
SUM AVERAGE MIN MAX COUNT ROUND ABS, + - * / with the usual precedence, unary minus, parentheses.
Errors read as spreadsheets show them: #REF! (a reference off the sheet, or a circular
dependency), #DIV/0!, #NAME? (unknown function or name), #VALUE! (text in arithmetic),
#ERROR! (a formula that does not parse). An error in a referenced cell spreads to its dependants.
"""

from __future__ import annotations

import re
from typing import Callable, Union

MAX_ROWS = 10_000
MAX_COLS = 702  # A..ZZ

_REF = re.compile(r"^\$?([A-Za-z]{1,3})\$?(\d+)$")
_NUMBER = re.compile(r"^\s*(-?)\$?((\d{1,3}(,\d{3})+|\d+)(\.\d*)?|\.\d+)\s*(%?)\s*$")
_TOKEN = re.compile(r'\s*(?:(\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+)|("(?:[^"]|"")*")|(\$?[A-Za-z]+\$?\d+(?::\$?[A-Za-z]+\$?\d+)?)'
                    r"|([A-Za-z_][A-Za-z0-9_.]*)|([-+*/(),:]))")

Value = Union[float, str, None]


class FormulaError(Exception):
    """An error value: ``code`` is what the cell shows, ``detail`` says why."""

    def __init__(self, code: str, detail: str):
        super().__init__(detail)
        self.code, self.detail = code, detail


def parse_ref(ref: str) -> tuple[int, int] | None:
    """``"B3"`` to (row, col), both from 1; None if it is not a reference on the sheet."""
    match = _REF.match(ref.strip())
    if not match:
        return None
    col = 0
    for ch in match.group(1).upper():
        col = col * 26 + ord(ch) - 64
    row = int(match.group(2))
    return (row, col) if 1 <= row <= MAX_ROWS and 1 <= col <= MAX_COLS else None


def col_name(col: int) -> str:
    name = ""
    while col:
        col, rest = divmod(col - 1, 26)
        name = chr(65 + rest) + name
    return name


def ref_name(row: int, col: int) -> str:
    return f"{col_name(col)}{row}"


def parse_number(text: str) -> float | None:
    """A typed value read as a number the way spreadsheets do: 1,200 / $45.50 / 12% / -3."""
    match = _NUMBER.match(text)
    if not match:
        return None
    number = float(match.group(2).replace(",", ""))
    number = -number if match.group(1) else number
    return number / 100 if match.group(6) else number


def _tokens(formula: str) -> list[str]:
    out, pos = [], 0
    while pos < len(formula):
        if formula[pos:].strip() == "":
            break
        match = _TOKEN.match(formula, pos)
        if not match or match.end() == pos:
            raise FormulaError("#ERROR!", f"cannot read the formula at {formula[pos:pos + 10]!r}")
        out.append(match.group(0).strip())
        pos = match.end()
    return out


class _Parser:
    """Recursive descent over tokens into nested tuples: ('num', x) ('str', s) ('ref', r, c)
    ('range', r1, c1, r2, c2) ('neg', e) ('bin', op, a, b) ('call', NAME, [args]) ('name', n)."""

    def __init__(self, formula: str):
        self.tokens, self.pos = _tokens(formula), 0

    def parse(self):
        if not self.tokens:
            raise FormulaError("#ERROR!", "the formula is empty")
        tree = self._expr()
        if self.pos != len(self.tokens):
            raise FormulaError("#ERROR!", f"unexpected {self.tokens[self.pos]!r}")
        return tree

    def _peek(self) -> str | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def _take(self) -> str:
        token = self._peek()
        if token is None:
            raise FormulaError("#ERROR!", "the formula ends too early")
        self.pos += 1
        return token

    def _expr(self):
        tree = self._term()
        while self._peek() in ("+", "-"):
            tree = ("bin", self._take(), tree, self._term())
        return tree

    def _term(self):
        tree = self._unary()
        while self._peek() in ("*", "/"):
            tree = ("bin", self._take(), tree, self._unary())
        return tree

    def _unary(self):
        if self._peek() in ("-", "+"):
            return ("neg", self._unary()) if self._take() == "-" else self._unary()
        return self._atom()

    def _atom(self):
        token = self._take()
        if token == "(":
            tree = self._expr()
            if self._take() != ")":
                raise FormulaError("#ERROR!", "a '(' is never closed")
            return tree
        if token[0].isdigit() or token[0] == ".":
            return ("num", float(token))
        if token[0] == '"':
            return ("str", token[1:-1].replace('""', '"'))
        if ":" in token:
            start, end = (parse_ref(part) for part in token.split(":"))
            if start is None or end is None:
                return ("bad", token)
            return ("range", min(start[0], end[0]), min(start[1], end[1]), max(start[0], end[0]), max(start[1], end[1]))
        if self._peek() == "(":
            return self._call(token.upper())
        if _REF.match(token):
            place = parse_ref(token)
            return ("ref", *place) if place else ("bad", token)
        if token.upper() in ("TRUE", "FALSE"):
            return ("num", 1.0 if token.upper() == "TRUE" else 0.0)
        if re.match(r"^[A-Za-z_]", token):
            return ("name", token)
        raise FormulaError("#ERROR!", f"unexpected {token!r}")

    def _call(self, name: str):
        self._take()
        args = []
        if self._peek() == ")":
            self._take()
            return ("call", name, args)
        while True:
            args.append(self._expr())
            token = self._take()
            if token == ")":
                return ("call", name, args)
            if token != ",":
                raise FormulaError("#ERROR!", f"expected ',' or ')' in {name}(), found {token!r}")


def _aggregate(name: str, numbers: list[float]) -> float:
    if name == "SUM":
        return sum(numbers)
    if name == "COUNT":
        return float(len(numbers))
    if not numbers:
        if name == "AVERAGE":
            raise FormulaError("#DIV/0!", "AVERAGE of no numbers")
        return 0.0
    return {"AVERAGE": lambda v: sum(v) / len(v), "MIN": min, "MAX": max}[name](numbers)


class Sheet:
    """The typed inputs of one sheet, evaluated on demand with memoisation and cycle detection."""

    def __init__(self, inputs: dict[tuple[int, int], str]):
        self.inputs = inputs
        self._done: dict[tuple[int, int], Value | FormulaError] = {}
        self._busy: set[tuple[int, int]] = set()

    def value(self, row: int, col: int) -> Value | FormulaError:
        """The cell's value (number, text or None when empty), or the error it shows."""
        key = (row, col)
        if key in self._done:
            return self._done[key]
        if key in self._busy:
            return FormulaError("#REF!", f"circular dependency detected at {ref_name(row, col)}")
        self._busy.add(key)
        try:
            result = self._compute(self.inputs.get(key, ""))
        except FormulaError as exc:
            result = exc
        finally:
            self._busy.discard(key)
        self._done[key] = result
        return result

    def _compute(self, text: str) -> Value:
        if not text.startswith("=") or len(text) == 1:
            if text == "":
                return None
            number = parse_number(text)
            return text if number is None else number
        return self._eval(_Parser(text[1:]).parse())

    def _cell(self, row: int, col: int) -> Value:
        found = self.value(row, col)
        if isinstance(found, FormulaError):
            raise found
        return found

    def _eval(self, node) -> Value:
        kind = node[0]
        if kind in ("num", "str"):
            return node[1]
        if kind == "ref":
            return self._cell(node[1], node[2])
        if kind == "bad":
            raise FormulaError("#REF!", f"{node[1]} is not a cell of the sheet")
        if kind == "name":
            raise FormulaError("#NAME?", f"unknown name {node[1]!r}")
        if kind == "range":
            raise FormulaError("#VALUE!", "a range can only be used inside a function such as SUM")
        if kind == "neg":
            return -self._number(node[1])
        if kind == "bin":
            return self._binary(node[1], self._number(node[2]), self._number(node[3]))
        return self._call(node[1], node[2])

    def _number(self, node) -> float:
        value = self._eval(node)
        if value is None:
            return 0.0
        if isinstance(value, str):
            number = parse_number(value)
            if number is None:
                raise FormulaError("#VALUE!", f"{value!r} is text, not a number")
            return number
        return value

    @staticmethod
    def _binary(op: str, a: float, b: float) -> float:
        if op == "/" and b == 0:
            raise FormulaError("#DIV/0!", "division by zero")
        return {"+": a + b, "-": a - b, "*": a * b}[op] if op != "/" else a / b

    def _call(self, name: str, args: list) -> Value:
        simple: dict[str, Callable] = {"ROUND": self._round, "ABS": lambda a: abs(self._number(a[0]))}
        if name in simple:
            if not args:
                raise FormulaError("#N/A", f"{name} needs an argument")
            return simple[name](args)
        if name not in ("SUM", "AVERAGE", "MIN", "MAX", "COUNT"):
            raise FormulaError("#NAME?", f"unknown function {name}")
        numbers: list[float] = []
        for arg in args:
            numbers.extend(self._numbers_of(arg, name))
        return _aggregate(name, numbers)

    def _round(self, args: list) -> float:
        digits = int(self._number(args[1])) if len(args) > 1 else 0
        return round(self._number(args[0]), digits)

    def _numbers_of(self, node, name: str) -> list[float]:
        """Numbers an aggregate sees: text and empty cells in ranges are skipped, as spreadsheets do."""
        if node[0] == "range":
            _, r1, c1, r2, c2 = node
            if (r2 - r1 + 1) * (c2 - c1 + 1) > 100_000:
                raise FormulaError("#REF!", "range too large")
            found = [self._cell(r, c) for r in range(r1, r2 + 1) for c in range(c1, c2 + 1)]
            return [v for v in found if isinstance(v, float)]
        if node[0] == "ref":
            value = self._cell(node[1], node[2])
            return [value] if isinstance(value, float) else []
        return [self._number(node)] if name != "COUNT" else self._countable(node)

    def _countable(self, node) -> list[float]:
        value = self._eval(node)
        return [value] if isinstance(value, float) else []
