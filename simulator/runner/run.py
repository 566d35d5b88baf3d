"""A suite's rollouts: K per task, in parallel under a bound, resumable, summed up.

Each rollout's episode keeps a trajectory file whose header carries ``meta`` {run, task, sample}.
A rollout counts as done when its file ends with the footer of a finish; starting the same run
again (same name, same trajectory folder) runs only the rollouts not done, so an interrupted run
resumes where it stopped. ``rollouts.jsonl`` in the output folder keeps each rollout's details.
``distributed.run_on_ray`` runs the same plan over Ray actors and writes the same files.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from pathlib import Path

from simulator.gateway.client import AsyncClient
from simulator.runner.metrics import infrastructure, summarise
from simulator.runner.model import model_http
from simulator.runner.policy import Policy
from simulator.runner.rollout import Rollout, rollout
from simulator.trajectories.files import TrajectoryFileError, files_in, read


@dataclass
class RunSettings:
    name: str
    k: int = 8
    concurrency: int = 8
    max_turns: int = 30
    toolset: str = "task"   # the tools the model is offered: the task's apps' (task) or every app's (all)
    observation: str | None = None   # with a browser: snapshot, pixels or marks (None: no browser)


def done_rollouts(folder: Path | None, run: str) -> dict[tuple[str, int], dict]:
    """The rollouts of ``run`` whose trajectory files are finished: (task, sample) -> result."""
    out: dict[tuple[str, int], dict] = {}
    for path in files_in(folder) if folder and folder.is_dir() else []:
        try:
            file = read(path)
        except (OSError, TrajectoryFileError):
            continue
        meta = file.header.meta
        task, sample = meta.get("task"), meta.get("sample")
        if meta.get("run") != run or file.footer is None or file.footer.reason != "finish" or \
                not isinstance(task, str) or not isinstance(sample, int):
            continue
        graded = file.footer.reward or {}
        out[task, sample] = {"task": task, "sample": sample, "episode": file.header.episode,
                             "reward": file.footer.total, "passed": bool(file.footer.passed), "failure": None,
                             "perception": graded.get("perception"), "evidence": graded.get("evidence"),
                             "resumed": True}
    return out


def plan(tasks: list[str], settings: RunSettings, out_dir: Path,
         trajectories: Path | None) -> tuple[list[dict], list[tuple[str, int]]]:
    """The results of the rollouts already done (resumed), and the (task, sample) still to run."""
    out_dir.mkdir(parents=True, exist_ok=True)
    previous = done_rollouts(trajectories, settings.name)
    details = _details(out_dir / "rollouts.jsonl", settings.name)
    results = [details.get(key, value) for key, value in previous.items() if key[0] in tasks and key[1] < settings.k]
    return results, [(t, s) for t in tasks for s in range(settings.k) if (t, s) not in previous]


def log_result(log, settings: RunSettings, result: dict) -> None:
    log.write(json.dumps({"run": settings.name, **result}) + "\n")
    log.flush()


async def run_rollouts(ow: AsyncClient, model: Policy, tasks: list[str], settings: RunSettings,
                       out_dir: Path, trajectories: Path | None, progress=None) -> list[dict]:
    """Every (task, sample) not yet done, run under the concurrency bound; returns all results.
    ``model`` is any ``Policy`` (an OpenAI-compatible ``Model``, a scripted one)."""
    results, todo = plan(tasks, settings, out_dir, trajectories)
    if progress is not None:
        progress(len(results), len(results) + len(todo))
    gate = asyncio.Semaphore(settings.concurrency)
    log = (out_dir / "rollouts.jsonl").open("a", encoding="utf-8")
    async with model_http(settings.concurrency * 2) as http:
        async def one(task: str, sample: int) -> dict:
            async with gate:
                result = await guarded(ow, http, model, task, sample, settings)
            log_result(log, settings, result)
            if progress is not None:
                progress(1, None)
            return result
        results += await asyncio.gather(*(one(t, s) for t, s in todo))
    log.close()
    return results


async def guarded(ow, http, policy: Policy, task, sample, settings: RunSettings) -> dict:
    """A rollout; a failure of the control plane itself (not the policy's doing) is reported, not raised."""
    try:
        result = await rollout(ow, http, policy, task, sample, settings.max_turns, meta={"run": settings.name},
                               toolset=settings.toolset, observation=settings.observation)
        return result.as_dict()
    except Exception as exc:  # the server went away, a task could not start: this rollout is lost, not the run
        return {**Rollout(task, sample).as_dict(), "failure": "runner_error", "detail": f"{type(exc).__name__}: {exc}"[:300]}


def _details(path: Path, run: str) -> dict[tuple[str, int], dict]:
    out = {}
    if path.is_file():
        for line in path.read_text(encoding="utf-8").splitlines():
            try:
                record = json.loads(line)
            except json.JSONDecodeError:
                continue
            if record.pop("run", None) == run and not infrastructure(record):
                out[(record["task"], record["sample"])] = {**record, "resumed": True}
    return out


def report(results: list[dict], settings: RunSettings, extra: dict) -> dict:
    return {"run": settings.name, **extra, **summarise(results, settings.k),
            "rollouts": sorted(results, key=lambda r: (r["task"], r["sample"]))}
