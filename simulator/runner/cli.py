"""``officeworld run``: a suite's tasks, K rollouts each, against an OpenAI-compatible model (or the
scripted oracle policy), in this process or over Ray actors (``--ray``)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
from collections.abc import Callable, Iterator
from datetime import datetime, timezone
from pathlib import Path

import typer

from simulator.runner import options


def run_command(
        model: str = typer.Option(None, "--model", help="The policy's OpenAI-compatible server (http://host:port/v1)"),
        scripted: bool = typer.Option(False, "--scripted", help="Instead of a model: replay each task's oracle, "
                                      "leaving a step out by a seeded chance (smoke runs, tests)"),
        slip: float = typer.Option(0.3, min=0.0, max=1.0, help="With --scripted: the chance a rollout goes wrong"),
        seed: int = typer.Option(0, help="With --scripted: which rollouts go wrong"),
        ray: str = typer.Option(None, "--ray", metavar="ADDRESS", help="Run over Ray actors: 'local' starts Ray here, "
                                "'auto' joins this machine's cluster, or a head address (ray://host:10001)"),
        actors: int = typer.Option(2, min=1, help="With --ray: world server actors"),
        suite: str = typer.Option(None, help="Run this suite's tasks"),
        task: list[str] = typer.Option([], "--task", help="Run this task (repeatable; with or instead of --suite)"),
        k: int = typer.Option(8, "--k", min=1, help="Rollouts per task"),
        concurrency: int = options.CONCURRENCY,
        max_turns: int = options.MAX_TURNS,
        model_name: str = options.MODEL_NAME,
        api_key: str = options.API_KEY,
        timeout: float = options.TIMEOUT,
        retries: int = options.RETRIES,
        backoff: float = options.BACKOFF,
        toolset: options.Toolset = options.TOOLSET,
        observation: options.Observation = options.OBSERVATION,
        temperature: float = typer.Option(None, help="Sampling temperature (the server's default when absent)"),
        out: Path = typer.Option(Path("runs/latest"), help="Folder for results.json, rollouts.jsonl and trajectories/"),
        name: str = typer.Option(None, help="The run's name (default: the output folder's); same name resumes"),
        server: str = options.SERVER,
        token: str = options.TOKEN,
        trajectories: Path = typer.Option(None, help="Where the server writes trajectory files (for resume; "
                                          "default OUT/trajectories with the in-process server)")) -> None:
    """K rollouts per task in parallel; a results table and JSON (reward mean, pass@1, pass@k, pass^k, learnable)."""
    from simulator.runner.model import Model
    from simulator.runner.run import RunSettings
    from simulator.runner.scripted import OraclePolicy

    if scripted == (model is not None):
        raise typer.BadParameter("give the policy: --model URL or --scripted (one of them)", param_hint="--model")
    settings = RunSettings(name=name or out.resolve().name, k=k, concurrency=concurrency, max_turns=max_turns,
                           toolset=toolset.value, observation=observation.value if observation else None)
    policy = OraclePolicy(slip=slip, seed=seed) if scripted else Model(
        url=model, name=model_name, api_key=api_key, timeout=timeout, temperature=temperature,
        retries=retries, backoff=backoff)
    if ray is not None:
        result = _run_on_ray(ray, actors, policy, settings, suite, task, out, server, token, trajectories)
    else:
        with _server(server, token, out, trajectories) as (base, secret, folder):
            result = asyncio.run(_run(base, secret, folder, policy, settings, suite, task, out))
    (out / "results.json").write_text(json.dumps(result, indent=1))
    _print_table(result)
    typer.echo(f"results: {out / 'results.json'}", err=True)


@contextlib.contextmanager
def _server(url: str | None, token: str | None, out: Path, trajectories: Path | None):
    if url is not None:
        yield url.rstrip("/"), token, trajectories
        return
    from simulator.gateway.server import build_app
    from simulator.service.serve import serve_in_thread
    from simulator.store.episodes import EpisodeStore

    folder = trajectories or out / "trajectories"
    secret = "ow_" + secrets.token_urlsafe(16)
    with serve_in_thread(build_app(EpisodeStore(trajectory_dir=folder), token=secret)) as base:
        yield base, secret, folder


async def _run(base, token, folder, policy, settings, suite, tasks, out: Path) -> dict:
    from simulator.gateway.client import AsyncClient
    from simulator.runner.run import report, run_rollouts

    async with AsyncClient(base, token, max_connections=settings.concurrency * 2) as ow:
        chosen = list(tasks) + ([t["id"] for t in await ow.tasks(suite=suite)] if suite else [])
        if not chosen:
            raise typer.BadParameter("no task: give --suite NAME (with tasks) or --task ID", param_hint="--suite")
        with _progress(f"{settings.name}: {len(chosen)} task(s) x {settings.k}") as progress:
            results = await run_rollouts(ow, policy, chosen, settings, out, folder, progress)
    return report(results, settings, {**policy.describe(), "suite": suite,
                                      "finished_at": datetime.now(timezone.utc).isoformat()})


def _run_on_ray(address, actors, policy, settings, suite, tasks, out: Path, server, token, trajectories) -> dict:
    from simulator.runner.distributed import run_on_ray, suite_tasks
    from simulator.runner.run import report

    try:
        import ray  # noqa: F401
    except ImportError:
        raise typer.BadParameter("needs Ray: pip install 'officeworld[ray]'", param_hint="--ray") from None
    if server is None:
        try:
            chosen = suite_tasks(suite, tasks)
        except ValueError as exc:
            raise typer.BadParameter(str(exc), param_hint="--task") from None
    else:
        from simulator.gateway.client import Client

        with Client(server, token) as ow:
            chosen = list(tasks) + ([t["id"] for t in ow.tasks(suite=suite)] if suite else [])
    if not chosen:
        raise typer.BadParameter("no task: give --suite NAME (with tasks) or --task ID", param_hint="--suite")
    with _progress(f"{settings.name}: {len(chosen)} task(s) x {settings.k} on {actors} Ray actor(s)") as progress:
        gathered = run_on_ray(policy, chosen, settings, out, actors=actors, server=server, token=token,
                              trajectories=trajectories, progress=progress,
                              address=None if address == "local" else address)
    ray_info = {"address": address, "actors": actors, "retried": gathered.retried, "replaced": gathered.replaced,
                "nodes": len(set(gathered.nodes.values())),
                "placement": {name: {"node": gathered.nodes.get(name), "rollouts": count}
                              for name, count in sorted(gathered.served.items())},
                "rollouts_per_second": round(gathered.ran / gathered.seconds, 2) if gathered.seconds else None}
    return report(gathered.results, settings, {**policy.describe(), "suite": suite, "ray": ray_info,
                                               "finished_at": datetime.now(timezone.utc).isoformat()})


def _print_table(result: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    from simulator.runner.tables import print_whole

    k = result["k"]
    keys = ["reward_mean", "pass@1", f"pass@{k}", f"pass^{k}"]
    table = Table("task", "passed", *keys, "class", title=f"run {result['run']} (k={k})")
    for task_id, m in result["tasks"].items():
        table.add_row(task_id, f"{m['passed']}/{m['samples']}", *(f"{m[key]:.2f}" for key in keys), m["class"])
    s = result["suite"]
    table.add_row("suite", f"{s['tasks']} task(s)", *(f"{s[key]:.2f}" for key in keys), "", style="bold")
    print_whole(table)
    if result.get("security"):
        sec = result["security"]
        figures = {"utility": sec["utility"], "utility under attack": sec["utility_under_attack"],
                   "attack success rate": sec["attack_success_rate"]}
        Console().print(f"security ({sec['pairs']} task/attack pairs): "
                        + ", ".join(f"{k} {'-' if v is None else f'{v:.2f}'}" for k, v in figures.items()))
    if result["failures"]:
        Console().print("failures: " + ", ".join(f"{why} {n}" for why, n in sorted(result["failures"].items())))
    if result.get("infrastructure"):
        Console().print("not scored, lost to the infrastructure (a resumed run retries them): "
                        + ", ".join(f"{why} {n}" for why, n in sorted(result["infrastructure"].items())))


@contextlib.contextmanager
def _progress(label: str) -> Iterator[Callable[[int, int | None], None]]:
    """A progress bar for a run: yields ``progress(advance, total)``, which the runner calls as rollouts end."""
    from rich.progress import Progress

    with Progress(transient=False) as bar:
        job = bar.add_task(label, total=None)

        def progress(advance: int, total: int | None) -> None:
            if total is not None:
                bar.update(job, total=total)
            bar.advance(job, advance)
        yield progress
