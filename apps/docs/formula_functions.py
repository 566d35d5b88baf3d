"""The values a formula computes with, its operators, and the functions spreadsheet users write daily.

Values: float, str, bool, None (an empty cell), ``DateValue`` (a day as a serial number, shown as
YYYY-MM-DD), ``FormulaError``, and ``Area`` (a range, or one referenced cell, read lazily). A
function is ``fn(sheet, args) -> Value``; it raises ``FormulaError`` for an error value. Functions in
``LAZY`` receive error arguments themselves (IF chooses, IFERROR catches); the rest see the first
error instead of running. Criteria (SUMIF ...) read as spreadsheets read them: ``">=10"``,
``"<>Closed"``, ``"Glo*"``, a number or a text.
"""

from __future__ import annotations

import operator
import re
from datetime import date, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any, Callable, Union
from zoneinfo import ZoneInfo

_EPOCH = date(1899, 12, 30)  # serial 0 of spreadsheet dates


class FormulaError(Exception):
    """An error value: ``code`` is what the cell shows, ``detail`` says why."""

    def __init__(self, code: str, detail: str):
        super().__init__(detail)
        self.code, self.detail = code, detail


class DateValue(float):
    """A day as spreadsheets keep it: days since 1899-12-30; shown as YYYY-MM-DD."""

    @classmethod
    def of(cls, day: date) -> "DateValue":
        return cls((day - _EPOCH).days)

    def day(self) -> date:
        return _EPOCH + timedelta(days=int(self))


class Area:
    """A rectangle of cells, read on demand from the sheet."""

    def __init__(self, sheet, r1: int, c1: int, r2: int, c2: int):
        self.sheet, self.r1, self.c1, self.r2, self.c2 = sheet, r1, c1, r2, c2

    @property
    def shape(self) -> tuple[int, int]:
        return self.r2 - self.r1 + 1, self.c2 - self.c1 + 1

    def at(self, i: int, j: int) -> "Value":
        return self.sheet.cell(self.r1 + i, self.c1 + j)

    def rows(self) -> list[list["Value"]]:
        # Every cell an area reads is already final (dependencies come first), so one read per range serves
        # every formula that uses it: a column of SUMIFs over the same rows reads them once.
        key = (self.r1, self.c1, self.r2, self.c2)
        found = self.sheet.areas.get(key)
        if found is None:
            self.sheet.saw_cycle = False
            found = [[self.sheet.cell(r, c) for c in range(self.c1, self.c2 + 1)] for r in range(self.r1, self.r2 + 1)]
            if not self.sheet.saw_cycle:  # a cell read mid-cycle is not its final value: read it again next time
                self.sheet.areas[key] = found
        return found

    def flat(self) -> list["Value"]:
        return [v for row in self.rows() for v in row]

    def line(self, name: str) -> list["Value"]:
        if 1 not in self.shape:
            raise FormulaError("#VALUE!", f"{name} needs one row or one column")
        return self.flat()


Value = Union[float, str, bool, None, DateValue, FormulaError, Area]


def scalar(value, why: str = "a range where one value is needed"):
    if isinstance(value, Area):
        if value.shape != (1, 1):
            return FormulaError("#VALUE!", why)
        return value.at(0, 0)
    return value


def number(value) -> float:
    value = scalar(value)
    if isinstance(value, FormulaError):
        raise value
    if value is None:
        return 0.0
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        from apps.docs.formulas import parse_number
        found = parse_number(value)
        if found is None:
            raise FormulaError("#VALUE!", f"{value!r} is text, not a number")
        return found
    return value


def text(value) -> str:
    value = scalar(value)
    if isinstance(value, FormulaError):
        raise value
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(round(value, 10))
    return value


def truth(value) -> bool:
    value = scalar(value)
    if isinstance(value, str):
        if value.upper() in ("TRUE", "FALSE"):
            return value.upper() == "TRUE"
        raise FormulaError("#VALUE!", f"{value!r} is not TRUE or FALSE")
    return number(value) != 0


def _rank(value) -> tuple:
    """Spreadsheet ordering: numbers < text (case-insensitive) < booleans."""
    if isinstance(value, bool):
        return (2, value)
    if isinstance(value, str):
        return (1, value.lower())
    return (0, value)


_OPS = {"=": operator.eq, "<>": operator.ne, "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}


def compare(op: str, a, b) -> bool:
    if a is None:
        a = "" if isinstance(b, str) else False if isinstance(b, bool) else 0.0
    if b is None:
        b = "" if isinstance(a, str) else False if isinstance(a, bool) else 0.0
    return _OPS[op](_rank(a), _rank(b))


def binary(op: str, left, right) -> Value:
    left, right = scalar(left), scalar(right)
    for side in (left, right):
        if isinstance(side, FormulaError):
            return side
    try:
        if op == "&":
            return text(left) + text(right)
        if op in ("=", "<>", "<", "<=", ">", ">="):
            return compare(op, left, right)
        a, b = number(left), number(right)
        if op == "/" and b == 0:
            return FormulaError("#DIV/0!", "division by zero")
        if op == "^":
            if a < 0 and not b.is_integer():
                return FormulaError("#NUM!", "a negative number to a fractional power")
            return float(a ** b)
        result = {"+": a + b, "-": a - b, "*": a * b, "/": a / b if b else 0.0}[op]
        dated = isinstance(left, DateValue) != isinstance(right, DateValue) and op in "+-"
        return DateValue(result) if dated and not isinstance(right, DateValue) else result
    except FormulaError as exc:
        return exc
    except ZeroDivisionError:
        return FormulaError("#DIV/0!", "zero to a negative power")
    except (ArithmeticError, TypeError):
        return FormulaError("#NUM!", "the number is too large")


def numbers(args: list, skip_text: bool = True) -> list[float]:
    """Numbers an aggregate sees: in ranges, text, booleans and empty cells are skipped."""
    out = []
    for arg in args:
        if isinstance(arg, Area):
            for v in arg.flat():
                if isinstance(v, FormulaError):
                    raise v
                if isinstance(v, float):
                    out.append(v)
        elif arg is not None:
            out.append(number(arg))
    return out


def criterion(spec) -> Callable[[Any], bool]:
    """A SUMIF/COUNTIF condition as a test of one value."""
    spec = scalar(spec)
    if not isinstance(spec, str):
        return lambda v: v is not None and not isinstance(v, FormulaError) and compare("=", v, spec)
    match = re.match(r"^(<=|>=|<>|=|<|>)?(.*)$", spec, re.S)
    assert match is not None  # the pattern matches any text
    op, operand = match.group(1) or "=", match.group(2)
    from apps.docs.formulas import parse_number
    wanted = parse_number(operand)
    if wanted is not None:
        test = _OPS[op]
        return lambda v: isinstance(v, float) and test(v, wanted)
    if operand == "":
        return lambda v: (v is None or v == "") if op == "=" else (v is not None and v != "")
    if op in ("=", "<>") and any(ch in operand for ch in "*?"):
        pattern = re.compile("^" + re.escape(operand).replace(r"\*", ".*").replace(r"\?", ".") + "$", re.I | re.S)
        hit = lambda v: isinstance(v, str) and bool(pattern.match(v))  # noqa: E731
        return hit if op == "=" else (lambda v: not hit(v))
    return lambda v: isinstance(v, str) and compare(op, v, operand) if op != "<>" else (
        not (isinstance(v, str) and compare("=", v, operand)))


def pairs(args: list, name: str) -> list[tuple[list, Callable[[Any], bool]]]:
    if len(args) % 2 or not args:
        raise FormulaError("#N/A", f"{name} takes ranges and criteria in pairs")
    out = []
    for area, spec in zip(args[::2], args[1::2]):
        if not isinstance(area, Area):
            raise FormulaError("#VALUE!", f"{name} needs a range before each criterion")
        out.append((area.flat(), criterion(spec)))
    if len({len(values) for values, _ in out}) > 1:
        raise FormulaError("#VALUE!", f"{name}: the ranges must be the same size")
    return out


def matching(args: list, name: str) -> list[int]:
    tests = pairs(args, name)
    return [i for i in range(len(tests[0][0])) if all(test(values[i]) for values, test in tests)]


def round_to(x: float, digits: float, how=ROUND_HALF_UP) -> float:
    """Rounding as spreadsheets do: half away from zero (2.5 -> 3, -2.5 -> -3), on the decimal shown."""
    exponent = Decimal(1).scaleb(-int(digits))
    try:
        return float(Decimal(repr(x)).quantize(exponent, rounding=how))
    except InvalidOperation:  # more digits than Decimal's precision: a number that large has no fraction left
        if digits >= 0:
            return x
        raise


def to_day(value) -> date:
    value = scalar(value)
    if isinstance(value, str):
        try:
            return date.fromisoformat(value.strip())
        except ValueError:
            raise FormulaError("#VALUE!", f"{value!r} is not a date (YYYY-MM-DD)") from None
    serial = number(value)
    if not -693593 <= serial <= 2958465:
        raise FormulaError("#NUM!", "the date is out of range")
    return _EPOCH + timedelta(days=int(serial))


def make_date(year: float, month: float, day: float) -> DateValue:
    y, m = int(year) + (int(month) - 1) // 12, (int(month) - 1) % 12 + 1
    if not 1 <= y <= 9999:
        raise FormulaError("#NUM!", f"year {y} is out of range")
    return DateValue.of(date(y, m, 1) + timedelta(days=int(day) - 1))


def add_months(start: date, months: int, end_of_month: bool) -> DateValue:
    total = start.year * 12 + start.month - 1 + months
    y, m = divmod(total, 12)
    first_next = date(y + (m + 1) // 12, (m + 1) % 12 + 1, 1)
    last = (first_next - timedelta(days=1)).day
    return DateValue.of(date(y, m + 1, last if end_of_month else min(start.day, last)))


def local_now(sheet) -> datetime:
    return sheet.now.astimezone(ZoneInfo(sheet.tz))


def serial_now(sheet) -> float:
    moment = local_now(sheet)
    seconds = moment.hour * 3600 + moment.minute * 60 + moment.second
    return float(DateValue.of(moment.date())) + seconds / 86400


# The function table is filled by ``formula_library`` (kept apart so that each file stays short).
FUNCTIONS: dict = {}
LAZY = {"IF", "IFS", "IFERROR", "IFNA", "ISERROR", "ISERR", "ISNA", "ISBLANK", "ISNUMBER", "ISTEXT", "CHOOSE"}


def _load() -> None:
    from apps.docs import formula_library
    FUNCTIONS.update(formula_library.TABLE)


_load()
