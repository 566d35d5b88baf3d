"""Evidence: an answer that cites the records it rests on, checked (``trajectory: {evidence: true}``).

An answer cites a record as ``[kind#id]``: ``[mail.message#659]``, ``[crm.opportunity#12]``. The check passes
when the answer cites at least one record and every cited one

- exists (a record of that kind with that id, in the initial or the final state),
- was read by the agent (a successful read step returned a value equal to its id), and
- supports the claim (every number the answer states, citations left out, appears in a cited record).

Its score is the fraction of cited records that exist and were read, and 0 when the claim is unsupported;
its evidence lists each citation with the steps that read it, which the trajectory viewer links.
"""

from __future__ import annotations

import json
import re
import sqlite3
from typing import TYPE_CHECKING

from tasks.parse import numbers_in
from tasks.records import UnknownKind

if TYPE_CHECKING:
    from tasks.checks import CheckResult, Grading

CITATION = re.compile(r"\[([a-z]+\.[a-z_]+)#([^\]\s]+)\]")


def citations(text: str) -> list[tuple[str, str]]:
    """The ``(kind, id)`` pairs an answer cites, in order, each once."""
    return list(dict.fromkeys(CITATION.findall(text)))


def evidence_check(g: Grading) -> CheckResult:
    from tasks.checks import CheckResult

    answer = g.answer
    text = answer["answer"] if answer else ""
    cited = citations(text)
    if not cited:
        return CheckResult("fail", "the answer cites no record ([kind#id])" if answer else "no answer")
    found = [_cited(g, kind, ident) for kind, ident in cited]
    seen = " ".join(json.dumps(r, default=str) for f in found for r in f["record"])
    unsupported = sorted(set(numbers_in(CITATION.sub(" ", text))) - set(numbers_in(seen)))
    good = [f for f in found if f["exists"] and f["steps"]]
    for f in found:
        f.pop("record")
    problems = [f"{f['kind']}#{f['id']} " + ("does not exist" if not f["exists"] else "was never read")
                for f in found if f not in good]
    if unsupported:
        problems.append(f"the cited records do not show {unsupported}")
    score = 0.0 if unsupported else len(good) / len(found)
    if problems:
        return CheckResult("fail", "; ".join(problems[:5]), found, score)
    return CheckResult("pass", f"{len(found)} cited record(s), each read and supporting the answer", found)


def _cited(g: Grading, kind: str, ident: str) -> dict:
    """One citation: whether the record exists, the read steps that returned its id, and the record itself."""
    try:
        records = [r for state in (g.final, g.initial) for r in state.records(kind) if str(r.get("id")) == ident][:1]
    except (UnknownKind, KeyError, sqlite3.Error):   # a kind no app has: cited, but no such record
        records = []
    value = re.compile(r'[:\[,]\s*"?' + re.escape(ident) + r'"?\s*[,}\]]')
    read_at = [s.index for s in g.steps if s.error is None and not s.mutates and value.search(s.result_json.decode())]
    return {"kind": kind, "id": ident, "exists": bool(records), "steps": read_at, "record": records}
