"""The check's results as data (JSON) and as a table people read (Markdown)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

from tasks.qa.check import SuiteResult, TaskResult
from tasks.qa.gates import FN_BOUND, FP_BOUND, MUTANT_KILL, Figures

SHOWN = 6  # failures per task in the Markdown table (all of them are in the JSON)
POOLING = ("false-positive and false-negative bounds are gated per suite, pooled over its tasks (a 2% "
           "bound needs about 190 wrong runs with none passing, more than one task has); per task, no "
           "strict wrong run may pass and at least 95% of the other non-equivalent mutants must fail")


def to_dict(suites: list[SuiteResult], seconds: float, cpu: float, notes: Sequence[str] = ()) -> dict:
    tasks = [t for s in suites for t in s.tasks]
    total = Figures()
    for s in suites:
        total.add(s.figures)
    return {
        "seconds": round(seconds, 2), "cpu_seconds": round(cpu, 2), "tasks": len(tasks),
        "passed": sum(t.passed for t in tasks), "suites_passed": sum(not s.failures for s in suites),
        "runs": sum(len(t.outcomes) for t in tasks), "ok": ok(suites),
        "gates": {"false_positive_upper95": FP_BOUND, "false_negative_upper95": FN_BOUND,
                  "mutants_caught": MUTANT_KILL, "pooling": POOLING},
        "figures": total.to_dict(), "notes": list(notes),
        "suites": [_suite(s) for s in suites],
    }


def ok(suites: list[SuiteResult]) -> bool:
    """No suite gate failed and every task passed, tasks already in quarantine aside."""
    return all(not s.failures and all(t.passed or t.quarantined for t in s.tasks) for s in suites)


def failing(suites: list[SuiteResult]) -> dict[str, str]:
    """Task id -> the first gate it failed (what the quarantine file records)."""
    out = {}
    for s in suites:
        for t in s.tasks:
            if t.failures:
                f = t.failures[0]
                out[t.task.id] = f"{f.gate}: {f.run}: {f.evidence}"[:300]
    return out


def write(report: dict, folder: Path) -> tuple[Path, Path]:
    folder.mkdir(parents=True, exist_ok=True)
    data, table = folder / "tasks-check.json", folder / "tasks-check.md"
    data.write_text(json.dumps(report, indent=1, default=str))
    table.write_text(markdown(report))
    return data, table


def markdown(report: dict) -> str:
    fig = report["figures"]
    lines = [f"# Task check: {report['passed']}/{report['tasks']} tasks and {report['suites_passed']}/"
             f"{len(report['suites'])} suites pass, {report['runs']} runs "
             f"in {report['seconds']} s ({report['cpu_seconds']} s CPU)", "",
             f"Overall: false positives {_fmt(fig['false_positive'])}; false negatives {_fmt(fig['false_negative'])}.",
             f"Gates: {report['gates']['pooling']}.", ""]
    lines += [f"- {n}" for n in report["notes"]]
    lines += ["", "| suite | tasks | failing | wrong runs | FP (upper 95%) | right runs | FN (upper 95%) | top-up | gate |",
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for s in report["suites"]:
        fp, fn = s["figures"]["false_positive"], s["figures"]["false_negative"]
        lines.append(f"| {s['suite']} | {len(s['tasks'])} | {sum(not t['passed'] for t in s['tasks'])} | {fp['runs']} | "
                     f"{_pct(fp)} | {fn['runs']} | {_pct(fn)} | +{s['top_up']['right']} right, +{s['top_up']['wrong']} "
                     f"wrong | {'pass' if not s['failures'] else 'FAIL'} |")
    lines += ["", "| task | runs | mutants (equivalent) | FP (upper 95%) | FN (upper 95%) | s | flags | result |",
              "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for s in report["suites"]:
        for t in s["tasks"]:
            fp, fn = t["figures"]["false_positive"], t["figures"]["false_negative"]
            lines.append(f"| {t['id']} | {t['runs']} | {t['mutants']['total']} ({t['mutants']['equivalent']}) | "
                         f"{_pct(fp)} | {_pct(fn)} | {t['seconds']} | {', '.join(t['flags'])} | "
                         f"{'pass' if t['passed'] else 'FAIL'}{' (quarantined)' if t['quarantined'] else ''} |")
    problems = [(s["suite"], f) for s in report["suites"] for f in s["failures"]]
    for s in report["suites"]:
        for t in s["tasks"]:
            problems += [(t["id"], f) for f in t["failures"][:SHOWN]]
            if len(t["failures"]) > SHOWN:
                more = {"gate": "…", "run": f"{len(t['failures']) - SHOWN} more", "evidence": "see the JSON report"}
                problems.append((t["id"], more))
    if problems:
        lines += ["", "## Failures", ""]
        lines += [f"- **{who}** · {f['gate']} · {f['run']}: {f['evidence'][:600]}" for who, f in problems]
    return "\n".join(lines) + "\n"


def _suite(s: SuiteResult) -> dict:
    return {"suite": s.suite, "figures": s.figures.to_dict(), "failures": [f.to_dict() for f in s.failures],
            "top_up": s.top_up, "tasks": [_task(t) for t in s.tasks]}


def _task(t: TaskResult) -> dict:
    mutants = [o for o in t.outcomes if o.attempt.gate == "mutant"]
    return {"id": t.task.id, "version": t.task.version, "passed": t.passed, "quarantined": t.quarantined,
            "flags": t.flags,
            "seconds": round(t.seconds, 2), "runs": len(t.outcomes), "figures": t.figures.to_dict(),
            "mutants": {"total": len(mutants), "equivalent": sum(o.equivalent for o in mutants),
                        "caught": sum(not o.passed for o in mutants if not o.equivalent)},
            "failures": [f.to_dict() for f in t.failures], "details": [o.brief() for o in t.outcomes]}


def _pct(rate: dict) -> str:
    return "n/a" if rate["rate"] is None else f"{rate['rate']:.1%} ({rate['upper95']:.1%})"


def _fmt(rate: dict) -> str:
    return f"{rate['errors']}/{rate['runs']} = {_pct(rate)}"
