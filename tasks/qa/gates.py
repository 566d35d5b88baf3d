"""The gates a task's runs must meet, and its figures (false positives and false negatives).

Per task: the oracle passes three times with the same breakdown; every other piece of right work
passes (through every surface, with the same reward); doing nothing, only reading and claiming
success score 0; the random agent and every hack stay below the pass mark; every non-equivalent
dropped step and wrong target fails, and at least 95% of the other non-equivalent mutants do. Where the task
asks for a perception, the oracle's scores 1 and every wrong description (``tasks.qa.perceiving``) scores 0.
Per suite (``suite_gates``): the 95% Wilson upper bound of the pooled false-positive rate is at
most 2% and of the false-negative rate at most 5%; a single task rarely has the ~190 wrong runs a
2% bound needs, so per task the rule is the stricter "no strict wrong run passed".
"""

from __future__ import annotations

from dataclasses import dataclass

from tasks.qa.attempt import Outcome
from tasks.qa.stats import wilson_upper

FP_BOUND, FN_BOUND, MUTANT_KILL = 0.02, 0.05, 0.95


@dataclass
class Failure:
    gate: str
    run: str
    evidence: str

    def to_dict(self) -> dict:
        return {"gate": self.gate, "run": self.run, "evidence": self.evidence}


@dataclass
class Figures:
    wrong: int = 0
    wrong_passed: int = 0
    right: int = 0
    right_failed: int = 0

    def add(self, other: "Figures") -> None:
        self.wrong += other.wrong
        self.wrong_passed += other.wrong_passed
        self.right += other.right
        self.right_failed += other.right_failed

    def to_dict(self) -> dict:
        return {"false_positive": _rate(self.wrong_passed, self.wrong),
                "false_negative": _rate(self.right_failed, self.right)}


def figures(outcomes: list[Outcome]) -> Figures:
    counted = [o for o in outcomes if o.counts]
    wrong = [o for o in counted if not o.attempt.right]
    right = [o for o in counted if o.attempt.right]
    return Figures(len(wrong), sum(o.passed for o in wrong), len(right), sum(not o.passed for o in right))


def task_gates(outcomes: list[Outcome]) -> tuple[list[Failure], list[str]]:
    """(failures, flags) of one task's runs."""
    failures, flags = [], []
    for o in outcomes:
        failures += _run_failures(o)
    oracle = [o for o in outcomes if o.attempt.gate == "oracle" and not o.attempt.frozen]
    if len({tuple(sorted(o.breakdown.items())) for o in oracle}) > 1:
        failures.append(Failure("oracle", "oracle x3", f"breakdowns differ: {[o.breakdown for o in oracle]}"))
    reference = oracle[0] if oracle else None
    for o in outcomes:
        if o.attempt.gate == "surface" and reference is not None and o.total != reference.total:
            failures.append(Failure("surface", o.attempt.name, f"reward {o.total} through {o.attempt.surface}, "
                                                               f"{reference.total} in-process"))
    loose = [o for o in outcomes if o.attempt.gate == "mutant" and not o.attempt.strict and not o.equivalent]
    caught = sum(not o.passed for o in loose)
    if loose and caught / len(loose) < MUTANT_KILL:
        escaped = [o.attempt.name for o in loose if o.passed]
        failures.append(Failure("mutant", f"{len(escaped)} of {len(loose)} mutants passed",
                                f"under {MUTANT_KILL:.0%} caught; passed: {escaped[:5]}"))
    flags += sorted({"guessable" for o in outcomes if o.attempt.meta.get("guessable")})
    return failures, flags


def suite_gates(suite: str, fig: Figures) -> list[Failure]:
    out = []
    fp, fn = wilson_upper(fig.wrong_passed, fig.wrong), wilson_upper(fig.right_failed, fig.right)
    if fp > FP_BOUND:
        out.append(Failure("false_positive_bound", suite, f"{fig.wrong_passed}/{fig.wrong} wrong runs passed; "
                                                          f"95% upper bound {fp:.2%} > {FP_BOUND:.0%}"))
    if fn > FN_BOUND:
        out.append(Failure("false_negative_bound", suite, f"{fig.right_failed}/{fig.right} right runs failed; "
                                                          f"95% upper bound {fn:.2%} > {FN_BOUND:.0%}"))
    return out


def _run_failures(o: Outcome) -> list[Failure]:
    a = o.attempt
    if o.note.startswith("crash"):
        return [Failure(a.gate, a.name, o.note)]
    if not o.gradable:
        return [Failure(a.gate, a.name, f"ungradable: {o.note or o.failed}")]
    if a.meta.get("perception"):   # a wrong description: it must score 0 on perception, whatever its reward
        return [Failure(a.gate, a.name, f"perception scored {o.perception}, expected 0")] if o.perception != 0 else []
    if a.gate == "oracle" and o.perception not in (None, 1.0):
        return [Failure(a.gate, a.name, f"the oracle's description scored {o.perception} on perception, expected 1")]
    if a.right and not o.passed:
        return [Failure(a.gate, a.name, f"right work failed (total {o.total}); failed criteria {o.failed}; "
                                        f"step errors {o.step_errors[:2]}")]
    if a.gate == "oracle" and o.total != 1.0:
        return [Failure(a.gate, a.name, f"total {o.total}")]
    if a.gate in ("nothing", "read_only", "claims") and (o.total or 0) > 0 and not a.meta.get("guessable"):
        return [Failure(a.gate, a.name, f"scored {o.total}, expected 0; passing criteria are too easy "
                                        f"(failed only {o.failed})")]
    if not a.right and o.passed and not o.equivalent and not a.meta.get("guessable") and (a.strict or a.gate != "mutant"):
        return [Failure(a.gate, a.name, f"wrong work passed with {o.total}; calls {o.brief()['calls'][:4]}")]
    return []


def _rate(errors: int, n: int) -> dict:
    return {"runs": n, "errors": errors, "rate": round(errors / n, 4) if n else None,
            "upper95": round(wilson_upper(errors, n), 4)}

