"""Spreadsheet cells and formulas: A1 references, and a safe evaluator (no ``eval``, no recursion).

A formula is parsed by shunting-yard into postfix and run on a value stack, so 5,000 nested
parentheses are just a deep stack, not deep Python calls. Cells are evaluated in dependency order
by an explicit depth-first walk, so a chain of thousands of cells needs no recursion either; a
dependency back onto a cell still being evaluated is a cycle and shows ``#REF!``.

References: ``B3``, ``$B$3``, another tab's ``Sheet2!A1`` or ``'Q1 Plan'!B2:B9`` (``Sheet.book`` finds the
tab; a missing tab is #REF!), ranges ``A1:C9``, whole columns ``B:B``, whole rows ``2:2`` and ``B2:B`` (B2
down), an open end reaching the sheet's last filled row or column. Operators (Excel's precedence): ``:``
ranges, unary ``-``, ``%``, ``^``, ``* /``, ``+ -``, ``&``,
``= <> < <= > >=``. The functions are in ``formula_functions.py``. Errors read as spreadsheets show
them: #REF! (off the sheet, or circular), #DIV/0!, #NAME? (unknown function or name), #VALUE!
(wrong type), #N/A (nothing found), #NUM!, #ERROR! (a formula that does not parse). An error in a
referenced cell spreads to its dependants; IF and IFERROR pass over errors they do not choose.
"""

from __future__ import annotations

import math
import re
from datetime import datetime, timezone
from typing import Callable

from apps.docs.formula_functions import FUNCTIONS, LAZY, Area, DateValue, FormulaError, Value, binary, scalar

__all__ = ["FormulaError", "Sheet", "parse_number", "parse_ref", "ref_name", "col_name", "Value"]

MAX_ROWS = 10_000
MAX_COLS = 702  # A..ZZ
MAX_RANGE = 100_000
MAX_TAB_HOPS = 100  # nested reads from tab to tab (Sheet1!A1 -> Sheet2!A1 -> Sheet1!A2 ...) before #REF!

_REF = re.compile(r"^\$?([A-Za-z]{1,3})\$?(\d+)$")
_NUMBER = re.compile(r"^\s*(-?)\$?((\d{1,3}(,\d{3})+|\d+)(\.\d*)?|\.\d+)\s*(%?)\s*$")
_DATE = re.compile(r"^\s*(\d{4})-(\d{2})-(\d{2})\s*$")
# Whole rows and columns as Google Sheets writes them: ``2:3``, ``B:D``, and ``B2:B`` (from B2 down).
_LINES = r"\$?\d+:\$?\d+(?![\d.A-Za-z])|\$?[A-Za-z]{1,3}:\$?[A-Za-z]{1,3}(?![\w(])|\$?[A-Za-z]+\$?\d+:\$?[A-Za-z]{1,3}(?![\w(])"
# Another tab's cell or range: ``Sheet2!A1``, ``'Q1 Plan'!B2:B9`` (a quote in a quoted name doubled).
_TAB = r"(?:'(?:[^']|'')+'|[A-Za-z_][A-Za-z0-9_]*)!(?:" + _LINES + r"|\$?[A-Za-z]+\$?\d+(?::\$?[A-Za-z]+\$?\d+)?)"
_TOKEN = re.compile(r'\s*(?:(' + _TAB + r')|(' + _LINES + r')|(\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+)|("(?:[^"]|"")*")'
                    r"|(\$?[A-Za-z]+\$?\d+(?::\$?[A-Za-z]+\$?\d+)?)|([A-Za-z_][A-Za-z0-9_.]*)"
                    r"|(<=|>=|<>|[-+*/^&%=<>(),:]))")
_BINARY = {"=": 1, "<>": 1, "<": 1, "<=": 1, ">": 1, ">=": 1, "&": 2, "+": 3, "-": 3, "*": 4, "/": 4, "^": 5}
_NEG = 6


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
    if not math.isfinite(number):
        return None
    number = -number if match.group(1) else number
    return number / 100 if match.group(6) else number


def literal(text: str) -> Value:
    """What a typed (non-formula) cell holds: a number, a date typed as YYYY-MM-DD, or text."""
    if text == "":
        return None
    number = parse_number(text)
    if number is not None:
        return number
    if _DATE.match(text):
        try:
            return DateValue.of(datetime.strptime(text.strip(), "%Y-%m-%d").date())
        except ValueError:
            return text
    return text


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


def _side(text: str) -> tuple[int | None, int | None] | None:
    """One side of a range: a cell (row, col), a column (None, col) or a row (row, None); None if off the sheet."""
    text = text.replace("$", "")
    if text.isdigit():
        return (int(text), None) if 1 <= int(text) <= MAX_ROWS else None
    if text.isalpha():
        found = parse_ref(f"{text}1")
        return (None, found[1]) if found else None
    return parse_ref(text)


def range_bounds(text: str) -> tuple[int, int, int | None, int | None] | None:
    """A range written as in a formula (``A1:C9``, ``B:B``, ``2:2``, ``B2:B``) as (r1, c1, r2, c2), an open end
    ``None``; None when it is not a range of the sheet."""
    found = _range(text.strip()) if ":" in text else ("bad",)
    return found[1:] if found[0] == "area" else None


def _range(token: str) -> tuple:
    """A range as ``("area", r1, c1, r2, c2)``; an end left open (a whole column's last row, a whole row's last
    column, ``B2:B``'s bottom) is ``None``, the sheet's last filled row or column (``Sheet._bounds``)."""
    start, end = (_side(part) for part in token.split(":"))
    if start is None or end is None:
        return ("bad", token)
    (r1, c1), (r2, c2) = start, end
    if None not in (r1, c1, r2, c2):               # B2:D9
        return ("area", min(r1, r2), min(c1, c2), max(r1, r2), max(c1, c2))   # type: ignore[type-var]
    if c1 is not None and c2 is not None and r2 is None:   # B:D, or B2:B from row 2 down
        return ("area", r1 or 1, min(c1, c2), None, max(c1, c2))
    if r1 is not None and r2 is not None and c1 is None and c2 is None:   # 2:5
        return ("area", min(r1, r2), 1, max(r1, r2), None)
    return ("bad", token)


def tab_of(token: str) -> tuple[str, str] | None:
    """``'Q1 Plan'!B2:B9`` to (``Q1 Plan``, ``B2:B9``); None when the reference names no tab."""
    if "!" not in token or token[0] == '"':
        return None
    name, _, ref = token.rpartition("!")
    if len(name) > 1 and name[0] == name[-1] == "'":
        name = name[1:-1].replace("''", "'")
    return name, ref


def _atom(token: str) -> tuple:
    other = tab_of(token)
    if other is not None:
        found = _atom(other[1])
        return ("xarea", other[0], *found[1:]) if found[0] == "area" else ("bad", token)
    if ":" in token and token[0] != '"':
        return _range(token)
    if token[0].isdigit() or token[0] == ".":
        number = float(token)
        return ("val", number if math.isfinite(number) else FormulaError("#NUM!", f"{token[:20]}... is too large"))
    if token[0] == '"':
        return ("val", token[1:-1].replace('""', '"'))
    if _REF.match(token):
        place = parse_ref(token)
        return ("area", *place, *place) if place else ("bad", token)
    if token.upper() in ("TRUE", "FALSE"):
        return ("val", token.upper() == "TRUE")
    return ("name", token)


def compile_formula(formula: str) -> list[tuple]:
    """A formula (without its '=') as postfix steps, by shunting-yard: no recursion at any depth."""
    tokens = _tokens(formula)
    if not tokens:
        raise FormulaError("#ERROR!", "the formula is empty")
    out: list[tuple] = []
    stack: list[list] = []  # ["op", sym, precedence] | ["(", None] | ["fn", NAME, argc]
    prev = "start"  # what came last: start, value, op, open, comma
    for i, token in enumerate(tokens):
        after = tokens[i + 1] if i + 1 < len(tokens) else None
        if prev == "call":
            if token != "(":
                raise FormulaError("#ERROR!", f"expected '(' after a function name, found {token!r}")
            prev = "open"
        elif token == "(" or (token[0].isalpha() and after == "(" and ":" not in token):
            if prev == "value":
                raise FormulaError("#ERROR!", f"unexpected {token!r}")
            stack.append(["(", None, 0] if token == "(" else ["fn", token.upper(), 0])
            prev = "open" if token == "(" else "call"
        elif token in (",", ")"):
            _close(token, out, stack, prev)
            prev = "comma" if token == "," else "value"
        elif token == "%" and prev == "value":
            out.append(("pct",))
        elif token in ("+", "-") and prev != "value":
            if token == "-":
                stack.append(["op", "neg", _NEG])
        elif token in _BINARY:
            if prev != "value":
                raise FormulaError("#ERROR!", f"unexpected {token!r}")
            while stack and stack[-1][0] == "op" and stack[-1][2] >= _BINARY[token]:
                out.append(_step(stack.pop()))
            stack.append(["op", token, _BINARY[token]])
            prev = "op"
        else:
            if prev in ("value", "call"):
                raise FormulaError("#ERROR!", f"unexpected {token!r}")
            out.append(_atom(token))
            prev = "value"
    if prev != "value":
        raise FormulaError("#ERROR!", "the formula ends too early")
    while stack:
        top = stack.pop()
        if top[0] != "op":
            raise FormulaError("#ERROR!", "a '(' is never closed")
        out.append(_step(top))
    return out


def _step(entry: list) -> tuple:
    return ("neg",) if entry[1] == "neg" else ("bin", entry[1])


def _close(token: str, out: list, stack: list, prev: str) -> None:
    while stack and stack[-1][0] == "op":
        out.append(_step(stack.pop()))
    if not stack:
        raise FormulaError("#ERROR!", f"unexpected {token!r}")
    top = stack[-1]
    if token == "," and top[0] != "fn":
        raise FormulaError("#ERROR!", "',' outside a function's arguments")
    if prev in ("comma", "open") and not (token == ")" and prev == "open"):
        raise FormulaError("#ERROR!", f"an argument of {top[1] or 'a group'} is empty")
    if token == ",":
        top[2] += 1
        return
    stack.pop()
    if top[0] == "fn":
        out.append(("call", top[1], top[2] + (0 if prev == "open" else 1)))
    elif prev == "open":
        raise FormulaError("#ERROR!", "empty parentheses")


class Sheet:
    """The typed inputs of one sheet, evaluated on demand, each cell once, in dependency order."""

    def __init__(self, inputs: dict[tuple[int, int], str], now: datetime | None = None, tz: str = "UTC",
                 book: Callable[[str], "Sheet | None"] | None = None, shared: dict | None = None):
        self.inputs = inputs
        self.book = book   # the spreadsheet's other tabs by name (``Sheet2!A1``); None for a lone sheet
        self._shared = shared if shared is not None else {"cycle": False, "depth": 0}   # one per spreadsheet
        self.now = now or datetime(1970, 1, 1, tzinfo=timezone.utc)
        self.tz = tz
        self._done: dict[tuple[int, int], Value] = {}
        self._steps: dict[tuple[int, int], list[tuple] | FormulaError] = {}
        self._busy: set[tuple[int, int]] = set()
        self.areas: dict[tuple[int, int, int, int], list[list[Value]]] = {}  # values of ranges read so far
        self._filled: dict[tuple[int, int, int, int], list[tuple[int, int]]] = {}
        self._extent: tuple[int, int] | None = None   # the last filled row and column (``_bounds``)

    @property
    def saw_cycle(self) -> bool:
        """Whether a read met a cell still being evaluated, on any tab of the spreadsheet."""
        return bool(self._shared["cycle"])

    @saw_cycle.setter
    def saw_cycle(self, seen: bool) -> None:
        self._shared["cycle"] = seen

    def value(self, row: int, col: int) -> Value:
        """The cell's value (number, text, bool, date, None when empty), or the ``FormulaError`` it shows.
        A read through another tab nests (each tab walks its own cells without recursion): past
        ``MAX_TAB_HOPS`` nested reads between tabs a cell shows #REF!."""
        if self._shared["depth"] >= MAX_TAB_HOPS:
            return FormulaError("#REF!", f"more than {MAX_TAB_HOPS} references from tab to tab in a chain")
        self._shared["depth"] += 1
        try:
            return self._walk(row, col)
        finally:
            self._shared["depth"] -= 1

    def _walk(self, row: int, col: int) -> Value:
        start = (row, col)
        todo = [(start, False)]
        while todo:
            key, ready = todo.pop()
            if key in self._done or (key in self._busy and not ready):
                continue
            if ready:
                self._done[key] = self._compute(key)
                self._busy.discard(key)
                continue
            self._busy.add(key)
            todo.append((key, True))
            todo.extend((d, False) for d in self._dependencies(key) if d not in self._done and d not in self._busy)
        return self._done[start]

    def _compiled(self, key) -> list[tuple] | FormulaError | None:
        text = self.inputs.get(key, "")
        if not text.startswith("=") or len(text) == 1:
            return None
        if key not in self._steps:
            try:
                self._steps[key] = compile_formula(text[1:])
            except FormulaError as exc:
                self._steps[key] = exc
        return self._steps[key]

    def _dependencies(self, key) -> list[tuple[int, int]]:
        steps = self._compiled(key)
        if not isinstance(steps, list):
            return []
        found = []
        for step in steps:
            if step[0] == "area":
                found += self._cells_in(*self._bounds(*step[1:]))
        return found

    def _bounds(self, r1: int, c1: int, r2: int | None, c2: int | None) -> tuple[int, int, int, int]:
        """A range's open end (a whole column or row) closed at the sheet's last filled row or column: what it
        holds, as in a spreadsheet whose grid ends there."""
        if self._extent is None:
            self._extent = (max((r for r, _ in self.inputs), default=1), max((c for _, c in self.inputs), default=1))
        return r1, c1, max(r1, self._extent[0]) if r2 is None else r2, max(c1, self._extent[1]) if c2 is None else c2

    def _cells_in(self, r1: int, c1: int, r2: int, c2: int) -> list[tuple[int, int]]:
        """The filled cells of a range (a range used by many formulas is looked up once)."""
        key = (r1, c1, r2, c2)
        if key not in self._filled:
            size = (r2 - r1 + 1) * (c2 - c1 + 1)
            if size > MAX_RANGE:
                found = []
            elif size <= len(self.inputs):
                found = [(r, c) for r in range(r1, r2 + 1) for c in range(c1, c2 + 1) if (r, c) in self.inputs]
            else:
                found = [k for k in self.inputs if r1 <= k[0] <= r2 and c1 <= k[1] <= c2]
            self._filled[key] = found
        return self._filled[key]

    def _compute(self, key) -> Value:
        steps = self._compiled(key)
        if steps is None:
            return literal(self.inputs.get(key, ""))
        if isinstance(steps, FormulaError):
            return steps
        result = self._run(steps)
        if isinstance(result, Area):
            result = scalar(result, "a range can only be used inside a function such as SUM")
        if isinstance(result, float) and not math.isfinite(result):
            return FormulaError("#NUM!", "the result is too large to show")
        return result

    def cell(self, row: int, col: int) -> Value:
        key = (row, col)
        if key in self._done:
            return self._done[key]
        if key in self._busy:
            self.saw_cycle = True
            return FormulaError("#REF!", f"circular dependency detected at {ref_name(row, col)}")
        if key not in self.inputs:
            return None
        return self.value(row, col)

    def _run(self, steps: list[tuple]) -> Value:
        stack: list = []
        for step in steps:
            kind = step[0]
            if kind == "val":
                stack.append(step[1])
            elif kind == "area":
                r1, c1, r2, c2 = self._bounds(*step[1:])
                if (r2 - r1 + 1) * (c2 - c1 + 1) > MAX_RANGE:
                    stack.append(FormulaError("#REF!", "range too large"))
                else:
                    stack.append(Area(self, r1, c1, r2, c2))
            elif kind == "xarea":
                stack.append(self._other(step[1], step[2:]))
            elif kind == "bad":
                stack.append(FormulaError("#REF!", f"{step[1]} is not a cell of the sheet"))
            elif kind == "name":
                stack.append(FormulaError("#NAME?", f"unknown name {step[1]!r}"))
            elif kind in ("neg", "pct"):
                stack.append(binary("*", stack.pop(), -1.0 if kind == "neg" else 0.01))
            elif kind == "bin":
                right, left = stack.pop(), stack.pop()
                stack.append(binary(step[1], left, right))
            else:
                stack.append(self._call(step[1], [stack.pop() for _ in range(step[2])][::-1]))
        if len(stack) != 1:
            return FormulaError("#ERROR!", "the formula does not parse")
        return stack[0]

    def _other(self, name: str, bounds: tuple) -> Value:
        """A range of another tab, read on demand from that tab's own sheet."""
        other = self.book(name) if self.book else None
        if other is None:
            return FormulaError("#REF!", f"there is no tab named {name!r}")
        r1, c1, r2, c2 = other._bounds(*bounds)
        if (r2 - r1 + 1) * (c2 - c1 + 1) > MAX_RANGE:
            return FormulaError("#REF!", "range too large")
        return Area(other, r1, c1, r2, c2)

    def _call(self, name: str, args: list) -> Value:
        function = FUNCTIONS.get(name)
        if function is None:
            return FormulaError("#NAME?", f"unknown function {name}")
        if name not in LAZY:
            for arg in args:
                if isinstance(arg, FormulaError):
                    return arg
        try:
            return function(self, args)
        except FormulaError as exc:
            return exc
        except (ArithmeticError, ValueError) as exc:
            return FormulaError("#NUM!", f"{name}: a number out of range ({type(exc).__name__})")
        except (TypeError, IndexError):
            return FormulaError("#N/A", f"{name} was given the wrong number of arguments")
