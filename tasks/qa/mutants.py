"""Mutated oracles: the oracle with one thing wrong, each of which the verifier must catch.

Kinds: drop a step, duplicate one, swap the target record (another record of the same kind),
change a value, change a recipient or a sharing role, add an extra write elsewhere, delete and
recreate instead of editing (where the app can delete), and near-miss answers. Every mutant keeps
the oracle's answer unless the answer is what it mutates, and runs with the clock frozen so the
runner can tell an equivalent mutant (same final state as the oracle) from a wrong one.
"""

from __future__ import annotations

import random
import re
from datetime import date, datetime, timedelta

from tasks.model import Call
from tasks.qa.agents import fill
from tasks.qa.attempt import Attempt, answer_call, call, unescape
from tasks.qa.context import Context
from tasks.qa.nearmiss import near_misses
from tasks.qa.targets import ID_ARGS, PERSON_ARGS, ROLE_ARGS

PER_KIND = 6      # at most this many mutants of one kind per task
STRICT = {"drop", "swap_target"}
# writes that rarely fail, for "one extra write elsewhere"
SMALL_WRITES = ["mail.star", "mail.mark_read", "mail.archive", "crm.create_task", "crm.add_note",
                "docs.star", "docs.create_document"]  # a non-equivalent one of these may never pass


def mutants(ctx: Context) -> list[Attempt]:
    out = []
    for kind, maker in MAKERS.items():
        made = maker(ctx)
        step = max(1, len(made) // PER_KIND) if len(made) > PER_KIND else 1
        out += [Attempt("mutant", name, calls, right=False, kind=kind, strict=kind in STRICT, frozen=True)
                for name, calls in made[::step][:PER_KIND]]
    return out


def _drop(ctx: Context):
    return [(f"drop step {i} ({c.op})", ctx.oracle[:i] + ctx.oracle[i + 1:]) for i, c in enumerate(ctx.oracle)]


def _duplicate(ctx: Context):
    return [(f"duplicate step {i} ({ctx.oracle[i].op})", ctx.oracle[:i + 1] + ctx.oracle[i:])
            for i in ctx.writes(ctx.oracle)]


def _swap_target(ctx: Context):
    out = []
    for i in ctx.writes(ctx.oracle):
        c = ctx.oracle[i]
        for arg, value in c.args.items():
            if arg not in ID_ARGS and arg != "related_id":
                continue
            related = c.args.get("related_object")
            values = value if isinstance(value, list) else [value]
            others = ctx.targets.others(arg, values[0], n=len(values) + 1, related_object=related)
            others = [o for o in others if o not in values]
            if not others:
                continue
            new = others[:len(values)] if isinstance(value, list) else others[0]
            out.append((f"step {i} {c.op}: {arg} {value} -> {new}", _with(ctx.oracle, i, {arg: new})))
    return out


def _change_value(ctx: Context):
    out = []
    for i in ctx.writes(ctx.oracle):
        c = ctx.oracle[i]
        props = ctx.operations[c.op].input_schema().get("properties", {})
        for arg, value in c.args.items():
            if arg in ID_ARGS or arg in PERSON_ARGS or arg in ROLE_ARGS or arg.endswith("_id") or arg == "related_object":
                continue
            new = _changed(unescape(value), _plain(props.get(arg, {})))
            if new is not None and new != unescape(value):
                out.append((f"step {i} {c.op}: {arg} changed", _with(ctx.oracle, i, {arg: new})))
    return out


def _change_recipient(ctx: Context):
    out = []
    for i in ctx.writes(ctx.oracle):
        c = ctx.oracle[i]
        props = ctx.operations[c.op].input_schema().get("properties", {})
        for arg, value in c.args.items():
            if arg in PERSON_ARGS and value:
                values = value if isinstance(value, list) else [value]
                other = ctx.targets.other_people({str(v).lower() for v in values})
                if other:
                    new = [other[0], *values[1:]] if isinstance(value, list) else other[0]
                    out.append((f"step {i} {c.op}: {arg} -> {other[0]}", _with(ctx.oracle, i, {arg: new})))
            elif arg in ROLE_ARGS:
                roles = [r for r in _plain(props.get(arg, {})).get("enum", []) if r != value]
                if roles:
                    out.append((f"step {i} {c.op}: role {value} -> {roles[0]}", _with(ctx.oracle, i, {arg: roles[0]})))
    return out


def _extra_write(ctx: Context):
    out = []
    writes = ctx.writes(ctx.oracle)
    for name, calls in _swap_target(ctx)[:1]:
        i = int(name.split()[1])
        out.append((f"also {name}", ctx.oracle[:i + 1] + [calls[i]] + ctx.oracle[i + 1:]))
    rng = random.Random(f"{ctx.task.id}:extra")
    apps = sorted({ctx.oracle[i].app for i in writes}) or ctx.task.apps or ["mail"]
    ops = [o for o in SMALL_WRITES if o.split(".")[0] in apps and o in ctx.operations]
    for _ in range(20):
        op = rng.choice(ops) if ops else None
        args = fill(ctx, op, rng) if op else None
        if op is not None and args is not None:
            end = ctx.answer_index(ctx.oracle)
            at = end if end is not None else len(ctx.oracle)
            out.append((f"extra {op} elsewhere", ctx.oracle[:at] + [call(op, **args)] + ctx.oracle[at:]))
            break
    return out


def _delete_recreate(ctx: Context):
    out = []
    for i in ctx.writes(ctx.oracle):
        c = ctx.oracle[i]
        args = unescape(c.args)
        if c.op == "docs.write_document":
            item = _docs_item(ctx, args["file_id"])
            if item:
                recreate = [call("docs.trash", file_id=args["file_id"]),
                            call("docs.create_document", name=item["name"], text=args["text"],
                                 **({"folder_id": item["parent_id"]} if item.get("parent_id") else {}))]
                out.append((f"step {i}: trash and recreate the document", ctx.oracle[:i] + recreate + ctx.oracle[i + 1:]))
        elif c.op == "mail.update_draft":
            draft = next((d for d in ctx.targets.records("mail.draft") if d["id"] == args["draft_id"]), None)
            if draft:
                fresh = {"to": draft["to"], "cc": draft["cc"], "subject": draft["subject"], "body": draft["body"]}
                fresh.update({k: v for k, v in args.items() if k != "draft_id"})
                recreate = [call("mail.discard_draft", draft_id=args["draft_id"]), call("mail.create_draft", **fresh)]
                out.append((f"step {i}: discard and recreate the draft", ctx.oracle[:i] + recreate + ctx.oracle[i + 1:]))
    return out


def _near_miss(ctx: Context):
    i = ctx.answer_index(ctx.oracle)
    if i is None:
        return []
    text = unescape(ctx.oracle[i].args.get("answer", ""))
    status = ctx.oracle[i].args.get("status")
    out = [(f"near-miss answer: {name}", ctx.oracle[:i] + [answer_call(wrong, status)] + ctx.oracle[i + 1:])
           for e in ctx.expected for name, wrong in near_misses(e, text, ctx.targets.people)]
    for other in [s for s in ("done", "refused", "needs_input") if s != (status or "done")]:
        if ctx.task.outcome in ("refuse", "ask") or other != "done":
            out.append((f"answer status {other} instead of {status or 'done'}",
                        ctx.oracle[:i] + [answer_call(text, other)] + ctx.oracle[i + 1:]))
    return out


MAKERS = {"drop": _drop, "duplicate": _duplicate, "swap_target": _swap_target, "change_value": _change_value,
          "change_recipient": _change_recipient, "extra_write": _extra_write,
          "delete_recreate": _delete_recreate, "near_miss": _near_miss}


def _with(calls: list[Call], i: int, changes: dict) -> list[Call]:
    args = {**unescape(calls[i].args), **changes}
    return calls[:i] + [call(calls[i].op, **args)] + calls[i + 1:]


def _changed(value, spec: dict):
    """A different value of the same type: another choice, a day later, one more, other text."""
    if isinstance(value, bool):
        return not value
    if "enum" in spec:
        return next((e for e in spec["enum"] if e != value), None)
    if isinstance(value, (int, float)):
        return value + 1
    if isinstance(value, list):
        return value[:-1] if len(value) > 1 else ["Other"] if value else None
    if not isinstance(value, str) or not value:
        return None
    if spec.get("format") == "date" or re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
        return (date.fromisoformat(value[:10]) + timedelta(days=1)).isoformat()
    if spec.get("format") == "date-time":
        try:
            return (datetime.fromisoformat(value) + timedelta(hours=1)).isoformat()
        except ValueError:
            return None
    bumped = re.sub(r"\d+", lambda m: str(int(m.group()) + 1), value, count=1)
    return bumped if bumped != value else "(details to follow)"


def _plain(spec: dict) -> dict:
    for option in spec.get("anyOf", []):
        if option.get("type") != "null":
            return {**spec, **option}
    return spec


def _docs_item(ctx: Context, file_id) -> dict | None:
    conn = ctx.targets.state.connections.get("docs")
    row = conn.execute("select name, parent_id from docs_item where id = ?", (file_id,)).fetchone() if conn else None
    return {"name": row[0], "parent_id": row[1]} if row else None
