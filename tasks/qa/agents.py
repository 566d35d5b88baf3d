"""Scripted agents: doing nothing, only reading, claiming success, acting at random; and the right
work besides the oracle (harmless reorderings, the oracle with extra reads between its steps)."""

from __future__ import annotations

import random
from datetime import timedelta

from tasks.model import Call
from tasks.parse import tokens
from tasks.qa.attempt import Attempt, answer_call, call
from tasks.qa.context import Context
from tasks.qa.nearmiss import near_misses
from tasks.qa.targets import ID_ARGS, PERSON_ARGS, target_args

CLAIMS = ["done", "yes", "I have completed the task"]


def do_nothing(ctx: Context) -> list[Attempt]:
    return [Attempt("nothing", "no call at all", [], right=False, strict=True)]


def read_only(ctx: Context) -> list[Attempt]:
    words = " ".join(tokens(ctx.task.prompt)[:4])
    searches = {"mail": call("mail.search", query=words), "crm": call("crm.search", text=words),
                "docs": call("docs.search", query=words)}
    calls = ctx.reads(ctx.oracle) + [searches[a] for a in _apps(ctx) if a in searches]
    return [Attempt("read_only", f"{len(calls)} reads, no write, no answer", calls, right=False, strict=True)]


def claims_done(ctx: Context) -> list[Attempt]:
    """Answers that claim success without doing the work; the runner flags a task whose right answer
    is among them (a yes/no question answered "yes") as guessable instead of failing it."""
    oracle_answer = _oracle_answer(ctx)
    texts = [(f"answers {t!r}", t) for t in CLAIMS]
    for e in ctx.expected:
        texts += [(f"plausible wrong answer ({name})", text)
                  for name, text in near_misses(e, oracle_answer, ctx.targets.people)[:1]]
        if e.candidates:
            texts.append(("every candidate at once", ", ".join(e.candidates)))
    if not ctx.expected:
        texts.append(("plausible claim", f"Done: {ctx.task.title or ctx.task.prompt[:80]}"))
    texts += [("an empty answer", ""), ("a very long answer", _long(ctx, oracle_answer))]
    return [Attempt("claims", name, [answer_call(text)], right=False, strict=True,
                    meta={"answer": text, "bare_claim": text in CLAIMS}) for name, text in texts]


def random_agent(ctx: Context, seed: int, steps: int = 6) -> Attempt:
    """Valid calls with random targets from the initial state, then a random answer."""
    rng = random.Random(f"{ctx.task.id}:{seed}")
    ops = [name for name in ctx.operations if name.split(".")[0] in _apps(ctx)]
    writes = [o for o in ops if ctx.operations[o].mutates]
    reads = [o for o in ops if not ctx.operations[o].mutates]
    calls: list[Call] = []
    for _ in range(steps * 4):
        if len(calls) >= steps:
            break
        pool = writes if writes and rng.random() < 0.6 else reads or writes
        name = rng.choice(pool)
        args = fill(ctx, name, rng)
        if args is not None:
            calls.append(call(name, **args))
    words = [w for w in tokens(ctx.task.prompt) if len(w) > 3]
    guess = rng.choice([c for e in ctx.expected for c in e.candidates] or words or ["done"])
    calls.append(answer_call(str(guess)))
    return Attempt("random", f"random agent, seed {seed}", calls, right=False, strict=True)


def reorderings(ctx: Context) -> list[Attempt]:
    """The oracle with two adjacent independent writes (other app or other records) swapped."""
    out = []
    for i in range(len(ctx.oracle) - 1):
        a, b = ctx.oracle[i], ctx.oracle[i + 1]
        if ctx.mutates(a) and ctx.mutates(b) and _independent(a, b):
            calls = ctx.oracle[:i] + [b, a] + ctx.oracle[i + 2:]
            out.append(Attempt("reorder", f"swap steps {i} and {i + 1} ({a.op}, {b.op})", calls, right=True))
    return out


def with_reads(ctx: Context, seed: int, extra: int = 3) -> Attempt | None:
    """The oracle with a few random reads slipped between its steps: still right work, unless the task
    bounds its steps."""
    if ctx.trajectory_bound:
        return None
    rng = random.Random(f"{ctx.task.id}:reads:{seed}")
    reads = [o for o in ctx.operations if o.split(".")[0] in _apps(ctx) and not ctx.operations[o].mutates
             and o not in ctx.banned]
    calls = list(ctx.oracle)
    end = ctx.answer_index(calls)
    for _ in range(extra):
        name = rng.choice(reads) if reads else None
        args = fill(ctx, name, rng) if name else None
        if name is not None and args is not None:
            calls.insert(rng.randint(0, end if end is not None else len(calls)), call(name, **args))
            end = ctx.answer_index(calls)
    return Attempt("reads", f"oracle with extra reads, seed {seed}", calls, right=True)


def fill(ctx: Context, op_name: str, rng: random.Random) -> dict | None:
    """Random valid arguments from the operation's input schema; None when one cannot be made."""
    schema = ctx.operations[op_name].input_schema()
    required = set(schema.get("required", []))
    props = sorted(schema.get("properties", {}).items(), key=lambda kv: kv[0] != "related_object")
    args: dict = {}
    for name, spec in props:
        if name not in required and rng.random() > 0.3:
            continue
        value = _value(ctx, name, _plain(spec), rng, args)
        if value is None:
            if name in required:
                return None
            continue
        args[name] = value
    return args


def _value(ctx: Context, name: str, spec: dict, rng: random.Random, args: dict):
    kind = spec.get("type")
    if name in ID_ARGS or name == "related_id":
        picked = ctx.targets.pick(rng, name, args.get("related_object"))
        return None if picked is None else [picked] if kind == "array" else picked
    if name in PERSON_ARGS:
        pool = ctx.targets.people if name in ("to", "cc", "bcc") else ctx.targets.colleagues
        person = rng.choice(pool or ctx.targets.people)
        return [person] if kind == "array" else person
    if name == "soql":
        return "SELECT Id, Name FROM Opportunity LIMIT 5"
    if "enum" in spec:
        return rng.choice(spec["enum"])
    if kind == "array" and "enum" in _plain(spec.get("items", {})):
        return [rng.choice(_plain(spec["items"])["enum"])]
    today = ctx.scope.get("today", "2026-01-01")
    if spec.get("format") == "date":
        return _shift(today, rng.randint(-10, 30))
    if spec.get("format") == "date-time":
        return f"{_shift(today, rng.randint(0, 14))}T{rng.randint(8, 17):02d}:00:00+00:00"
    words = [w for w in tokens(ctx.task.prompt) if w.isalpha()] or ["note"]
    simple = {"string": lambda: " ".join(rng.choices(words, k=rng.randint(2, 6))),
              "integer": lambda: rng.randint(1, 100), "number": lambda: float(rng.randint(1, 100000)),
              "boolean": lambda: rng.random() < 0.5}
    if kind in simple:
        return simple[kind]()
    if kind == "array" and _plain(spec.get("items", {})).get("type") in ("string", "integer"):
        return [simple[_plain(spec["items"])["type"]]()]
    return None


def _plain(spec: dict) -> dict:
    for option in spec.get("anyOf", []):
        if option.get("type") != "null":
            return {**spec, **option}
    return spec


def _shift(day: str, days: int) -> str:
    from datetime import date
    return (date.fromisoformat(day) + timedelta(days=days)).isoformat()


def _independent(a: Call, b: Call) -> bool:
    if a.app != b.app:
        return True
    ta, tb = _flat(target_args(a.args)), _flat(target_args(b.args))
    return bool(ta) and bool(tb) and not (ta & tb)


def _flat(targets: dict) -> set:
    return {(k, x) for k, v in targets.items() for x in (v if isinstance(v, list) else [v])}


def _apps(ctx: Context) -> list[str]:
    return ctx.task.apps or sorted({name.split(".")[0] for name in ctx.operations} - {"task"})


def _oracle_answer(ctx: Context) -> str:
    i = ctx.answer_index(ctx.oracle)
    return str(ctx.oracle[i].args.get("answer", "")).replace("$$", "$") if i is not None else ""


def _long(ctx: Context, oracle_answer: str) -> str:
    """A very long answer: every candidate, numbers and dates around the right ones, and filler."""
    parts = ["I have completed the task. Here is everything that might be relevant:"]
    for e in ctx.expected:
        parts += e.candidates
        parts += [str(n) for n in range(0, 400, 7)]
    parts += [ctx.task.prompt] * 20
    return " ".join(parts)[:20000]
