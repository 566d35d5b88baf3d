"""TEXT(value, format): the number and date formats people write, e.g. "0.00", "#,##0", "0%",
"$#,##0.00", "yyyy-mm-dd", "mm/dd/yyyy", "mmm d, yyyy", "dddd", "hh:mm"."""

from __future__ import annotations

import re

from apps.docs.formula_functions import DateValue, FormulaError, number, round_to

_DATE_PART = re.compile(r"yyyy|yy|mmmm|mmm|mm|m|dddd|ddd|dd|d|hh|h|ss|am/pm", re.I)


def format_value(value, fmt: str) -> str:
    if isinstance(value, str) and not _is_date_format(fmt):
        try:
            value = number(value)
        except FormulaError:
            return value
    if _is_date_format(fmt):
        return _date_text(number(value), fmt)
    return _number_text(number(value), fmt)


def _is_date_format(fmt: str) -> bool:
    return bool(re.search(r"[yd]|h|(^|[^0#])m", fmt, re.I)) and not re.search(r"[0#]", fmt)


def _date_text(serial: float, fmt: str) -> str:
    moment = DateValue(int(serial // 1)).day()
    seconds = round((serial % 1) * 86400)
    hour, minute, second = seconds // 3600, seconds // 60 % 60, seconds % 60
    parts = _DATE_PART.split(fmt)
    tokens = _DATE_PART.findall(fmt)
    out, after_hour = [parts[0]], False
    for token, rest in zip(tokens, parts[1:]):
        t = token.lower()
        if t.startswith("m") and len(t) <= 2 and after_hour:
            shown = f"{minute:0{len(t)}d}"
        else:
            shown = {"yyyy": f"{moment.year}", "yy": f"{moment.year % 100:02d}", "mmmm": f"{moment:%B}",
                     "mmm": f"{moment:%b}", "mm": f"{moment.month:02d}", "m": f"{moment.month}",
                     "dddd": f"{moment:%A}", "ddd": f"{moment:%a}", "dd": f"{moment.day:02d}", "d": f"{moment.day}",
                     "hh": f"{hour:02d}", "h": f"{hour}", "ss": f"{second:02d}",
                     "am/pm": "AM" if hour < 12 else "PM"}[t]
        after_hour = t in ("hh", "h")
        out += [shown, rest]
    return "".join(out)


def _number_text(x: float, fmt: str) -> str:
    match = re.search(r"[#0][#0,]*(\.[0#]+)?", fmt)
    if not match:
        return fmt
    percent = "%" in fmt
    value = x * 100 if percent else x
    decimals = len(match.group(1)) - 1 if match.group(1) else 0
    value = round_to(value, decimals)
    body = f"{abs(value):,.{decimals}f}" if "," in match.group(0) else f"{abs(value):.{decimals}f}"
    sign = "-" if value < 0 else ""
    return fmt[:match.start()].replace("%", "") + sign + body + fmt[match.end():]

