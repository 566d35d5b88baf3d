"""``officeworld learnability``: which tasks are worth training a policy on.

K rollouts per task with the agent runner (``run_rollouts``, unchanged), then each task classed by the
spread of its rewards (``metrics.task_class``), with pass@1 and pass@k beside it. A task whose k
rewards are all equal gives a group-relative trainer nothing to compare: every advantage is zero, the
policy cannot learn from it yet (``never``), or it is already solved (``always``, every sample passed).
Rewards that differ, partial credit included ([0.25, 0, 0, 0]), are where the gradient is. Written as
a table, ``learnability.json`` and ``learnability.png`` (pass@1 against pass@k, one point per task).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import typer

from simulator.runner import options

FLAGS = {"never": "cannot learn (equal rewards)", "always": "already solved (k of k)", "learnable": "train on"}
COLOURS = {"never": "#c0392b", "always": "#7f8c8d", "learnable": "#27ae60"}


def learnability(result: dict) -> dict:
    """The runner's report reduced to a verdict per task, and the three lists."""
    k = result["k"]
    tasks = {t: {"passed": m["passed"], "samples": m["samples"], "pass@1": m["pass@1"], f"pass@{k}": m[f"pass@{k}"],
                 "reward_mean": m["reward_mean"], "reward_spread": m["reward_spread"], "flag": m["class"],
                 "verdict": FLAGS[m["class"]]}
             for t, m in result["tasks"].items()}
    return {"run": result["run"], "k": k, "suite": result.get("suite_name"), "tasks": tasks,
            "pass@1": result["suite"]["pass@1"], f"pass@{k}": result["suite"][f"pass@{k}"],
            "train_on": [t for t, m in tasks.items() if m["flag"] == "learnable"],
            "cannot_learn": [t for t, m in tasks.items() if m["flag"] == "never"],
            "already_solved": [t for t, m in tasks.items() if m["flag"] == "always"],
            "failures": result["failures"], "infrastructure": result.get("infrastructure", {})}


def plot(summary: dict, path: Path) -> None:
    """pass@1 (x) against pass@k (y), a point per task coloured by its flag."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    k = summary["k"]
    fig, ax = plt.subplots(figsize=(6.4, 4.8), dpi=110)
    for flag, colour in COLOURS.items():
        points = [(m["pass@1"], m[f"pass@{k}"], t) for t, m in summary["tasks"].items() if m["flag"] == flag]
        if points:
            ax.scatter([p[0] for p in points], [p[1] for p in points], color=colour, label=FLAGS[flag], zorder=2)
        for x, y, task in points:
            ax.annotate(task, (x, y), fontsize=6, xytext=(3, 3), textcoords="offset points")
    ax.set(xlabel="pass@1", ylabel=f"pass@{k}", xlim=(-0.05, 1.05), ylim=(-0.05, 1.1),
           title=f"learnability of {summary['suite'] or 'the tasks'} (k={k})")
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def learnability_command(
        model: str = typer.Option(..., "--model", help="The policy's OpenAI-compatible server (http://host:port/v1)"),
        suite: str = typer.Option(None, help="Judge this suite's tasks"),
        task: list[str] = typer.Option([], "--task", help="Judge this task (repeatable; with or instead of --suite)"),
        k: int = typer.Option(16, "--k", min=2, help="Rollouts per task"),
        concurrency: int = options.CONCURRENCY,
        max_turns: int = options.MAX_TURNS,
        model_name: str = options.MODEL_NAME,
        api_key: str = options.API_KEY,
        timeout: float = options.TIMEOUT,
        retries: int = options.RETRIES,
        backoff: float = options.BACKOFF,
        toolset: options.Toolset = options.TOOLSET,
        temperature: float = typer.Option(1.0, help="Sampling temperature (spread between samples is the point)"),
        out: Path = typer.Option(Path("runs/learnability"), help="Folder for learnability.json/.png and the run's files"),
        server: str = options.SERVER,
        token: str = options.TOKEN) -> None:
    """pass@1 against pass@k per task: the tasks a policy cannot learn from, those it solves, the band to train on."""
    from simulator.runner.cli import _run, _server
    from simulator.runner.model import Model
    from simulator.runner.run import RunSettings

    settings = RunSettings(name=out.resolve().name, k=k, concurrency=concurrency, max_turns=max_turns,
                           toolset=toolset.value)
    policy = Model(url=model, name=model_name, api_key=api_key, timeout=timeout, temperature=temperature,
                   retries=retries, backoff=backoff)
    with _server(server, token, out, None) as (base, secret, folder):
        result = asyncio.run(_run(base, secret, folder, policy, settings, suite, task, out))
    summary = learnability({**result, "suite_name": suite})
    (out / "results.json").write_text(json.dumps(result, indent=1))
    (out / "learnability.json").write_text(json.dumps(summary, indent=1))
    plot(summary, out / "learnability.png")
    _print(summary)
    typer.echo(f"table: {out / 'learnability.json'}  plot: {out / 'learnability.png'}", err=True)


def _print(summary: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    from simulator.runner.tables import print_whole

    k = summary["k"]
    table = Table("task", "passed", "pass@1", f"pass@{k}", "spread", "verdict", title=f"learnability (k={k})")
    order = {"learnable": 0, "never": 1, "always": 2}
    for task_id, m in sorted(summary["tasks"].items(), key=lambda item: (order[item[1]["flag"]], item[0])):
        table.add_row(task_id, f"{m['passed']}/{m['samples']}", f"{m['pass@1']:.2f}", f"{m[f'pass@{k}']:.2f}",
                      f"{m['reward_spread']:.2f}", m["verdict"], style="green" if m["flag"] == "learnable" else None)
    print_whole(table)
    console = Console()
    console.print(f"train on {len(summary['train_on'])}, cannot learn {len(summary['cannot_learn'])}, "
                  f"already solved {len(summary['already_solved'])}")
    if summary["failures"]:
        console.print("failures: " + ", ".join(f"{why} {n}" for why, n in sorted(summary["failures"].items())))
    if summary["infrastructure"]:
        console.print("not scored, lost to the infrastructure: "
                      + ", ".join(f"{why} {n}" for why, n in sorted(summary["infrastructure"].items())))
