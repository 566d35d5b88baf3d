"""The spreadsheet functions, by name: logic, text, maths, lookups, conditional sums, dates.

Each takes ``(sheet, args)``; see ``formula_functions`` for the values and helpers they share.
"""

from __future__ import annotations

from decimal import ROUND_DOWN, ROUND_HALF_UP, ROUND_UP
from typing import Callable

from apps.docs.formula_format import format_value
from apps.docs.formula_functions import (
    Area,
    DateValue,
    FormulaError,
    add_months,
    compare,
    criterion,
    local_now,
    make_date,
    matching,
    number,
    numbers,
    round_to,
    scalar,
    serial_now,
    text,
    to_day,
    truth,
)


def _need(args: list, least: int, most: int, name: str) -> None:
    if not least <= len(args) <= most:
        span = str(least) if least == most else f"{least} to {most}"
        raise FormulaError("#N/A", f"{name} takes {span} argument(s), not {len(args)}")


def _if(sheet, args):
    _need(args, 2, 3, "IF")
    cond = scalar(args[0])
    if isinstance(cond, FormulaError):
        return cond
    chosen = args[1] if truth(cond) else (args[2] if len(args) > 2 else False)
    return scalar(chosen)


def _ifs(sheet, args):
    if len(args) < 2 or len(args) % 2:
        raise FormulaError("#N/A", "IFS takes conditions and values in pairs")
    for cond, value in zip(args[::2], args[1::2]):
        cond = scalar(cond)
        if isinstance(cond, FormulaError):
            return cond
        if truth(cond):
            return scalar(value)
    return FormulaError("#N/A", "no condition of IFS holds")


def _iferror(sheet, args, only_na=False):
    _need(args, 2, 2, "IFERROR")
    value = scalar(args[0])
    caught = isinstance(value, FormulaError) and (not only_na or value.code == "#N/A")
    return scalar(args[1]) if caught else value


def _logic(kind: str):
    def run(sheet, args):
        values = []
        for arg in args:
            for v in (arg.flat() if isinstance(arg, Area) else [arg]):
                if isinstance(v, FormulaError):
                    raise v
                if v is not None and not (isinstance(arg, Area) and isinstance(v, str)):
                    values.append(truth(v))
        if not values:
            raise FormulaError("#VALUE!", f"{kind} has no values to test")
        return all(values) if kind == "AND" else any(values)
    return run


def _aggregate(kind: str):
    def run(sheet, args):
        found = numbers(args)
        if kind == "SUM":
            return float(sum(found))
        if kind == "COUNT":
            return float(len(found))
        if not found:
            if kind == "AVERAGE":
                raise FormulaError("#DIV/0!", "AVERAGE of no numbers")
            return 0.0
        pick: dict[str, Callable[[list[float]], float]] = {"AVERAGE": lambda v: sum(v) / len(v), "MIN": min, "MAX": max}
        return pick[kind](found)
    return run


def _counta(sheet, args):
    return float(sum(1 for arg in args for v in (arg.flat() if isinstance(arg, Area) else [arg]) if v not in (None, "")))


def _round(how):
    def run(sheet, args):
        _need(args, 1, 2, "ROUND")
        return round_to(number(args[0]), number(args[1]) if len(args) > 1 else 0, how)
    return run


def _conditional(kind: str):
    def run(sheet, args):
        if kind in ("SUMIF", "AVERAGEIF", "COUNTIF"):
            _need(args, 2, 3 if kind != "COUNTIF" else 2, kind)
            target = args[2] if len(args) > 2 else args[0]
            hits = matching([args[0], args[1]], kind)
        else:
            target = args[0] if kind != "COUNTIFS" else None
            hits = matching(args[1:] if target is not None else args, kind)
        if kind.startswith("COUNT"):
            return float(len(hits))
        if not isinstance(target, Area):
            raise FormulaError("#VALUE!", f"{kind} needs a range to add up")
        values = target.flat()
        found = [v for i in hits if i < len(values) and isinstance(v := values[i], float)]
        if kind.startswith("AVERAGE"):
            if not found:
                raise FormulaError("#DIV/0!", f"{kind}: no matching numbers")
            return sum(found) / len(found)
        return float(sum(found))
    return run


def _position(value, values: list, mode: int, name: str) -> int:
    """0-based position of ``value`` in ``values``: exact (0), largest <= (1), smallest >= (-1)."""
    if mode == 0:
        test = criterion(value) if isinstance(value, str) and any(c in value for c in "*?") else None
        for i, v in enumerate(values):
            if (test(v) if test else (v is not None and compare("=", v, value))):
                return i
    else:
        best = None
        for i, v in enumerate(values):
            if v is None or isinstance(v, FormulaError) or isinstance(v, str) != isinstance(value, str):
                continue
            if compare("<=" if mode == 1 else ">=", v, value) and (
                    best is None or compare(">" if mode == 1 else "<", v, values[best])):
                best = i
        if best is not None:
            return best
    raise FormulaError("#N/A", f"{name}: {text(value)!r} was not found")


def _vlookup(sheet, args):
    _need(args, 3, 4, "VLOOKUP")
    key, area = scalar(args[0]), args[1]
    if not isinstance(area, Area):
        raise FormulaError("#VALUE!", "VLOOKUP needs a range to search")
    column = int(number(args[2]))
    if column < 1:
        raise FormulaError("#VALUE!", "VLOOKUP's column must be 1 or more")
    if column > area.shape[1]:
        raise FormulaError("#REF!", f"VLOOKUP's column {column} is outside the range")
    exact = len(args) > 3 and not truth(args[3])
    row = _position(key, [r[0] for r in area.rows()], 0 if exact else 1, "VLOOKUP")
    return area.at(row, column - 1)


def _xlookup(sheet, args):
    _need(args, 3, 6, "XLOOKUP")
    key, where, results = scalar(args[0]), args[1], args[2]
    if not isinstance(where, Area) or not isinstance(results, Area):
        raise FormulaError("#VALUE!", "XLOOKUP needs a range to search and a range to return from")
    values = where.line("XLOOKUP")
    mode = int(number(args[4])) if len(args) > 4 else 0
    backwards = len(args) > 5 and number(args[5]) < 0
    order = list(range(len(values)))[::-1] if backwards else list(range(len(values)))
    try:
        found = order[_position(key, [values[i] for i in order], {0: 0, 2: 0, -1: 1, 1: -1}.get(mode, 0), "XLOOKUP")]
    except FormulaError:
        if len(args) > 3:
            return scalar(args[3])
        raise
    vertical = where.shape[1] == 1
    return results.at(found, 0) if vertical else results.at(0, found)


def _index(sheet, args):
    _need(args, 2, 3, "INDEX")
    area = args[0]
    if not isinstance(area, Area):
        raise FormulaError("#VALUE!", "INDEX needs a range")
    row, col = int(number(args[1])), int(number(args[2])) if len(args) > 2 else 1
    if area.shape[0] == 1 and len(args) == 2:
        row, col = 1, row
    if not (0 <= row <= area.shape[0] and 0 <= col <= area.shape[1]):
        raise FormulaError("#REF!", "INDEX points outside the range")
    r1, r2 = (area.r1, area.r2) if row == 0 else (area.r1 + row - 1,) * 2
    c1, c2 = (area.c1, area.c2) if col == 0 else (area.c1 + col - 1,) * 2
    return Area(sheet, r1, c1, r2, c2)


def _match(sheet, args):
    _need(args, 2, 3, "MATCH")
    if not isinstance(args[1], Area):
        raise FormulaError("#N/A", "MATCH needs a range to search")
    mode = int(number(args[2])) if len(args) > 2 else 1
    return float(_position(scalar(args[0]), args[1].line("MATCH"), max(-1, min(1, mode)), "MATCH") + 1)


def _concat(sheet, args):
    return "".join(text(v) for arg in args for v in (arg.flat() if isinstance(arg, Area) else [arg]))


def _text_of(sheet, args):
    _need(args, 2, 2, "TEXT")
    return format_value(scalar(args[0]), text(args[1]))


def _is(test):
    return lambda sheet, args: test(scalar(args[0]))


def _choose(sheet, args):
    index = scalar(args[0])
    if isinstance(index, FormulaError):
        return index
    i = int(number(index))
    if not 1 <= i < len(args):
        raise FormulaError("#VALUE!", f"CHOOSE has no choice {i}")
    return scalar(args[i])


def _datedif(sheet, args):
    _need(args, 3, 3, "DATEDIF")
    start, end, unit = to_day(args[0]), to_day(args[1]), text(args[2]).upper()
    if end < start:
        raise FormulaError("#NUM!", "DATEDIF's end is before its start")
    months = (end.year - start.year) * 12 + end.month - start.month - (end.day < start.day)
    found = {"D": (end - start).days, "M": months, "Y": months // 12}.get(unit)
    if found is None:
        raise FormulaError("#NUM!", "DATEDIF's unit is D, M or Y")
    return float(found)


def _weekday(sheet, args):
    day = to_day(args[0]).isoweekday() % 7 + 1  # Sunday = 1
    kind = int(number(args[1])) if len(args) > 1 else 1
    return float(day if kind == 1 else (day - 2) % 7 + 1 if kind == 2 else (day - 2) % 7)


TABLE = {
    "IF": _if, "IFS": _ifs, "IFERROR": _iferror, "IFNA": lambda sh, a: _iferror(sh, a, only_na=True),
    "AND": _logic("AND"), "OR": _logic("OR"), "NOT": lambda sh, a: not truth(a[0]),
    "TRUE": lambda sh, a: True, "FALSE": lambda sh, a: False, "CHOOSE": _choose,
    "SUM": _aggregate("SUM"), "AVERAGE": _aggregate("AVERAGE"), "MIN": _aggregate("MIN"),
    "MAX": _aggregate("MAX"), "COUNT": _aggregate("COUNT"), "COUNTA": _counta,
    "ROUND": _round(ROUND_HALF_UP), "ROUNDUP": _round(ROUND_UP), "ROUNDDOWN": _round(ROUND_DOWN),
    "ABS": lambda sh, a: abs(number(a[0])), "MOD": lambda sh, a: _mod(number(a[0]), number(a[1])),
    "POWER": lambda sh, a: float(number(a[0]) ** number(a[1])), "INT": lambda sh, a: float(int(number(a[0]) // 1)),
    "SUMIF": _conditional("SUMIF"), "SUMIFS": _conditional("SUMIFS"), "COUNTIF": _conditional("COUNTIF"),
    "COUNTIFS": _conditional("COUNTIFS"), "AVERAGEIF": _conditional("AVERAGEIF"),
    "AVERAGEIFS": _conditional("AVERAGEIFS"),
    "VLOOKUP": _vlookup, "XLOOKUP": _xlookup, "INDEX": _index, "MATCH": _match,
    "CONCATENATE": _concat, "CONCAT": _concat, "TEXT": _text_of, "LEN": lambda sh, a: float(len(text(a[0]))),
    "UPPER": lambda sh, a: text(a[0]).upper(), "LOWER": lambda sh, a: text(a[0]).lower(),
    "TRIM": lambda sh, a: " ".join(text(a[0]).split()),
    "LEFT": lambda sh, a: text(a[0])[:int(number(a[1])) if len(a) > 1 else 1],
    "RIGHT": lambda sh, a: text(a[0])[-int(number(a[1])) if len(a) > 1 else -1:] if (len(a) < 2 or number(a[1])) else "",
    "MID": lambda sh, a: text(a[0])[max(0, int(number(a[1])) - 1):max(0, int(number(a[1])) - 1) + int(number(a[2]))],
    "VALUE": lambda sh, a: number(text(a[0])),
    "ISBLANK": _is(lambda v: v is None), "ISNUMBER": _is(lambda v: isinstance(v, float)),
    "ISTEXT": _is(lambda v: isinstance(v, str)), "ISERROR": _is(lambda v: isinstance(v, FormulaError)),
    "ISERR": _is(lambda v: isinstance(v, FormulaError) and v.code != "#N/A"),
    "ISNA": _is(lambda v: isinstance(v, FormulaError) and v.code == "#N/A"),
    "TODAY": lambda sh, a: DateValue.of(local_now(sh).date()), "NOW": lambda sh, a: serial_now(sh),
    "DATE": lambda sh, a: make_date(number(a[0]), number(a[1]), number(a[2])),
    "DATEVALUE": lambda sh, a: DateValue.of(to_day(text(a[0]))),
    "YEAR": lambda sh, a: float(to_day(a[0]).year), "MONTH": lambda sh, a: float(to_day(a[0]).month),
    "DAY": lambda sh, a: float(to_day(a[0]).day), "WEEKDAY": _weekday,
    "EDATE": lambda sh, a: add_months(to_day(a[0]), int(number(a[1])), False),
    "EOMONTH": lambda sh, a: add_months(to_day(a[0]), int(number(a[1])), True),
    "DAYS": lambda sh, a: float((to_day(a[0]) - to_day(a[1])).days), "DATEDIF": _datedif,
}


def _mod(a: float, b: float) -> float:
    if b == 0:
        raise FormulaError("#DIV/0!", "MOD by zero")
    return a - b * (a // b)

