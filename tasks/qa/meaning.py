"""Runs about meaning and form: wrong work that keeps the words but not the sense, and right work in
other correct forms.

Wrong (gate ``mutant``):
- ``negate`` (strict): every free-text output a criterion reads (a write's text argument whose field
  a text comparator checks, and a graded answer) with its polarity flipped clause by clause: "not"
  put before each asserted clause, the negation taken out of each negated one.
- ``rewrite_appended`` (strict): an append to a document replaced by a rewrite of the whole document
  with the appended text alone.
- ``wrong_type``: each cell of an appended sheet row in turn given a value of the wrong type
  ("banana") or left blank; counted toward the 95% of mutants a task must catch.
- ``prompt_copy`` (strict): the prompt itself submitted as the answer.

Right (gate ``variation``): the oracle's answer in other correct forms (dates as "March 5th" and
m/d/y or d/m/y as the world's zone writes them, numbers with separators, in words and as "X, not Y",
money written out, an entity named against a rival) and the oracle's multi-sentence texts with their
sentences in another order (unless a criterion wants that text verbatim), and a new message to one
person sent instead as a reply to that person's latest message where the task allows either (no
criterion reads the subject or the thread). They must all pass.
"""

from __future__ import annotations

import re
from datetime import date

from tasks.comparators import dayfirst, local_date
from tasks.model import Call
from tasks.parse import NEGATORS, clause_spans, negated, parse_number, sentences
from tasks.qa.attempt import Attempt, answer_call, call, unescape
from tasks.qa.context import Context

TEXT_COMPARATORS = {"tokens", "phrase", "claim", "text", "contains"}
ARG_FIELDS = {"text": "body"}   # an operation's argument -> the record field criteria read it as
_NEGATION = re.compile(r"\b(?:%s)\b\s*|n['’]t\b" % "|".join(sorted(NEGATORS - {"cannot"})), re.IGNORECASE)
_UNDO = ((re.compile(r"\bwon['’]t\b", re.IGNORECASE), "will"), (re.compile(r"\bcan['’]t\b|\bcannot\b", re.IGNORECASE), "can"))
_ONES = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen " \
        "seventeen eighteen nineteen".split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()


def meaning_attempts(ctx: Context) -> list[Attempt]:
    wrong = [("negate", True, *m) for m in _negations(ctx)] + [("rewrite_appended", True, *m) for m in _rewrites(ctx)]
    wrong += [("wrong_type", False, *m) for m in _wrong_types(ctx)] + [("prompt_copy", True, *m) for m in _copies(ctx)]
    out = [Attempt("mutant", name, calls, right=False, kind=kind, strict=strict, frozen=True)
           for kind, strict, name, calls in wrong]
    return out + [Attempt("variation", name, calls, right=True, kind="variation") for name, calls in variations(ctx)]


def flip(text: str) -> str:
    """``text`` with the polarity of each clause flipped (see the module's docstring)."""
    parts, last = [], 0
    for a, b in clause_spans(text):
        clause = text[a:b]
        if not clause.strip():
            continue
        parts.append(text[last:a])
        if negated(clause):
            for pattern, plain in _UNDO:
                clause = pattern.sub(plain, clause)
            parts.append(_NEGATION.sub("", clause))
        else:
            lead = len(clause) - len(clause.lstrip(" \t\n-–—*•"))  # after a bullet: "- not Review ..."
            parts.append(clause[:lead] + "not " + clause[lead:])
        last = b
    return "".join(parts) + text[last:]


def checked_text_fields(ctx: Context) -> set[str]:
    """Record fields that a criterion's expect reads with a text comparator (polarity any excluded)."""
    return {name for name, want in _expectations(ctx) if _reads(want, TEXT_COMPARATORS, polar=True)}


def verbatim_fields(ctx: Context) -> set[str]:
    """Record fields a criterion wants as written (exact, ``text``, ``regex``): their order is the answer."""
    return {name for name, want in _expectations(ctx) if not isinstance(want, dict) or _reads(want, {"text", "regex", "eq"})}


def _reads(want, names: set[str], polar: bool = False) -> bool:
    """Whether an expectation uses one of ``names``, itself or inside all_of/any_of (not under ``not``)."""
    if not isinstance(want, dict):
        return False
    if polar and want.get("polarity") == "any":
        return False
    if names & set(want):
        return True
    return any(_reads(e, names, polar) for key in ("all_of", "any_of") for e in want.get(key) or [])


def _expectations(ctx: Context) -> list[tuple[str, object]]:
    return [(name, want) for c in ctx.task.criteria if c.records is not None and c.role != "diagnostic"
            for name, want in c.records.expect.items()]


def _graded_text_answer(ctx: Context) -> bool:
    return any(e.type != "yesno" for e in ctx.expected)


def _negations(ctx: Context) -> list[tuple[str, list[Call]]]:
    fields, out = checked_text_fields(ctx), []
    for i, c in enumerate(ctx.oracle):
        args = unescape(c.args)
        for arg, value in args.items():
            graded = ARG_FIELDS.get(arg, arg) in fields if ctx.mutates(c) else (arg == "answer" and _graded_text_answer(ctx))
            if graded and isinstance(value, str) and value.strip():
                out.append((f"step {i} {c.op}: {arg} negated", _with(ctx.oracle, i, **{arg: flip(value)})))
    return out


def _rewrites(ctx: Context) -> list[tuple[str, list[Call]]]:
    out = []
    for i, c in enumerate(ctx.oracle):
        if c.op == "docs.append_to_document" and "docs.write_document" in ctx.operations:
            args = unescape(c.args)
            rewrite = call("docs.write_document", file_id=args["file_id"], text=args["text"])
            out.append((f"step {i}: the document rewritten with the appended text alone", _replace(ctx.oracle, i, rewrite)))
    return out


def _wrong_types(ctx: Context) -> list[tuple[str, list[Call]]]:
    out = []
    for i, c in enumerate(ctx.oracle):
        if c.op != "docs.append_rows":
            continue
        args = unescape(c.args)
        for j, cell in enumerate(args["rows"][0] if args.get("rows") else []):
            for bad in ("banana", ""):
                if str(cell).strip() and str(cell) != bad:
                    rows = [list(args["rows"][0]), *args["rows"][1:]]
                    rows[0][j] = bad
                    out.append((f"step {i}: row cell {j + 1} {bad or 'blank'}", _with(ctx.oracle, i, rows=rows)))
    return out


def _copies(ctx: Context) -> list[tuple[str, list[Call]]]:
    at = ctx.answer_index(ctx.oracle)
    if at is None or not ctx.expected:
        return []
    return [("the prompt copied as the answer", _replace(ctx.oracle, at, answer_call(ctx.task.prompt)))]


def variations(ctx: Context) -> list[tuple[str, list[Call]]]:
    out = []
    at = ctx.answer_index(ctx.oracle)
    # One answer criterion of any role: rewritten whole, the answer would drop what a second one (a guard) reads.
    read = [c for c in ctx.task.criteria if c.answer is not None and c.role != "diagnostic"]
    if at is not None and len(ctx.expected) == 1 and len(read) == 1:
        status = unescape(ctx.oracle[at].args).get("status")
        for name, text in answer_forms(ctx.expected[0].type, ctx.expected[0].value, ctx.expected[0].candidates, ctx.tz):
            out.append((f"answer {name}: {text!r}", _replace(ctx.oracle, at, answer_call(text, status))))
    out += _as_replies(ctx)
    verbatim = verbatim_fields(ctx)
    for i, c in enumerate(ctx.oracle):
        args = unescape(c.args)
        for arg in ("body", "text"):
            if ARG_FIELDS.get(arg, arg) in verbatim:
                continue
            parts = [p.strip() for p in sentences(args.get(arg) or "")] if ctx.mutates(c) else []
            if len(parts) >= 2:
                swapped = ". ".join(p.rstrip(".") for p in [*parts[1:], parts[0]]) + "."
                out.append((f"step {i} {c.op}: {arg} in another order", _with(ctx.oracle, i, **{arg: swapped})))
    return out


def _as_replies(ctx: Context) -> list[tuple[str, list[Call]]]:
    """The oracle's ``mail.send`` to one person, sent as a reply to their latest message instead."""
    read = str([c.model_dump(by_alias=True) for c in ctx.task.criteria])
    if "subject" in read or "in_reply_to" in read or "thread" in read or "mail.reply" not in ctx.operations:
        return []
    out = []
    for i, c in enumerate(ctx.oracle):
        args = unescape(c.args)
        if c.op != "mail.send" or len(args.get("to") or []) != 1 or args.get("cc") or args.get("attachments"):
            continue
        person = str(args["to"][0]).lower()
        theirs = [m for m in ctx.targets.records("mail.message")
                  if m.get("owner") == ctx.targets.actor and str(m.get("sender", "")).lower() == person]
        if theirs:
            latest = max(theirs, key=lambda m: str(m.get("date")))
            reply = call("mail.reply", message_id=latest["id"], body=args.get("body", ""))
            out.append((f"step {i}: a reply to {person}'s latest message instead of a new one", _replace(ctx.oracle, i, reply)))
    return out


def answer_forms(kind: str, value, candidates: list[str], tz: str) -> list[tuple[str, str]]:
    """Correct answers of ``kind`` in forms other than the oracle's."""
    if kind == "date":
        day = local_date(value, tz)
        return _date_forms(day, dayfirst(tz)) if day else []
    number = parse_number(value) if kind in ("number", "money") else None
    if number is not None and number.is_integer() and number >= 0:
        n = int(number)
        forms = [("with separators", f"{n:,}"), ("X, not Y", f"{n:,}, not {n + 1:,}")]
        if n < 1000:
            forms.append(("in words", words(n)))
        if kind == "money":
            forms += [("written out", f"{n:,} dollars"), ("as USD", f"USD {n:,}")]
        return forms
    if kind == "entity" and isinstance(value, str):
        rivals = [c for c in candidates if c.casefold() != value.casefold()]
        return [("named against a rival", f"{value}, not {rivals[0]}")] if rivals else []
    return []


def _date_forms(day: date, day_first: bool) -> list[tuple[str, str]]:
    month = day.strftime("%B")
    suffix = "th" if 11 <= day.day <= 13 else {1: "st", 2: "nd", 3: "rd"}.get(day.day % 10, "th")
    slashed = f"{day.day}/{day.month}/{day.year}" if day_first else f"{day.month}/{day.day}/{day.year}"
    return [("as an ordinal", f"{month} {day.day}{suffix}"), ("slashed", slashed),
            ("X, not Y", f"{month} {day.day}, {day.year}, not {month} {day.day % 28 + 1}, {day.year}")]


def words(n: int) -> str:
    """``n`` (0 to 999) in English words."""
    if n < 20:
        return _ONES[n]
    if n < 100:
        return _TENS[n // 10] + ("-" + _ONES[n % 10] if n % 10 else "")
    return _ONES[n // 100] + " hundred" + (" " + words(n % 100) if n % 100 else "")


def _with(calls: list[Call], i: int, **changes) -> list[Call]:
    return _replace(calls, i, call(calls[i].op, **{**unescape(calls[i].args), **changes}))


def _replace(calls: list[Call], i: int, new: Call) -> list[Call]:
    return calls[:i] + [new] + calls[i + 1:]
