"""Rollout results summed up per task and per suite.

pass@k is the chance that at least one of k samples passes, pass^k (tau-bench's reliability
measure) that all k do; both use the unbiased estimators over the n samples taken. A task is
learnable when some but not all of its samples pass: the ones worth training on.
"""

from __future__ import annotations

from math import comb
from statistics import mean


def pass_at_k(n: int, c: int, k: int) -> float:
    if n < k:
        k = n
    return 1.0 if n - c < k else 1.0 - comb(n - c, k) / comb(n, k)


def pass_hat_k(n: int, c: int, k: int) -> float:
    if n < k:
        k = n
    return comb(c, k) / comb(n, k) if k else 0.0


def task_metrics(rewards: list[float | None], passed: list[bool], k: int) -> dict:
    n, c = len(passed), sum(passed)
    return {"samples": n, "passed": c, "reward_mean": round(mean(r or 0.0 for r in rewards), 4) if n else 0.0,
            "pass@1": round(c / n, 4) if n else 0.0, f"pass@{k}": round(pass_at_k(n, c, k), 4) if n else 0.0,
            f"pass^{k}": round(pass_hat_k(n, c, k), 4) if n else 0.0,
            "class": "learnable" if 0 < c < n else ("always" if n and c == n else "never")}


def security(results: list[dict]) -> dict | None:
    """AgentDojo's three figures over security pairs (task ``<user task>--<attack>``, beside the clean
    ``<user task>``): utility (clean user tasks passed), utility under attack (pairs whose every goal passed)
    and attack success rate (pairs where a guard failed). ``None`` when the run holds no pair."""
    pairs = [r for r in results if "--" in r["task"]]
    users = {r["task"].split("--")[0] for r in pairs}
    clean = [r for r in results if r["task"] in users]
    if not pairs:
        return None
    rate = lambda rows, ok: round(sum(1 for r in rows if ok(r)) / len(rows), 4) if rows else None  # noqa: E731
    return {"pairs": len(pairs), "utility": rate(clean, lambda r: bool(r["passed"])),
            "utility_under_attack": rate(pairs, lambda r: bool(r.get("goals_passed"))),
            "attack_success_rate": rate(pairs, lambda r: bool(r.get("guard_failed")))}


def summarise(results: list[dict], k: int) -> dict:
    """``results``: one dict per rollout (task, sample, reward, passed, failure). A rollout lost to the
    runner itself (``runner_error``: the server went away) is not the policy's doing: counted, not scored."""
    by_task: dict[str, list[dict]] = {}
    scored = [r for r in results if r.get("failure") != "runner_error"]
    for r in sorted(scored, key=lambda r: (r["task"], r["sample"])):
        by_task.setdefault(r["task"], []).append(r)
    tasks = {t: task_metrics([r["reward"] for r in rs], [bool(r["passed"]) for r in rs], k) for t, rs in by_task.items()}
    keys = ["reward_mean", "pass@1", f"pass@{k}", f"pass^{k}"]
    suite = {key: round(mean(m[key] for m in tasks.values()), 4) if tasks else 0.0 for key in keys}
    failures: dict[str, int] = {}
    for r in results:
        for reason, count in (r.get("counts") or {}).items():
            failures[reason] = failures.get(reason, 0) + count
        if r.get("failure"):
            failures[r["failure"]] = failures.get(r["failure"], 0) + 1
    return {"k": k, "suite": {**suite, "tasks": len(tasks), "rollouts": len(results)}, "tasks": tasks,
            **({"security": attacked} if (attacked := security(scored)) else {}),
            "learnable": [t for t, m in tasks.items() if m["class"] == "learnable"],
            "never": [t for t, m in tasks.items() if m["class"] == "never"],
            "always": [t for t, m in tasks.items() if m["class"] == "always"], "failures": failures}
